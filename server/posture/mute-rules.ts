/**
 * Mute rules, write and read side (issue 13): list, create, replace, delete, each in the caller's RLS transaction, each
 * applied to every stored scan at once (`applyMutes` over the union of the rule's scope before and after) and audited.
 *
 * Validation, in order (400 with the catalogue's ValidationError and the message of `PostureMessages`): a reason; at
 * least one scope; a tag value only with a tag key; an expiry in the future; an account of the workspace; a check the
 * catalogues know; a resource pattern that matches at least one resource of the inventory (of the rule's account when
 * it names one); a tag that at least one failing row carries. A rule that matches nothing is refused, because it would
 * only hide a typo.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { NotFound, ValidationError } from "../../src/contracts/errors.ts"
import type { AccountId } from "../../src/contracts/ids.ts"
import { PostureMessages as M, type MuteRule, type MuteRulePayload } from "../../src/contracts/posture.ts"
import { iso, isoOrNull } from "../accounts/accounts-store.ts"
import type { WorkspaceContext } from "../auth/workspace-context.ts"
import { awsChecks } from "../scanner/aws/catalogue.ts"
import { azureChecks } from "../scanner/azure/catalogue.ts"
import { gcpChecks } from "../scanner/gcp/catalogue.ts"
import { recordAudit } from "../audit/scanning-audit.ts"
import { publishMuteRuleCreated, publishMuteRuleExpired } from "../integrations/events.ts"
import { applyMutes, globToLike, tagMatchSql, targetOf, type MuteScope } from "./mutes.ts"

let knownChecks: ReadonlySet<string> | undefined
/** Every check id of the three catalogues. */
export const isKnownCheck = (id: string): boolean =>
  (knownChecks ??= new Set([...awsChecks, ...gcpChecks, ...azureChecks].map((c) => c.id))).has(id)

interface RuleRow extends MuteScope {
  readonly id: number
  readonly account_name: string | null
  readonly reason: string
  readonly expires_at: Date | string | null
  readonly active: boolean
  readonly created_at: Date | string
  readonly updated_at: Date | string
  readonly created_by: string | null
  readonly updated_by: string | null
}

const toRule = (r: RuleRow): MuteRule => ({
  id: r.id,
  account_id: r.account_id as AccountId | null,
  account_name: r.account_name,
  check_id: r.check_id,
  resource_pattern: r.resource_pattern,
  tag_key: r.tag_key,
  tag_value: r.tag_value,
  reason: r.reason,
  expires_at: isoOrNull(r.expires_at),
  active: r.active,
  created_at: iso(r.created_at),
  created_by: r.created_by,
  updated_at: iso(r.updated_at),
  updated_by: r.updated_by,
})

const selectRules = (sql: SqlClient.SqlClient) => sql`
  SELECT m.id, m.account_id, a.account_name, m.check_id, m.resource_pattern, m.tag_key, m.tag_value, m.reason, m.expires_at,
         (m.expires_at IS NULL OR m.expires_at > now()) AS active, m.created_at, m.updated_at,
         cu.email AS created_by, uu.email AS updated_by
  FROM mute_rules m
  LEFT JOIN accounts a ON a.id = m.account_id
  LEFT JOIN users cu ON cu.id = m.created_by
  LEFT JOIN users uu ON uu.id = m.updated_by`

export const listMuteRules = Effect.fn("MuteRules.list")(function* (workspaceId: number, accountId: number | undefined) {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql<RuleRow>`${selectRules(sql)}
    WHERE m.workspace_id = ${workspaceId} ${accountId === undefined ? sql`` : sql`AND (m.account_id = ${accountId} OR m.account_id IS NULL)`}
    ORDER BY m.id DESC`
  return rows.map(toRule)
})

const getRule = (workspaceId: number, id: number) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<RuleRow>`${selectRules(sql)} WHERE m.workspace_id = ${workspaceId} AND m.id = ${id}`
    return rows[0] === undefined ? undefined : toRule(rows[0])
  })

const invalid = (path: string, message: string) => new ValidationError({ message, errors: [{ path, message }] })

const blankToNull = (v: string | null | undefined): string | null => {
  const t = v?.trim() ?? ""
  return t === "" ? null : t
}

export interface NormalizedRule extends MuteScope {
  readonly reason: string
  readonly expires_at: Date | null
}

