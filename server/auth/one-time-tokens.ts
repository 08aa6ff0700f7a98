/**
 * One-time tokens for email verification and password reset: 256 random bits (43 URL-safe characters, above the
 * spec's 32-character minimum), stored as SHA-256 only, single use (a conditional UPDATE consumes them, so of two
 * parallel uses exactly one wins), with the lifetimes of AuthConfig (30 minutes each).
 * Verification tokens are bound to the email they were sent to. Invitation tokens live in server/api/invitations.ts.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { AuthConfig } from "./auth-config.ts"
import { randomToken, sha256Hex } from "./crypto.ts"
import { standalone } from "./rls.ts"

export const issueVerificationToken = Effect.fn("OneTimeTokens.issueVerification")(function* (
  userId: number,
  email: string,
) {
  const sql = yield* SqlClient.SqlClient
  const config = yield* AuthConfig
  const token = randomToken(32)
  yield* sql`INSERT INTO email_verification_tokens (user_id, email, token_hash, expires_at)
    VALUES (${userId}, ${email}, ${sha256Hex(token)}, now() + make_interval(mins => ${config.verificationTtlMinutes}))`
  return token
})

export type VerificationOutcome =
  | { readonly _tag: "verified"; readonly userId: number; readonly email: string }
  | { readonly _tag: "invalid" }
  | { readonly _tag: "expired" }

/** Consumes a verification token for `email`. A token for another email, unknown or already used is `invalid`. */
export const consumeVerificationToken = Effect.fn("OneTimeTokens.consumeVerification")(function* (
  token: string,
  email: string,
) {
  const sql = yield* SqlClient.SqlClient
  const hash = sha256Hex(token)
  const won = yield* sql<{ user_id: number; email: string }>`
    UPDATE email_verification_tokens SET consumed_at = clock_timestamp()
    WHERE token_hash = ${hash} AND email = ${email} AND consumed_at IS NULL AND expires_at > now()
    RETURNING user_id, email`
  const row = won[0]
  if (row !== undefined) return { _tag: "verified", userId: row.user_id, email: row.email } as VerificationOutcome
  const found = yield* sql<{ expired: boolean }>`SELECT expires_at <= now() AS expired FROM email_verification_tokens
    WHERE token_hash = ${hash} AND email = ${email} AND consumed_at IS NULL`
  return (found[0]?.expired === true ? { _tag: "expired" } : { _tag: "invalid" }) as VerificationOutcome
})

export const issueResetToken = Effect.fn("OneTimeTokens.issueReset")(function* (userId: number) {
  const sql = yield* SqlClient.SqlClient
  const config = yield* AuthConfig
  const token = randomToken(32)
  yield* sql`INSERT INTO password_reset_tokens (user_id, token_hash, expires_at)
    VALUES (${userId}, ${sha256Hex(token)}, now() + make_interval(mins => ${config.resetTtlMinutes}))`
  return token
})

/** The user a reset token is valid for, without consuming it (the validate-token call). */
const peekResetTokenUnsafe = Effect.fn("OneTimeTokens.peekReset")(function* (token: string) {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql<{ user_id: number; email: string }>`
    SELECT t.user_id, u.email FROM password_reset_tokens t JOIN users u ON u.id = t.user_id
    WHERE t.token_hash = ${sha256Hex(token)} AND t.consumed_at IS NULL AND t.expires_at > now()`
  return rows[0]
})
export const peekResetToken: typeof peekResetTokenUnsafe = (...args) => standalone(peekResetTokenUnsafe(...args))

/** Consumes a reset token; answers the user id, or undefined when unknown, used or expired. */
export const consumeResetToken = Effect.fn("OneTimeTokens.consumeReset")(function* (token: string) {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql<{ user_id: number }>`
    UPDATE password_reset_tokens SET consumed_at = clock_timestamp()
    WHERE token_hash = ${sha256Hex(token)} AND consumed_at IS NULL AND expires_at > now()
    RETURNING user_id`
  const userId = rows[0]?.user_id
  // Any other reset link of that user dies with it.
  if (userId !== undefined) {
    yield* sql`UPDATE password_reset_tokens SET consumed_at = clock_timestamp()
               WHERE user_id = ${userId} AND consumed_at IS NULL`
  }
  return userId
})
