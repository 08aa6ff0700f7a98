/**
 * SAML 2.0 service provider (@node-saml/node-saml 5): AuthnRequest by HTTP-Redirect, response by HTTP-POST to the ACS.
 * The library checks the XML signature against the IdP's certificate (the assertion must be signed; a response
 * without a valid signature is refused), the audience (our entity id), the issuer (the IdP's entity id), the
 * destination / recipient, `NotBefore` / `NotOnOrAfter` with a small clock skew, and `InResponseTo` against the one
 * AuthnRequest id this sign-in started with (kept in sso_login_states, single use: the cache below answers only that
 * id).
 *
 * No outbound call is made: the IdP's settings (SSO URL, entity id, certificate) are pasted by the admin.
 */
import { randomBytes } from "node:crypto"
import { generateServiceProviderMetadata, SAML, type CacheProvider } from "@node-saml/node-saml"
import { groupsOf } from "./oidc.ts"

/** Clock skew accepted on the assertion's validity window (milliseconds). */
export const SAML_CLOCK_SKEW_MS = 60_000

export interface SamlSettings {
  readonly entityId: string
  readonly acsUrl: string
  readonly idpEntityId: string
  readonly ssoUrl: string
  readonly certificate: string
}

/** A request id as SAML wants it (an NCName: starts with a letter or underscore). */
export const newRequestId = (): string => `_${randomBytes(20).toString("hex")}`

/** A cache that knows exactly one request id: the one this sign-in sent. */
const oneRequest = (requestId: string | undefined): CacheProvider => ({
  saveAsync: async (_key, value) => ({ value, createdAt: Date.now() }),
  getAsync: async (key) => (requestId !== undefined && key === requestId ? new Date().toISOString() : null),
  removeAsync: async (key) => key,
})

const samlFor = (settings: SamlSettings, requestId: string | undefined) =>
  new SAML({
    issuer: settings.entityId,
    callbackUrl: settings.acsUrl,
    entryPoint: settings.ssoUrl,
    idpIssuer: settings.idpEntityId,
    idpCert: settings.certificate,
    audience: settings.entityId,
    wantAssertionsSigned: true,
    wantAuthnResponseSigned: false,
    acceptedClockSkewMs: SAML_CLOCK_SKEW_MS,
    validateInResponseTo: "always" as never,
    requestIdExpirationPeriodMs: 10 * 60 * 1000,
    cacheProvider: oneRequest(requestId),
    generateUniqueId: () => requestId ?? newRequestId(),
    identifierFormat: "urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress",
    disableRequestedAuthnContext: true,
  })

/** The IdP URL carrying our AuthnRequest (id `requestId`) and `relayState`. */
export const samlAuthorizationUrl = (settings: SamlSettings, requestId: string, relayState: string): Promise<string> =>
  samlFor(settings, requestId).getAuthorizeUrlAsync(relayState, undefined, {})

export interface SamlIdentity {
  readonly subject: string
  readonly email: string | undefined
  readonly firstName: string
  readonly lastName: string
  readonly groups: ReadonlyArray<string>
}

const EMAIL_ATTRIBUTES = ["email", "mail", "urn:oid:0.9.2342.19200300.100.1.3", "http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress"]
const first = (value: unknown): string => (Array.isArray(value) ? first(value[0]) : typeof value === "string" ? value : "")

/** Validates a posted SAMLResponse answering `requestId`; throws when anything does not hold. */
export const samlComplete = async (settings: SamlSettings, requestId: string, samlResponse: string, groupsAttribute: string): Promise<SamlIdentity> => {
  const { profile } = await samlFor(settings, requestId).validatePostResponseAsync({ SAMLResponse: samlResponse })
  if (profile === null) throw new Error("no profile in the SAML response")
  const email = EMAIL_ATTRIBUTES.map((a) => first(profile[a])).find((v) => v !== "")
    ?? (profile.nameID.includes("@") ? profile.nameID : undefined)
  return {
    subject: profile.nameID,
    email,
    firstName: first(profile["firstName"] ?? profile["givenName"] ?? profile["http://schemas.xmlsoap.org/ws/2005/05/identity/claims/givenname"]),
    lastName: first(profile["lastName"] ?? profile["surname"] ?? profile["http://schemas.xmlsoap.org/ws/2005/05/identity/claims/surname"]),
    groups: groupsOf(profile[groupsAttribute]),
  }
}

/** Our SP metadata (entity id, ACS URL with the HTTP-POST binding, signed assertions wanted). */
export const samlMetadata = (entityId: string, acsUrl: string): string =>
  generateServiceProviderMetadata({
    issuer: entityId,
    callbackUrl: acsUrl,
    identifierFormat: "urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress",
    wantAssertionsSigned: true,
  })
