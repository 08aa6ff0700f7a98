/**
 * Remediation of one detail row of a finding (issue 5 "Remediation"; scanning §4 remediation statuses).
 *
 * Request (POST /api/findings/{id}/remediate, needs remediate_findings), in one transaction:
 *   find the result row (by its `result_seq`, else by resource_id + region) → refuse compliant rows, rows already remediated or in progress, and checks
 *   without a fixer (409) → record `remediate = { status: "pending", message, attempted_at, attempted_by: {id, email} }`
 *   on the result row + a `remediations` row pointing at it → enqueue `findings.remediate` → audit.
 * Job: open the account's credentials in memory, run the check's fixer (which applies the fix and re-reads the
 * resource to verify), then record `remediate = { status: "remediated" | "failed", message, attempted_at,
 * attempted_by }` on the row; the finding's remediated count is recomputed from its non-compliant rows and the finding
 * becomes `remediated` when every non-compliant row is; service and scan
 * counts are recomputed; the outcome is audited. A fixer that throws records "failed" with its message (the user can
 * try again); a crash mid-job is retried once by pg-boss.
 * Lock order: scan row, service row, finding row, result row.
 */
import { Config, Effect, Option, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { Conflict, NotFound, ValidationError } from "../../src/contracts/errors.ts"
import type { DetailRow, RemediationRecord } from "../../src/contracts/findings.ts"
import { remediationFailedMessage, ScanningServerMessages } from "../../src/contracts/messages.ts"
import { OrganizationMessages } from "../../src/contracts/organizations.ts"
import type { WorkspaceContext } from "../auth/workspace-context.ts"
import { inScope } from "../auth/rls.ts"
import { AppConfig } from "../config.ts"
import type { JobContext, JobDefinition } from "../jobs/queue.ts"
import { logLine } from "../log.ts"
import { loadSealedAccount } from "../accounts/accounts-store.ts"
import { openCredentials } from "../accounts/credential-vault.ts"
import { recordAudit } from "../audit/scanning-audit.ts"
import type { StoredRow } from "./finding-rows.ts"
import { selectResultRows, toDetailRow, type ResultRow } from "./results.ts"
import { fixerInfo, fixTargetFor, runFixer, type FixOutcome } from "./fixers.ts"
import { HistoryMessages, isSuperseded, recordRemediation, recountFindings, recountServices } from "../posture/algebra.ts"
import { lockScan } from "./scans-store.ts"
import { enqueueInTransaction } from "./transactional-enqueue.ts"
import { UNDO_RETENTION_DAYS } from "../../src/contracts/remediations.ts"
import type { FixPlan, Json } from "../remediation/plan.ts"
import { publishRemediationCompleted } from "../integrations/events.ts"

export const RemediatePayload = Schema.Struct({ workspace_id: Schema.Int, remediation_id: Schema.Int })
export type RemediatePayload = typeof RemediatePayload.Type

const REMEDIATION_TIMEOUT_MS = 120_000

/**
 * A remediation still 'running' this long after its first claim has outlived every attempt it can get (two attempts of
 * at most REMEDIATION_TIMEOUT_MS, each picked up again within a minute of a dead worker's last heartbeat).
 */
export const REMEDIATION_ABANDONED_AFTER_SECONDS = 600

/** The condition on a `remediations` row that its workers abandoned it (REMEDIATION_ABANDONED_AFTER_SECONDS). */
export const abandonedRemediation = (sql: SqlClient.SqlClient) =>
  sql`status = 'running' AND started_at < now() - make_interval(secs => ${REMEDIATION_ABANDONED_AFTER_SECONDS})`

/**
 * Test-only knob (tests/scanning/remediation-recovery.test.ts): REMEDIATION_TEST_DELAY_MS holds every attempt this
 * long after its claim, before the fixer runs, so a test can kill the worker while the remediation is 'running'.
 * Inert unless NODE_ENV is "test" and the variable is set (at most 60 s); production never reads it.
 */
const testDelayMs = (nodeEnv: string) =>
  nodeEnv !== "test"
    ? Effect.succeed(0)
    : Config.option(Config.Int("REMEDIATION_TEST_DELAY_MS")).pipe(
      Effect.map((o) => Math.min(60_000, Math.max(0, Option.getOrElse(o, () => 0)))),
      Effect.orElseSucceed(() => 0),
    )

const remediateStatus = (row: Pick<ResultRow, "remediate">): unknown => row.remediate?.["status"]


/** The finding's row the client names: its `result_seq` when it still holds that resource, else resource id + region. */
export const findResultRow = (workspaceId: number, findingId: number, wanted: Readonly<Record<string, unknown>>) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const seq = wanted["result_seq"]
    const resourceId = String(wanted["resource_id"])
    const region = String(wanted["region"])
    // The rows are shared versions (migration 0020): the finding's row lock serialises requests on its rows.
    yield* sql`SELECT 1 FROM findings WHERE workspace_id = ${workspaceId} AND id = ${findingId} FOR UPDATE`
    if (typeof seq === "number" && Number.isInteger(seq) && seq >= 0 && seq <= 2_147_483_647) {
      const bySeq = yield* sql<ResultRow>`${selectResultRows(sql)}
        WHERE workspace_id = ${workspaceId} AND finding_id = ${findingId} AND seq = ${seq}`
      const row = bySeq[0]
      if (row !== undefined && row.resource_id === resourceId && row.region === region) return row
    }
    const byId = yield* sql<ResultRow>`${selectResultRows(sql)}
      WHERE workspace_id = ${workspaceId} AND finding_id = ${findingId} AND resource_id = ${resourceId} AND region = ${region}
      ORDER BY compliant NULLS LAST, rank, seq LIMIT 1`
    return byId[0]
  })

