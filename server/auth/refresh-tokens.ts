/**
 * Sessions as refresh-token families. A refresh token is 256 random bits, handed out once and stored only as its
 * SHA-256. Every refresh rotates it: a conditional UPDATE marks the presented token used only if it is still unused,
 * unexpired and its family unrevoked, so of two parallel refreshes with the same token exactly one wins. Presenting a
 * token that was already rotated is reuse: the whole family is revoked (and its access tokens stop working, because
 * they carry the family id). Logout, password reset and password change revoke families.
 *
 * All functions run as the API's SQL client; none of these tables is workspace-owned (a session belongs to a user).
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { AuthConfig } from "./auth-config.ts"
import { randomToken, sha256Hex } from "./crypto.ts"
import { standalone } from "./rls.ts"

export interface Session {
  readonly familyId: string
  readonly userId: number
  readonly workspaceId: number | undefined
  /** The opaque refresh token (only ever returned here, never stored). */
  readonly refreshToken: string
}

/** Why a refresh was refused. `reused` means the family has just been revoked. */
export type RefreshProblem = "unknown" | "expired" | "revoked" | "reused"

const insertToken = (familyId: string) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const config = yield* AuthConfig
    const token = randomToken(32)
    yield* sql`INSERT INTO refresh_tokens (family_id, token_hash, expires_at)
               VALUES (${familyId}, ${sha256Hex(token)}, now() + make_interval(secs => ${config.refreshTokenTtlSeconds}))`
    return token
  })

/** Opens a new session (sign-in, invitation sign-up). */
export const createSession = Effect.fn("RefreshTokens.createSession")(function* (
  userId: number,
  workspaceId: number | undefined,
) {
  const sql = yield* SqlClient.SqlClient
  return yield* standalone(Effect.gen(function* () {
    const rows = yield* sql<{ id: string }>`INSERT INTO refresh_token_families (user_id, workspace_id)
      VALUES (${userId}, ${workspaceId ?? null}) RETURNING id`
    const familyId = rows[0]!.id
    const refreshToken = yield* insertToken(familyId)
    return { familyId, userId, workspaceId, refreshToken } satisfies Session
  }))
})

/** Rotates a refresh token: answers the session with a fresh token, or why it was refused. */
export const rotate = Effect.fn("RefreshTokens.rotate")(function* (presented: string) {
  const sql = yield* SqlClient.SqlClient
  const hash = sha256Hex(presented)
  const outcome = yield* standalone(Effect.gen(function* () {
    const won = yield* sql<{ family_id: string; user_id: number; workspace_id: number | null }>`
      UPDATE refresh_tokens t SET rotated_at = clock_timestamp()
      FROM refresh_token_families f
      WHERE t.token_hash = ${hash} AND t.rotated_at IS NULL AND t.expires_at > now()
        AND f.id = t.family_id AND f.revoked_at IS NULL
      RETURNING t.family_id, f.user_id, f.workspace_id`
    const row = won[0]
    if (row !== undefined) {
      const refreshToken = yield* insertToken(row.family_id)
      return {
        _tag: "ok" as const,
        session: { familyId: row.family_id, userId: row.user_id, workspaceId: row.workspace_id ?? undefined, refreshToken },
      }
    }
    const found = yield* sql<{ family_id: string; user_id: number; rotated: boolean; expired: boolean; revoked: boolean }>`
      SELECT t.family_id, f.user_id, t.rotated_at IS NOT NULL AS rotated, t.expires_at <= now() AS expired,
             f.revoked_at IS NOT NULL AS revoked
      FROM refresh_tokens t JOIN refresh_token_families f ON f.id = t.family_id
      WHERE t.token_hash = ${hash}`
    const f = found[0]
    if (f === undefined) return { _tag: "fail" as const, problem: "unknown" as RefreshProblem, userId: undefined }
    if (f.revoked) return { _tag: "fail" as const, problem: "revoked" as RefreshProblem, userId: f.user_id }
    if (f.rotated) {
      yield* sql`UPDATE refresh_token_families SET revoked_at = now(), revoked_reason = 'reuse_detected'
                 WHERE id = ${f.family_id} AND revoked_at IS NULL`
      return { _tag: "fail" as const, problem: "reused" as RefreshProblem, userId: f.user_id }
    }
    return { _tag: "fail" as const, problem: "expired" as RefreshProblem, userId: f.user_id }
  }))
  return outcome
})

