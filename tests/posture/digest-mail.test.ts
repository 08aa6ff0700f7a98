/** The scan digest email carries its way out: a link to the profile's digest switch (sign-in required, no token). */
import { describe, expect, it } from "vitest"
import { digestOffLink, scanDigestMail } from "../../server/mail/templates.ts"

describe("scan digest email", () => {
  const mail = scanDigestMail({
    origin: "https://audit.example.com",
    to: "a@example.com",
    firstName: "Ada",
    workspaceName: "Acme",
    accountName: "Prod",
    scanId: 7,
    counts: [{ severity: "high", newFailing: 1, fixed: 0, stillFailing: 2 }],
    topNew: [],
  })

  it("links to turning the digest off, in the text, the HTML and the mail's links", () => {
    const off = digestOffLink("https://audit.example.com")
    expect(off).toBe("https://audit.example.com/dashboard/profile?digest=off")
    expect(mail.text).toContain(`Turn them off: ${off}`)
    expect(mail.html).toContain(`<a href="${off}"`)
    expect(mail.html).toContain("Turn off scan digests")
    expect(mail.links).toContain(off)
  })

  it("the link carries no secret: it opens a page behind sign-in", () => {
    expect(new URL(digestOffLink("https://audit.example.com")).searchParams.size).toBe(1)
  })
})
