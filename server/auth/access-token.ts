/**
 * Short-lived access tokens: HS256 JWTs (jose) signed with an HKDF sub-key of APP_SECRET_KEY.
 * Claims: `sub` user id, `wid` selected workspace id (absent before a workspace is chosen), `sid` the refresh-token
 * family (session) the token belongs to, so revoking a session also stops its access tokens (checked per request).
 */
import { Effect, Redacted } from "effect"
import { errors, jwtVerify, SignJWT } from "jose"
import { AuthConfig } from "./auth-config.ts"
import { deriveKey } from "./crypto.ts"

const ISSUER = "cloud-audit"
const AUDIENCE = "cloud-audit-api"

export interface AccessClaims {
  readonly userId: number
  readonly workspaceId: number | undefined
  readonly sessionId: string
}

export type AccessTokenProblem = "expired" | "invalid"

const keyCache = new WeakMap<object, Uint8Array>()
const signingKey = (secret: Redacted.Redacted<string>): Uint8Array => {
  const cached = keyCache.get(secret)
  if (cached) return cached
  const key = deriveKey(Redacted.value(secret), "access-token")
  keyCache.set(secret, key)
  return key
}

export const signAccessToken = Effect.fn("AccessToken.sign")(function* (claims: AccessClaims) {
  const config = yield* AuthConfig
  const payload: Record<string, unknown> = { sid: claims.sessionId }
  if (claims.workspaceId !== undefined) payload["wid"] = claims.workspaceId
  return yield* Effect.promise(() =>
    new SignJWT(payload)
      .setProtectedHeader({ alg: "HS256", typ: "JWT" })
      .setSubject(String(claims.userId))
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setIssuedAt()
      .setExpirationTime(`${config.accessTokenTtlSeconds}s`)
      .sign(signingKey(config.secretKey))
  )
})

/**
 * Verified tokens, briefly remembered: a token string whose signature, algorithm, issuer and audience were checked
 * with a key answers the same claims every time, so the HMAC and the JSON decoding are skipped when it comes again.
 * Only the cryptographic verdict is cached: expiry is re-checked against the token's own `exp` on every use, and the
 * session (revocation) is still checked in the database per request (server/auth/rls.ts), so logout, password reset
 * and reuse detection end access at once as before. Keyed per signing secret; bounded (cleared when full); refused
 * tokens are never cached.
 */
const VERIFIED_CACHE_MAX = 10_000
const verifiedCache = new WeakMap<object, Map<string, { readonly claims: AccessClaims; readonly expMs: number }>>()
const verifiedFor = (secret: Redacted.Redacted<string>) => {
  let cache = verifiedCache.get(secret)
  if (cache === undefined) {
    cache = new Map()
    verifiedCache.set(secret, cache)
  }
  return cache
}

/**
 * Verifies signature, algorithm, issuer, audience and expiry; answers the claims or why the token is refused. A token
 * without `exp` (or `iat`, `sub`, `sid`) is refused as invalid: no access token lives for ever (issue 27).
 */
export const verifyAccessToken = Effect.fn("AccessToken.verify")(function* (token: string) {
  const config = yield* AuthConfig
  const cache = verifiedFor(config.secretKey)
  const hit = cache.get(token)
  if (hit !== undefined) {
    if (Date.now() < hit.expMs) return hit.claims
    cache.delete(token)
    return yield* Effect.fail<AccessTokenProblem>("expired")
  }
  const result = yield* Effect.promise(() =>
    jwtVerify(token, signingKey(config.secretKey), {
      algorithms: ["HS256"], issuer: ISSUER, audience: AUDIENCE, requiredClaims: ["exp", "iat", "sub", "sid"],
    })
      .then((r) => ({ ok: true as const, payload: r.payload }))
      .catch((e: unknown) => ({ ok: false as const, expired: e instanceof errors.JWTExpired }))
  )
  if (!result.ok) return yield* Effect.fail<AccessTokenProblem>(result.expired ? "expired" : "invalid")
  const { sub, wid, sid, exp } = result.payload
  const userId = Number(sub)
  if (!Number.isSafeInteger(userId) || userId <= 0 || typeof sid !== "string" || typeof exp !== "number" || !Number.isFinite(exp)) {
    return yield* Effect.fail<AccessTokenProblem>("invalid")
  }
  const workspaceId = typeof wid === "number" && Number.isSafeInteger(wid) ? wid : undefined
  const claims = { userId, workspaceId, sessionId: sid } satisfies AccessClaims
  // jose refuses a token at or after `exp` (no clock tolerance is configured): the cached verdict ends at the same time.
  if (cache.size >= VERIFIED_CACHE_MAX) cache.clear()
  cache.set(token, { claims, expMs: exp * 1000 })
  return claims
})
