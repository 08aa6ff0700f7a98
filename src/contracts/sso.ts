/**
 * Single sign-on (issue 33 part 3; docs/sso.md): a workspace's identity provider (OpenID Connect with authorization
 * code + PKCE, or SAML 2.0), the email domains it owns, its group → role mappings and whether members must use it.
 * Shapes shared by the server (server/api/sso.ts, server/sso/*) and the SPA (sign-in page, /dashboard/settings/sso);
 * the messages are the texts both show.
 *
 * Calls: GET/PUT/DELETE /api/workspaces/{id}/sso (workspace admins), POST /api/sso/start (public: email → the
 * provider's sign-in URL), GET /api/sso/oidc/callback and POST /api/sso/saml/acs (the provider sends the browser
 * back: answered with a redirect to /login/sso), GET /api/sso/saml/{id}/metadata (our SP metadata),
 * POST /api/sso/exchange (the one-time code of /login/sso → the normal session).
 */
import { Schema } from "effect"
import { RoleId } from "./ids.ts"
import { NullableTimestamp, SecretString, withData } from "./common.ts"
import { Email } from "./validation.ts"
import { LoginResponse } from "./auth.ts"

export const SsoMessages = {
  loadFailed: "Failed to load single sign-on settings. Please try again.",
  saveFailed: "Failed to save single sign-on settings. Please try again.",
  saved: "Single sign-on settings saved",
  deleted: "Single sign-on removed",
  permissionDenied: "Only workspace admins can configure single sign-on",
  notConfigured: "Single sign-on is not set up for this workspace",
  noConnectionForDomain: "Single sign-on is not set up for this email domain. Sign in with your password instead.",
  ssoRequired: "Your organization requires single sign-on. Use \"Sign in with SSO\" with your work email.",
  domainInvalid: "Enter email domains like example.com",
  domainTaken: "This email domain is already used by another workspace's single sign-on",
  domainsRequired: "Add at least one email domain",
  issuerInvalid: "Enter the issuer URL of your identity provider (https://…)",
  clientIdRequired: "Enter the client ID",
  clientSecretRequired: "Enter the client secret",
  ssoUrlInvalid: "Enter the single sign-on URL of your identity provider (https://…)",
  entityIdRequired: "Enter the identity provider's entity ID",
  certificateInvalid: "Paste the identity provider's signing certificate (PEM)",
  certificateUnreadable: "This is not a valid X.509 certificate. Paste the identity provider's whole signing certificate (PEM)",
  groupRequired: "Enter a group name",
  roleUnknown: "Choose a role of this workspace",
  discoveryFailed: "Could not read the identity provider's configuration from its issuer URL",
  // Sign-in outcomes shown on /login/sso (the callback redirects with `error=<key>`).
  signInFailed: "Single sign-on failed. Please try again.",
  signInExpired: "This single sign-on attempt expired or was already used. Please start again.",
  emailNotVerified: "Your identity provider did not confirm your email address.",
  emailDomainMismatch: "Your email domain is not one this workspace's single sign-on owns.",
  providerRefused: "Your identity provider did not sign you in.",
  codeInvalid: "This sign-in link is invalid or expired. Please sign in again.",
} as const

/** Error keys the callback puts in `/login/sso?error=…`; the SPA shows `SsoMessages[key]`. */
export const SSO_ERROR_KEYS = ["signInFailed", "signInExpired", "emailNotVerified", "emailDomainMismatch", "providerRefused"] as const
export type SsoErrorKey = (typeof SSO_ERROR_KEYS)[number]
export const ssoErrorMessage = (key: string | null | undefined): string =>
  (SSO_ERROR_KEYS as ReadonlyArray<string>).includes(key ?? "") ? SsoMessages[key as SsoErrorKey] : SsoMessages.signInFailed

export const SSO_PROTOCOLS = ["oidc", "saml"] as const
export const SsoProtocol = Schema.Literals(SSO_PROTOCOLS)
export type SsoProtocol = typeof SsoProtocol.Type

