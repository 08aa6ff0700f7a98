/**
 * The `invitations` group (access §7): bulk invite, list, resend, cancel, check by token, accept by link (signed in)
 * and the invitation sign-up (new user). Behaviour: access §2, §4, §5; messages: §8.
 *
 * Permissions (declared next to each handler below): invite/resend need create_user; cancel needs create_user or
 * delete_user; the list needs any user-management permission; check and accept need only the token.
 * Bulk invite: emails arrive trimmed and lower-cased (contract schema); an email that already belongs to a member is
 * skipped ('already a member'), a pending invitation to the same email is re-sent (new token, new expiry) instead of
 * duplicated, a role that does not exist in the workspace or that the inviter may not grant is skipped.
 */
import { Effect, Layer } from "effect"
import type { HttpServerRequest } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import { SqlClient } from "effect/sql"
import { Api } from "../../src/contracts/api.ts"
import { Conflict, NotFound, RateLimited, ValidationError } from "../../src/contracts/errors.ts"
import type { InvitationId, WorkspaceId } from "../../src/contracts/ids.ts"
import type { AcceptInvitationPayload, BulkInvitePayload, Invitation } from "../../src/contracts/invitations.ts"
import {
  AccessServerMessages,
  allInvitationsFailedMessage,
  allInvitationsSentMessage,
  invitationCanceledMessage,
  InvitationMessages,
  invitationResentMessage,
  someInvitationsSentMessage,
  StatusMessages,
  ValidationMessages,
} from "../../src/contracts/messages.ts"
import { USER_MANAGEMENT_PERMISSIONS } from "../../src/contracts/permissions.ts"
import { record } from "../audit/audit-log.ts"
import { AuthConfig } from "../auth/auth-config.ts"
import { captureIdentity, IdentityLive } from "../auth/identity-layer.ts"
import {
  claimInvitation,
  invitationTokenHash,
  isWellFormedInvitationToken,
  newInvitationToken,
  pendingInvitationByToken,
  unsealInvitationToken,
} from "../auth/invitation-tokens.ts"
import { hashPassword } from "../auth/passwords.ts"
import { inScope, setScope } from "../auth/rls.ts"
import { canGrant, resolveRole } from "../auth/roles.ts"
import { onUniqueViolation, sqlDefects } from "../auth/sql-errors.ts"
import { findUserByEmail, findUserById, normalizeTimezone } from "../auth/users.ts"
import { Mailer } from "../mail/mailer.ts"
import { invitationLink, invitationMail } from "../mail/templates.ts"
import { openSession } from "./auth.ts"
import { authenticateOptional, type Caller, clientAddress } from "./middleware/authentication.ts"
import { anyOf, inWorkspace, type WorkspaceContext } from "./middleware/workspace-scope.ts"
import { guard } from "./middleware/input-guard.ts"
import { hit, reset } from "./middleware/rate-limit.ts"

/** Who may call what (checked by inWorkspace before the handler runs). */
export const InvitationPolicies = {
  invite: anyOf("create_user"),
  list: anyOf(...USER_MANAGEMENT_PERMISSIONS),
  resend: anyOf("create_user"),
  cancel: anyOf("create_user", "delete_user"),
} as const

const isoOf = (d: Date): string => d.toISOString()

/**
 * A signed-in user accepts an invitation sent to their email: they join the workspace with the invited role.
 * Shared by POST /api/invitations/accept (signed in) and POST /api/workspaces/accept-invitation.
 */
