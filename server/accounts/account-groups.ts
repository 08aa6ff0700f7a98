/**
 * Account groups of a workspace (issue 31 item 5; migration 0023, docs/permissions.md "Account groups"): list, create,
 * update, delete, each change audited (`account_group.created | updated | deleted`: who, what the group was and is).
 * Runs inside the caller's row-level-security scope; the handlers (server/api/account-groups.ts) let only workspace
 * admins with access to every account call it.
 *
 * What a group holds now (`matched_account_ids`) is computed by the same rule the database applies to limited roles
 * (`app_role_account_ids`, here per group): a unit group holds the accounts of its unit and of every unit below it.
 * Errors: NotFound (group, unit or account), Conflict (name taken; a group still limiting a role cannot be deleted).
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { AccountGroupMessages as M, type AccountGroup, type AccountGroupId, type AccountGroupPayload } from "../../src/contracts/account-groups.ts"
import { Conflict, NotFound, ValidationError } from "../../src/contracts/errors.ts"
import type { AccountId, RoleId } from "../../src/contracts/ids.ts"
import { recordAudit } from "../audit/scanning-audit.ts"
import { onUniqueViolation } from "../auth/sql-errors.ts"

export interface GroupActor {
  readonly workspaceId: number
  readonly userId: number
  readonly ip: string
}

interface GroupRow {
  readonly id: number
  readonly name: string
  readonly kind: AccountGroup["kind"]
  readonly organization_id: number | null
  readonly unit_id: string | null
  readonly unit_path: string | null
  readonly tag_key: string | null
  readonly tag_value: string | null
  readonly account_ids: ReadonlyArray<number>
  readonly matched_account_ids: ReadonlyArray<number>
  readonly role_ids: ReadonlyArray<number>
  readonly created_at: Date
  readonly updated_at: Date
}

const toGroup = (r: GroupRow): AccountGroup => ({
  id: r.id as AccountGroupId,
  name: r.name,
  kind: r.kind,
  organization_id: r.organization_id as AccountId | null,
  unit_id: r.unit_id,
  unit_path: r.unit_path,
  tag_key: r.tag_key,
  tag_value: r.tag_value,
  account_ids: r.account_ids as ReadonlyArray<AccountId>,
  matched_account_ids: r.matched_account_ids as ReadonlyArray<AccountId>,
  role_ids: r.role_ids as ReadonlyArray<RoleId>,
  created_at: r.created_at.toISOString(),
  updated_at: r.updated_at.toISOString(),
})

/** The groups of the workspace (one of them), with what each holds now and the roles it limits. */
export const listAccountGroups = Effect.fn("AccountGroups.list")(function* (workspaceId: number, onlyId?: number) {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql<GroupRow>`
    SELECT g.id, g.name, g.kind, g.organization_id, g.unit_id, u.path AS unit_path, g.tag_key, g.tag_value, g.created_at, g.updated_at,
           ARRAY(SELECT ga.account_id FROM account_group_accounts ga WHERE ga.workspace_id = g.workspace_id AND ga.group_id = g.id
                 ORDER BY ga.account_id) AS account_ids,
           ARRAY(SELECT rg.custom_role_id FROM custom_role_account_groups rg WHERE rg.workspace_id = g.workspace_id AND rg.group_id = g.id
                 ORDER BY rg.custom_role_id) AS role_ids,
           ARRAY(
             WITH RECURSIVE units AS (
               SELECT g.organization_id AS organization_id, g.unit_id AS unit_id WHERE g.kind = 'unit'
               UNION
               SELECT c.organization_id, c.unit_id FROM units p JOIN organization_units c
                 ON c.workspace_id = g.workspace_id AND c.organization_id = p.organization_id AND c.parent_unit_id = p.unit_id)
             SELECT a.id FROM accounts a
             WHERE a.workspace_id = g.workspace_id AND (
               (g.kind = 'manual' AND EXISTS (SELECT 1 FROM account_group_accounts ga WHERE ga.group_id = g.id AND ga.account_id = a.id))
               OR (g.kind = 'tag' AND (a.tags ->> g.tag_key) IS NOT NULL AND (g.tag_value IS NULL OR a.tags ->> g.tag_key = g.tag_value))
               OR (g.kind = 'unit' AND EXISTS (SELECT 1 FROM units x WHERE x.organization_id = a.organization_id AND x.unit_id = a.org_unit_id)))
             ORDER BY a.id) AS matched_account_ids
    FROM account_groups g
    LEFT JOIN organization_units u ON u.workspace_id = g.workspace_id AND u.organization_id = g.organization_id AND u.unit_id = g.unit_id
    WHERE g.workspace_id = ${workspaceId} AND ${onlyId === undefined ? sql`true` : sql`g.id = ${onlyId}`}
    ORDER BY lower(g.name), g.id`
  return rows.map(toGroup)
})

const invalid = (message: string, path: string) => new ValidationError({ message, errors: [{ path, message }] })

