/**
 * Remediation preview, history and undo (issue 32; docs/remediation.md).
 *
 * A member retired from its organisation (issue 31) is no longer acted in: its findings take no preview and its fixes no
 * undo (409 `account_retired`, nothing written); a queued undo whose account retired since fails with that reason.
 *
 * - `previewRemediation`: the finding's row (by `result_seq`, or the detail row), the account's credentials opened in
 *   memory, then the engine's preview (reads only; AWS, GCP or Azure). A check whose fix has no plan answers 409.
 * - `listRemediations` / `getRemediation`: the rows of `remediations` with their state, images, calls and undo status.
 * - `requestUndo`: refuses what cannot be undone (irreversible, retention passed, not verified, done or in progress);
 *   re-reads the resource now and refuses with the field differences (409 RemediationConflict) when it changed since the
 *   fix unless `force`; else records `undoing` and enqueues `remediations.undo` (same transaction), audits.
 * - The `remediations.undo` job: sends the plan's undo calls, re-reads and records `undone` only when the state equals
 *   the pre-image field by field (else `undo_failed` with the differences); an undone row's remediation mark is cleared
 *   (the row fails again and can be remediated again), counts are recomputed, `remediation.undone` is published.
 */
import { Effect, Schema } from "effect"
import { SqlClient } from "effect/sql"

import { Conflict, NotFound, ValidationError } from "../../src/contracts/errors.ts"
import { ScanningServerMessages } from "../../src/contracts/messages.ts"
import { OrganizationMessages } from "../../src/contracts/organizations.ts"
import {
  RemediationConflict,
  RemediationMessages,
  UNDO_RETENTION_DAYS,
  type Remediation,
  type RemediationPreview,
  type RemediationPreviewPayload,
} from "../../src/contracts/remediations.ts"
import type { WorkspaceContext } from "../auth/workspace-context.ts"
import { inScope } from "../auth/rls.ts"
import { AppConfig } from "../config.ts"
import { defineJob, type JobContext } from "../jobs/queue.ts"
import { logLine } from "../log.ts"
import { loadSealedAccount } from "../accounts/accounts-store.ts"
import { openCredentials } from "../accounts/credential-vault.ts"
import { recordAudit } from "../audit/scanning-audit.ts"
import { publishRemediationUndone } from "../integrations/events.ts"
import { recountFindings, recountServices } from "../posture/algebra.ts"
import { previewFinding, readFixedState, undoFinding, describeFixError, type UndoResult } from "../remediation/aws/remediate.ts"
import { describeGcpError, previewGcpFinding, readGcpFixedState, undoGcpFinding } from "../remediation/gcp/remediate.ts"
import { describeAzureError, previewAzureFinding, readAzureFixedState, undoAzureFinding } from "../remediation/azure/remediate.ts"
import { diffStates, type FixPlan, type Json, type PlannedCall, type Preview, type RefView } from "../remediation/plan.ts"
import { renderAwsCli } from "../remediation/aws/fixer.ts"
import { renderRestCommand } from "../remediation/rest.ts"
import { fixTargetFor, toEngineRow, type FixTarget } from "./fixers.ts"
import { findResultRow } from "./remediation.ts"
import { selectResultRows, toDetailRow, type ResultRow } from "./results.ts"
import { lockScan } from "./scans-store.ts"
import { enqueueInTransaction } from "./transactional-enqueue.ts"

export const UndoJobPayload = Schema.Struct({ workspace_id: Schema.Int, remediation_id: Schema.Int })
export type UndoJobPayload = typeof UndoJobPayload.Type

const UNDO_TIMEOUT_MS = 120_000

/** What undo hands the engine besides the row: the stored plan, outputs and images. */
interface UndoArgs { readonly signal?: AbortSignal; readonly plan: FixPlan; readonly outputs: ReadonlyArray<Json>; readonly preImage: Json; readonly postImage: Json; readonly force: boolean }

