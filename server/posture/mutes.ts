/**
 * Mute rules (issue 13 "Muting"; schema in server/db/migrations/0009_posture.ts): storage, the matcher and its
 * application to stored results.
 *
 * A rule matches a failing result row when every scope it sets matches: its account is the row's scan's account, its
 * check is the row's check, its resource pattern (a glob: `*` any run of characters, `?` one character, compared
 * case-insensitively with the row's resource id and with its global identity) matches, and the row's `tags` field (an
 * object, or a list of `key=value` strings) holds
 * its tag key (with its value, when the rule names one). Only active rules count (no expiry, or an expiry in the future).
 * `matchesRule` says it in TypeScript; `ruleMatchSql` says it in SQL; a property test keeps the two in agreement.
 *
 * `applyMutes(workspaceId, target)` recomputes `results.muted_by` (the lowest matching active rule) on the failing rows
 * of the findings in `target`, then the counts of the findings whose rows changed, of their services and of their
 * scans, in the caller's transaction: a rule change shows at once, without a rescan, in the account's live scans only
 * (its latest completed scan and any later one, server/posture/algebra.ts `liveScans`). A superseded scan keeps what it
 * answered as the latest (issue 28 "History is immutable"); the snapshot of each applied rule's reason, expiry and
 * author is taken with it (`snapshotMutes`).
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { liveScans, recountFindings, recountServices, REMEDIATED_ROW_SQL, snapshotMutes } from "./algebra.ts"

/** The `LIKE` pattern (escape character `\`) of a glob: `*` → `%`, `?` → `_`, LIKE's own wildcards literal. */
export const globToLike = (glob: string): string =>
  glob.replace(/[\\%_*?]/g, (c) => (c === "*" ? "%" : c === "?" ? "_" : `\\${c}`))

/** Whether a glob matches a text (case-insensitive; the TypeScript twin of `ILIKE globToLike(glob)`). */
export const globMatches = (glob: string, text: string): boolean => {
  const source = glob.replace(/[.+^${}()|[\]\\*?]/g, (c) => (c === "*" ? "[\\s\\S]*" : c === "?" ? "[\\s\\S]" : `\\${c}`))
  return new RegExp(`^${source}$`, "iu").test(text)
}

export interface MuteScope {
  readonly account_id: number | null
  readonly check_id: string | null
  readonly resource_pattern: string | null
  readonly tag_key: string | null
  readonly tag_value: string | null
}

export interface MuteRuleRow extends MuteScope {
  readonly id: number
  readonly expires_at: Date | string | null
}

export interface MatchableRow {
  readonly account_id: number
  readonly check_id: string
  readonly resource_id: string
  readonly resource_uid: string
  readonly tags?: unknown
}

/**
 * A row's tag, in either form a check reports: an object (`{ "env": "prod" }`; a non-null value under the key) or a list
 * of `key=value` strings (`["env=prod"]`, what the AWS collectors give; an entry without `=` is a key with an empty
 * value). With a value, only a string equal to it matches.
 */
export const tagMatches = (tags: unknown, key: string, value: string | null): boolean => {
  if (Array.isArray(tags)) {
    return tags.some((entry) => {
      if (typeof entry !== "string") return false
      const i = entry.indexOf("=")
      const k = i < 0 ? entry : entry.slice(0, i)
      return k === key && (value === null || (i < 0 ? "" : entry.slice(i + 1)) === value)
    })
  }
  if (tags === null || typeof tags !== "object") return false
  const v = (tags as Record<string, unknown>)[key]
  return v !== undefined && v !== null && (value === null || v === value)
}

type Fragment = ReturnType<SqlClient.SqlClient["literal"]>

/**
 * SQL twin of `tagMatches`: the JSON `tags` carries the tag `key` (with `value` unless it is NULL). Each argument is a
 * fragment: a column (`sql.literal("m.tag_key")`) or a bound value (`sql\`${v}\``).
 */
export const tagMatchSql = (sql: SqlClient.SqlClient, tags: Fragment, key: Fragment, value: Fragment) => sql`(
  (jsonb_typeof(${tags}) = 'object' AND jsonb_typeof(${tags}->((${key})::text)) <> 'null'
   AND ((${value})::text IS NULL OR (jsonb_typeof(${tags}->((${key})::text)) = 'string' AND ${tags}->>((${key})::text) = (${value})::text)))
  OR (jsonb_typeof(${tags}) = 'array' AND EXISTS (
    SELECT 1 FROM jsonb_array_elements(${tags}) e(v)
    WHERE jsonb_typeof(e.v) = 'string' AND split_part(e.v #>> '{}', '=', 1) = (${key})::text
      AND ((${value})::text IS NULL
           OR CASE WHEN position('=' IN e.v #>> '{}') = 0 THEN '' ELSE substr(e.v #>> '{}', position('=' IN e.v #>> '{}') + 1) END = (${value})::text))))`

/** Whether an active rule's scope matches a row (see the module comment). */
export const matchesRule = (rule: MuteScope, row: MatchableRow): boolean =>
  (rule.account_id === null || rule.account_id === row.account_id) &&
  (rule.check_id === null || rule.check_id === row.check_id) &&
  (rule.resource_pattern === null || globMatches(rule.resource_pattern, row.resource_id) || globMatches(rule.resource_pattern, row.resource_uid)) &&
  (rule.tag_key === null || tagMatches(row.tags, rule.tag_key, rule.tag_value))

