/**
 * The `team` group (access §2, §3, §6, §7): team members, add a member directly, update a member, delete a member,
 * the member password-reset email, the roles list and (beyond the spec) custom roles.
 *
 * Rules (access §6 + ours): only the owner changes a member's role and nobody changes the owner's role; nobody deletes
 * their own row or the owner; members added directly are created verified; an existing account cannot be added
 * directly (invite it instead); a non-owner grants only roles whose permissions they hold (no escalation).
 * Permissions are declared in `TeamPolicies` next to the handlers.
 */
import { Effect, Layer } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { SqlClient } from "effect/sql"
import { Api } from "../../src/contracts/api.ts"
import { Conflict, Forbidden, NotFound, RateLimited, ValidationError } from "../../src/contracts/errors.ts"
import type { RoleId, UserId } from "../../src/contracts/ids.ts"
import {
  AccessServerMessages,
  StatusMessages,
  SuccessMessages,
  ValidationMessages,
} from "../../src/contracts/messages.ts"
import { BUILT_IN_ROLES, PERMISSION_IDS, USER_MANAGEMENT_PERMISSIONS, type PermissionName } from "../../src/contracts/permissions.ts"
import { type CreateUserPayload, type CustomRolePayload, type TeamMember, TeamMembersResponse, type UpdateTeamMemberPayload } from "../../src/contracts/team.ts"
import { AccountGroupMessages } from "../../src/contracts/account-groups.ts"
import { existingGroupIds } from "../accounts/account-groups.ts"
import { record } from "../audit/audit-log.ts"
import { AuthConfig } from "../auth/auth-config.ts"
import { captureIdentity, IdentityLive } from "../auth/identity-layer.ts"
import { issueResetToken } from "../auth/one-time-tokens.ts"
import { hashPassword } from "../auth/passwords.ts"
import { builtInRoles, canGrant, customRoles, resolveRole } from "../auth/roles.ts"
import { onUniqueViolation, sqlDefects } from "../auth/sql-errors.ts"
import { findUserByEmail, findUserById, normalizeEmail } from "../auth/users.ts"
import { Mailer } from "../mail/mailer.ts"
import { addedToWorkspaceMail, passwordResetMail } from "../mail/templates.ts"
import { anyMember, anyOf, inWorkspace, type WorkspaceContext } from "./middleware/workspace-scope.ts"
import { guard } from "./middleware/input-guard.ts"
import { hit, peekMany, refusalWait } from "./middleware/rate-limit.ts"
import { cachedRead } from "./middleware/read-cache.ts"

/** Who may call what (checked by inWorkspace before the handler runs; the owner holds every permission). */
export const TeamPolicies = {
  members: anyOf(...USER_MANAGEMENT_PERMISSIONS),
  createUser: anyOf("create_user"),
  deleteUser: anyOf("delete_user"),
  updateMember: anyOf("update_user_permissions", "assign_role_to_user", "revoke_role_from_user"),
  memberPasswordReset: anyOf("create_user", "update_user_permissions"),
  roles: anyMember,
  createCustomRole: anyOf("create_custom_role"),
  updateCustomRole: anyOf("update_custom_role"),
  deleteCustomRole: anyOf("delete_custom_role"),
} as const

type MemberRow = {
  id: number; email: string; first_name: string; last_name: string; is_owner: boolean; role_name: string | null
  role_id: number | null; custom_role_id: number | null; last_login_at: Date | null
}

const toTeamMember = (r: MemberRow): TeamMember => ({
  id: r.id as UserId,
  email: r.email,
  first_name: r.first_name,
  last_name: r.last_name,
  is_owner: r.is_owner,
  role_name: r.role_name,
  role_id: (r.role_id ?? r.custom_role_id) as RoleId | null,
  is_custom_role: r.custom_role_id !== null,
  last_login: r.last_login_at === null ? null : r.last_login_at.toISOString(),
})

