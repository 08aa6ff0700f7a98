/** Account contact details (CIS AWS v3.0 1.1, 1.2 / v7.0 2.2, 2.3) and IAM Access Analyzer (CIS v3.0 1.20 / v7.0 2.18). */
import { defineCheck, row } from "../define-check.ts"

export const accountChecks = [
  defineCheck({
    id: "account_security_contact_information_is_registered",
    service: "account",
    title: "Security contact information should be registered",
    description: "Checks that the account has a SECURITY alternate contact, so AWS can reach the security team about incidents.",
    severity: "medium",
    cis: { v3: "1.2", v7: "2.3" },
    remediation: "aws account put-alternate-contact --alternate-contact-type SECURITY --name NAME --title TITLE --email-address EMAIL --phone-number PHONE.",
    field_labels: { contact_email: "Security contact email" },
    uses: ["account.security_contact"],
    testedWith: "moto",
    evaluate: (inv) => {
      const c = inv.account.securityContact
      if (c === undefined) return []
      return [row(inv.accountId, "global", c !== null, c !== null ? `Security contact ${c.name} <${c.email}> is registered.` : "No security contact is registered.", { contact_email: c?.email ?? null })]
    },
  }),
  defineCheck({
    id: "account_maintain_current_contact_details",
    service: "account",
    title: "Account contact details should be maintained",
    description: "Checks that the account's primary contact information (name and phone number) is filled in.",
    severity: "low",
    cis: { v3: "1.1", v7: "2.2" },
    remediation: "aws account put-contact-information --contact-information FullName=...,PhoneNumber=...,AddressLine1=...,City=...,PostalCode=...,CountryCode=...",
    field_labels: { full_name: "Contact name", phone: "Phone" },
    uses: ["account.contact_information"],
    testedWith: "sdk-mock",
    mockReason: "moto does not implement account:GetContactInformation (HTML 404).",
    evaluate: (inv) => {
      const c = inv.account.contactInformation
      if (c === undefined) return []
      const ok = c !== null && c.fullName !== "" && c.phone !== ""
      return [row(inv.accountId, "global", ok, ok ? `Primary contact ${c?.fullName} is registered.` : "The primary contact information is incomplete.", { full_name: c?.fullName ?? null, phone: c?.phone ?? null })]
    },
  }),
]

export const accessanalyzerChecks = [
  defineCheck({
    id: "accessanalyzer_enabled",
    service: "accessanalyzer",
    title: "IAM Access Analyzer should be enabled in all regions",
    description: "Checks, for each scanned region, that an active account or organization external access analyzer exists.",
    severity: "medium",
    cis: { v3: "1.20", v7: "2.18" },
    remediation: "aws accessanalyzer create-analyzer --analyzer-name account-analyzer --type ACCOUNT in every region.",
    field_labels: { analyzers: "Active analyzers" },
    uses: ["accessanalyzer.analyzers"],
    testedWith: "sdk-mock",
    mockReason: "moto has no IAM Access Analyzer backend (every call answers an HTML 500).",
    evaluate: (inv) =>
      inv.accessanalyzer.regions.flatMap((r) => {
        if (r.analyzers === undefined) return []
        const active = r.analyzers.filter((a) => a.status === "ACTIVE" && (a.type === "ACCOUNT" || a.type === "ORGANIZATION"))
        return [
          row(`${inv.accountId}/${r.region}`, r.region, active.length > 0, active.length > 0 ? `Access Analyzer ${active.map((a) => a.name).join(", ")} is active in ${r.region}.` : `No active external access analyzer in ${r.region}.`, {
            analyzers: active.map((a) => a.name),
          }),
        ]
      }),
  }),
]
