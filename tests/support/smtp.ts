/**
 * A real SMTP receiver for tests (smtp-server on 127.0.0.1 and a free port). It captures every message, decodes the
 * MIME parts nodemailer produces (multipart/alternative, quoted-printable or base64) and extracts the links, so tests
 * can follow the link of a verification, reset or invitation mail.
 *
 *   const smtp = await startSmtpCapture()
 *   // server configured with SMTP_URL = smtp.url
 *   const mail = await smtp.waitForMail((m) => m.to.includes("ada@example.com") && m.subject.includes("Verify"))
 *   const link = mail.links[0]
 *   await smtp.close()
 *
 * `stop()` / `start()` take the server down and bring it back on the same port (delivery retries). Recipients at the
 * domain `bounce.invalid` are refused with a permanent 550 reply (as for a mailbox that does not exist).
 */
import type { AddressInfo } from "node:net"
import { SMTPServer } from "smtp-server"

export interface CapturedMail {
  readonly from: string
  readonly to: ReadonlyArray<string>
  readonly subject: string
  readonly text: string
  readonly html: string
  /** Every http(s) link found in the text part (or the HTML part when there is no text part), in order. */
  readonly links: ReadonlyArray<string>
  readonly raw: string
  readonly receivedAt: number
}

export interface SmtpCapture {
  /** `smtp://127.0.0.1:<port>` (no TLS, no auth): what SMTP_URL should be set to. */
  readonly url: string
  readonly port: number
  readonly mails: ReadonlyArray<CapturedMail>
  /** Resolves with the first (already received or future) mail matching `predicate`; rejects after `timeoutMs`. */
  waitForMail(predicate: (mail: CapturedMail) => boolean, timeoutMs?: number): Promise<CapturedMail>
  /** Mails sent to `address` (case-insensitive). */
  mailsTo(address: string): ReadonlyArray<CapturedMail>
  clear(): void
  /** Stops listening (connections are refused, as with an SMTP server that is down); `start` listens again. */
  stop(): Promise<void>
  /** Listens again on the same port, keeping the mails received so far. */
  start(): Promise<void>
  close(): Promise<void>
}

// ---------------------------------------------------------------------------------------------------
// Minimal MIME decoding (enough for nodemailer's output).

const splitHeaderBody = (raw: string): { headers: Map<string, string>; body: string } => {
  const idx = raw.search(/\r?\n\r?\n/)
  const head = idx === -1 ? raw : raw.slice(0, idx)
  const body = idx === -1 ? "" : raw.slice(idx).replace(/^\r?\n\r?\n/, "")
  const headers = new Map<string, string>()
  let current: string | undefined
  for (const line of head.split(/\r?\n/)) {
    if (/^[ \t]/.test(line) && current !== undefined) {
      headers.set(current, `${headers.get(current) ?? ""} ${line.trim()}`)
      continue
    }
    const colon = line.indexOf(":")
    if (colon <= 0) continue
    current = line.slice(0, colon).trim().toLowerCase()
    headers.set(current, line.slice(colon + 1).trim())
  }
  return { headers, body }
}

const decodeQuotedPrintable = (s: string): string => {
  const bytes: Array<number> = []
  const soft = s.replace(/=\r?\n/g, "")
  for (let i = 0; i < soft.length; i++) {
    const c = soft[i]!
    if (c === "=" && /^[0-9A-Fa-f]{2}$/.test(soft.slice(i + 1, i + 3))) {
      bytes.push(parseInt(soft.slice(i + 1, i + 3), 16))
      i += 2
    } else {
      for (const b of Buffer.from(c, "utf8")) bytes.push(b)
    }
  }
  return Buffer.from(bytes).toString("utf8")
}

const decodeBody = (body: string, encoding: string | undefined): string => {
  switch ((encoding ?? "").toLowerCase()) {
    case "base64":
      return Buffer.from(body.replace(/\s+/g, ""), "base64").toString("utf8")
    case "quoted-printable":
      return decodeQuotedPrintable(body)
    default:
      return body
  }
}

/** RFC 2047 encoded words (=?UTF-8?Q?...?= / =?UTF-8?B?...?=). */
const decodeHeaderWords = (value: string): string =>
  value.replace(/=\?([^?]+)\?([QqBb])\?([^?]*)\?=\s*/g, (_m, _charset: string, kind: string, text: string) =>
    kind.toUpperCase() === "B"
      ? Buffer.from(text, "base64").toString("utf8")
      : decodeQuotedPrintable(text.replace(/_/g, " ")))

