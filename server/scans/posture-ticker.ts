/**
 * The posture ticker (issue 13): every worker process runs `tickPosture` every POSTURE_TICK_SECONDS (default 15). One
 * tick:
 *   0. syncs the organisations whose daily sync is due (issue 31, ../organizations/daily-sync.ts), first, so that a member
 *      it finds is in the fleet scan a schedule of the same tick launches;
 *   1. lists, in the read-only system scope `posture-ticker`, the workspaces with a due schedule, an expired mute rule
 *      not yet applied, a completed scan of the last hour whose digest was not queued, or a remediation abandoned by
 *      its workers (still 'running' REMEDIATION_ABANDONED_AFTER_SECONDS after it started);
 *   2. per workspace, in that workspace's own RLS transaction: claims its due schedules (`FOR UPDATE SKIP LOCKED`),
 *      launches one scan each (scope and trigger `schedule`; an account that is already being scanned records the reason
 *      and waits for its next slot), advances each to its first slot after now — so two workers never launch the same
 *      slot and a slot missed while everything was down runs once; unmutes the rows of expired rules; queues the digests;
 *      then fails the abandoned remediations with the reason (`failAbandonedRemediations`), so their findings show it;
 *      then expires the remediation requests nobody approved in time (issue 32, `expireDueRequests`);
 *   3. applies the retention of each workspace whose setting was last applied a day ago or more (./retention.ts
 *      `applyDueRetention`: one claim per workspace, then one short transaction per expired scan and per collected
 *      stream); a workspace without a retention setting is not listed for it.
 * Any number of processes may tick at once: the row locks and the `digest_enqueued_at` / `expiry_applied` claims decide.
 * "Now" is read from the Effect `Clock` at the start of every tick (`postureTicks`), never once per process: a slot
 * set after the worker started is due on the first tick after it (issue 27; a TestClock drives it in the tests).
 */
import { Clock, Config, Effect, Layer, Option, Schedule } from "effect"
import { SqlClient } from "effect/sql"
import { providerDisplayName } from "../accounts/providers.ts"
import { AuthConfigFromApp } from "../auth/identity-layer.ts"
import { inScope, setScope } from "../auth/rls.ts"
import type { WorkspaceContext } from "../auth/workspace-context.ts"
import type { JobServices } from "../jobs/queue.ts"
import { logLine } from "../log.ts"
import { Mailer } from "../mail/mailer.ts"
import { recordAudit } from "../audit/scanning-audit.ts"
import { runServiceJob, sweepJob } from "./jobs.ts"
import { abandonedRemediation, failAbandonedRemediations } from "./remediation.ts"
import { dueRequests, expireDueRequests } from "../remediation/approvals.ts"
import { startScan } from "./launch.ts"
import { warmQueueCache } from "./transactional-enqueue.ts"
import { queueDigest } from "../posture/digest.ts"
import { expireMuteRules } from "../posture/mute-rules.ts"
import { advance, claimDueSchedules, type DueSchedule } from "../posture/schedules.ts"
import { applyDueRetention, retentionDue } from "./retention.ts"
import { syncDueOrganizations } from "../organizations/daily-sync.ts"
import { isOrganizationAccount, startFleetScan } from "../organizations/fleet-scan.ts"
import { fleetAdvanceJob } from "../organizations/jobs.ts"
import type { AccountId, CloudProviderId } from "../../src/contracts/ids.ts"

/** Schedules launched per workspace and tick (the rest wait for the next tick). */
const SCHEDULES_PER_TICK = 20
/** Completed scans younger than this get their digest from the ticker. */
const DIGEST_WINDOW = "1 hour"

export interface TickReport {
  readonly launched: number
  readonly skipped: number
  readonly expired: number
  readonly digests: number
  readonly abandoned: number
  /** Scans expired by the workspaces' retention. */
  readonly retained: number
  /** Organisations synced by their daily sync (issue 31). */
  readonly synced: number
  /** Remediation requests expired before anyone approved them (issue 32). */
  readonly requestsExpired: number
}

/** What one workspace's tick did (abandoned remediations are failed after it, in their own transactions). */
type WorkspaceTick = Omit<TickReport, "abandoned" | "retained" | "synced" | "requestsExpired">

