/**
 * The single-sign-on sign-in (docs/sso.md "How a sign-in goes"):
 *
 *   start(email)  → the domain's connection → a login state (single use, ten minutes) → the provider's URL
 *   callback/ACS  → the state consumed → the provider's answer validated (server/sso/oidc.ts, server/sso/saml.ts)
 *                 → `admit`: the user found (linked identity, else the verified email) or created just in time, made a
 *                   member of the connection's workspace with the role its groups map to (re-applied every sign-in)
 *                 → a one-time hand-off code (a minute, single use) the browser brings to /login/sso
 *   exchange(code) → the normal session (server/api/sso.ts, as POST /api/login answers).
 *
 * `admit` refuses (an `SsoErrorKey` the SPA shows) an identity without an email the provider vouches for (OIDC:
 * `email_verified` must be true; SAML: the signed assertion is the provider's word) and an email outside the
 * connection's domains (a provider may not sign people into other domains' accounts). Linking an existing account
 * that never verified its email also replaces its password with a random one and ends its sessions: whoever
 * registered that address without owning it loses the account to the person the provider vouches for.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import type { SsoErrorKey } from "../../src/contracts/sso.ts"
import { record } from "../audit/audit-log.ts"
import { AuthConfig } from "../auth/auth-config.ts"
import { randomToken, sha256Hex } from "../auth/crypto.ts"
import { hashPassword } from "../auth/passwords.ts"
import { revokeAllForUser } from "../auth/refresh-tokens.ts"
import { inScope, setScope, standalone } from "../auth/rls.ts"
import { findUserByEmail, normalizeEmail } from "../auth/users.ts"
import { type ConnectionRow, emailDomain, groupRoles } from "./connections.ts"

export const LOGIN_STATE_MINUTES = 10
export const HANDOFF_SECONDS = 60

export interface LoginState {
  readonly connection_id: number
  readonly workspace_id: number
  readonly nonce: string | null
  readonly code_verifier: string | null
  readonly return_to: string | null
}

/** Records a started sign-in under SHA-256 of its state (OIDC `state`, SAML RelayState). */
export const saveLoginState = Effect.fn("Sso.saveLoginState")(function* (
  state: string,
  row: LoginState,
) {
  const sql = yield* SqlClient.SqlClient
  yield* standalone(Effect.gen(function* () {
    // Expired states are of no use to anyone: each start sweeps some.
    yield* sql`DELETE FROM sso_login_states WHERE state_hash IN (
      SELECT state_hash FROM sso_login_states WHERE expires_at < now() - interval '1 hour' LIMIT 100)`
    yield* sql`INSERT INTO sso_login_states (state_hash, connection_id, workspace_id, nonce, code_verifier, return_to, expires_at)
      VALUES (${sha256Hex(state)}, ${row.connection_id}, ${row.workspace_id}, ${row.nonce}, ${row.code_verifier}, ${row.return_to},
              now() + make_interval(mins => ${LOGIN_STATE_MINUTES}))`
  }))
})

/** Consumes a login state: answered once, while unexpired; a replay, an unknown or an expired state is undefined. */
export const consumeLoginState = Effect.fn("Sso.consumeLoginState")(function* (state: string) {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* standalone(sql<LoginState>`
    UPDATE sso_login_states SET consumed_at = now()
    WHERE state_hash = ${sha256Hex(state)} AND consumed_at IS NULL AND expires_at > now()
    RETURNING connection_id, workspace_id, nonce, code_verifier, return_to`)
  return rows[0]
})

export interface ProvidedIdentity {
  readonly subject: string
  readonly email: string | undefined
  /** Whether the provider vouches for the email (OIDC `email_verified`; a signed SAML assertion). */
  readonly emailVerified: boolean
  readonly firstName: string
  readonly lastName: string
  readonly groups: ReadonlyArray<string>
}

export type AdmitOutcome =
  | { readonly _tag: "admitted"; readonly code: string; readonly userId: number }
  | { readonly _tag: "refused"; readonly key: SsoErrorKey; readonly reason: string }

/** The role `groups` map to: the first mapping (in the admins' order) naming one of them, else the default. */
export const mappedRole = (
  mappings: ReadonlyArray<{ readonly group_name: string; readonly role_id: number | null; readonly custom_role_id: number | null }>,
  groups: ReadonlyArray<string>,
  fallback: { readonly role_id: number | null; readonly custom_role_id: number | null },
) => {
  const hit = mappings.find((m) => groups.includes(m.group_name))
  return hit === undefined
    ? { roleId: fallback.role_id, customRoleId: fallback.custom_role_id, group: null }
    : { roleId: hit.role_id, customRoleId: hit.custom_role_id, group: hit.group_name }
}