/** The preview/read/undo of the target's engine for a check and row (AWS, GCP, Azure). */
interface PlanEngine {
  readonly preview: () => Promise<Preview>
  readonly read: () => Promise<Json>
  readonly undo: (args: UndoArgs) => Promise<UndoResult>
  readonly describe: (error: unknown) => string
}

const engineOf = (target: FixTarget, checkId: string, row: ReturnType<typeof toEngineRow>, signal?: AbortSignal): PlanEngine | undefined => {
  if (target.provider === "gcp") {
    const input = { credentials: target.credentials, checkId, row, ...(target.endpoints === undefined ? {} : { endpoints: target.endpoints }), ...(signal === undefined ? {} : { signal }) }
    return {
      preview: () => previewGcpFinding(input),
      read: () => readGcpFixedState(input),
      undo: (a) => undoGcpFinding({ ...input, ...a }),
      describe: describeGcpError,
    }
  }
  if (target.provider === "azure") {
    const input = { credentials: target.credentials, checkId, row, ...(target.endpoints === undefined ? {} : { endpoints: target.endpoints }), ...(signal === undefined ? {} : { signal }) }
    return {
      preview: () => previewAzureFinding(input),
      read: () => readAzureFixedState(input),
      undo: (a) => undoAzureFinding({ ...input, ...a }),
      describe: describeAzureError,
    }
  }
  const input = {
    credentials: target.credentials,
    checkId,
    row,
    ...(target.endpoint === undefined ? {} : { endpoint: target.endpoint }),
    ...(signal === undefined ? {} : { signal }),
  }
  return { preview: () => previewFinding(input), read: () => readFixedState(input), undo: (a) => undoFinding({ ...input, ...a }), describe: describeFixError }
}

/** The account's engine target, opened from its sealed credentials (undefined when they cannot sign). */
const targetOfAccount = (workspaceId: number, accountId: number, cloudProviderId: number) =>
  Effect.gen(function* () {
    const config = yield* AppConfig
    const account = yield* loadSealedAccount(workspaceId, accountId)
    if (account === undefined) return undefined
    const stored = openCredentials(config.appSecretKey, account.credentialsSealed, { workspaceId, accountId: account.id })
    return stored === undefined ? undefined : fixTargetFor(cloudProviderId, stored, config.awsEndpointUrl)
  })

/** The refusal of any remediation, preview or undo in a member retired from its organisation. */
const retiredConflict = (message: string) => new Conflict({ message, data: { error_type: "account_retired" } })

const engineFailure = (engine: PlanEngine) => (error: unknown) => new Conflict({ message: `The preview could not read the resource: ${engine.describe(error)}` })

/** POST /api/findings/{id}/remediation-preview. */
export const previewRemediation = (ctx: WorkspaceContext, findingId: number, payload: RemediationPreviewPayload) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const found = yield* sql<{ check_id: string; account_id: number; cloud_provider_id: number; retired: boolean }>`
      SELECT f.check_id, s.account_id, s.cloud_provider_id::int AS cloud_provider_id, a.retired_at IS NOT NULL AS retired
      FROM findings f JOIN scans s ON s.id = f.scan_id JOIN accounts a ON a.workspace_id = s.workspace_id AND a.id = s.account_id
      WHERE f.workspace_id = ${ctx.workspaceId} AND f.id = ${findingId}`
    const finding = found[0]
    if (finding === undefined) return yield* new NotFound({ message: ScanningServerMessages.findingNotFound })
    // The preview of a fix that would be refused (server/scans/remediation.ts): not even a read in that account.
    if (finding.retired) return yield* retiredConflict(OrganizationMessages.memberRetiredRemediation)
    let row: ResultRow | undefined
    if (payload.result_seq !== undefined) {
      row = (yield* sql<ResultRow>`${selectResultRows(sql)} WHERE workspace_id = ${ctx.workspaceId} AND finding_id = ${findingId} AND seq = ${payload.result_seq}`)[0]
    } else if (payload.details !== undefined) {
      row = yield* findResultRow(ctx.workspaceId, findingId, payload.details)
    } else {
      return yield* new ValidationError({ message: RemediationMessages.rowRequired, errors: [{ path: "result_seq", message: RemediationMessages.rowRequired }] })
    }
    if (row === undefined) {
      return yield* new ValidationError({ message: ScanningServerMessages.rowNotInFinding, errors: [{ path: "result_seq", message: ScanningServerMessages.rowNotInFinding }] })
    }
    const target = yield* targetOfAccount(ctx.workspaceId, finding.account_id, finding.cloud_provider_id)
    if (target === undefined) return yield* new Conflict({ message: ScanningServerMessages.credentialsUnreadable })
    const engine = engineOf(target, finding.check_id, toEngineRow(toDetailRow(row)))
    if (engine === undefined) return yield* new Conflict({ message: RemediationMessages.noPreview })
    const preview = yield* Effect.tryPromise({ try: () => engine.preview(), catch: engineFailure(engine) })
    return { ...preview, undo_retention_days: UNDO_RETENTION_DAYS } satisfies RemediationPreview
  })