/** The payload checked and normalised (see the module comment for the order of the checks). */
export const validateRule = (workspaceId: number, payload: MuteRulePayload, now: Date) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const reason = payload.reason.trim()
    if (reason === "") return yield* invalid("reason", M.muteReasonRequired)
    const rule: NormalizedRule = {
      reason,
      account_id: payload.account_id ?? null,
      check_id: blankToNull(payload.check_id),
      resource_pattern: blankToNull(payload.resource_pattern),
      tag_key: blankToNull(payload.tag_key),
      tag_value: blankToNull(payload.tag_value),
      expires_at: payload.expires_at === undefined || payload.expires_at === null ? null : new Date(payload.expires_at),
    }
    if (rule.account_id === null && rule.check_id === null && rule.resource_pattern === null && rule.tag_key === null) {
      return yield* invalid("scope", M.muteScopeRequired)
    }
    if (rule.tag_value !== null && rule.tag_key === null) return yield* invalid("tag_value", M.muteTagValueWithoutKey)
    if (rule.expires_at !== null && (Number.isNaN(rule.expires_at.getTime()) || rule.expires_at.getTime() <= now.getTime())) {
      return yield* invalid("expires_at", M.muteExpiryPast)
    }
    if (rule.account_id !== null) {
      const found = yield* sql`SELECT 1 FROM accounts WHERE workspace_id = ${workspaceId} AND id = ${rule.account_id}`
      if (found.length === 0) return yield* invalid("account_id", M.muteAccountNotFound)
    }
    if (rule.check_id !== null && !isKnownCheck(rule.check_id)) return yield* invalid("check_id", M.muteUnknownCheck)
    if (rule.resource_pattern !== null) {
      const like = globToLike(rule.resource_pattern)
      const hit = yield* sql`
        SELECT 1 FROM resources
        WHERE workspace_id = ${workspaceId} ${rule.account_id === null ? sql`` : sql`AND account_id = ${rule.account_id}`}
          AND (resource_id ILIKE ${like} ESCAPE '\\' OR resource_uid ILIKE ${like} ESCAPE '\\')
        LIMIT 1`
      if (hit.length === 0) return yield* invalid("resource_pattern", M.mutePatternMatchesNothing)
    }
    if (rule.tag_key !== null) {
      const hit = yield* sql`
        SELECT 1 FROM findings f JOIN results r ON r.workspace_id = f.workspace_id AND r.finding_id = f.id AND r.rank = 0
        ${rule.account_id === null ? sql`` : sql`JOIN scans s ON s.id = f.scan_id AND s.account_id = ${rule.account_id}`}
        WHERE f.workspace_id = ${workspaceId} AND f.resources_failing > 0
          AND ${tagMatchSql(sql, sql.literal("r.fields->'tags'"), sql`${rule.tag_key}`, rule.tag_value === null ? sql.literal("NULL") : sql`${rule.tag_value}`)}
        LIMIT 1`
      if (hit.length === 0) return yield* invalid("tag_key", M.muteTagMatchesNothing)
    }
    return rule
  })

const columns = (rule: NormalizedRule) => ({
  account_id: rule.account_id,
  check_id: rule.check_id,
  resource_pattern: rule.resource_pattern,
  resource_like: rule.resource_pattern === null ? null : globToLike(rule.resource_pattern),
  tag_key: rule.tag_key,
  tag_value: rule.tag_value,
  reason: rule.reason,
  expires_at: rule.expires_at,
})

const auditDetails = (rule: MuteScope & { readonly reason: string; readonly expires_at: Date | string | null }) => ({
  account_id: rule.account_id,
  check_id: rule.check_id,
  resource_pattern: rule.resource_pattern,
  tag_key: rule.tag_key,
  tag_value: rule.tag_value,
  reason: rule.reason,
  expires_at: rule.expires_at === null ? null : new Date(rule.expires_at).toISOString(),
})