/** Admits a validated identity into the connection's workspace (see the module comment). */
export const admit = Effect.fn("Sso.admit")(function* (
  connection: ConnectionRow,
  identity: ProvidedIdentity,
  context: { readonly ip: string; readonly returnTo: string | null },
) {
  const sql = yield* SqlClient.SqlClient
  const config = yield* AuthConfig
  const workspaceId = connection.workspace_id
  const refused = (key: SsoErrorKey, reason: string): AdmitOutcome => ({ _tag: "refused", key, reason })
  if (identity.email === undefined || !identity.emailVerified) return refused("emailNotVerified", "email missing or not verified")
  const email = normalizeEmail(identity.email)
  const owned = yield* standalone(sql<{ domain: string }>`
    SELECT domain FROM sso_domains WHERE domain = ${emailDomain(email)} AND connection_id = ${connection.id}`)
  if (owned[0] === undefined) return refused("emailDomainMismatch", `email domain ${emailDomain(email)} not owned by the connection`)

  // A new account's password is random and never told to anyone: the person signs in through the provider (or sets
  // one with "Forgot password" when SSO is not required). Hashed before the transaction (argon2 is slow).
  const existing = yield* findUserByEmail(email)
  const unusablePassword = existing === undefined || !existing.email_verified
    ? yield* hashPassword(randomToken(32), config.passwordParams)
    : undefined

  return yield* inScope({ workspaceId })(Effect.gen(function* () {
    const linked = yield* sql<{ user_id: number }>`SELECT user_id FROM sso_identities
      WHERE connection_id = ${connection.id} AND subject = ${identity.subject}`
    let userId: number
    let created = false
    if (linked[0] !== undefined) {
      userId = linked[0].user_id
    } else if (existing !== undefined) {
      userId = existing.id
      if (!existing.email_verified) {
        yield* sql`UPDATE users SET password_hash = ${unusablePassword!}, email_verified = true, email_verified_at = now(),
                     updated_at = now() WHERE id = ${userId}`
        yield* revokeAllForUser(userId, "sso_linked")
      }
    } else {
      const rows = yield* sql<{ id: number }>`
        INSERT INTO users (email, email_verified, email_verified_at, password_hash, first_name, last_name)
        VALUES (${email}, true, now(), ${unusablePassword!}, ${identity.firstName.slice(0, 100)}, ${identity.lastName.slice(0, 100)})
        RETURNING id`
      userId = rows[0]!.id
      created = true
    }
    if (linked[0] === undefined) {
      yield* sql`INSERT INTO sso_identities (connection_id, workspace_id, subject, user_id)
        VALUES (${connection.id}, ${workspaceId}, ${identity.subject}, ${userId})`
    } else {
      yield* sql`UPDATE sso_identities SET last_sign_in_at = now() WHERE connection_id = ${connection.id} AND subject = ${identity.subject}`
    }
    yield* setScope({ workspaceId, userId })

    // Membership with the mapped role, re-applied on every sign-in; the owner's own membership is never touched.
    const workspace = yield* sql<{ owner_id: number }>`SELECT owner_id FROM workspaces WHERE id = ${workspaceId}`
    const isOwner = workspace[0]?.owner_id === userId
    const role = mappedRole(yield* groupRoles(connection.id), identity.groups, {
      role_id: connection.default_role_id,
      custom_role_id: connection.default_custom_role_id,
    })
    if (!isOwner) {
      const current = yield* sql<{ role_id: number | null; custom_role_id: number | null }>`
        SELECT role_id, custom_role_id FROM memberships WHERE workspace_id = ${workspaceId} AND user_id = ${userId}`
      const details = { via: "sso", group: role.group, role_id: role.roleId ?? role.customRoleId }
      if (current[0] === undefined) {
        yield* sql`INSERT INTO memberships (workspace_id, user_id, role_id, custom_role_id)
          VALUES (${workspaceId}, ${userId}, ${role.roleId}, ${role.customRoleId})`
        yield* record({ action: "member.added", workspaceId, actorUserId: userId, targetType: "user", targetId: userId, details, ip: context.ip })
      } else if (current[0].role_id !== role.roleId || current[0].custom_role_id !== role.customRoleId) {
        yield* sql`UPDATE memberships SET role_id = ${role.roleId}, custom_role_id = ${role.customRoleId}
          WHERE workspace_id = ${workspaceId} AND user_id = ${userId}`
        yield* record({
          action: "member.role_changed", workspaceId, actorUserId: userId, targetType: "user", targetId: userId,
          details: { ...details, from: current[0].role_id ?? current[0].custom_role_id }, ip: context.ip,
        })
      }
    }
    yield* sql`UPDATE users SET last_login_at = now() WHERE id = ${userId}`
    const code = randomToken(32)
    yield* sql`INSERT INTO sso_handoffs (code_hash, user_id, workspace_id, return_to, expires_at)
      VALUES (${sha256Hex(code)}, ${userId}, ${workspaceId}, ${context.returnTo}, now() + make_interval(secs => ${HANDOFF_SECONDS}))`
    yield* record({
      action: "auth.sso_sign_in", workspaceId, actorUserId: userId, targetType: "user", targetId: userId,
      details: { protocol: connection.protocol, subject: identity.subject, created, role_id: role.roleId ?? role.customRoleId, owner: isOwner },
      ip: context.ip,
    })
    return { _tag: "admitted" as const, code, userId } satisfies AdmitOutcome
  }))
})

/** Consumes a hand-off code (single use, HANDOFF_SECONDS); undefined when unknown, used or expired. */
export const consumeHandoff = Effect.fn("Sso.consumeHandoff")(function* (code: string) {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* standalone(sql<{ user_id: number; workspace_id: number; return_to: string | null }>`
    UPDATE sso_handoffs SET consumed_at = now()
    WHERE code_hash = ${sha256Hex(code)} AND consumed_at IS NULL AND expires_at > now()
    RETURNING user_id, workspace_id, return_to`)
  return rows[0]
})