export const isActive = (rule: Pick<MuteRuleRow, "expires_at">, now: Date): boolean =>
  rule.expires_at === null || new Date(rule.expires_at).getTime() > now.getTime()

/** The lowest active rule matching a row, or null. */
export const mutingRule = (rules: ReadonlyArray<MuteRuleRow>, row: MatchableRow, now: Date): number | null => {
  let best: number | null = null
  for (const rule of rules) if (isActive(rule, now) && matchesRule(rule, row) && (best === null || rule.id < best)) best = rule.id
  return best
}

/** SQL: active rule `m` matches result row `r` of finding `f` in a scan of account `accountId` (a column expression). */
export const ruleMatchSql = (sql: SqlClient.SqlClient, accountId: ReturnType<SqlClient.SqlClient["literal"]>) => sql`
  (m.expires_at IS NULL OR m.expires_at > now())
  AND (m.account_id IS NULL OR m.account_id = ${accountId})
  AND (m.check_id IS NULL OR m.check_id = f.check_id)
  AND (m.resource_like IS NULL OR r.resource_id ILIKE m.resource_like ESCAPE '\\' OR r.resource_uid ILIKE m.resource_like ESCAPE '\\')
  AND (m.tag_key IS NULL OR ${tagMatchSql(sql, sql.literal("r.fields->'tags'"), sql.literal("m.tag_key"), sql.literal("m.tag_value"))})`

/**
 * Which findings to recompute: those of the live scans of the workspace, narrowed by accounts and checks; or those of
 * one scan being written (`scanId`, and one service), whatever the other scans.
 */
export interface MuteTarget {
  readonly accountIds?: ReadonlyArray<number> | undefined
  readonly checkIds?: ReadonlyArray<string> | undefined
  readonly scanId?: number | undefined
  readonly serviceId?: number | undefined
  /** Skip the work when the workspace has no rule at all (a service's new rows). */
  readonly ifAnyRule?: boolean | undefined
}

/** The target a change of `rules` (before and after) needs: the union of their account and check scopes. */
export const targetOf = (rules: ReadonlyArray<MuteScope>): MuteTarget => ({
  ...(rules.some((r) => r.account_id === null) ? {} : { accountIds: [...new Set(rules.map((r) => r.account_id!))] }),
  ...(rules.some((r) => r.check_id === null) ? {} : { checkIds: [...new Set(rules.map((r) => r.check_id!))] }),
})

/**
 * Recomputes `muted_by` on the failing rows of the target's findings, then the counts of what changed (see the module
 * comment). Answers how many rows changed.
 */
export const applyMutes = Effect.fn("Mutes.apply")(function* (workspaceId: number, target: MuteTarget) {
  const sql = yield* SqlClient.SqlClient
  if (target.ifAnyRule === true && (yield* sql`SELECT 1 FROM mute_rules WHERE workspace_id = ${workspaceId} LIMIT 1`).length === 0) return 0
  const scans = target.scanId === undefined ? yield* liveScans(workspaceId, target.accountIds) : [target.scanId]
  if (scans.length === 0) return 0
  const where = sql.and([
    sql`f.workspace_id = ${workspaceId}`,
    sql`f.resources_failing > 0`,
    sql`f.scan_id = ANY(${scans}::int[])`,
    ...(target.serviceId === undefined ? [] : [sql`f.service_id = ${target.serviceId}`]),
    ...(target.accountIds === undefined ? [] : [sql`s.account_id = ANY(${target.accountIds as Array<number>}::int[])`]),
    ...(target.checkIds === undefined ? [] : [sql`f.check_id = ANY(${target.checkIds as Array<string>}::text[])`]),
  ])
  const changed = yield* sql<{ finding_id: number }>`
    WITH computed AS (
      SELECT r.finding_id, r.seq, r.muted_by,
             -- A remediated row is never muted (docs/outcomes.md): its rule is cleared.
             CASE WHEN ${sql.literal(REMEDIATED_ROW_SQL)} THEN NULL ELSE
               (SELECT min(m.id) FROM mute_rules m WHERE m.workspace_id = ${workspaceId} AND ${ruleMatchSql(sql, sql.literal("s.account_id"))}) END AS rule
      FROM findings f
      JOIN scans s ON s.id = f.scan_id
      JOIN results r ON r.workspace_id = f.workspace_id AND r.finding_id = f.id AND r.rank = 0
      WHERE ${where}
    )
    INSERT INTO result_marks (workspace_id, finding_id, pos, muted_by)
    SELECT ${workspaceId}, c.finding_id, c.seq, c.rule FROM computed c WHERE c.muted_by IS DISTINCT FROM c.rule
    ON CONFLICT (workspace_id, finding_id, pos) DO UPDATE SET muted_by = excluded.muted_by
    RETURNING finding_id`
  const findingIds = [...new Set(changed.map((c) => c.finding_id))]
  const pairs = yield* recountFindings(workspaceId, findingIds)
  yield* recountServices(workspaceId, pairs)
  // A scan's service just written (rows are written unmuted) has nothing to snapshot unless a row was muted here.
  if (target.scanId === undefined || findingIds.length > 0) {
    yield* snapshotMutes(workspaceId, scans, target.scanId === undefined ? undefined : target.serviceId)
  }
  return changed.length
})