/** Launches one due schedule's scan; answers the scan id or why there is none. */
const launchScheduled = (s: DueSchedule) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const userId = s.updated_by ?? s.created_by
    const accounts = yield* sql<{ cloud_provider_id: number }>`
      SELECT cloud_provider_id::int AS cloud_provider_id FROM accounts WHERE workspace_id = ${s.workspace_id} AND id = ${s.account_id}`
    const account = accounts[0]
    if (account === undefined || userId === null) return { scanId: null, error: "The member who set this schedule is no longer known" }
    const ctx = {
      userId, sessionId: "", tokenWorkspaceId: s.workspace_id, workspaceId: s.workspace_id, workspaceName: "", isOwner: false,
      roleId: null, customRoleId: null, roleName: null, permissions: [], accountGroupIds: null, accountIds: null, ip: "",
    } satisfies WorkspaceContext
    // An organisation's schedule scans its fleet (issue 31).
    if (yield* isOrganizationAccount(s.workspace_id, s.account_id)) {
      return yield* startFleetScan(
        ctx,
        {
          account_id: s.account_id as AccountId,
          cloud_provider_id: account.cloud_provider_id as CloudProviderId,
          cloud_provider_name: providerDisplayName(account.cloud_provider_id).toLowerCase(),
          user_id: userId as never,
        },
        fleetAdvanceJob,
        { scope: { regions: s.regions, services: s.services }, trigger: "schedule" },
      ).pipe(
        Effect.map(() => ({ scanId: null as number | null, error: null as string | null })),
        Effect.catchTags({
          Conflict: (e) => Effect.succeed({ scanId: null, error: e.message }),
          NotFound: (e) => Effect.succeed({ scanId: null, error: e.message }),
          ValidationError: (e) => Effect.succeed({ scanId: null, error: e.message }),
        }),
      )
    }
    return yield* startScan(
      ctx,
      {
        account_id: s.account_id as AccountId,
        cloud_provider_id: account.cloud_provider_id as CloudProviderId,
        cloud_provider_name: providerDisplayName(account.cloud_provider_id).toLowerCase(),
        user_id: userId as never,
      },
      { runService: runServiceJob, sweep: sweepJob },
      { scope: { regions: s.regions, services: s.services }, trigger: "schedule" },
    ).pipe(
      Effect.map((scan) => ({ scanId: scan.id as number, error: null })),
      Effect.catchTags({
        Conflict: (e) => Effect.succeed({ scanId: null, error: e.message }),
        NotFound: (e) => Effect.succeed({ scanId: null, error: e.message }),
        ValidationError: (e) => Effect.succeed({ scanId: null, error: e.message }),
      }),
    )
  })

const tickWorkspace = (workspaceId: number, now: Date) =>
  inScope({ workspaceId })(
    Effect.gen(function* () {
      let launched = 0
      let skipped = 0
      for (const s of yield* claimDueSchedules(workspaceId, now, SCHEDULES_PER_TICK)) {
        // A savepoint per schedule: a launch that fails half-way leaves nothing, and the slot still advances.
        const sql = yield* SqlClient.SqlClient
        const outcome = yield* sql.withTransaction(launchScheduled(s))
        yield* advance(s, now, outcome)
        yield* recordAudit({
          action: outcome.scanId === null ? "schedule.scan_skipped" : "schedule.scan_started",
          workspaceId, actorUserId: null, targetType: "account", targetId: s.account_id,
          details: { slot: new Date(s.next_run_at).toISOString(), scan_id: outcome.scanId, reason: outcome.error },
        })
        if (outcome.scanId === null) skipped++
        else launched++
      }
      const expired = yield* expireMuteRules(workspaceId)
      const sql = yield* SqlClient.SqlClient
      let digests = 0
      const scans = yield* sql<{ id: number }>`
        SELECT id FROM scans WHERE workspace_id = ${workspaceId} AND status = 'completed' AND digest_enqueued_at IS NULL
          AND scan_end > now() - ${DIGEST_WINDOW}::interval ORDER BY scan_end`
      for (const scan of scans) digests += yield* queueDigest(workspaceId, scan.id)
      return { launched, skipped, expired, digests } satisfies WorkspaceTick
    }),
  )