/**
 * The API side: validates, records "pending" on the row, enqueues the job (same transaction), audits. Answers the row
 * and the remediation's id (GET /api/remediations/{id}, undo: server/scans/remediation-undo.ts). Without `job` nothing
 * is enqueued: the caller runs the remediation itself (a bulk remediation's item, server/scans/remediation-batches.ts).
 */
export const requestRemediationWithId = (
  ctx: Pick<WorkspaceContext, "workspaceId" | "userId" | "ip">,
  findingId: number,
  wanted: DetailRow,
  job: JobDefinition<string, RemediatePayload, any> | undefined,
) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    if (typeof wanted["resource_id"] !== "string" || typeof wanted["region"] !== "string") {
      return yield* new ValidationError({
        message: ScanningServerMessages.rowNotInFinding,
        errors: [{ path: "details.resource_id", message: ScanningServerMessages.rowNotInFinding }],
      })
    }
    const found = yield* sql<{ scan_id: number; check_id: string; cloud_provider_id: number; retired: boolean }>`
      SELECT f.scan_id, f.check_id, s.cloud_provider_id::int AS cloud_provider_id, a.retired_at IS NOT NULL AS retired
      FROM findings f JOIN scans s ON s.id = f.scan_id JOIN accounts a ON a.id = s.account_id AND a.workspace_id = s.workspace_id
      WHERE f.workspace_id = ${ctx.workspaceId} AND f.id = ${findingId}`
    if (found[0] === undefined) return yield* new NotFound({ message: ScanningServerMessages.findingNotFound })
    // A member retired from its organisation (issue 31) is no longer scanned, so nothing would check a fix: its findings
    // stay readable but take no remediation (single, approved or in a batch, which all come through here).
    if (found[0].retired) return yield* new Conflict({ message: OrganizationMessages.memberRetiredRemediation, data: { error_type: "account_retired" } })
    yield* lockScan(ctx.workspaceId, found[0].scan_id)
    // History is immutable (docs/outcomes.md): only the account's live scans take a remediation.
    if (yield* isSuperseded(ctx.workspaceId, found[0].scan_id)) return yield* new Conflict({ message: HistoryMessages.scanSuperseded })
    yield* sql`SELECT id FROM findings WHERE workspace_id = ${ctx.workspaceId} AND id = ${findingId} FOR UPDATE`
    const finding = found[0]
    const row = yield* findResultRow(ctx.workspaceId, findingId, wanted)
    if (row === undefined) {
      return yield* new ValidationError({
        message: ScanningServerMessages.rowNotInFinding,
        errors: [{ path: "details", message: ScanningServerMessages.rowNotInFinding }],
      })
    }
    if (row.compliant !== false) return yield* new Conflict({ message: ScanningServerMessages.rowCompliant })
    const current = remediateStatus(row)
    if (current === "remediated") return yield* new Conflict({ message: ScanningServerMessages.rowAlreadyRemediated })
    if (current === "pending" || current === "running") {
      // A remediation whose every attempt died with its worker (killed twice: pg-boss retries once) is never finished by
      // anyone: 'running' far longer than its attempts can take is abandoned, recorded as failed, and a new request may
      // go ahead. Anything younger is really in progress.
      const abandoned = yield* sql<{ id: number }>`
        UPDATE remediations SET status = 'failed', state = 'failed', message = ${ScanningServerMessages.remediationWorkerLost}, finished_at = now()
        WHERE workspace_id = ${ctx.workspaceId} AND finding_id = ${findingId} AND resource_id = ${row.resource_id}
          AND region = ${row.region} AND ${abandonedRemediation(sql)}
        RETURNING id`
      const stillOpen = yield* sql<{ n: number }>`
        SELECT count(*)::int AS n FROM remediations
        WHERE workspace_id = ${ctx.workspaceId} AND finding_id = ${findingId} AND resource_id = ${row.resource_id}
          AND region = ${row.region} AND status IN ('pending', 'running')`
      if (abandoned.length === 0 || (stillOpen[0]?.n ?? 0) > 0) {
        return yield* new Conflict({ message: ScanningServerMessages.remediationPending })
      }
      logLine("warn", "remediation abandoned by its worker", { remediation_ids: abandoned.map((a) => a.id), finding_id: findingId })
    }
    const fixer = fixerInfo(finding.check_id, finding.cloud_provider_id)
    if (row.fields["error_code"] !== undefined || fixer === undefined) {
      return yield* new Conflict({ message: ScanningServerMessages.noFixer })
    }

    const users = yield* sql<{ email: string }>`SELECT email FROM users WHERE id = ${ctx.userId}`
    const attemptedBy = { id: ctx.userId, email: users[0]?.email ?? "" }
    const inserted = yield* sql<{ id: number; requested_at: Date | string }>`
      INSERT INTO remediations (workspace_id, finding_id, check_id, resource_id, region, result_seq, requested_by)
      VALUES (${ctx.workspaceId}, ${findingId}, ${finding.check_id}, ${row.resource_id}, ${row.region}, ${row.seq}, ${ctx.userId})
      RETURNING id, requested_at`
    const remediationId = inserted[0]!.id
    const record = {
      status: "pending",
      message: ScanningServerMessages.remediationQueued,
      attempted_at: new Date(inserted[0]!.requested_at).toISOString(),
      attempted_by: attemptedBy,
    }
    yield* sql`INSERT INTO result_marks (workspace_id, finding_id, pos, remediate)
               VALUES (${ctx.workspaceId}, ${findingId}, ${row.seq}, ${JSON.stringify(record)}::jsonb)
               ON CONFLICT (workspace_id, finding_id, pos) DO UPDATE SET remediate = excluded.remediate`
    yield* sql`UPDATE findings SET updated_at = now() WHERE workspace_id = ${ctx.workspaceId} AND id = ${findingId}`
    if (job !== undefined) {
      const [jobId] = yield* enqueueInTransaction(job, [{ payload: { workspace_id: ctx.workspaceId, remediation_id: remediationId } }], {
        workspaceId: ctx.workspaceId,
        userId: ctx.userId,
      })
      yield* sql`UPDATE remediations SET job_id = ${jobId ?? null} WHERE workspace_id = ${ctx.workspaceId} AND id = ${remediationId}`
    }
    yield* recordAudit({
      action: "remediation.requested",
      workspaceId: ctx.workspaceId,
      actorUserId: ctx.userId,
      targetType: "finding",
      targetId: findingId,
      details: {
        remediation_id: remediationId,
        check_id: finding.check_id,
        resource_id: row.resource_id,
        region: row.region,
        may_cut_access: fixer.cutsAccess ?? false,
      },
      ip: ctx.ip,
    })
    return { details: toDetailRow({ ...row, remediate: record }), id: remediationId }
  })