const DOMAIN_RE = /^(?=.{3,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z][a-z0-9-]{0,62}$/
/** An email domain (lower case, at least one dot). */
export const EmailDomain = Schema.String.check(Schema.isPattern(DOMAIN_RE, { message: SsoMessages.domainInvalid }))
export const normalizeDomain = (value: string): string => value.trim().toLowerCase().replace(/^@/, "")

/**
 * A pasted PEM certificate in the form the SAML library reads: the base64 body between the markers with every space
 * and line break removed, wrapped at 64 characters on lines of its own. A single-line text field strips the line
 * breaks of a pasted certificate (browsers sanitize input values), and the library refuses such a one-line PEM, so
 * every sign-in would fail. Text that is not one base64 certificate is answered trimmed, unchanged.
 */
export const normalizeCertificatePem = (value: string): string => {
  const match = /^\s*-----BEGIN CERTIFICATE-----([\s\S]+?)-----END CERTIFICATE-----\s*$/.exec(value)
  const body = match?.[1]?.replace(/\s+/g, "") ?? ""
  if (body === "" || !/^[A-Za-z0-9+/]+={0,2}$/.test(body)) return value.trim()
  return ["-----BEGIN CERTIFICATE-----", ...(body.match(/.{1,64}/g) ?? []), "-----END CERTIFICATE-----"].join("\n")
}

const httpsUrl = (message: string) =>
  Schema.String.check(Schema.isMaxLength(2048, { message }), Schema.isPattern(/^https?:\/\/[^\s]+$/, { message }))
const required = (message: string, max = 2048) =>
  Schema.String.check(Schema.isMinLength(1, { message }), Schema.isMaxLength(max, { message }))
    .pipe(Schema.annotateKey({ messageMissingKey: message }))

/** One mapping: members in IdP group `group` get role `role_id` (built-in, or a custom role of the workspace). */
export const GroupRole = Schema.Struct({
  group: required(SsoMessages.groupRequired, 256),
  role_id: RoleId,
})
export type GroupRole = typeof GroupRole.Type

export const OidcSettingsPayload = Schema.Struct({
  issuer: httpsUrl(SsoMessages.issuerInvalid),
  client_id: required(SsoMessages.clientIdRequired, 512),
  /** Omitted on an update: the stored secret is kept. */
  client_secret: Schema.optionalKey(SecretString),
})

export const SamlSettingsPayload = Schema.Struct({
  idp_entity_id: required(SsoMessages.entityIdRequired),
  sso_url: httpsUrl(SsoMessages.ssoUrlInvalid),
  certificate: Schema.String.check(
    Schema.isPattern(/-----BEGIN CERTIFICATE-----[\s\S]+-----END CERTIFICATE-----/, { message: SsoMessages.certificateInvalid }),
    Schema.isMaxLength(20000, { message: SsoMessages.certificateInvalid }),
  ),
})

/** PUT /api/workspaces/{id}/sso: the whole configuration (replaces the previous one). */
export const SsoConnectionPayload = Schema.Struct({
  protocol: SsoProtocol,
  enabled: Schema.Boolean,
  require_sso: Schema.Boolean,
  domains: Schema.Array(EmailDomain).check(Schema.isMinLength(1, { message: SsoMessages.domainsRequired }), Schema.isMaxLength(50)),
  oidc: Schema.optionalKey(OidcSettingsPayload),
  saml: Schema.optionalKey(SamlSettingsPayload),
  /** ID-token claim (OIDC) or assertion attribute (SAML) holding the user's groups. */
  groups_attribute: required("Enter the groups claim or attribute name", 256),
  /** Role of a member in none of the mapped groups. */
  default_role_id: RoleId,
  /** In order: the first mapping naming one of the user's groups gives the role. */
  group_roles: Schema.Array(GroupRole).check(Schema.isMaxLength(100)),
})
export type SsoConnectionPayload = typeof SsoConnectionPayload.Type

/** What the identity provider must be told about us (redirect URI / ACS URL / entity id). */
export const ServiceProviderSettings = Schema.Struct({
  oidc_redirect_uri: Schema.String,
  saml_acs_url: Schema.String,
  saml_entity_id: Schema.String,
  saml_metadata_url: Schema.String,
})
export type ServiceProviderSettings = typeof ServiceProviderSettings.Type

export const SsoConnection = Schema.Struct({
  protocol: SsoProtocol,
  enabled: Schema.Boolean,
  require_sso: Schema.Boolean,
  domains: Schema.Array(Schema.String),
  oidc: Schema.NullOr(Schema.Struct({ issuer: Schema.String, client_id: Schema.String, client_secret_set: Schema.Boolean })),
  saml: Schema.NullOr(Schema.Struct({ idp_entity_id: Schema.String, sso_url: Schema.String, certificate: Schema.String })),
  groups_attribute: Schema.String,
  default_role_id: RoleId,
  group_roles: Schema.Array(GroupRole),
  updated_at: NullableTimestamp,
  updated_by: Schema.NullOr(Schema.String),
})
export type SsoConnection = typeof SsoConnection.Type

export const SsoSettings = Schema.Struct({
  connection: Schema.NullOr(SsoConnection),
  service_provider: ServiceProviderSettings,
})
export type SsoSettings = typeof SsoSettings.Type

/** GET / PUT /api/workspaces/{id}/sso. */
export const SsoSettingsResponse = withData(SsoSettings)
export type SsoSettingsResponse = typeof SsoSettingsResponse.Type

/** POST /api/sso/start. `return_to`: an SPA path (starting with one "/") to land on after sign-in. */
export const SsoStartPayload = Schema.Struct({
  email: Email,
  return_to: Schema.optionalKey(Schema.String.check(Schema.isMaxLength(512))),
})
export type SsoStartPayload = typeof SsoStartPayload.Type

export const SsoStartResponse = withData(Schema.Struct({ redirect_url: Schema.String }))
export type SsoStartResponse = typeof SsoStartResponse.Type

export const OidcCallbackQuery = Schema.Struct({
  code: Schema.optionalKey(Schema.String),
  state: Schema.optionalKey(Schema.String),
  error: Schema.optionalKey(Schema.String),
  error_description: Schema.optionalKey(Schema.String),
  iss: Schema.optionalKey(Schema.String),
  session_state: Schema.optionalKey(Schema.String),
})

export const SamlAcsPayload = Schema.Struct({
  SAMLResponse: Schema.String,
  RelayState: Schema.optionalKey(Schema.String),
})

/** POST /api/sso/exchange: the one-time code of /login/sso?code=… */
export const SsoExchangePayload = Schema.Struct({ code: required(SsoMessages.codeInvalid, 256) })
export const SsoExchangeResponse = Schema.Struct({
  ...LoginResponse.fields,
  /** Where the sign-in was started from (an SPA path), if anywhere. */
  return_to: Schema.NullOr(Schema.String),
})
export type SsoExchangeResponse = typeof SsoExchangeResponse.Type

/** A safe SPA path to return to: one leading "/", no scheme or host (`//evil`, `/\evil` are refused). */
export const safeReturnPath = (value: string | null | undefined): string | null =>
  typeof value === "string" && /^\/(?![/\\])[^\s]*$/.test(value) && value.length <= 512 ? value : null