/** One tick over every workspace with something to do, at `now` (see the module comment). */
export const tickPosture = (now: Date) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    yield* warmQueueCache([runServiceJob.name, sweepJob.name])
    // Organisations whose daily sync is due (issue 31), in their own transactions, BEFORE the schedules: a member the
    // sync finds joins the organisation's fleet scan launched by the same tick, not the next day's.
    const synced = yield* syncDueOrganizations(now).pipe(
      Effect.catchCause((cause) => Effect.sync(() => {
        logLine("error", "organisation syncs failed", { cause: String(cause) })
        return 0
      })),
    )
    const workspaces = yield* sql.withTransaction(
      Effect.gen(function* () {
        yield* setScope({})
        yield* sql`SELECT set_config('app.system_scope', 'posture-ticker', true)`
        return yield* sql<{ workspace_id: number }>`
          SELECT workspace_id FROM scan_schedules WHERE next_run_at IS NOT NULL AND next_run_at <= ${now}
          UNION SELECT workspace_id FROM mute_rules WHERE expires_at <= now() AND NOT expiry_applied
          UNION SELECT workspace_id FROM scans
                WHERE status = 'completed' AND digest_enqueued_at IS NULL AND scan_end > now() - ${DIGEST_WINDOW}::interval
          UNION SELECT workspace_id FROM remediations WHERE ${abandonedRemediation(sql)}
          UNION ${dueRequests(sql, now)}
          UNION ${retentionDue(sql, now)}`
      }),
    )
    const total = { launched: 0, skipped: 0, expired: 0, digests: 0, abandoned: 0, retained: 0, requestsExpired: 0 }
    for (const w of workspaces) {
      // One workspace's failure (logged) never keeps the others' schedules, expiries and digests waiting.
      const failed = <A>(nothing: A) => (cause: unknown) =>
        Effect.sync(() => {
          logLine("error", "posture tick failed for a workspace", { workspace_id: w.workspace_id, cause: String(cause) })
          return nothing
        })
      const r = yield* tickWorkspace(w.workspace_id, now).pipe(
        Effect.catchCause(failed<WorkspaceTick>({ launched: 0, skipped: 0, expired: 0, digests: 0 })),
      )
      // Each abandoned remediation in its own transactions, after the workspace's tick (which holds one).
      const abandoned = yield* failAbandonedRemediations(w.workspace_id).pipe(Effect.catchCause(failed(0)))
      // Remediation requests past their expiry (issue 32): expired, audited, their requesters mailed.
      const requestsExpired = yield* inScope({ workspaceId: w.workspace_id })(expireDueRequests(w.workspace_id, now)).pipe(Effect.catchCause(failed(0)))
      // Retention last: its own short transactions too (does nothing unless the workspace's run is due).
      const retained = yield* applyDueRetention(w.workspace_id, now).pipe(
        Effect.map((run) => run?.expired.length ?? 0),
        Effect.catchCause(failed(0)),
      )
      total.launched += r.launched
      total.skipped += r.skipped
      total.expired += r.expired
      total.digests += r.digests
      total.abandoned += abandoned
      total.requestsExpired += requestsExpired
      total.retained += retained
    }
    if (total.launched + total.skipped + total.expired + total.digests + total.abandoned + total.retained + total.requestsExpired + synced > 0) {
      logLine("info", "posture tick", { ...total, synced })
    }
    return { ...total, synced } satisfies TickReport
  })

/** POSTURE_TICK_SECONDS from the environment: seconds between two ticks of one process (default 15, 1–3600). */
const tickSeconds = Config.option(Config.Int("POSTURE_TICK_SECONDS")).pipe(
  Effect.map((o) => Math.min(3600, Math.max(1, Option.getOrElse(o, () => 15)))),
  Effect.orElseSucceed(() => 15),
)

/**
 * Runs `tick` now and then every `seconds` until interrupted, with the time read from the `Clock` on every tick (the
 * live clock in a worker, a TestClock in the tests); a failed tick is logged and the next one runs as planned.
 */
export const postureTicks = <A, E, R>(seconds: number, tick: (now: Date) => Effect.Effect<A, E, R>) =>
  Clock.currentTimeMillis.pipe(
    Effect.flatMap((millis) => tick(new Date(millis))),
    Effect.catchCause((cause) => Effect.sync(() => logLine("error", "posture tick failed", { cause: String(cause) }))),
    Effect.repeat(Schedule.spaced(`${seconds} seconds`)),
  )

/** Runs the ticker in the background of a worker process until it stops; a failed tick is logged and retried. */
export const PostureTickerLive: Layer.Layer<never, never, JobServices> = Layer.effectDiscard(
  Effect.gen(function* () {
    const seconds = yield* tickSeconds
    yield* postureTicks(seconds, tickPosture).pipe(
      Effect.provide(Mailer.layer.pipe(Layer.provide(AuthConfigFromApp))),
      Effect.forkScoped,
    )
  }),
)