/** The API side of a remediation (see requestRemediationWithId), answering the row only. */
export const requestRemediation = (
  ctx: WorkspaceContext,
  findingId: number,
  wanted: DetailRow,
  job: JobDefinition<string, RemediatePayload, any>,
) => Effect.map(requestRemediationWithId(ctx, findingId, wanted, job), (r) => r.details)

interface Claimed {
  readonly findingId: number
  readonly checkId: string
  readonly resourceId: string
  readonly region: string
  readonly seq: number
  readonly row: StoredRow
  readonly accountId: number
  readonly cloudProviderId: number
  readonly requestedBy: { readonly id: number; readonly email: string } | null
}

const claimRemediation = (p: RemediatePayload) =>
  inScope({ workspaceId: p.workspace_id })(
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const rows = yield* sql<{
        finding_id: number; check_id: string; resource_id: string; region: string; status: string; result_seq: number | null
        account_id: number; cloud_provider_id: number; requested_by: number | null; email: string | null
      }>`SELECT r.finding_id, r.check_id, r.resource_id, r.region, r.status, r.result_seq, s.account_id,
                s.cloud_provider_id::int AS cloud_provider_id, r.requested_by, u.email
         FROM remediations r JOIN findings f ON f.id = r.finding_id JOIN scans s ON s.id = f.scan_id
         LEFT JOIN users u ON u.id = r.requested_by
         WHERE r.workspace_id = ${p.workspace_id} AND r.id = ${p.remediation_id} FOR UPDATE OF r`
      const r = rows[0]
      if (r === undefined || (r.status !== "pending" && r.status !== "running")) return undefined
      const row = yield* findResultRow(p.workspace_id, r.finding_id, {
        resource_id: r.resource_id,
        region: r.region,
        ...(r.result_seq === null ? {} : { result_seq: r.result_seq }),
      })
      if (row === undefined) return undefined
      yield* sql`UPDATE remediations SET status = 'running', started_at = coalesce(started_at, now())
                 WHERE workspace_id = ${p.workspace_id} AND id = ${p.remediation_id}`
      return {
        findingId: r.finding_id,
        checkId: r.check_id,
        resourceId: r.resource_id,
        region: r.region,
        seq: row.seq,
        row: toDetailRow(row),
        accountId: r.account_id,
        cloudProviderId: r.cloud_provider_id,
        requestedBy: r.requested_by === null ? null : { id: r.requested_by, email: r.email ?? "" },
      } satisfies Claimed
    }),
  )

