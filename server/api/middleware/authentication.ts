/**
 * Authentication of a request: `Authorization: Bearer <access token>` (server/auth/access-token.ts), whose session
 * (refresh-token family) must still be alive, so logout, password reset and reuse detection end access at once.
 * The contract declares no middleware (src/contracts/api.ts), so handlers call `authenticate(request)` themselves.
 *
 * Errors: Unauthorized (missing, malformed, bad signature, revoked session), TokenExpired (expired access token),
 * Forbidden when the request presents an API key: `verifyBearer` and `authenticate` serve sign-in-only calls; the
 * workspace calls take keys through `inWorkspace` (./workspace-scope.ts), which looks for a key first.
 */
import { Effect, Option } from "effect"
import type { HttpServerRequest } from "effect/http"
import { ApiKeyMessages, looksLikeApiKey } from "../../../src/contracts/api-keys.ts"
import { Forbidden, TokenExpired, Unauthorized } from "../../../src/contracts/errors.ts"
import { RefreshMessages, StatusMessages } from "../../../src/contracts/messages.ts"
import { verifyAccessToken } from "../../auth/access-token.ts"
import { isSessionActive } from "../../auth/refresh-tokens.ts"
import type { Caller } from "../../auth/workspace-context.ts"

export type { Caller } from "../../auth/workspace-context.ts"

export const bearerToken = (request: HttpServerRequest.HttpServerRequest): string | undefined => {
  const header = request.headers["authorization"]
  if (header === undefined) return undefined
  const m = /^Bearer\s+([A-Za-z0-9._~+/=-]+)\s*$/i.exec(header)
  return m?.[1]
}

/**
 * The API key a request presents (docs/api-keys.md): `X-API-Key`, or a bearer credential shaped like a key
 * (`ca_live_…`). Whatever follows is judged by the key path (server/api/middleware/workspace-scope.ts); undefined when
 * the request presents a session's access token or nothing.
 */
export const presentedApiKey = (request: HttpServerRequest.HttpServerRequest): string | undefined => {
  const header = request.headers["x-api-key"]
  if (header !== undefined) return header.trim()
  const token = bearerToken(request)
  return token !== undefined && looksLikeApiKey(token) ? token : undefined
}

/** The refusal of a sign-in-only call (password change, key management, the workspace list…) made with an API key. */
export const apiKeyRefused = () => new Forbidden({ message: ApiKeyMessages.signInOnly })

/** The client address used for rate limits: the socket's peer (proxies are not trusted blindly). */
export const clientAddress = (request: HttpServerRequest.HttpServerRequest): string =>
  Option.getOrElse(request.remoteAddress, () => "unknown")

/**
 * The bearer token's claims, signature and expiry checked, WITHOUT the session check: for callers that check the
 * session in the same statement as their scope (`inScopeForSession`, server/auth/rls.ts), which saves a transaction
 * per request. Everything else uses `authenticate`.
 */
export const verifyBearer = Effect.fn("Authentication.verifyBearer")(function* (request: HttpServerRequest.HttpServerRequest) {
  if (presentedApiKey(request) !== undefined) return yield* apiKeyRefused()
  const token = bearerToken(request)
  if (token === undefined) return yield* new Unauthorized({ message: StatusMessages.unauthorized })
  const claims = yield* verifyAccessToken(token).pipe(
    Effect.mapError((problem) =>
      problem === "expired"
        ? new TokenExpired({ message: RefreshMessages.sessionExpired })
        : new Unauthorized({ message: StatusMessages.unauthorized })
    ),
  )
  return { userId: claims.userId, sessionId: claims.sessionId, tokenWorkspaceId: claims.workspaceId } satisfies Caller
})

/** The failure for a token whose session was revoked (logout, password change or reset, reuse detection). */
export const sessionRevoked = () => new Unauthorized({ message: RefreshMessages.sessionExpired })

export const authenticate = Effect.fn("Authentication.authenticate")(function* (
  request: HttpServerRequest.HttpServerRequest,
) {
  if (presentedApiKey(request) !== undefined) return yield* apiKeyRefused()
  const token = bearerToken(request)
  if (token === undefined) return yield* new Unauthorized({ message: StatusMessages.unauthorized })
  const claims = yield* verifyAccessToken(token).pipe(
    Effect.mapError((problem) =>
      problem === "expired"
        ? new TokenExpired({ message: RefreshMessages.sessionExpired })
        : new Unauthorized({ message: StatusMessages.unauthorized })
    ),
  )
  const alive = yield* isSessionActive(claims.sessionId, claims.userId).pipe(Effect.orDie)
  if (!alive) return yield* new Unauthorized({ message: RefreshMessages.sessionExpired })
  return { userId: claims.userId, sessionId: claims.sessionId, tokenWorkspaceId: claims.workspaceId } satisfies Caller
})

/** For calls that behave differently when signed in (invitation accept): no token → undefined; a bad token fails. */
export const authenticateOptional = (request: HttpServerRequest.HttpServerRequest) =>
  bearerToken(request) === undefined && request.headers["authorization"] === undefined && presentedApiKey(request) === undefined
    ? Effect.succeed(undefined)
    : authenticate(request)