interface RemediationRow {
  id: number; finding_id: number; scan_id: number; account_id: number; check_id: string; resource_id: string; region: string
  result_seq: number | null; state: Remediation["state"]; status: string; message: string | null
  requested_by: number | null; requested_email: string | null; requested_at: Date | string; applied_at: Date | string | null
  finished_at: Date | string | null; pre_image: Json | null; post_image: Json | null; plan: FixPlan | null; outputs: Json[] | null
  undo_until: Date | string | null; undo_requested_by: number | null; undo_email: string | null; undo_requested_at: Date | string | null
  undo_force: boolean; undone_at: Date | string | null; undo_message: string | null; undo_differences: Remediation["undo"]["differences"] | null
  cloud_provider_id: number; retired: boolean
}

const selectRemediations = (sql: SqlClient.SqlClient) => sql`
  SELECT r.id, r.finding_id, f.scan_id, s.account_id, r.check_id, r.resource_id, r.region, r.result_seq, r.state, r.status,
         r.message, r.requested_by, ru.email AS requested_email, r.requested_at, r.applied_at, r.finished_at, r.pre_image,
         r.post_image, r.plan, r.outputs, r.undo_until, r.undo_requested_by, uu.email AS undo_email, r.undo_requested_at,
         r.undo_force, r.undone_at, r.undo_message, r.undo_differences, s.cloud_provider_id::int AS cloud_provider_id,
         a.retired_at IS NOT NULL AS retired
  FROM remediations r JOIN findings f ON f.id = r.finding_id JOIN scans s ON s.id = f.scan_id
  JOIN accounts a ON a.workspace_id = s.workspace_id AND a.id = s.account_id
  LEFT JOIN users ru ON ru.id = r.requested_by LEFT JOIN users uu ON uu.id = r.undo_requested_by`

const iso = (d: Date | string | null) => (d === null ? null : new Date(d).toISOString())

/** The calls as the history shows them; `view`: an undo's calls, whose references to the fix's answers show the values it recorded. */
const callView = (calls: ReadonlyArray<PlannedCall>, view?: RefView) =>
  calls.map((c) => ({ service: c.service, operation: c.operation, region: c.region ?? null, params: c.provider === "aws" ? c.params : { method: c.method, url: c.url, body: c.body ?? null }, cli: c.provider === "aws" ? renderAwsCli(c, view) : renderRestCommand(c, view) }))

