/**
 * Scan schedules and scope (issue 13): one row per account (server/db/migrations/0009_posture.ts), read and replaced
 * through the API, run by the posture ticker (./ticker.ts).
 *
 * Scope: `services` (keys of the provider's catalogue) and, for AWS accounts, `regions` (the account's discovered
 * regions and the public AWS regions); null means everything enabled. The account's schedule scope is also the default
 * of a scan launched by hand (server/scans/launch.ts `scanScope`).
 *
 * Due slots: `claimDueSchedules` locks due rows with `FOR UPDATE SKIP LOCKED` inside the caller's transaction, so two
 * tickers racing see disjoint rows; the caller launches one scan per row and `advance` moves `next_run_at` to the first
 * slot after now (never one per missed slot) in that same transaction.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { NotFound, ValidationError } from "../../src/contracts/errors.ts"
import type { AccountId, ScanId } from "../../src/contracts/ids.ts"
import { ProviderIds } from "../../src/contracts/constants.ts"
import { PostureMessages as M, TIME_OF_DAY, type ScanSchedule, type ScanSchedulePayload } from "../../src/contracts/posture.ts"
import { isoOrNull } from "../accounts/accounts-store.ts"
import type { WorkspaceContext } from "../auth/workspace-context.ts"
import { isValidTimezone } from "../auth/timezones.ts"
import { recordAudit } from "../audit/scanning-audit.ts"
import { servicesToScan } from "../scanner/service-catalogue.ts"
import { nextRun } from "./schedule-time.ts"

/** The public AWS regions (commercial partition); an account's own discovered regions are accepted too. */
export const AWS_REGIONS = [
  "us-east-1", "us-east-2", "us-west-1", "us-west-2", "af-south-1", "ap-east-1", "ap-east-2", "ap-south-1", "ap-south-2",
  "ap-southeast-1", "ap-southeast-2", "ap-southeast-3", "ap-southeast-4", "ap-southeast-5", "ap-southeast-7",
  "ap-northeast-1", "ap-northeast-2", "ap-northeast-3", "ca-central-1", "ca-west-1", "eu-central-1", "eu-central-2",
  "eu-west-1", "eu-west-2", "eu-west-3", "eu-south-1", "eu-south-2", "eu-north-1", "il-central-1", "me-south-1",
  "me-central-1", "mx-central-1", "sa-east-1",
] as const

interface ScheduleRow {
  readonly frequency: ScanSchedule["frequency"]
  readonly time_of_day: string
  readonly weekday: number
  readonly day_of_month: number
  readonly timezone: string
  readonly regions: ReadonlyArray<string> | null
  readonly services: ReadonlyArray<string> | null
  readonly next_run_at: Date | string | null
  readonly last_run_at: Date | string | null
  readonly last_scan_id: number | null
  readonly last_error: string | null
  readonly updated_at: Date | string | null
  readonly updated_by: string | null
}

interface AccountInfo {
  readonly id: number
  readonly cloud_provider_id: number
  readonly discovered: ReadonlyArray<string> | null
}

const loadAccount = (workspaceId: number, accountId: number) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<AccountInfo>`
      SELECT a.id, a.cloud_provider_id::int AS cloud_provider_id,
             (SELECT s.regions FROM scans s WHERE s.workspace_id = a.workspace_id AND s.account_id = a.id AND s.regions IS NOT NULL
              ORDER BY s.scan_start DESC LIMIT 1) AS discovered
      FROM accounts a WHERE a.workspace_id = ${workspaceId} AND a.id = ${accountId}`
    if (rows[0] === undefined) return yield* new NotFound({ message: M.muteAccountNotFound })
    return rows[0]
  })

/** Regions the scope of this account may name (none outside AWS: the other engines read every location). */
const availableRegions = (account: AccountInfo): ReadonlyArray<string> =>
  account.cloud_provider_id !== ProviderIds.AWS ? [] : [...new Set([...(account.discovered ?? []), ...AWS_REGIONS])].sort()

