/**
 * Invitation tokens: 256 random bits (43 URL-safe characters), stored as SHA-256 for lookup plus an AES-256-GCM sealed
 * copy (key: HKDF of APP_SECRET_KEY, bound to workspace and email) so workspace admins can still see and copy the
 * invite link of a pending invitation. Valid 7 days (AuthConfig.invitationTtlDays), single use: acceptance is a
 * conditional UPDATE, so of two parallel acceptances exactly one wins.
 *
 * Token states answer the spec's distinct errors (access §8 "Invitation"): malformed → 400 InvalidToken, unknown or
 * canceled (revoked) → 404 NotFound, accepted → 409 Conflict ('already accepted'), expired → 410 Gone.
 * These functions run inside an RLS scope that carries the token's hash (`invitationTokenHash`).
 */
import { Effect, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import { Conflict, Gone, InvalidToken, NotFound } from "../../src/contracts/errors.ts"
import { InvitationMessages } from "../../src/contracts/messages.ts"
import { AuthConfig } from "./auth-config.ts"
import { deriveKey, open, randomToken, seal, sha256Hex } from "./crypto.ts"

const TOKEN_FORMAT = /^[A-Za-z0-9_-]{32,128}$/

export const isWellFormedInvitationToken = (token: string): boolean => TOKEN_FORMAT.test(token)

export const invitationTokenHash = (token: string): string => sha256Hex(token)

const sealContext = (workspaceId: number, email: string) => `invitation:${workspaceId}:${email}`

const invitationKey = Effect.map(AuthConfig, (c) => deriveKey(Redacted.value(c.secretKey), "invitation-link"))

/** A fresh token with its hash and sealed copy, for (workspace, email). */
export const newInvitationToken = Effect.fn("InvitationTokens.new")(function* (workspaceId: number, email: string) {
  const key = yield* invitationKey
  const token = randomToken(32)
  return { token, hash: sha256Hex(token), sealed: seal(key, token, sealContext(workspaceId, email)) }
})

/** The token of a pending invitation, recovered for its invite link; undefined if the seal does not open. */
export const unsealInvitationToken = Effect.fn("InvitationTokens.unseal")(function* (
  workspaceId: number,
  email: string,
  sealed: string,
) {
  const key = yield* invitationKey
  return open(key, sealed, sealContext(workspaceId, email))
})

export interface InvitationByToken {
  readonly id: number
  readonly workspace_id: number
  readonly workspace_name: string
  readonly email: string
  readonly role_id: number | null
  readonly custom_role_id: number | null
  readonly role_name: string | null
  readonly status: "pending" | "accepted" | "canceled"
  readonly expired: boolean
  readonly invited_by: number | null
}

/** Finds the invitation a token names and turns its state into the spec's error; answers only pending ones. */
export const pendingInvitationByToken = Effect.fn("InvitationTokens.pendingByToken")(function* (token: string) {
  const sql = yield* SqlClient.SqlClient
  if (!isWellFormedInvitationToken(token)) return yield* new InvalidToken({ message: InvitationMessages.status400 })
  const rows = yield* sql<InvitationByToken>`
    SELECT i.id, i.workspace_id, w.name AS workspace_name, i.email, i.role_id, i.custom_role_id,
           coalesce(r.name, cr.name) AS role_name, i.status, i.expires_at <= now() AS expired, i.invited_by
    FROM invitations i
    JOIN workspaces w ON w.id = i.workspace_id
    LEFT JOIN roles r ON r.id = i.role_id
    LEFT JOIN custom_roles cr ON cr.id = i.custom_role_id
    WHERE i.token_hash = ${sha256Hex(token)}`
  const inv = rows[0]
  if (inv === undefined || inv.status === "canceled") return yield* new NotFound({ message: InvitationMessages.status404 })
  if (inv.status === "accepted") {
    return yield* new Conflict({ message: InvitationMessages.screenAlreadyAccepted, data: { error_type: "already_accepted" } })
  }
  if (inv.expired) return yield* new Gone({ message: InvitationMessages.status410 })
  return inv
})

/**
 * Marks the invitation accepted by `userId` if it is still pending and unexpired. The loser of a race gets the
 * error of the state the winner left (409 already accepted).
 */
export const claimInvitation = Effect.fn("InvitationTokens.claim")(function* (token: string, userId: number) {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql<{ id: number }>`
    UPDATE invitations SET status = 'accepted', accepted_at = clock_timestamp(), accepted_user_id = ${userId},
           updated_at = now()
    WHERE token_hash = ${sha256Hex(token)} AND status = 'pending' AND expires_at > now()
    RETURNING id`
  if (rows[0] === undefined) {
    yield* pendingInvitationByToken(token)
    return yield* new Conflict({ message: InvitationMessages.screenAlreadyAccepted, data: { error_type: "already_accepted" } })
  }
  return rows[0].id
})