/** Whether undo can be asked now, or why not. */
const undoStatus = (r: RemediationRow, now: Date): { available: boolean; reason: string | null } => {
  if (r.state === "undone") return { available: false, reason: RemediationMessages.alreadyUndone }
  if (r.state === "undoing") return { available: false, reason: RemediationMessages.undoInProgress }
  if (r.retired) return { available: false, reason: OrganizationMessages.memberRetiredUndo }
  if (r.plan === null || r.pre_image === null || r.post_image === null) {
    return { available: false, reason: r.state === "pending" || r.state === "applied" ? RemediationMessages.notVerified : RemediationMessages.noPlan }
  }
  if (!r.plan.undo.reversible) return { available: false, reason: `${RemediationMessages.irreversible}: ${r.plan.undo.reason}` }
  if (r.state !== "verified" && r.state !== "undo_failed") return { available: false, reason: RemediationMessages.notVerified }
  if (r.undo_until !== null && new Date(r.undo_until).getTime() < now.getTime()) return { available: false, reason: RemediationMessages.retentionPassed }
  return { available: true, reason: r.plan.undo.note ?? null }
}

const toRemediation = (r: RemediationRow, now: Date = new Date()): Remediation => {
  const status = undoStatus(r, now)
  return {
    id: r.id as Remediation["id"],
    finding_id: r.finding_id as Remediation["finding_id"],
    scan_id: r.scan_id,
    account_id: r.account_id,
    check_id: r.check_id,
    resource_id: r.resource_id,
    region: r.region,
    result_seq: r.result_seq,
    state: r.state,
    message: r.message,
    requested_by: r.requested_by === null ? null : { id: r.requested_by, email: r.requested_email ?? "" },
    requested_at: new Date(r.requested_at).toISOString(),
    applied_at: iso(r.applied_at),
    finished_at: iso(r.finished_at),
    pre_image: r.pre_image,
    post_image: r.post_image,
    calls: callView(r.plan?.calls ?? []),
    effects: r.plan?.effects ?? [],
    undo: {
      available: status.available,
      reason: status.reason,
      until: iso(r.undo_until),
      calls: r.plan?.undo.reversible === true ? callView(r.plan.undo.calls, { applyCalls: r.plan.calls.length, ...(r.outputs === null ? {} : { outputs: r.outputs }) }) : [],
      requested_at: iso(r.undo_requested_at),
      requested_by: r.undo_requested_by === null ? null : { id: r.undo_requested_by, email: r.undo_email ?? "" },
      forced: r.undo_force,
      done_at: iso(r.undone_at),
      message: r.undo_message,
      differences: r.undo_differences ?? [],
    },
  } as Remediation
}

/** GET /api/remediations?finding_id= (newest first). */
export const listRemediations = (workspaceId: number, findingId: number) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const exists = yield* sql`SELECT 1 FROM findings WHERE workspace_id = ${workspaceId} AND id = ${findingId}`
    if (exists.length === 0) return yield* new NotFound({ message: ScanningServerMessages.findingNotFound })
    const rows = yield* sql<RemediationRow>`${selectRemediations(sql)} WHERE r.workspace_id = ${workspaceId} AND r.finding_id = ${findingId} ORDER BY r.requested_at DESC, r.id DESC`
    return rows.map((r) => toRemediation(r))
  })

const loadRemediation = (workspaceId: number, id: number, lock = false) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const rows = lock
      ? yield* sql<RemediationRow>`${selectRemediations(sql)} WHERE r.workspace_id = ${workspaceId} AND r.id = ${id} FOR UPDATE OF r FOR SHARE OF a`
      : yield* sql<RemediationRow>`${selectRemediations(sql)} WHERE r.workspace_id = ${workspaceId} AND r.id = ${id}`
    return rows[0]
  })

/** GET /api/remediations/{id}. */
export const getRemediation = (workspaceId: number, id: number) =>
  Effect.gen(function* () {
    const r = yield* loadRemediation(workspaceId, id)
    if (r === undefined) return yield* new NotFound({ message: RemediationMessages.notFound })
    return toRemediation(r)
  })