const DEFAULTS: ScheduleRow = {
  frequency: "off", time_of_day: "02:00", weekday: 1, day_of_month: 1, timezone: "UTC", regions: null, services: null,
  next_run_at: null, last_run_at: null, last_scan_id: null, last_error: null, updated_at: null, updated_by: null,
}

const toSchedule = (account: AccountInfo, r: ScheduleRow): ScanSchedule => ({
  account_id: account.id as AccountId,
  frequency: r.frequency,
  time_of_day: r.time_of_day,
  weekday: r.weekday,
  day_of_month: r.day_of_month,
  timezone: r.timezone,
  regions: r.regions,
  services: r.services,
  next_run_at: isoOrNull(r.next_run_at),
  last_run_at: isoOrNull(r.last_run_at),
  last_scan_id: r.last_scan_id as ScanId | null,
  last_error: r.last_error,
  updated_at: isoOrNull(r.updated_at),
  updated_by: r.updated_by,
  available_regions: availableRegions(account),
  available_services: servicesToScan(account.cloud_provider_id).map((s) => ({ key: s.key, name: s.name })),
})

const readRow = (workspaceId: number, accountId: number) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<ScheduleRow>`
      SELECT sc.frequency, sc.time_of_day, sc.weekday, sc.day_of_month, sc.timezone, sc.regions, sc.services, sc.next_run_at,
             sc.last_run_at, sc.last_scan_id, sc.last_error, sc.updated_at, u.email AS updated_by
      FROM scan_schedules sc LEFT JOIN users u ON u.id = sc.updated_by
      WHERE sc.workspace_id = ${workspaceId} AND sc.account_id = ${accountId}`
    return rows[0]
  })

export const getSchedule = Effect.fn("Schedules.get")(function* (workspaceId: number, accountId: number) {
  const account = yield* loadAccount(workspaceId, accountId)
  return toSchedule(account, (yield* readRow(workspaceId, accountId)) ?? DEFAULTS)
})

/** The regions the account's latest scan discovered (null before any). */
export const discoveredRegions = Effect.fn("Schedules.discoveredRegions")(function* (workspaceId: number, accountId: number) {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql<{ regions: ReadonlyArray<string> | null }>`
    SELECT regions FROM scans WHERE workspace_id = ${workspaceId} AND account_id = ${accountId} AND regions IS NOT NULL
    ORDER BY scan_start DESC LIMIT 1`
  return rows[0]?.regions ?? null
})

/** The account's default scope (null: everything), for a scan launched by hand. */
export const accountScope = Effect.fn("Schedules.scope")(function* (workspaceId: number, accountId: number) {
  const row = yield* readRow(workspaceId, accountId)
  return { regions: row?.regions ?? null, services: row?.services ?? null }
})

const invalid = (path: string, message: string) => new ValidationError({ message, errors: [{ path, message }] })

/** Checks a scope against what the account offers: unknown entries and empty lists are 400s; null stays null. */
export const checkScope = (
  account: Pick<AccountInfo, "cloud_provider_id" | "discovered">,
  scope: { readonly regions?: ReadonlyArray<string> | null | undefined; readonly services?: ReadonlyArray<string> | null | undefined },
) =>
  Effect.gen(function* () {
    const regions = scope.regions === undefined || scope.regions === null ? null : [...new Set(scope.regions)].sort()
    const services = scope.services === undefined || scope.services === null ? null : [...new Set(scope.services)]
    if ((regions !== null && regions.length === 0) || (services !== null && services.length === 0)) {
      return yield* invalid(regions !== null && regions.length === 0 ? "regions" : "services", M.scheduleEmptyScope)
    }
    if (regions !== null) {
      const allowed = new Set(availableRegions({ id: 0, ...account }))
      const bad = regions.find((r) => !allowed.has(r))
      if (bad !== undefined) return yield* invalid("regions", `${M.scheduleUnknownRegion}: ${bad}`)
    }
    if (services !== null) {
      const allowed = new Set(servicesToScan(account.cloud_provider_id).map((s) => s.key))
      const bad = services.find((s) => !allowed.has(s))
      if (bad !== undefined) return yield* invalid("services", `${M.scheduleUnknownService}: ${bad}`)
    }
    return { regions, services }
  })