const forbidden = (message: string = StatusMessages.forbidden) => new Forbidden({ message })

export const TeamHandlers = HttpApiBuilder.group(
  Api,
  "team",
  Effect.fn(function* (handlers) {
    const sql = yield* SqlClient.SqlClient
    const provide = yield* captureIdentity
    const run = <A, E, R>(effect: Effect.Effect<A, E, R>) => provide(sqlDefects(effect))
    const config = yield* AuthConfig
    const mailer = yield* Mailer

    const members = (ctx: WorkspaceContext, onlyUserId?: number) =>
      sql<MemberRow>`
        SELECT u.id, u.email, u.first_name, u.last_name, w.owner_id = u.id AS is_owner,
               coalesce(r.name, cr.name) AS role_name, m.role_id, m.custom_role_id, u.last_login_at
        FROM memberships m
        JOIN users u ON u.id = m.user_id
        JOIN workspaces w ON w.id = m.workspace_id
        LEFT JOIN roles r ON r.id = m.role_id
        LEFT JOIN custom_roles cr ON cr.id = m.custom_role_id
        WHERE m.workspace_id = ${ctx.workspaceId}
          AND ${onlyUserId === undefined ? sql`true` : sql`m.user_id = ${onlyUserId}`}
        ORDER BY (w.owner_id = u.id) DESC, lower(u.first_name), lower(u.last_name), u.email`

    const memberOrNotFound = (ctx: WorkspaceContext, userId: number) =>
      members(ctx, userId).pipe(
        Effect.flatMap((rows) =>
          rows[0] === undefined ? Effect.fail(new NotFound({ message: AccessServerMessages.memberNotFound })) : Effect.succeed(rows[0])
        ),
      )

    /** The role a request names, when it exists here and the caller may grant it. */
    const grantableRole = (ctx: WorkspaceContext, roleId: number, isCustom: boolean) =>
      Effect.gen(function* () {
        const role = yield* resolveRole(roleId, isCustom)
        if (role === undefined) return yield* new NotFound({ message: AccessServerMessages.roleNotFound })
        if (!canGrant(ctx, role.permissions, role.accountGroupIds)) return yield* forbidden(AccessServerMessages.cannotGrantRole)
        return role
      })

    /**
     * 'Already exists, invite them instead' tells whether an address has an account anywhere: such answers are counted
     * per user and per client address (accountProbesPerUser / PerAddress); once either budget is spent, every
     * create-user call of that user or client answers 429 until its window ends (issue 27, problem 4).
     */
    const probeKeys = (ctx: WorkspaceContext) => ({ user: `account-probe:user:${ctx.userId}`, address: `account-probe:address:${ctx.ip}` })
    const probeBudget = (ctx: WorkspaceContext) =>
      Effect.gen(function* () {
        const keys = probeKeys(ctx)
        const [user, address] = yield* peekMany([
          { key: keys.user, rule: config.accountProbesPerUser },
          { key: keys.address, rule: config.accountProbesPerAddress },
        ])
        const wait = refusalWait(user!, address!)
        if (wait > 0) return yield* new RateLimited({ message: StatusMessages.rateLimited, retry_after_seconds: wait })
      })
    const countProbe = (ctx: WorkspaceContext) =>
      Effect.all([hit(probeKeys(ctx).user, config.accountProbesPerUser), hit(probeKeys(ctx).address, config.accountProbesPerAddress)])

    const createUser = (payload: CreateUserPayload, ctx: WorkspaceContext, probed: () => void) =>
      Effect.gen(function* () {
        const email = normalizeEmail(payload.email)
        const role = yield* grantableRole(ctx, payload.role_id, payload.is_custom_role)
        yield* probeBudget(ctx)
        const existing = yield* findUserByEmail(email)
        if (existing !== undefined) {
          const member = yield* members(ctx, existing.id)
          if (member.length > 0) return yield* new Conflict({ message: AccessServerMessages.memberAlreadyExists })
          probed() // counted by the handler, outside the request's transaction (which the 409 rolls back)
          return yield* new Conflict({ message: AccessServerMessages.userAlreadyExistsElsewhere })
        }
        const passwordHash = yield* hashPassword(payload.password, config.passwordParams)
        const users = yield* sql<{ id: number }>`
          INSERT INTO users (email, email_verified, email_verified_at, password_hash, first_name, last_name)
          VALUES (${email}, true, now(), ${passwordHash}, ${payload.first_name.trim()}, ${payload.last_name.trim()})
          RETURNING id`.pipe(onUniqueViolation("users_email_key", () => new Conflict({ message: AccessServerMessages.userAlreadyExistsElsewhere })))
        const userId = users[0]!.id
        yield* sql`INSERT INTO memberships (workspace_id, user_id, role_id, custom_role_id, invited_by)
          VALUES (${ctx.workspaceId}, ${userId}, ${role.roleId}, ${role.customRoleId}, ${ctx.userId})`
        yield* record({
          action: "member.added", workspaceId: ctx.workspaceId, actorUserId: ctx.userId, targetType: "user", targetId: userId,
          details: { email, role: role.name }, ip: ctx.ip,
        })
        const adder = yield* findUserById(ctx.userId)
        yield* mailer.send(addedToWorkspaceMail({
          origin: config.appOrigin, to: email, firstName: payload.first_name, workspaceName: ctx.workspaceName,
          addedBy: adder === undefined ? "A colleague" : `${adder.first_name} ${adder.last_name}`.trim() || adder.email,
          newAccount: true,
        }))
        const row = yield* memberOrNotFound(ctx, userId)
        return { ok: true, message: SuccessMessages.teamMemberAdded, data: toTeamMember(row) }
      })

    const deleteUser = (userId: number, ctx: WorkspaceContext) =>
      Effect.gen(function* () {
        if (userId === ctx.userId) return yield* forbidden(AccessServerMessages.cannotDeleteSelf)
        const target = yield* memberOrNotFound(ctx, userId)
        if (target.is_owner) return yield* forbidden(AccessServerMessages.cannotDeleteOwner)
        yield* sql`DELETE FROM memberships WHERE workspace_id = ${ctx.workspaceId} AND user_id = ${userId}`
        // Sessions parked on this workspace lose it (requests are membership-checked anyway).
        yield* sql`UPDATE refresh_token_families SET workspace_id = NULL WHERE user_id = ${userId} AND workspace_id = ${ctx.workspaceId}`
        yield* record({
          action: "member.removed", workspaceId: ctx.workspaceId, actorUserId: ctx.userId, targetType: "user", targetId: userId,
          details: { email: target.email, role: target.role_name }, ip: ctx.ip,
        })
        return { ok: true, message: SuccessMessages.teamMemberDeleted }
      })

    const updateMember = (payload: UpdateTeamMemberPayload, ctx: WorkspaceContext) =>
      Effect.gen(function* () {
        const target = yield* memberOrNotFound(ctx, payload.user_id)
        const currentRoleId = target.role_id ?? target.custom_role_id
        const wantsRole = payload.role_id !== undefined && payload.role_id !== null &&
          (payload.role_id !== currentRoleId || payload.is_custom_role !== (target.custom_role_id !== null))
        if (wantsRole) {
          if (target.is_owner) return yield* forbidden(AccessServerMessages.ownerRoleFixed)
          if (!ctx.isOwner) return yield* forbidden(AccessServerMessages.onlyOwnerChangesRoles)
          const role = yield* grantableRole(ctx, payload.role_id!, payload.is_custom_role)
          yield* sql`UPDATE memberships SET role_id = ${role.roleId}, custom_role_id = ${role.customRoleId}
            WHERE workspace_id = ${ctx.workspaceId} AND user_id = ${target.id}`
          yield* record({
            action: "member.role_changed", workspaceId: ctx.workspaceId, actorUserId: ctx.userId, targetType: "user",
            targetId: target.id, details: { from: target.role_name, to: role.name }, ip: ctx.ip,
          })
        }
        const first = payload.first_name.trim()
        const last = payload.last_name.trim()
        if (first !== target.first_name || last !== target.last_name) {
          yield* sql`UPDATE users SET first_name = ${first}, last_name = ${last}, updated_at = now() WHERE id = ${target.id}`
          yield* record({
            action: "member.updated", workspaceId: ctx.workspaceId, actorUserId: ctx.userId, targetType: "user",
            targetId: target.id, details: { first_name: first, last_name: last }, ip: ctx.ip,
          })
        }
        const row = yield* memberOrNotFound(ctx, target.id)
        return { ok: true, message: AccessServerMessages.memberUpdated, data: toTeamMember(row) }
      })

    const memberPasswordReset = (emailInput: string, ctx: WorkspaceContext) =>
      Effect.gen(function* () {
        const user = yield* findUserByEmail(normalizeEmail(emailInput))
        if (user === undefined) return yield* new NotFound({ message: AccessServerMessages.memberNotFound })
        yield* memberOrNotFound(ctx, user.id)
        const token = yield* issueResetToken(user.id)
        const requester = yield* findUserById(ctx.userId)
        yield* record({
          action: "member.password_reset_sent", workspaceId: ctx.workspaceId, actorUserId: ctx.userId, targetType: "user",
          targetId: user.id, ip: ctx.ip,
        })
        yield* mailer.send(passwordResetMail({
          origin: config.appOrigin, to: user.email, firstName: user.first_name, token, expiresInMinutes: config.resetTtlMinutes,
          requestedBy: requester === undefined ? undefined : `${requester.first_name} ${requester.last_name}`.trim() || requester.email,
        }))
        return { ok: true, message: SuccessMessages.passwordResetEmailSent }
      })

    // ---- custom roles ----------------------------------------------------------------------------------------------
    const isBuiltInName = (name: string) =>
      BUILT_IN_ROLES.some((r) => r.name.toLowerCase() === name.trim().toLowerCase()) || name.trim().toLowerCase() === "owner"

    /**
     * A role's account groups (issue 31; docs/permissions.md "Account groups"): the payload's, or on update when the
     * payload leaves them out, the role's current ones (an older client editing a role never widens it). Every group
     * must be the workspace's.
     */
    const roleGroups = (payload: CustomRolePayload, ctx: WorkspaceContext, current: ReadonlyArray<number> | null) =>
      Effect.gen(function* () {
        const groups = payload.account_group_ids === undefined ? current : payload.account_group_ids === null ? null : [...new Set(payload.account_group_ids)]
        if (groups !== null && (yield* existingGroupIds(ctx.workspaceId, groups)).length !== groups.length) {
          return yield* new ValidationError({
            message: AccountGroupMessages.groupNotFound, errors: [{ path: "account_group_ids", message: AccountGroupMessages.groupNotFound }],
          })
        }
        return groups as ReadonlyArray<number> | null
      })

    const writeGroups = (roleId: number, ctx: WorkspaceContext, groups: ReadonlyArray<number> | null) =>
      Effect.gen(function* () {
        yield* sql`UPDATE custom_roles SET limited_to_groups = ${groups !== null} WHERE id = ${roleId} AND workspace_id = ${ctx.workspaceId}`
        yield* sql`DELETE FROM custom_role_account_groups WHERE custom_role_id = ${roleId} AND workspace_id = ${ctx.workspaceId}`
        for (const g of groups ?? []) {
          yield* sql`INSERT INTO custom_role_account_groups (custom_role_id, workspace_id, group_id) VALUES (${roleId}, ${ctx.workspaceId}, ${g})`
        }
      })

    const checkRolePayload = (payload: CustomRolePayload, ctx: WorkspaceContext, groups: ReadonlyArray<number> | null) =>
      Effect.gen(function* () {
        if (payload.name.trim() === "") {
          return yield* new ValidationError({
            message: ValidationMessages.customRoleNameRequired,
            errors: [{ path: "name", message: ValidationMessages.customRoleNameRequired }],
          })
        }
        if (isBuiltInName(payload.name)) return yield* new Conflict({ message: AccessServerMessages.roleNameExists })
        const permissions = [...new Set(payload.permissions)] as Array<PermissionName>
        if (!canGrant(ctx, permissions, groups)) return yield* forbidden(AccessServerMessages.cannotGrantRole)
        return permissions
      })

    const writePermissions = (roleId: number, ctx: WorkspaceContext, permissions: ReadonlyArray<PermissionName>) =>
      Effect.gen(function* () {
        yield* sql`DELETE FROM custom_role_permissions WHERE custom_role_id = ${roleId}`
        for (const p of permissions) {
          yield* sql`INSERT INTO custom_role_permissions (custom_role_id, workspace_id, permission_id)
            VALUES (${roleId}, ${ctx.workspaceId}, ${PERMISSION_IDS[p]})`
        }
      })

    const oneCustomRole = (roleId: number) =>
      customRoles(roleId).pipe(
        Effect.flatMap((list) =>
          list[0] === undefined ? Effect.fail(new NotFound({ message: AccessServerMessages.roleNotFound })) : Effect.succeed(list[0])
        ),
      )

    const createCustomRole = (payload: CustomRolePayload, ctx: WorkspaceContext) =>
      Effect.gen(function* () {
        const groups = yield* roleGroups(payload, ctx, null)
        const permissions = yield* checkRolePayload(payload, ctx, groups)
        const rows = yield* sql<{ id: number }>`
          INSERT INTO custom_roles (workspace_id, name, description, created_by)
          VALUES (${ctx.workspaceId}, ${payload.name.trim()}, ${payload.description ?? ""}, ${ctx.userId}) RETURNING id`.pipe(
          onUniqueViolation("custom_roles_name_key", () => new Conflict({ message: AccessServerMessages.roleNameExists })),
        )
        const roleId = rows[0]!.id
        yield* writePermissions(roleId, ctx, permissions)
        yield* writeGroups(roleId, ctx, groups)
        yield* record({
          action: "role.created", workspaceId: ctx.workspaceId, actorUserId: ctx.userId, targetType: "custom_role",
          targetId: roleId, details: { name: payload.name.trim(), permissions, account_group_ids: groups }, ip: ctx.ip,
        })
        return { ok: true, message: AccessServerMessages.roleCreated, data: yield* Effect.orDie(oneCustomRole(roleId)) }
      })

    const updateCustomRole = (roleId: number, payload: CustomRolePayload, ctx: WorkspaceContext) =>
      Effect.gen(function* () {
        const before = yield* oneCustomRole(roleId)
        const beforeGroups = (before.account_group_ids ?? null) as ReadonlyArray<number> | null
        const groups = yield* roleGroups(payload, ctx, beforeGroups)
        // Editing a role at all needs the right to grant what it was, too: a limited member cannot narrow others' access
        // in a role wider than theirs.
        if (!canGrant(ctx, before.permissions.map((p) => p.name as PermissionName), beforeGroups)) {
          return yield* forbidden(AccessServerMessages.cannotGrantRole)
        }
        const permissions = yield* checkRolePayload(payload, ctx, groups)
        yield* sql`UPDATE custom_roles SET name = ${payload.name.trim()}, description = ${payload.description ?? before.description ?? ""},
                     updated_at = now() WHERE id = ${roleId} AND workspace_id = ${ctx.workspaceId}`.pipe(
          onUniqueViolation("custom_roles_name_key", () => new Conflict({ message: AccessServerMessages.roleNameExists })),
        )
        yield* writePermissions(roleId, ctx, permissions)
        yield* writeGroups(roleId, ctx, groups)
        yield* record({
          action: "role.updated", workspaceId: ctx.workspaceId, actorUserId: ctx.userId, targetType: "custom_role",
          targetId: roleId,
          details: {
            from: before.permissions.map((p) => p.name), to: permissions, name: payload.name.trim(),
            account_groups_from: beforeGroups, account_groups_to: groups,
          },
          ip: ctx.ip,
        })
        return { ok: true, message: AccessServerMessages.roleUpdated, data: yield* oneCustomRole(roleId) }
      })

    const deleteCustomRole = (roleId: number, ctx: WorkspaceContext) =>
      Effect.gen(function* () {
        const role = yield* oneCustomRole(roleId)
        const used = yield* sql<{ n: number }>`
          SELECT (SELECT count(*) FROM memberships WHERE custom_role_id = ${roleId})::int
               + (SELECT count(*) FROM invitations WHERE custom_role_id = ${roleId} AND status = 'pending')::int AS n`
        if ((used[0]?.n ?? 0) > 0) return yield* new Conflict({ message: AccessServerMessages.roleInUse })
        yield* sql`DELETE FROM custom_roles WHERE id = ${roleId} AND workspace_id = ${ctx.workspaceId}`
        yield* record({
          action: "role.deleted", workspaceId: ctx.workspaceId, actorUserId: ctx.userId, targetType: "custom_role",
          targetId: roleId, details: { name: role.name }, ip: ctx.ip,
        })
        return { ok: true, message: AccessServerMessages.roleDeleted }
      })

    return handlers
      .handle("members", guard(({ request }) =>
        run(cachedRead(request, TeamMembersResponse, inWorkspace(request, TeamPolicies.members, (ctx) =>
          members(ctx).pipe(Effect.map((rows) => ({ ok: true as const, data: rows.map(toTeamMember) }))))))))
      .handle("createUser", guard(({ payload, request }) => {
        let probedBy: WorkspaceContext | undefined
        return run(inWorkspace(request, TeamPolicies.createUser, (ctx) => createUser(payload, ctx, () => void (probedBy = ctx))).pipe(
          Effect.tapError(() => (probedBy === undefined ? Effect.void : countProbe(probedBy))),
        ))
      }))
      .handle("deleteUser", guard(({ query, request }) =>
        run(inWorkspace(request, TeamPolicies.deleteUser, (ctx) => deleteUser(query.user_to_delete, ctx)))))
      .handle("updateMember", guard(({ payload, request }) =>
        run(inWorkspace(request, TeamPolicies.updateMember, (ctx) => updateMember(payload, ctx)))))
      .handle("memberPasswordReset", guard(({ payload, request }) =>
        run(inWorkspace(request, TeamPolicies.memberPasswordReset, (ctx) => memberPasswordReset(payload.email, ctx)))))
      .handle("roles", guard(({ request }) =>
        run(inWorkspace(request, TeamPolicies.roles, () =>
          Effect.gen(function* () {
            return { ok: true, data: { roles: yield* builtInRoles(), custom_roles: yield* customRoles() } }
          })))))
      .handle("createCustomRole", guard(({ payload, request }) =>
        run(inWorkspace(request, TeamPolicies.createCustomRole, (ctx) => createCustomRole(payload, ctx)))))
      .handle("updateCustomRole", guard(({ params, payload, request }) =>
        run(inWorkspace(request, TeamPolicies.updateCustomRole, (ctx) => updateCustomRole(params.id, payload, ctx)))))
      .handle("deleteCustomRole", guard(({ params, request }) =>
        run(inWorkspace(request, TeamPolicies.deleteCustomRole, (ctx) => deleteCustomRole(params.id, ctx)))))
  }),
).pipe(Layer.provide(IdentityLive))
