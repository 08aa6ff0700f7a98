/**
 * OpenID Connect relying party (openid-client 6): authorization code with PKCE (S256), state and nonce, discovery from
 * the issuer, ID-token validation (signature against the provider's JWKS, `iss`, `aud`, `exp`/`iat` with a small clock
 * tolerance, `nonce`) done by the library. Every outbound call (discovery, token, JWKS) goes through the SSRF-guarded
 * client (server/integrations/safe-fetch.ts): a private address is refused unless INTEGRATIONS_ALLOW_PRIVATE_TARGETS=1.
 * Plain `http:` issuers are accepted only under that same flag (a provider on the private network of a test or an
 * on-premises deployment); otherwise the issuer must be `https:`.
 *
 * Configurations (discovery document + JWKS cache) are kept per (issuer, client id, secret) for ten minutes, so a
 * sign-in does not rediscover; a key rotation at the provider is picked up by the library (unknown `kid` → JWKS
 * refetch).
 */
import * as client from "openid-client"
import { allowPrivateTargetsFromEnv, safeFetch } from "../integrations/safe-fetch.ts"

/** Clock tolerance for `iat`/`exp`/`nbf` of ID tokens (seconds). */
export const OIDC_CLOCK_TOLERANCE_SECONDS = 60

export interface OidcSettings {
  readonly issuer: string
  readonly clientId: string
  readonly clientSecret: string
}

/** openid-client's fetch, through the SSRF guard (the library reads status, headers and body of a web Response). */
const guardedFetch: client.CustomFetch = async (url, options) => {
  const headers: Record<string, string> = {}
  new Headers(options.headers as HeadersInit | undefined).forEach((value, key) => {
    headers[key] = value
  })
  const body = options.body
  const answer = await safeFetch(url, {
    method: options.method ?? "GET",
    headers,
    ...(typeof body === "string" ? { body } : body instanceof URLSearchParams ? { body: body.toString() } : {}),
    maxRedirects: 0,
    maxResponseBytes: 1024 * 1024,
    ...(options.signal ? { signal: options.signal } : {}),
  })
  return new Response(answer.status === 204 || answer.status === 304 ? null : Buffer.from(answer.body), {
    status: answer.status,
    headers: answer.headers,
  })
}

const cache = new Map<string, { readonly at: number; readonly config: Promise<client.Configuration> }>()
const CACHE_MS = 10 * 60 * 1000

/** Discovers (or takes from the cache) the provider's configuration for this client. */
export const oidcConfiguration = (settings: OidcSettings): Promise<client.Configuration> => {
  const key = JSON.stringify([settings.issuer, settings.clientId, settings.clientSecret])
  const hit = cache.get(key)
  if (hit !== undefined && Date.now() - hit.at < CACHE_MS) return hit.config
  const insecure = allowPrivateTargetsFromEnv() && settings.issuer.startsWith("http:")
  const config = client.discovery(
    new URL(settings.issuer),
    settings.clientId,
    { [client.clockTolerance]: OIDC_CLOCK_TOLERANCE_SECONDS },
    client.ClientSecretBasic(settings.clientSecret),
    { [client.customFetch]: guardedFetch, timeout: 10, ...(insecure ? { execute: [client.allowInsecureRequests] } : {}) },
  ).then((c) => {
    c[client.customFetch] = guardedFetch
    return c
  })
  cache.set(key, { at: Date.now(), config })
  config.catch(() => cache.delete(key))
  return config
}

export interface OidcStart {
  readonly url: string
  readonly state: string
  readonly nonce: string
  readonly codeVerifier: string
}

/** The authorization URL carrying `state`, a fresh nonce and a PKCE challenge (S256) of a fresh verifier. */
export const oidcAuthorizationUrl = async (
  settings: OidcSettings,
  redirectUri: string,
  loginHint: string,
  state: string,
): Promise<OidcStart> => {
  const config = await oidcConfiguration(settings)
  const codeVerifier = client.randomPKCECodeVerifier()
  const nonce = client.randomNonce()
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: redirectUri,
    scope: "openid email profile",
    response_type: "code",
    code_challenge: await client.calculatePKCECodeChallenge(codeVerifier),
    code_challenge_method: "S256",
    state,
    nonce,
    login_hint: loginHint,
  })
  return { url: url.href, state, nonce, codeVerifier }
}

export interface OidcIdentity {
  readonly subject: string
  readonly email: string | undefined
  readonly emailVerified: boolean
  readonly firstName: string
  readonly lastName: string
  readonly groups: ReadonlyArray<string>
}

const text = (value: unknown): string => (typeof value === "string" ? value : "")

/** The groups in a claim: an array of strings, or one string. */
export const groupsOf = (value: unknown): ReadonlyArray<string> =>
  Array.isArray(value) ? value.filter((g): g is string => typeof g === "string") : typeof value === "string" ? [value] : []

/**
 * Completes the code flow: `callbackUrl` is the full URL the provider redirected to (its query holds code, state and
 * `iss`). Validates state, the PKCE verifier (at the token endpoint), the ID token (signature, issuer, audience,
 * expiry, nonce); throws on any mismatch. Claims missing from the ID token are read from the userinfo endpoint.
 */
export const oidcComplete = async (
  settings: OidcSettings,
  callbackUrl: URL,
  checks: { readonly state: string; readonly nonce: string; readonly codeVerifier: string },
  groupsAttribute: string,
): Promise<OidcIdentity> => {
  const config = await oidcConfiguration(settings)
  const tokens = await client.authorizationCodeGrant(config, callbackUrl, {
    pkceCodeVerifier: checks.codeVerifier,
    expectedState: checks.state,
    expectedNonce: checks.nonce,
    idTokenExpected: true,
  })
  const claims: Record<string, unknown> = { ...tokens.claims() }
  if (claims["email"] === undefined || claims[groupsAttribute] === undefined) {
    const info = await client.fetchUserInfo(config, tokens.access_token, String(claims["sub"]))
    for (const [key, value] of Object.entries(info)) if (claims[key] === undefined) claims[key] = value
  }
  return {
    subject: String(claims["sub"]),
    email: typeof claims["email"] === "string" ? claims["email"] : undefined,
    emailVerified: claims["email_verified"] === true,
    firstName: text(claims["given_name"]),
    lastName: text(claims["family_name"]),
    groups: groupsOf(claims[groupsAttribute]),
  }
}