/** The payload's definition, checked against the workspace (unit and accounts exist); fields of other kinds dropped. */
const definition = (workspaceId: number, p: AccountGroupPayload) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const name = p.name.trim()
    if (name === "") return yield* invalid(M.nameRequired, "name")
    if (p.kind === "unit") {
      if (p.organization_id === undefined || p.organization_id === null || p.unit_id === undefined || p.unit_id === null) {
        return yield* invalid(M.unitRequired, "unit_id")
      }
      const unit = yield* sql`SELECT 1 FROM organization_units
        WHERE workspace_id = ${workspaceId} AND organization_id = ${p.organization_id} AND unit_id = ${p.unit_id}`
      if (unit.length === 0) return yield* new NotFound({ message: M.unitNotFound })
      return { name, kind: p.kind, organizationId: p.organization_id as number, unitId: p.unit_id, tagKey: null, tagValue: null, accountIds: [] }
    }
    if (p.kind === "tag") {
      const key = p.tag_key?.trim() ?? ""
      if (key === "") return yield* invalid(M.tagKeyRequired, "tag_key")
      return { name, kind: p.kind, organizationId: null, unitId: null, tagKey: key, tagValue: p.tag_value ?? null, accountIds: [] }
    }
    const accountIds = [...new Set(p.account_ids ?? [])] as Array<number>
    if (accountIds.length > 0) {
      const found = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM accounts WHERE workspace_id = ${workspaceId} AND id IN ${sql.in(accountIds)}`
      if (found[0]!.n !== accountIds.length) return yield* new NotFound({ message: M.accountNotFound })
    }
    return { name, kind: p.kind, organizationId: null, unitId: null, tagKey: null, tagValue: null, accountIds }
  })

type Definition = Effect.Success<ReturnType<typeof definition>>

const writeAccounts = (workspaceId: number, groupId: number, accountIds: ReadonlyArray<number>) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    yield* sql`DELETE FROM account_group_accounts WHERE workspace_id = ${workspaceId} AND group_id = ${groupId}`
    if (accountIds.length > 0) {
      yield* sql`INSERT INTO account_group_accounts (group_id, workspace_id, account_id)
                 SELECT ${groupId}, ${workspaceId}, a.id FROM accounts a WHERE a.workspace_id = ${workspaceId} AND a.id IN ${sql.in(accountIds)}`
    }
  })

const auditDetails = (d: Definition | AccountGroup) =>
  "accountIds" in d
    ? { name: d.name, kind: d.kind, organization_id: d.organizationId, unit_id: d.unitId, tag_key: d.tagKey, tag_value: d.tagValue, account_ids: d.accountIds }
    : { name: d.name, kind: d.kind, organization_id: d.organization_id, unit_id: d.unit_id, tag_key: d.tag_key, tag_value: d.tag_value, account_ids: d.account_ids }

const nameTaken = () => new Conflict({ message: M.nameExists })

const oneGroup = (workspaceId: number, groupId: number) =>
  Effect.flatMap(listAccountGroups(workspaceId, groupId), (rows) =>
    rows[0] === undefined ? Effect.fail(new NotFound({ message: M.groupNotFound })) : Effect.succeed(rows[0]))

export const createAccountGroup = (actor: GroupActor, payload: AccountGroupPayload) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const d = yield* definition(actor.workspaceId, payload)
    const rows = yield* sql<{ id: number }>`
      INSERT INTO account_groups (workspace_id, name, kind, organization_id, unit_id, tag_key, tag_value, created_by)
      VALUES (${actor.workspaceId}, ${d.name}, ${d.kind}, ${d.organizationId}, ${d.unitId}, ${d.tagKey}, ${d.tagValue}, ${actor.userId})
      RETURNING id`.pipe(onUniqueViolation("account_groups_name_key", nameTaken))
    const id = rows[0]!.id
    yield* writeAccounts(actor.workspaceId, id, d.accountIds)
    yield* recordAudit({
      action: "account_group.created", workspaceId: actor.workspaceId, actorUserId: actor.userId, targetType: "account_group",
      targetId: id, details: auditDetails(d), ip: actor.ip,
    })
    return yield* oneGroup(actor.workspaceId, id)
  })

export const updateAccountGroup = (actor: GroupActor, groupId: number, payload: AccountGroupPayload) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const before = yield* oneGroup(actor.workspaceId, groupId)
    const d = yield* definition(actor.workspaceId, payload)
    yield* sql`UPDATE account_groups SET name = ${d.name}, kind = ${d.kind}, organization_id = ${d.organizationId}, unit_id = ${d.unitId},
                 tag_key = ${d.tagKey}, tag_value = ${d.tagValue}, updated_at = now()
               WHERE workspace_id = ${actor.workspaceId} AND id = ${groupId}`.pipe(onUniqueViolation("account_groups_name_key", nameTaken))
    yield* writeAccounts(actor.workspaceId, groupId, d.accountIds)
    yield* recordAudit({
      action: "account_group.updated", workspaceId: actor.workspaceId, actorUserId: actor.userId, targetType: "account_group",
      targetId: groupId, details: { from: auditDetails(before), to: auditDetails(d) }, ip: actor.ip,
    })
    return yield* oneGroup(actor.workspaceId, groupId)
  })

/** Refused (409) while a role is limited to the group: deleting it would silently narrow that role. */
export const deleteAccountGroup = (actor: GroupActor, groupId: number) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const before = yield* oneGroup(actor.workspaceId, groupId)
    if (before.role_ids.length > 0) return yield* new Conflict({ message: M.groupInUse })
    yield* sql`DELETE FROM account_groups WHERE workspace_id = ${actor.workspaceId} AND id = ${groupId}`
    yield* recordAudit({
      action: "account_group.deleted", workspaceId: actor.workspaceId, actorUserId: actor.userId, targetType: "account_group",
      targetId: groupId, details: auditDetails(before), ip: actor.ip,
    })
  })

/** Which of `groupIds` exist in the workspace (a role may be limited only to its own workspace's groups). */
export const existingGroupIds = Effect.fn("AccountGroups.existing")(function* (workspaceId: number, groupIds: ReadonlyArray<number>) {
  const sql = yield* SqlClient.SqlClient
  if (groupIds.length === 0) return []
  const rows = yield* sql<{ id: number }>`SELECT id FROM account_groups WHERE workspace_id = ${workspaceId} AND id IN ${sql.in(groupIds)}`
  return rows.map((r) => r.id)
})
