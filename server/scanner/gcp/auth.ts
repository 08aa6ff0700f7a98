/**
 * Service-account key → access token (OAuth 2.0 JWT bearer grant, RFC 7523), with `jose`:
 * sign an RS256 JWT {iss: client_email, scope, aud: token_uri, iat, exp ≤ iat+3600} with the key's private key,
 * POST it form-encoded to the token endpoint, cache the access token until shortly before it expires.
 *
 * The key's `token_uri` is only used when it is a Google endpoint (https, *.googleapis.com or accounts.google.com):
 * the key is user input, and a server that POSTs to any URL a user supplies is an SSRF. Tests and private
 * deployments set the token endpoint explicitly (`endpoints.token`) instead.
 */
import { importPKCS8, SignJWT } from "jose"
import { Result, Schema } from "effect"
import { decodeServiceAccountKey, type ServiceAccountKey } from "../../../src/contracts/service-account-key.ts"
import { postForm, RestError, type TokenSource } from "../rest/http.ts"

export type { ServiceAccountKey }

export const DEFAULT_TOKEN_URI = "https://oauth2.googleapis.com/token"

export class InvalidServiceAccountKey extends Error {
  constructor(message: string) {
    super(message)
    this.name = "InvalidServiceAccountKey"
  }
}

/**
 * Parses and validates the key file's JSON text (or an already parsed object) with the contract's rules
 * (src/contracts/service-account-key.ts: type "service_account", client_email, a PKCS#8 PEM private_key, project_id,
 * an https token_uri), so the add-account form, the API and the engine accept the same keys. Throws
 * InvalidServiceAccountKey with the first rule's message (never the key material). The engine also refuses keys of
 * another universe than googleapis.com, which it cannot reach.
 */
export function parseServiceAccountKey(input: string | unknown): ServiceAccountKey {
  const r = decodeServiceAccountKey(input)
  if (!r.ok) throw new InvalidServiceAccountKey(r.message)
  if (r.key.universe_domain !== undefined && r.key.universe_domain !== "googleapis.com") {
    throw new InvalidServiceAccountKey(`The service account key belongs to universe "${r.key.universe_domain}"; only googleapis.com is supported`)
  }
  return r.key
}

/** The key's token_uri when it is a Google token endpoint, else the default one. */
export function trustedTokenUri(key: ServiceAccountKey): string {
  const uri = key.token_uri
  if (uri === undefined) return DEFAULT_TOKEN_URI
  try {
    const u = new URL(uri)
    if (u.protocol === "https:" && (u.hostname === "accounts.google.com" || u.hostname.endsWith(".googleapis.com"))) return uri
  } catch {
    // fall through
  }
  return DEFAULT_TOKEN_URI
}

const TokenResponse = Schema.Struct({
  access_token: Schema.String,
  expires_in: Schema.optionalKey(Schema.Number),
  token_type: Schema.optionalKey(Schema.String),
})

const OAuthError = Schema.Struct({ error: Schema.String, error_description: Schema.optionalKey(Schema.String) })

export interface GcpTokenOptions {
  /** Token endpoint override (tests, private deployments); default: trustedTokenUri(key). */
  readonly tokenUrl?: string
  readonly scope: string
  readonly fetch?: typeof fetch
  readonly signal?: AbortSignal
  /** Clock for iat/exp and the cache (tests). */
  readonly now?: () => number
}

/** Exchanges a signed assertion for an access token; refused grants are RestErrors of kind access_denied. */
export function gcpTokenSource(key: ServiceAccountKey, options: GcpTokenOptions): TokenSource & { readonly tokenUrl: string } {
  const tokenUrl = options.tokenUrl ?? trustedTokenUri(key)
  const now = options.now ?? Date.now
  let cached: { token: string; expiresAt: number } | undefined
  let inFlight: Promise<string> | undefined
  let signingKey: Promise<CryptoKey> | undefined

  const fetchToken = async (signal: AbortSignal | undefined): Promise<string> => {
    signingKey ??= importPKCS8(key.private_key, "RS256").catch((error: unknown) => {
      signingKey = undefined
      throw new RestError({ code: "InvalidPrivateKey", message: `The service account private key cannot be read: ${error instanceof Error ? error.message : String(error)}`, kind: "access_denied", op: "oauth2.token" })
    })
    const iat = Math.floor(now() / 1000)
    const assertion = await new SignJWT({ scope: options.scope })
      .setProtectedHeader({ alg: "RS256", typ: "JWT", ...(key.private_key_id === undefined ? {} : { kid: key.private_key_id }) })
      .setIssuer(key.client_email)
      .setAudience(tokenUrl)
      .setIssuedAt(iat)
      .setExpirationTime(iat + 3600)
      .sign(await signingKey)
    const sig = signal ?? options.signal
    const response = await postForm(
      tokenUrl,
      { grant_type: "urn:ietf:params:oauth:grant-type:jwt-bearer", assertion },
      { ...(options.fetch === undefined ? {} : { fetch: options.fetch }), ...(sig === undefined ? {} : { signal: sig }) },
    )
    if (response.status >= 200 && response.status < 300) {
      const ok = Schema.decodeUnknownResult(TokenResponse)(response.body)
      if (Result.isFailure(ok)) throw new RestError({ status: response.status, code: "InvalidTokenResponse", message: "The token endpoint answered without an access_token", kind: "error", op: "oauth2.token" })
      cached = { token: ok.success.access_token, expiresAt: now() + Math.max(60, (ok.success.expires_in ?? 3600) - 300) * 1000 }
      return ok.success.access_token
    }
    const err = Schema.decodeUnknownResult(OAuthError)(response.body)
    const code = Result.isSuccess(err) ? err.success.error : `HTTP${response.status}`
    const description = Result.isSuccess(err) ? (err.success.error_description ?? err.success.error) : `HTTP ${response.status}`
    throw new RestError({
      status: response.status,
      code,
      message: `Google refused the service account key: ${description}`,
      kind: response.status === 400 || response.status === 401 || response.status === 403 ? "access_denied" : response.status === 429 ? "throttled" : "error",
      op: "oauth2.token",
    })
  }

  return {
    tokenUrl,
    async token(_audience, signal) {
      if (cached !== undefined && cached.expiresAt > now()) return cached.token
      inFlight ??= fetchToken(signal).finally(() => {
        inFlight = undefined
      })
      return inFlight
    },
    invalidate() {
      cached = undefined
    },
  }
}