/** Re-points a session at another workspace and hands out a new refresh token; unused older tokens are retired. */
export const moveSession = Effect.fn("RefreshTokens.moveSession")(function* (familyId: string, workspaceId: number) {
  const sql = yield* SqlClient.SqlClient
  return yield* standalone(Effect.gen(function* () {
    const rows = yield* sql<{ user_id: number }>`UPDATE refresh_token_families SET workspace_id = ${workspaceId}
      WHERE id = ${familyId} AND revoked_at IS NULL RETURNING user_id`
    const row = rows[0]
    if (row === undefined) return undefined
    yield* sql`DELETE FROM refresh_tokens WHERE family_id = ${familyId} AND rotated_at IS NULL`
    const refreshToken = yield* insertToken(familyId)
    return { familyId, userId: row.user_id, workspaceId, refreshToken } satisfies Session
  }))
})

/** Logout: revokes the family of the presented token (rotated or not). Answers the user id when a session matched. */
const revokeByTokenUnsafe = Effect.fn("RefreshTokens.revokeByToken")(function* (presented: string) {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql<{ user_id: number }>`
    UPDATE refresh_token_families f SET revoked_at = now(), revoked_reason = 'logout'
    FROM refresh_tokens t
    WHERE t.token_hash = ${sha256Hex(presented)} AND f.id = t.family_id AND f.revoked_at IS NULL
    RETURNING f.user_id`
  return rows[0]?.user_id
})
export const revokeByToken: typeof revokeByTokenUnsafe = (...args) => standalone(revokeByTokenUnsafe(...args))

const revokeFamilyUnsafe = Effect.fn("RefreshTokens.revokeFamily")(function* (familyId: string, reason: string) {
  const sql = yield* SqlClient.SqlClient
  yield* sql`UPDATE refresh_token_families SET revoked_at = now(), revoked_reason = ${reason}
             WHERE id = ${familyId} AND revoked_at IS NULL`
})
export const revokeFamily: typeof revokeFamilyUnsafe = (...args) => standalone(revokeFamilyUnsafe(...args))

/** Revokes every session of a user, except `keep` (the session that changed the password). Answers how many. */
const revokeAllForUserUnsafe = Effect.fn("RefreshTokens.revokeAllForUser")(function* (
  userId: number,
  reason: string,
  keep?: string,
) {
  const sql = yield* SqlClient.SqlClient
  const rows = keep === undefined
    ? yield* sql<{ id: string }>`UPDATE refresh_token_families SET revoked_at = now(), revoked_reason = ${reason}
        WHERE user_id = ${userId} AND revoked_at IS NULL RETURNING id`
    : yield* sql<{ id: string }>`UPDATE refresh_token_families SET revoked_at = now(), revoked_reason = ${reason}
        WHERE user_id = ${userId} AND revoked_at IS NULL AND id <> ${keep} RETURNING id`
  return rows.length
})
export const revokeAllForUser: typeof revokeAllForUserUnsafe = (...args) => standalone(revokeAllForUserUnsafe(...args))

/** Whether an access token's session is still alive (checked on every authenticated request). */
const isSessionActiveUnsafe = Effect.fn("RefreshTokens.isSessionActive")(function* (familyId: string, userId: number) {
  const sql = yield* SqlClient.SqlClient
  if (!/^[0-9a-f-]{36}$/i.test(familyId)) return false
  const rows = yield* sql<{ ok: boolean }>`SELECT true AS ok FROM refresh_token_families
    WHERE id = ${familyId} AND user_id = ${userId} AND revoked_at IS NULL`
  return rows.length > 0
})
export const isSessionActive: typeof isSessionActiveUnsafe = (...args) => standalone(isSessionActiveUnsafe(...args))