const finishRemediation = (p: RemediatePayload, claimed: Claimed, outcome: FixOutcome) =>
  inScope({ workspaceId: p.workspace_id })(
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const ids = yield* sql<{ scan_id: number; scan_service_id: number }>`
        SELECT scan_id, scan_service_id FROM findings WHERE workspace_id = ${p.workspace_id} AND id = ${claimed.findingId}`
      const target = ids[0]
      if (target === undefined) return
      yield* lockScan(p.workspace_id, target.scan_id)
      yield* sql`SELECT id FROM scan_services WHERE workspace_id = ${p.workspace_id} AND id = ${target.scan_service_id} FOR UPDATE`
      const locked = yield* sql<{ resources_failing: number }>`
        SELECT resources_failing FROM findings WHERE workspace_id = ${p.workspace_id} AND id = ${claimed.findingId} FOR UPDATE`
      if (locked[0] === undefined) return
      const status = outcome.status
      const record: RemediationRecord = {
        status,
        message: outcome.message,
        attempted_at: new Date().toISOString(),
        attempted_by: claimed.requestedBy as RemediationRecord["attempted_by"],
      }
      // A scan superseded while the fix ran keeps what it answered (docs/outcomes.md "History"): a success is recorded on
      // the remediation and in the audit log only (the next scan reads the fixed resource); a failure, which changes no
      // count, also ends the row's provisional "pending" record.
      const superseded = yield* isSuperseded(p.workspace_id, target.scan_id)
      let findingStatus: string | undefined
      if (superseded && status === "failed") yield* recordRemediation(p.workspace_id, claimed.findingId, claimed.seq, record)
      if (!superseded) {
        yield* recordRemediation(p.workspace_id, claimed.findingId, claimed.seq, record)
        // The finding's counts and status from its non-compliant rows (a remediated row may leave only muted rows open),
        // then its service's and scan's counts.
        const pairs = yield* recountFindings(p.workspace_id, [claimed.findingId])
        yield* recountServices(p.workspace_id, pairs)
        findingStatus = (yield* sql<{ status: string }>`
          SELECT status FROM findings WHERE workspace_id = ${p.workspace_id} AND id = ${claimed.findingId}`)[0]?.status
      }
      yield* sql`UPDATE remediations SET status = ${status === "failed" ? "failed" : "remediated"}, message = ${outcome.message.slice(0, 2000)}, finished_at = now()
                 WHERE workspace_id = ${p.workspace_id} AND id = ${p.remediation_id}`
      // Issue 32: the state the fix changed and its plan, for the undo (offered UNDO_RETENTION_DAYS after a verified fix).
      const rec = outcome.record
      // An attempt after a dead one (its worker killed after the calls) re-reads the resource, finds nothing to change
      // and keeps the first attempt's pre-image and plan: the undo restores the state before the fix, not after it.
      const keepEarlier = rec?.plan !== undefined && rec.plan.calls.length === 0
      yield* sql`UPDATE remediations SET state = ${status === "failed" ? "failed" : "verified"},
                   pre_image = CASE WHEN ${keepEarlier} AND pre_image IS NOT NULL THEN pre_image
                     ELSE coalesce(${rec?.preImage === undefined ? null : JSON.stringify(rec.preImage)}::jsonb, pre_image) END,
                   plan = CASE WHEN ${keepEarlier} AND plan IS NOT NULL THEN plan
                     ELSE coalesce(${rec?.plan === undefined ? null : JSON.stringify(rec.plan)}::jsonb, plan) END,
                   outputs = ${rec?.outputs === undefined ? null : JSON.stringify(rec.outputs)}::jsonb,
                   post_image = ${rec?.postImage === undefined ? null : JSON.stringify(rec.postImage)}::jsonb,
                   applied_at = CASE WHEN ${rec?.outputs !== undefined} THEN coalesce(applied_at, now()) ELSE applied_at END,
                   undo_until = CASE WHEN ${status === "remediated" && rec?.postImage !== undefined} THEN now() + make_interval(days => ${UNDO_RETENTION_DAYS}) END
                 WHERE workspace_id = ${p.workspace_id} AND id = ${p.remediation_id}`
      // Webhooks and Slack: a remediation whose re-check passed (docs/integrations.md).
      if (status !== "failed") yield* publishRemediationCompleted(p.workspace_id, p.remediation_id)
      yield* recordAudit({
        action: status === "failed" ? "remediation.failed" : "remediation.succeeded",
        workspaceId: p.workspace_id,
        actorUserId: claimed.requestedBy?.id,
        targetType: "finding",
        targetId: claimed.findingId,
        details: {
          remediation_id: p.remediation_id,
          check_id: claimed.checkId,
          resource_id: claimed.resourceId,
          region: claimed.region,
          outcome: status,
          message: outcome.message.slice(0, 500),
          finding_remediated: findingStatus === "remediated",
        },
      })
    }),
  )