/** Replaces the schedule of an account (last write wins: one upsert of the whole row). */
export const putSchedule = (ctx: WorkspaceContext, accountId: number, payload: ScanSchedulePayload, now: Date = new Date()) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const account = yield* loadAccount(ctx.workspaceId, accountId)
    if (!TIME_OF_DAY.test(payload.time_of_day)) return yield* invalid("time_of_day", M.scheduleTimeInvalid)
    if (!isValidTimezone(payload.timezone)) return yield* invalid("timezone", M.scheduleTimezoneInvalid)
    const scope = yield* checkScope(account, payload)
    const spec = {
      frequency: payload.frequency,
      time_of_day: payload.time_of_day,
      weekday: payload.weekday ?? 1,
      day_of_month: payload.day_of_month ?? 1,
      timezone: payload.timezone,
    }
    const next = nextRun(spec, now)
    const arr = (xs: ReadonlyArray<string> | null) => (xs === null ? null : `{${xs.join(",")}}`)
    yield* sql`
      INSERT INTO scan_schedules (account_id, workspace_id, frequency, time_of_day, weekday, day_of_month, timezone, regions, services,
                                  next_run_at, created_by, updated_by, updated_at)
      VALUES (${accountId}, ${ctx.workspaceId}, ${spec.frequency}, ${spec.time_of_day}, ${spec.weekday}, ${spec.day_of_month},
              ${spec.timezone}, ${arr(scope.regions)}::text[], ${arr(scope.services)}::text[], ${next}, ${ctx.userId}, ${ctx.userId}, now())
      ON CONFLICT (account_id) DO UPDATE SET
        frequency = excluded.frequency, time_of_day = excluded.time_of_day, weekday = excluded.weekday,
        day_of_month = excluded.day_of_month, timezone = excluded.timezone, regions = excluded.regions,
        services = excluded.services, next_run_at = excluded.next_run_at, updated_by = excluded.updated_by, updated_at = now()`
    yield* recordAudit({
      action: "schedule.updated", workspaceId: ctx.workspaceId, actorUserId: ctx.userId, targetType: "account", targetId: accountId,
      details: { ...spec, regions: scope.regions, services: scope.services, next_run_at: next?.toISOString() ?? null }, ip: ctx.ip,
    })
    return toSchedule(account, (yield* readRow(ctx.workspaceId, accountId))!)
  })

export interface DueSchedule {
  readonly account_id: number
  readonly workspace_id: number
  readonly frequency: ScanSchedule["frequency"]
  readonly time_of_day: string
  readonly weekday: number
  readonly day_of_month: number
  readonly timezone: string
  readonly regions: ReadonlyArray<string> | null
  readonly services: ReadonlyArray<string> | null
  readonly next_run_at: Date | string
  readonly created_by: number | null
  readonly updated_by: number | null
}

/** Due schedules of one workspace, locked for this transaction (rows another ticker holds are skipped). */
export const claimDueSchedules = Effect.fn("Schedules.claimDue")(function* (workspaceId: number, now: Date, limit: number) {
  const sql = yield* SqlClient.SqlClient
  return yield* sql<DueSchedule>`
    SELECT account_id, workspace_id, frequency, time_of_day, weekday, day_of_month, timezone, regions, services, next_run_at,
           created_by, updated_by
    FROM scan_schedules
    WHERE workspace_id = ${workspaceId} AND next_run_at IS NOT NULL AND next_run_at <= ${now}
    ORDER BY next_run_at LIMIT ${limit}
    FOR UPDATE SKIP LOCKED`
})

/** Moves a claimed schedule to its first slot after `now`, recording what its run did. */
export const advance = Effect.fn("Schedules.advance")(function* (
  s: DueSchedule,
  now: Date,
  outcome: { readonly scanId: number | null; readonly error: string | null },
) {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    UPDATE scan_schedules SET next_run_at = ${nextRun(s, now)}, last_run_at = ${now},
      last_scan_id = coalesce(${outcome.scanId}, last_scan_id), last_error = ${outcome.error}
    WHERE workspace_id = ${s.workspace_id} AND account_id = ${s.account_id}`
})