export const acceptAsUser = Effect.fn("Invitations.acceptAsUser")(function* (
  caller: Caller & { readonly ip: string },
  token: string,
) {
  const sql = yield* SqlClient.SqlClient
  const hash = isWellFormedInvitationToken(token) ? invitationTokenHash(token) : undefined
  return yield* inScope({ userId: caller.userId, invitationTokenHash: hash })(Effect.gen(function* () {
    const inv = yield* pendingInvitationByToken(token)
    const user = yield* findUserById(caller.userId)
    if (user === undefined || user.email !== inv.email) {
      return yield* new Conflict({ message: AccessServerMessages.invitationOtherEmail, data: { error_type: "other_email" } })
    }
    yield* setScope({ userId: caller.userId, workspaceId: inv.workspace_id, invitationTokenHash: hash })
    const member = yield* sql`SELECT 1 FROM memberships WHERE workspace_id = ${inv.workspace_id} AND user_id = ${caller.userId}`
    if (member.length > 0) {
      return yield* new Conflict({ message: InvitationMessages.completionAlreadyMember, data: { error_type: "already_member" } })
    }
    yield* claimInvitation(token, caller.userId)
    yield* sql`INSERT INTO memberships (workspace_id, user_id, role_id, custom_role_id, invited_by)
      VALUES (${inv.workspace_id}, ${caller.userId}, ${inv.role_id}, ${inv.custom_role_id}, ${inv.invited_by})`.pipe(
      onUniqueViolation("memberships_pkey", () =>
        new Conflict({ message: InvitationMessages.completionAlreadyMember, data: { error_type: "already_member" } })),
    )
    yield* record({
      action: "invitation.accepted", workspaceId: inv.workspace_id, actorUserId: caller.userId,
      targetType: "invitation", targetId: inv.id, details: { email: inv.email, role: inv.role_name }, ip: caller.ip,
    })
    return { workspace_id: inv.workspace_id as WorkspaceId, workspace_name: inv.workspace_name, email: inv.email }
  }))
})