/** The engine input of a stored remediation: its row as the engine reads it. */
const storedRowInput = (workspaceId: number, r: RemediationRow) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const rows = r.result_seq === null ? [] : yield* sql<ResultRow>`${selectResultRows(sql)} WHERE workspace_id = ${workspaceId} AND finding_id = ${r.finding_id} AND seq = ${r.result_seq}`
    const row = rows[0]
    const engineRow = row !== undefined && row.resource_id === r.resource_id ? toEngineRow(toDetailRow(row)) : ({ resource_id: r.resource_id, region: r.region, compliant: false } as ReturnType<typeof toEngineRow>)
    const target = yield* targetOfAccount(workspaceId, r.account_id, r.cloud_provider_id)
    return target === undefined ? undefined : engineOf(target, r.check_id, engineRow)
  })

/**
 * POST /api/remediations/{id}/undo. Without `job` nothing is enqueued: the caller runs the undo itself (`runUndo`; the
 * undo of a bulk remediation's item, server/scans/remediation-batches.ts).
 */
export const requestUndo = (ctx: Pick<WorkspaceContext, "workspaceId" | "userId" | "ip">, id: number, force: boolean, job: typeof undoJob | undefined) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const r = yield* loadRemediation(ctx.workspaceId, id)
    if (r === undefined) return yield* new NotFound({ message: RemediationMessages.notFound })
    if (r.retired) return yield* retiredConflict(OrganizationMessages.memberRetiredUndo)
    const status = undoStatus(r, new Date())
    if (!status.available) return yield* new Conflict({ message: status.reason ?? RemediationMessages.notVerified })
    // Read the resource now (outside any lock: a cloud call), then decide under the row's lock.
    const input = yield* storedRowInput(ctx.workspaceId, r)
    if (input === undefined) return yield* new Conflict({ message: ScanningServerMessages.credentialsUnreadable })
    const now = yield* Effect.tryPromise({ try: () => input.read(), catch: (e) => new Conflict({ message: `The resource could not be read: ${input.describe(e)}` }) })
    const differences = diffStates(r.post_image ?? null, now)
    if (differences.length > 0 && !force) {
      return yield* new RemediationConflict({ message: RemediationMessages.changedSinceFix, differences })
    }
    const locked = yield* loadRemediation(ctx.workspaceId, id, true)
    if (locked === undefined) return yield* new NotFound({ message: RemediationMessages.notFound })
    // The account's row is held (shared) to the commit: a sync retiring it meanwhile waits, or already did and is seen here.
    if (locked.retired) return yield* retiredConflict(OrganizationMessages.memberRetiredUndo)
    const again = undoStatus(locked, new Date())
    if (!again.available) return yield* new Conflict({ message: again.reason ?? RemediationMessages.notVerified })
    yield* sql`UPDATE remediations SET state = 'undoing', undo_requested_by = ${ctx.userId}, undo_requested_at = now(), undo_force = ${force},
                 undo_message = ${RemediationMessages.undoQueued}, undo_differences = NULL, undone_at = NULL
               WHERE workspace_id = ${ctx.workspaceId} AND id = ${id}`
    if (job !== undefined) {
      const [jobId] = yield* enqueueInTransaction(job, [{ payload: { workspace_id: ctx.workspaceId, remediation_id: id } }], { workspaceId: ctx.workspaceId, userId: ctx.userId })
      yield* sql`UPDATE remediations SET undo_job_id = ${jobId ?? null} WHERE workspace_id = ${ctx.workspaceId} AND id = ${id}`
    }
    yield* recordAudit({
      action: "remediation.undo_requested",
      workspaceId: ctx.workspaceId,
      actorUserId: ctx.userId,
      targetType: "finding",
      targetId: r.finding_id,
      details: { remediation_id: id, check_id: r.check_id, resource_id: r.resource_id, region: r.region, forced: force, differences: differences.slice(0, 50) },
      ip: ctx.ip,
    })
    const after = yield* loadRemediation(ctx.workspaceId, id)
    return toRemediation(after!)
  })