/** Abandoned remediations failed per workspace and tick (the rest wait for the next tick). */
const ABANDONED_PER_TICK = 50

/**
 * Fails the workspace's remediations still 'running' REMEDIATION_ABANDONED_AFTER_SECONDS after they started: every
 * attempt died with its worker, nobody will finish them. Each is recorded like a failed attempt (the row's remediate
 * status, the finding's counts, the `remediation.failed` audit) with the reason ScanningServerMessages.
 * remediationWorkerLost, so the finding shows the outcome without anyone asking again. Run by the posture ticker
 * (server/scans/posture-ticker.ts); answers how many it failed. A remediation finished meanwhile is left alone (the claim
 * locks the row and reads its status).
 */
export const failAbandonedRemediations = (workspaceId: number) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const abandoned = yield* inScope({ workspaceId })(
      sql<{ id: number }>`
        SELECT id FROM remediations
        WHERE workspace_id = ${workspaceId} AND ${abandonedRemediation(sql)}
        ORDER BY id LIMIT ${ABANDONED_PER_TICK}`,
    )
    let failed = 0
    for (const { id } of abandoned) {
      const p = { workspace_id: workspaceId, remediation_id: id }
      const claimed = yield* claimRemediation(p)
      if (claimed === undefined) continue
      yield* finishRemediation(p, claimed, { status: "failed", message: ScanningServerMessages.remediationWorkerLost })
      logLine("warn", "remediation abandoned by its worker", { remediation_id: id, finding_id: claimed.findingId, workspace_id: workspaceId })
      failed++
    }
    return failed
  })