const collectParts = (raw: string, out: { text: string; html: string }): void => {
  const { headers, body } = splitHeaderBody(raw)
  const type = (headers.get("content-type") ?? "text/plain").toLowerCase()
  const boundary = /boundary="?([^";]+)"?/i.exec(headers.get("content-type") ?? "")?.[1]
  if (type.startsWith("multipart/") && boundary !== undefined) {
    const sections = body.split(`--${boundary}`)
    for (const section of sections.slice(1)) {
      if (section.startsWith("--")) break
      collectParts(section.replace(/^\r?\n/, ""), out)
    }
    return
  }
  const decoded = decodeBody(body, headers.get("content-transfer-encoding"))
  if (type.startsWith("text/html")) out.html += decoded
  else if (type.startsWith("text/plain")) out.text += decoded
}

const decodeHtmlEntities = (s: string): string =>
  s.replace(/&amp;/g, "&").replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&quot;/g, "\"").replace(/&#39;/g, "'")

export const parseMail = (raw: string, envelope: { from: string; to: ReadonlyArray<string> }): CapturedMail => {
  const { headers } = splitHeaderBody(raw)
  const parts = { text: "", html: "" }
  collectParts(raw, parts)
  const source = parts.text !== "" ? parts.text : decodeHtmlEntities(parts.html)
  const links = [...new Set(source.match(/https?:\/\/[^\s"'<>)]+/g) ?? [])]
  return {
    from: envelope.from,
    to: envelope.to,
    subject: decodeHeaderWords(headers.get("subject") ?? ""),
    text: parts.text,
    html: parts.html,
    links,
    raw,
    receivedAt: Date.now(),
  }
}

// ---------------------------------------------------------------------------------------------------

export const startSmtpCapture = async (): Promise<SmtpCapture> => {
  const mails: Array<CapturedMail> = []
  const waiters = new Set<{ predicate: (m: CapturedMail) => boolean; resolve: (m: CapturedMail) => void }>()

  const makeServer = () => new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS", "AUTH"],
    logger: false,
    size: 10 * 1024 * 1024,
    onRcptTo(address, _session, callback) {
      if (address.address.toLowerCase().endsWith("@bounce.invalid")) {
        callback(Object.assign(new Error("5.1.1 No such user here"), { responseCode: 550 }))
        return
      }
      callback()
    },
    onData(stream, session, callback) {
      const chunks: Array<Buffer> = []
      stream.on("data", (c: Buffer) => chunks.push(c))
      stream.on("error", (e) => callback(e))
      stream.on("end", () => {
        const from = session.envelope.mailFrom === false ? "" : session.envelope.mailFrom.address
        const to = session.envelope.rcptTo.map((r) => r.address.toLowerCase())
        const mail = parseMail(Buffer.concat(chunks).toString("utf8"), { from, to })
        mails.push(mail)
        for (const w of [...waiters]) {
          if (w.predicate(mail)) {
            waiters.delete(w)
            w.resolve(mail)
          }
        }
        callback()
      })
    },
  })
  const listen = (server: SMTPServer, port: number) =>
    new Promise<void>((resolve, reject) => {
      server.once("error", reject)
      server.listen(port, "127.0.0.1", () => resolve())
    })
  let server: SMTPServer | undefined = makeServer()
  await listen(server, 0)
  const port = ((server as unknown as { server: { address(): AddressInfo } }).server.address()).port
  const stop = async () => {
    const running = server
    server = undefined
    if (running !== undefined) await new Promise<void>((resolve) => running.close(() => resolve()))
  }

  return {
    url: `smtp://127.0.0.1:${port}`,
    port,
    get mails() {
      return mails
    },
    waitForMail(predicate, timeoutMs = 10_000) {
      const found = mails.find(predicate)
      if (found !== undefined) return Promise.resolve(found)
      return new Promise<CapturedMail>((resolve, reject) => {
        const waiter = {
          predicate,
          resolve: (m: CapturedMail) => {
            clearTimeout(timer)
            resolve(m)
          },
        }
        const timer = setTimeout(() => {
          waiters.delete(waiter)
          reject(new Error(`no matching mail within ${timeoutMs} ms (received: ${mails.map((m) => `${m.to.join(",")}: ${m.subject}`).join(" | ") || "none"})`))
        }, timeoutMs)
        waiters.add(waiter)
      })
    },
    mailsTo(address) {
      const a = address.toLowerCase()
      return mails.filter((m) => m.to.includes(a))
    },
    clear() {
      mails.length = 0
    },
    stop,
    async start() {
      if (server !== undefined) return
      const next = makeServer()
      await listen(next, port)
      server = next
    },
    close: stop,
  }
}