/** The `remediations.undo` job. */
export const runUndo = (p: UndoJobPayload, job: JobContext) =>
  Effect.gen(function* () {
    const r = yield* inScope({ workspaceId: p.workspace_id })(loadRemediation(p.workspace_id, p.remediation_id))
    if (r === undefined || r.state !== "undoing" || r.plan === null) return
    const input = yield* inScope({ workspaceId: p.workspace_id })(storedRowInput(p.workspace_id, r))
    const signal = AbortSignal.any([job.signal, AbortSignal.timeout(UNDO_TIMEOUT_MS)])
    // Asked before the account retired from its organisation: no call is made in it now.
    const outcome = r.retired
      ? { status: "undo_failed" as const, message: OrganizationMessages.memberRetiredUndo, differences: [] }
      : input === undefined
      ? { status: "undo_failed" as const, message: ScanningServerMessages.credentialsUnreadable, differences: [] }
      : yield* Effect.tryPromise({
          try: () => input.undo({ signal, plan: r.plan!, outputs: r.outputs ?? [], preImage: r.pre_image ?? null, postImage: r.post_image ?? null, force: r.undo_force }),
          catch: (e) => e,
        }).pipe(Effect.catch((e) => Effect.succeed({ status: "undo_failed" as const, message: `Undo failed: ${input.describe(e)}`, differences: [] })))
    const state = outcome.status === "undone" ? "undone" : "undo_failed"
    logLine("info", "remediation undo finished", { remediation_id: p.remediation_id, status: outcome.status, job_id: job.id })
    yield* inScope({ workspaceId: p.workspace_id })(
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const ids = yield* sql<{ scan_id: number; scan_service_id: number }>`SELECT scan_id, scan_service_id FROM findings WHERE workspace_id = ${p.workspace_id} AND id = ${r.finding_id}`
        const target = ids[0]
        if (target !== undefined) {
          yield* lockScan(p.workspace_id, target.scan_id)
          yield* sql`SELECT id FROM scan_services WHERE workspace_id = ${p.workspace_id} AND id = ${target.scan_service_id} FOR UPDATE`
          yield* sql`SELECT id FROM findings WHERE workspace_id = ${p.workspace_id} AND id = ${r.finding_id} FOR UPDATE`
        }
        const message = outcome.status === "conflict" ? `${RemediationMessages.changedSinceFix}` : outcome.message
        yield* sql`UPDATE remediations SET state = ${state}, undo_message = ${message.slice(0, 2000)},
                     undo_differences = ${JSON.stringify(outcome.differences.slice(0, 200))}::jsonb,
                     undone_at = ${state === "undone" ? new Date() : null}
                   WHERE workspace_id = ${p.workspace_id} AND id = ${p.remediation_id}`
        if (state === "undone" && target !== undefined && r.result_seq !== null) {
          // The resource fails again: the row loses its remediation mark and can be remediated again.
          yield* sql`UPDATE result_marks SET remediate = NULL WHERE workspace_id = ${p.workspace_id} AND finding_id = ${r.finding_id} AND pos = ${r.result_seq}`
          const pairs = yield* recountFindings(p.workspace_id, [r.finding_id])
          yield* recountServices(p.workspace_id, pairs)
        }
        const actor = r.undo_requested_by === null ? null : { id: r.undo_requested_by, email: r.undo_email ?? "" }
        if (state === "undone") yield* publishRemediationUndone(p.workspace_id, p.remediation_id, { message, actor, key: new Date(r.undo_requested_at ?? Date.now()).toISOString() })
        yield* recordAudit({
          action: state === "undone" ? "remediation.undone" : "remediation.undo_failed",
          workspaceId: p.workspace_id,
          actorUserId: r.undo_requested_by ?? undefined,
          targetType: "finding",
          targetId: r.finding_id,
          details: { remediation_id: p.remediation_id, check_id: r.check_id, resource_id: r.resource_id, region: r.region, message: message.slice(0, 500), forced: r.undo_force },
        })
      }),
    )
  })

export const undoJob = defineJob("remediations.undo", UndoJobPayload, runUndo, {
  queue: { retryLimit: 0, expireInSeconds: 300 },
  work: { localConcurrency: 2, pollingIntervalSeconds: 2 },
})

export const remediationUndoJobs = [undoJob] as const