export const InvitationsHandlers = HttpApiBuilder.group(
  Api,
  "invitations",
  Effect.fn(function* (handlers) {
    const sql = yield* SqlClient.SqlClient
    const provide = yield* captureIdentity
    const run = <A, E, R>(effect: Effect.Effect<A, E, R>) => provide(sqlDefects(effect))
    const config = yield* AuthConfig
    const mailer = yield* Mailer

    const inviterName = (ctx: WorkspaceContext) =>
      findUserById(ctx.userId).pipe(
        Effect.map((u) => (u === undefined ? "A colleague" : `${u.first_name} ${u.last_name}`.trim() || u.email)),
      )

    const sendInvitationMail = (p: { to: string; token: string; workspaceName: string; roleName: string; inviter: string }) =>
      mailer.send(invitationMail({
        origin: config.appOrigin, to: p.to, token: p.token, workspaceName: p.workspaceName, roleName: p.roleName,
        inviterName: p.inviter, expiresInDays: config.invitationTtlDays,
      }))

    // ---- bulk invite ---------------------------------------------------------------------------------------------------
    const invite = (payload: BulkInvitePayload, ctx: WorkspaceContext) =>
      Effect.gen(function* () {
        const inviter = yield* inviterName(ctx)
        let sent = 0
        let resent = 0
        const skipped: Array<{ email: string; reason: string }> = []
        for (const entry of payload.invitations) {
          const email = entry.email.trim().toLowerCase()
          const role = yield* resolveRole(entry.role_id, entry.is_custom_role)
          if (role === undefined) {
            skipped.push({ email, reason: AccessServerMessages.invalidRoleSkip })
            continue
          }
          if (!canGrant(ctx, role.permissions, role.accountGroupIds)) {
            skipped.push({ email, reason: AccessServerMessages.roleNotGrantableSkip })
            continue
          }
          const member = yield* sql`SELECT 1 FROM memberships m JOIN users u ON u.id = m.user_id
            WHERE m.workspace_id = ${ctx.workspaceId} AND u.email = ${email}`
          if (member.length > 0) {
            skipped.push({ email, reason: AccessServerMessages.alreadyMemberSkip })
            continue
          }
          const t = yield* newInvitationToken(ctx.workspaceId, email)
          const refreshed = yield* sql<{ id: number }>`
            UPDATE invitations SET token_hash = ${t.hash}, token_ciphertext = ${t.sealed}, role_id = ${role.roleId},
                   custom_role_id = ${role.customRoleId}, invited_by = ${ctx.userId}, updated_at = now(),
                   expires_at = now() + make_interval(days => ${config.invitationTtlDays})
            WHERE workspace_id = ${ctx.workspaceId} AND email = ${email} AND status = 'pending'
            RETURNING id`
          if (refreshed[0] !== undefined) {
            resent++
            yield* record({
              action: "invitation.resent", workspaceId: ctx.workspaceId, actorUserId: ctx.userId, targetType: "invitation",
              targetId: refreshed[0].id, details: { email, role: role.name }, ip: ctx.ip,
            })
          } else {
            const created = yield* sql<{ id: number }>`
              INSERT INTO invitations (workspace_id, email, role_id, custom_role_id, token_hash, token_ciphertext, invited_by, expires_at)
              VALUES (${ctx.workspaceId}, ${email}, ${role.roleId}, ${role.customRoleId}, ${t.hash}, ${t.sealed}, ${ctx.userId},
                      now() + make_interval(days => ${config.invitationTtlDays}))
              RETURNING id`
            sent++
            yield* record({
              action: "invitation.sent", workspaceId: ctx.workspaceId, actorUserId: ctx.userId, targetType: "invitation",
              targetId: created[0]!.id, details: { email, role: role.name }, ip: ctx.ip,
            })
          }
          yield* sendInvitationMail({ to: email, token: t.token, workspaceName: ctx.workspaceName, roleName: role.name, inviter })
        }
        const delivered = sent + resent
        return {
          ok: delivered > 0,
          message: delivered === 0
            ? allInvitationsFailedMessage(skipped.length)
            : skipped.length === 0
            ? allInvitationsSentMessage(delivered)
            : someInvitationsSentMessage(delivered, skipped.length),
          sent_count: sent,
          resent_count: resent,
          skipped_count: skipped.length,
          skipped_emails: skipped,
        }
      })

    // ---- list / resend / cancel ------------------------------------------------------------------------------------
    const list = (ctx: WorkspaceContext) =>
      Effect.gen(function* () {
        const rows = yield* sql<{
          id: number; email: string; status: "pending" | "accepted" | "canceled"; expired: boolean; role_name: string | null
          created_at: Date; expires_at: Date; token_ciphertext: string
          inviter_first_name: string | null; inviter_last_name: string | null; inviter_email: string | null
        }>`SELECT i.id, i.email, i.status, i.expires_at <= now() AS expired, coalesce(r.name, cr.name) AS role_name,
                  i.created_at, i.expires_at, i.token_ciphertext,
                  u.first_name AS inviter_first_name, u.last_name AS inviter_last_name, u.email AS inviter_email
           FROM invitations i
           LEFT JOIN roles r ON r.id = i.role_id
           LEFT JOIN custom_roles cr ON cr.id = i.custom_role_id
           LEFT JOIN users u ON u.id = i.invited_by
           WHERE i.workspace_id = ${ctx.workspaceId}
           ORDER BY i.created_at DESC, i.id DESC`
        const data: Array<Invitation> = []
        for (const r of rows) {
          const status = r.status === "pending" && r.expired ? "expired" as const : r.status
          const token = status === "pending" ? yield* unsealInvitationToken(ctx.workspaceId, r.email, r.token_ciphertext) : undefined
          data.push({
            id: r.id as InvitationId,
            email: r.email,
            status,
            role_name: r.role_name,
            created_at: isoOf(r.created_at),
            expires_at: isoOf(r.expires_at),
            invited_by_first_name: r.inviter_first_name,
            invited_by_last_name: r.inviter_last_name,
            invited_by_email: r.inviter_email,
            invite_link: token === undefined ? null : invitationLink(config.appOrigin, token),
            invitation_token: token ?? null,
          })
        }
        return { ok: true, data }
      })

    const pendingInWorkspace = (id: number, ctx: WorkspaceContext) =>
      Effect.gen(function* () {
        const rows = yield* sql<{ id: number; email: string; status: string; role_name: string | null }>`
          SELECT i.id, i.email, i.status, coalesce(r.name, cr.name) AS role_name
          FROM invitations i LEFT JOIN roles r ON r.id = i.role_id LEFT JOIN custom_roles cr ON cr.id = i.custom_role_id
          WHERE i.id = ${id} AND i.workspace_id = ${ctx.workspaceId} FOR UPDATE OF i`
        const inv = rows[0]
        if (inv === undefined) return yield* new NotFound({ message: AccessServerMessages.invitationNotFound })
        if (inv.status !== "pending") return yield* new Conflict({ message: AccessServerMessages.invitationNotPending })
        return inv
      })

    const resend = (id: number, ctx: WorkspaceContext) =>
      Effect.gen(function* () {
        const inv = yield* pendingInWorkspace(id, ctx)
        const t = yield* newInvitationToken(ctx.workspaceId, inv.email)
        const rows = yield* sql<{ expires_at: Date }>`
          UPDATE invitations SET token_hash = ${t.hash}, token_ciphertext = ${t.sealed}, updated_at = now(),
                 expires_at = now() + make_interval(days => ${config.invitationTtlDays})
          WHERE id = ${inv.id} RETURNING expires_at`
        yield* record({
          action: "invitation.resent", workspaceId: ctx.workspaceId, actorUserId: ctx.userId, targetType: "invitation",
          targetId: inv.id, details: { email: inv.email }, ip: ctx.ip,
        })
        yield* sendInvitationMail({
          to: inv.email, token: t.token, workspaceName: ctx.workspaceName, roleName: inv.role_name ?? "Member",
          inviter: yield* inviterName(ctx),
        })
        return { ok: true, message: invitationResentMessage(inv.email), data: { email: inv.email, expires_at: isoOf(rows[0]!.expires_at) } }
      })

    const cancel = (id: number, ctx: WorkspaceContext) =>
      Effect.gen(function* () {
        const inv = yield* pendingInWorkspace(id, ctx)
        yield* sql`UPDATE invitations SET status = 'canceled', canceled_at = now(), updated_at = now() WHERE id = ${inv.id}`
        yield* record({
          action: "invitation.canceled", workspaceId: ctx.workspaceId, actorUserId: ctx.userId, targetType: "invitation",
          targetId: inv.id, details: { email: inv.email }, ip: ctx.ip,
        })
        return { ok: true, message: invitationCanceledMessage(inv.email) }
      })

    // ---- by token ----------------------------------------------------------------------------------------------------
    /**
     * Whoever holds an invitation's token learns whether its address has an account (the check's `user_exists`, the
     * invitation sign-up's 409 `account_exists`), and the inviter holds the token too (invite_link): inviting an
     * address and checking the link is an account-existence oracle (issue 27, problem 4). So both are limited, outside
     * any transaction (a refused or failed answer rolls its own back): per client address, every request; per inviter,
     * the distinct invitations checked in the window (an invitee opening their link again costs nothing more).
     * Answered 429 with retry_after_seconds.
     */
    const rateLimited = (retryAfterSeconds: number) => new RateLimited({ message: StatusMessages.rateLimited, retry_after_seconds: retryAfterSeconds })
    const clientCheckBudget = (ip: string) =>
      hit(`invitation-check:address:${ip}`, config.invitationChecksPerAddress).pipe(
        Effect.flatMap((client) => (client.allowed ? Effect.void : Effect.fail(rateLimited(client.retryAfterSeconds)))),
      )
    const inviterCheckBudget = (inv: { readonly id: number; readonly invited_by: number | null }) =>
      Effect.gen(function* () {
        if (inv.invited_by === null) return
        const seenKey = `invitation-check:seen:${inv.id}`
        const seen = yield* hit(seenKey, { limit: 1, windowSeconds: config.invitationChecksPerInviter.windowSeconds })
        if (seen.hits > 1) return
        const inviter = yield* hit(`invitation-check:inviter:${inv.invited_by}`, config.invitationChecksPerInviter)
        if (!inviter.allowed) {
          yield* reset(seenKey)
          return yield* rateLimited(inviter.retryAfterSeconds)
        }
      })

    const check = (token: string, ip: string) =>
      Effect.gen(function* () {
        yield* clientCheckBudget(ip)
        const hash = isWellFormedInvitationToken(token) ? invitationTokenHash(token) : undefined
        const found = yield* inScope({ invitationTokenHash: hash })(Effect.gen(function* () {
          const inv = yield* pendingInvitationByToken(token)
          const existing = yield* findUserByEmail(inv.email)
          return { inv, exists: existing !== undefined }
        }))
        yield* inviterCheckBudget(found.inv)
        return {
          ok: true,
          email: found.inv.email,
          workspace_name: found.inv.workspace_name,
          role_name: found.inv.role_name,
          status: "pending" as const,
          user_exists: found.exists,
        }
      })

    /** Invitation sign-up: creates a verified user, joins the workspace, answers tokens (access §3, §4). */
    const acceptAsNewUser = (payload: AcceptInvitationPayload, ip: string) =>
      Effect.gen(function* () {
        const token = payload.invitation_token
        const hash = isWellFormedInvitationToken(token) ? invitationTokenHash(token) : undefined
        // Cheap state check first (answers the token's own error before any field complaint).
        yield* clientCheckBudget(ip)
        const inv = yield* inScope({ invitationTokenHash: hash })(pendingInvitationByToken(token))
        yield* inviterCheckBudget(inv)
        const existing = yield* findUserByEmail(inv.email)
        if (existing !== undefined) {
          return yield* new Conflict({
            message: AccessServerMessages.invitationSignInRequired,
            data: { error_type: "account_exists", email: inv.email },
          })
        }
        const missing = [
          payload.first_name === undefined ? { path: "first_name", message: ValidationMessages.firstNameRequired } : undefined,
          payload.last_name === undefined ? { path: "last_name", message: ValidationMessages.lastNameRequired } : undefined,
          payload.password === undefined ? { path: "password", message: ValidationMessages.passwordRequired } : undefined,
          payload.password !== undefined && payload.confirm_password === undefined
            ? { path: "confirm_password", message: ValidationMessages.confirmPasswordRequired }
            : undefined,
        ].filter((x) => x !== undefined)
        if (missing.length > 0 || payload.password === undefined) {
          return yield* new ValidationError({ message: AccessServerMessages.invitationSignupDetailsRequired, errors: missing })
        }
        const passwordHash = yield* hashPassword(payload.password, config.passwordParams)
        return yield* inScope({ invitationTokenHash: hash })(Effect.gen(function* () {
          const current = yield* pendingInvitationByToken(token)
          const users = yield* sql<{ id: number }>`
            INSERT INTO users (email, email_verified, email_verified_at, password_hash, first_name, last_name, timezone)
            VALUES (${current.email}, true, now(), ${passwordHash}, ${(payload.first_name ?? "").trim()},
                    ${(payload.last_name ?? "").trim()}, ${normalizeTimezone(payload.timezone)})
            RETURNING id`.pipe(
            onUniqueViolation("users_email_key", () =>
              new Conflict({ message: AccessServerMessages.invitationSignInRequired, data: { error_type: "account_exists", email: current.email } })),
          )
          const userId = users[0]!.id
          yield* claimInvitation(token, userId)
          yield* setScope({ userId, workspaceId: current.workspace_id, invitationTokenHash: hash })
          yield* sql`INSERT INTO memberships (workspace_id, user_id, role_id, custom_role_id, invited_by)
            VALUES (${current.workspace_id}, ${userId}, ${current.role_id}, ${current.custom_role_id}, ${current.invited_by})`
          yield* sql`UPDATE users SET last_login_at = now() WHERE id = ${userId}`
          const tokens = yield* openSession(userId, current.workspace_id)
          yield* record({
            action: "invitation.accepted", workspaceId: current.workspace_id, actorUserId: userId, targetType: "invitation",
            targetId: current.id, details: { email: current.email, role: current.role_name, new_user: true }, ip,
          })
          return {
            ok: true,
            message: InvitationMessages.registrationComplete,
            access_token: tokens.access_token,
            refresh_token: tokens.refresh_token,
            data: {
              workspace_id: current.workspace_id as WorkspaceId,
              workspace_name: current.workspace_name,
              email: current.email,
            },
          }
        }))
      })

    const accept = (payload: AcceptInvitationPayload, request: HttpServerRequest.HttpServerRequest) =>
      Effect.gen(function* () {
        const caller = yield* authenticateOptional(request)
        const ip = clientAddress(request)
        if (caller === undefined) return yield* acceptAsNewUser(payload, ip)
        const joined = yield* acceptAsUser({ ...caller, ip }, payload.invitation_token)
        return { ok: true, message: AccessServerMessages.invitationAccepted, data: joined }
      })

    return handlers
      .handle("invite", guard(({ payload, request }) =>
        run(inWorkspace(request, InvitationPolicies.invite, (ctx) => invite(payload, ctx)))))
      .handle("list", guard(({ request }) => run(inWorkspace(request, InvitationPolicies.list, list))))
      .handle("resend", guard(({ params, request }) =>
        run(inWorkspace(request, InvitationPolicies.resend, (ctx) => resend(params.invitation_id, ctx)))))
      .handle("cancel", guard(({ params, request }) =>
        run(inWorkspace(request, InvitationPolicies.cancel, (ctx) => cancel(params.id, ctx)))))
      .handle("check", guard(({ params, request }) => run(check(params.token, clientAddress(request)))))
      .handle("accept", guard(({ payload, request }) => run(accept(payload, request))))
      .handle("acceptAlias", guard(({ payload, request }) => run(accept(payload, request))))
  }),
).pipe(Layer.provide(IdentityLive))
