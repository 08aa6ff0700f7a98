/** Reads the mails the product sent (captured by the real SMTP server of the global setup). */
import { inject } from "vitest"
import type { CapturedMail } from "../../tests/support/smtp.ts"

export const waitForMail = async (
  predicate: (mail: CapturedMail) => boolean,
  timeoutMs = 20_000,
): Promise<CapturedMail> => {
  const url = inject("mailboxUrl")
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const mails = (await (await fetch(url)).json()) as ReadonlyArray<CapturedMail>
    const found = mails.find(predicate)
    if (found) return found
    if (Date.now() > deadline) throw new Error(`no matching mail within ${timeoutMs} ms (${mails.length} mails seen)`)
    await new Promise((r) => setTimeout(r, 200))
  }
}

/** The first link of a mail that points at the product (verification, reset, invitation). */
export const linkIn = (mail: CapturedMail, pathPart: string): string => {
  const link = mail.links.find((l) => l.includes(pathPart))
  if (!link) throw new Error(`mail "${mail.subject}" has no link containing ${pathPart}: ${mail.links.join(", ")}`)
  return link
}