/** The `findings.remediate` job. */
export const runRemediation = (p: RemediatePayload, job: JobContext) =>
  Effect.gen(function* () {
    const config = yield* AppConfig
    const claimed = yield* claimRemediation(p)
    if (claimed === undefined) return
    logLine("info", "remediation started", { remediation_id: p.remediation_id, job_id: job.id, attempt: job.retryCount + 1, pid: process.pid })
    const delayMs = yield* testDelayMs(config.nodeEnv)
    if (delayMs > 0) {
      yield* Effect.promise(() => new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, delayMs)
        job.signal.addEventListener("abort", () => (clearTimeout(timer), resolve()), { once: true })
      }))
    }
    if (fixerInfo(claimed.checkId, claimed.cloudProviderId) === undefined) {
      return yield* finishRemediation(p, claimed, { status: "failed", message: ScanningServerMessages.noFixer })
    }
    const account = yield* inScope({ workspaceId: p.workspace_id })(loadSealedAccount(p.workspace_id, claimed.accountId))
    if (account === undefined) return
    // Asked before the account retired from its organisation (issue 31): no call is made in it now.
    if (account.retiredAt !== null) {
      return yield* finishRemediation(p, claimed, { status: "failed", message: OrganizationMessages.memberRetiredRemediation })
    }
    const stored = openCredentials(config.appSecretKey, account.credentialsSealed, { workspaceId: p.workspace_id, accountId: account.id })
    const target = stored === undefined ? undefined : fixTargetFor(claimed.cloudProviderId, stored, config.awsEndpointUrl)
    if (target === undefined) {
      return yield* finishRemediation(p, claimed, { status: "failed", message: ScanningServerMessages.credentialsUnreadable })
    }
    // The pre-image and the plan are stored before the first call changes anything (issue 32).
    const run = Effect.runPromiseWith(yield* Effect.context<SqlClient.SqlClient>())
    const beforeApply = (r: { readonly preImage: Json; readonly plan: FixPlan }) =>
      run(inScope({ workspaceId: p.workspace_id })(Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        // A plan without calls after a dead attempt (see finishRemediation) keeps the stored pre-image and plan.
        const keepEarlier = r.plan.calls.length === 0
        yield* sql`UPDATE remediations SET pre_image = CASE WHEN ${keepEarlier} AND pre_image IS NOT NULL THEN pre_image ELSE ${JSON.stringify(r.preImage)}::jsonb END,
                     plan = CASE WHEN ${keepEarlier} AND plan IS NOT NULL THEN plan ELSE ${JSON.stringify(r.plan)}::jsonb END, state = 'applied', provider = ${target.provider}
                   WHERE workspace_id = ${p.workspace_id} AND id = ${p.remediation_id}`
      })))
    const outcome = yield* Effect.tryPromise({
      try: () =>
        runFixer({
          target,
          checkId: claimed.checkId,
          row: claimed.row,
          signal: AbortSignal.any([job.signal, AbortSignal.timeout(REMEDIATION_TIMEOUT_MS)]),
          beforeApply,
        }),
      catch: (error) => error,
    }).pipe(
      Effect.catch((error) =>
        Effect.succeed<FixOutcome>({ status: "failed", message: remediationFailedMessage(error instanceof Error ? error.message : String(error)) }),
      ),
    )
    logLine("info", "remediation finished", {
      remediation_id: p.remediation_id,
      check_id: claimed.checkId,
      resource_id: claimed.resourceId,
      status: outcome.status,
      job_id: job.id,
      pid: process.pid,
    })
    yield* finishRemediation(p, claimed, outcome)
  })