export const createMuteRule = (ctx: WorkspaceContext, payload: MuteRulePayload) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const rule = yield* validateRule(ctx.workspaceId, payload, new Date())
    const c = columns(rule)
    const inserted = yield* sql<{ id: number }>`
      INSERT INTO mute_rules (workspace_id, account_id, check_id, resource_pattern, resource_like, tag_key, tag_value, reason, expires_at,
                              created_by, updated_by)
      VALUES (${ctx.workspaceId}, ${c.account_id}, ${c.check_id}, ${c.resource_pattern}, ${c.resource_like}, ${c.tag_key}, ${c.tag_value},
              ${c.reason}, ${c.expires_at}, ${ctx.userId}, ${ctx.userId})
      RETURNING id`
    const id = inserted[0]!.id
    const changed = yield* applyMutes(ctx.workspaceId, targetOf([rule]))
    yield* recordAudit({
      action: "mute_rule.created", workspaceId: ctx.workspaceId, actorUserId: ctx.userId, targetType: "mute_rule", targetId: id,
      details: { ...auditDetails(rule), rows_changed: changed }, ip: ctx.ip,
    })
    yield* publishMuteRuleCreated(ctx.workspaceId, { id, ...c, expires_at: c.expires_at }, changed, ctx.userId)
    return { rule: (yield* getRule(ctx.workspaceId, id))!, changed }
  })

const lockRule = (workspaceId: number, id: number) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<MuteScope & { reason: string; expires_at: Date | string | null }>`
      SELECT account_id, check_id, resource_pattern, tag_key, tag_value, reason, expires_at
      FROM mute_rules WHERE workspace_id = ${workspaceId} AND id = ${id} FOR UPDATE`
    if (rows[0] === undefined) return yield* new NotFound({ message: M.muteRuleNotFound })
    return rows[0]
  })

/** Replaces every field of a rule (last write wins: the row is locked, then rewritten whole). */
export const updateMuteRule = (ctx: WorkspaceContext, id: number, payload: MuteRulePayload) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const before = yield* lockRule(ctx.workspaceId, id)
    const rule = yield* validateRule(ctx.workspaceId, payload, new Date())
    const c = columns(rule)
    yield* sql`
      UPDATE mute_rules SET account_id = ${c.account_id}, check_id = ${c.check_id}, resource_pattern = ${c.resource_pattern},
        resource_like = ${c.resource_like}, tag_key = ${c.tag_key}, tag_value = ${c.tag_value}, reason = ${c.reason},
        expires_at = ${c.expires_at}, expiry_applied = false, updated_by = ${ctx.userId}, updated_at = now()
      WHERE workspace_id = ${ctx.workspaceId} AND id = ${id}`
    const changed = yield* applyMutes(ctx.workspaceId, targetOf([before, rule]))
    yield* recordAudit({
      action: "mute_rule.updated", workspaceId: ctx.workspaceId, actorUserId: ctx.userId, targetType: "mute_rule", targetId: id,
      details: { before: auditDetails(before), after: auditDetails(rule), rows_changed: changed }, ip: ctx.ip,
    })
    return { rule: (yield* getRule(ctx.workspaceId, id))!, changed }
  })

export const deleteMuteRule = (ctx: WorkspaceContext, id: number) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const before = yield* lockRule(ctx.workspaceId, id)
    yield* sql`DELETE FROM mute_rules WHERE workspace_id = ${ctx.workspaceId} AND id = ${id}`
    const changed = yield* applyMutes(ctx.workspaceId, targetOf([before]))
    yield* recordAudit({
      action: "mute_rule.deleted", workspaceId: ctx.workspaceId, actorUserId: ctx.userId, targetType: "mute_rule", targetId: id,
      details: { ...auditDetails(before), rows_changed: changed }, ip: ctx.ip,
    })
  })

/**
 * Unmutes the rows of rules whose expiry has passed (the posture ticker, in the rule's workspace scope): once per
 * rule (`expiry_applied`), audited as `mute_rule.expired`.
 */
export const expireMuteRules = Effect.fn("MuteRules.expire")(function* (workspaceId: number) {
  const sql = yield* SqlClient.SqlClient
  const expired = yield* sql<MuteScope & { id: number; reason: string; expires_at: Date | string | null }>`
    UPDATE mute_rules SET expiry_applied = true
    WHERE workspace_id = ${workspaceId} AND expires_at <= now() AND NOT expiry_applied
    RETURNING id, account_id, check_id, resource_pattern, tag_key, tag_value, reason, expires_at`
  if (expired.length === 0) return 0
  const changed = yield* applyMutes(workspaceId, targetOf(expired))
  for (const rule of expired) {
    yield* recordAudit({
      action: "mute_rule.expired", workspaceId, actorUserId: null, targetType: "mute_rule", targetId: rule.id,
      details: { ...auditDetails(rule), rows_changed: changed },
    })
    yield* publishMuteRuleExpired(workspaceId, rule, changed, null)
  }
  return expired.length
})
