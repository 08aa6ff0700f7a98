/** Account inventory (global): the security alternate contact and the primary contact information. */
import { GetAlternateContactCommand, GetContactInformationCommand } from "@aws-sdk/client-account"
import type { CollectContext } from "../context.ts"

export const accountResourceTypes = ["account.security_contact", "account.contact_information"] as const

export interface AccountInventory {
  readonly securityContact: { readonly name: string; readonly email: string; readonly phone: string } | null | undefined
  readonly contactInformation: { readonly fullName: string; readonly phone: string; readonly country: string } | null | undefined
}

export async function collectAccount(ctx: CollectContext): Promise<AccountInventory> {
  const account = ctx.clients.get("account", ctx.homeRegion)
  const [security, contact] = await Promise.all([
    ctx.wants("account.security_contact")
      ? ctx.optional({ type: "account.security_contact", region: "global", op: "account:GetAlternateContact" }, ["ResourceNotFoundException"], (o) =>
          account.send(new GetAlternateContactCommand({ AlternateContactType: "SECURITY" }), o),
        )
      : Promise.resolve(undefined),
    ctx.wants("account.contact_information")
      ? ctx.optional({ type: "account.contact_information", region: "global", op: "account:GetContactInformation" }, ["ResourceNotFoundException"], (o) =>
          account.send(new GetContactInformationCommand({}), o),
        )
      : Promise.resolve(undefined),
  ])
  const s = security?.AlternateContact
  const c = contact?.ContactInformation
  return {
    securityContact: security === undefined ? undefined : s === undefined ? null : { name: s.Name ?? "", email: s.EmailAddress ?? "", phone: s.PhoneNumber ?? "" },
    contactInformation: contact === undefined ? undefined : c === undefined ? null : { fullName: c.FullName ?? "", phone: c.PhoneNumber ?? "", country: c.CountryCode ?? "" },
  }
}
