/**
 * Fleet scans (issue 31): `POST /api/scans` with an organisation's account id scans every included member.
 *
 * `startFleetScan`, in the caller's RLS transaction: one open fleet scan per organisation (409), the members that are
 * not retired queued in a stable order (unit path, name), and the first `organizations.fleet-advance` job enqueued in
 * the same transaction. Member scans are ordinary scans (every spec screen shows them) that name their fleet scan.
 *
 * `advanceFleet` (the job, re-sent every ADVANCE_SECONDS while the fleet scan is open): records the members whose scan
 * ended, then starts queued members until `member_cap` member scans run at once — the concurrency cap per organisation,
 * held in the database so it holds across worker processes and job runners (the fleet row is locked while an advance
 * plans and again while it starts members, re-checking that each is still queued and a slot still free). Each
 * member scan keeps its own per-scan limiter of cloud calls (server/scanner/aws/scan-share.ts, rest/context.ts);
 * GCP and Azure members, signed in as the organisation's one principal, also share its gate per cloud API
 * (server/scanner/rest/principal-gate.ts: calls in flight, 429 Retry-After pauses). Before an AWS member starts, it
 * is probed (assume the member role, read it): a member whose role is missing or refused fails alone with the
 * provider's words, and so does a member whose scan could not start (already being scanned) or failed (the scan's
 * failure reason and its first failed service's error: a GCP project or Azure subscription the organisation's grant
 * does not reach is only found out by its scan, and "every service failed" alone would not say why).
 * When no member is queued or running, the fleet scan ends: completed when any member completed, else failed.
 */
import { Effect, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { Conflict, NotFound, ValidationError } from "../../src/contracts/errors.ts"
import type { AccountId, CloudProviderId, UserId } from "../../src/contracts/ids.ts"
import { ProviderIds } from "../../src/contracts/constants.ts"
import { OrganizationMessages } from "../../src/contracts/organizations.ts"
import type { ScanStartPayload } from "../../src/contracts/scans.ts"
import { loadSealedAccount } from "../accounts/accounts-store.ts"
import { openCredentials } from "../accounts/credential-vault.ts"
import { providerDisplayName } from "../accounts/providers.ts"
import { recordAudit } from "../audit/scanning-audit.ts"
import { inScope } from "../auth/rls.ts"
import type { WorkspaceContext } from "../auth/workspace-context.ts"
import { AppConfig } from "../config.ts"
import { defineJob, JobQueue, type JobDefinition } from "../jobs/queue.ts"
import { logLine } from "../log.ts"
import { startScan, type LaunchOptions, type ScanJobs } from "../scans/launch.ts"
import { enqueueInTransaction } from "../scans/transactional-enqueue.ts"
import { probeAwsMember } from "./aws-discovery.ts"
import { getFleetScan, loadOrganization } from "./store.ts"

export const FLEET_ADVANCE_JOB = "organizations.fleet-advance"
/** Seconds between two advances of an open fleet scan. */
export const ADVANCE_SECONDS = 2

export const FleetAdvancePayload = Schema.Struct({ workspace_id: Schema.Int, fleet_scan_id: Schema.Int })
export type FleetAdvancePayload = typeof FleetAdvancePayload.Type

/** Whether the account is an organisation of the workspace (a scan start is then a fleet scan). */
export const isOrganizationAccount = Effect.fn("Fleet.isOrganization")(function* (workspaceId: number, accountId: number) {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql<{ is_organization: boolean }>`SELECT is_organization FROM accounts WHERE workspace_id = ${workspaceId} AND id = ${accountId}`
  return rows[0]?.is_organization === true
})

export const startFleetScan = (
  ctx: WorkspaceContext,
  payload: ScanStartPayload,
  advanceJob: JobDefinition<string, FleetAdvancePayload, any>,
  options: LaunchOptions = {},
) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const org = yield* loadOrganization(ctx.workspaceId, payload.account_id, true)
    if (org === undefined) return yield* new NotFound({ message: OrganizationMessages.organizationNotFound })
    if (payload.cloud_provider_id !== org.cloudProviderId || payload.cloud_provider_name !== providerDisplayName(org.cloudProviderId).toLowerCase()) {
      return yield* new ValidationError({ message: "Invalid cloud provider", errors: [{ path: "cloud_provider_id", message: "Invalid cloud provider" }] })
    }
    const open = yield* sql<{ id: number }>`
      SELECT id FROM fleet_scans WHERE workspace_id = ${ctx.workspaceId} AND organization_id = ${org.accountId} AND status IN ('pending', 'running')`
    if (open.length > 0) return yield* new Conflict({ message: OrganizationMessages.fleetScanRunning, data: { error_type: "scan_running" } })
    const members = yield* sql<{ id: number }>`
      SELECT id FROM accounts WHERE workspace_id = ${ctx.workspaceId} AND organization_id = ${org.accountId} AND retired_at IS NULL
      ORDER BY org_unit_path, account_name, id`
    if (members.length === 0) return yield* new ValidationError({ message: OrganizationMessages.noMembersToScan })
    const textArray = (xs: ReadonlyArray<string> | null | undefined) => (xs === null || xs === undefined ? null : `{${xs.join(",")}}`)
    const scope = options.scope ?? { regions: payload.regions ?? null, services: payload.services ?? null }
    const [fleet] = yield* sql<{ id: number }>`
      INSERT INTO fleet_scans (workspace_id, organization_id, status, trigger, member_cap, scope_regions, scope_services, created_by)
      VALUES (${ctx.workspaceId}, ${org.accountId}, 'running', ${options.trigger ?? "manual"}, ${org.memberConcurrency},
              ${textArray(scope.regions)}::text[], ${textArray(scope.services)}::text[], ${ctx.userId})
      RETURNING id`
    const fleetScanId = fleet!.id
    yield* sql`INSERT INTO fleet_scan_members ${sql.insert(members.map((m, i) => ({
      fleet_scan_id: fleetScanId, workspace_id: ctx.workspaceId, account_id: m.id, position: i,
    })) as never)}`
    yield* enqueueInTransaction(advanceJob, [{ payload: { workspace_id: ctx.workspaceId, fleet_scan_id: fleetScanId } }], {
      workspaceId: ctx.workspaceId, userId: ctx.userId,
    })
    yield* recordAudit({
      action: "fleet_scan.started", workspaceId: ctx.workspaceId, actorUserId: ctx.userId, targetType: "fleet_scan", targetId: fleetScanId,
      details: { organization_id: org.accountId, members: members.length, member_cap: org.memberConcurrency, trigger: options.trigger ?? "manual" },
      ip: ctx.ip,
    })
    return (yield* getFleetScan(ctx.workspaceId, fleetScanId))!
  })

/** The context a fleet scan's member scans are started with: the workspace, as the member who started the fleet scan. */
const memberContext = (workspaceId: number, userId: number): WorkspaceContext => ({
  userId, sessionId: "", tokenWorkspaceId: workspaceId, workspaceId, workspaceName: "", isOwner: false,
  roleId: null, customRoleId: null, roleName: null, permissions: [], accountGroupIds: null, accountIds: null, ip: "",
})

interface Candidate {
  readonly account_id: number
  readonly cloud_provider_id: number
  readonly credentials_sealed: string
}

/** One advance of a fleet scan (see the module comment). */
export const advanceFleet = (payload: FleetAdvancePayload, jobs: ScanJobs, self: JobDefinition<string, FleetAdvancePayload, any>) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const config = yield* AppConfig
    const ws = payload.workspace_id
    const scope = inScope({ workspaceId: ws })
    // 1. Members whose scan ended; the queued members that may start now.
    const plan = yield* scope(Effect.gen(function* () {
      const rows = yield* sql<{ status: string; member_cap: number; created_by: number | null; organization_id: number; scope_regions: Array<string> | null; scope_services: Array<string> | null; trigger: "manual" | "schedule" }>`
        SELECT status, member_cap::int AS member_cap, created_by, organization_id, scope_regions, scope_services, trigger FROM fleet_scans
        WHERE workspace_id = ${ws} AND id = ${payload.fleet_scan_id} FOR UPDATE`
      const fleet = rows[0]
      if (fleet === undefined || (fleet.status !== "running" && fleet.status !== "pending")) return undefined
      yield* sql`
        UPDATE fleet_scan_members m SET state = CASE WHEN s.status = 'completed' THEN 'completed' ELSE 'failed' END,
          reason = CASE WHEN s.status = 'completed' THEN NULL ELSE left(
            coalesce(s.failure_reason, 'The member scan failed') || coalesce(': ' || nullif((
              SELECT ss.error FROM scan_services ss
              WHERE ss.workspace_id = s.workspace_id AND ss.scan_id = s.id AND ss.status = 'failed' AND ss.error IS NOT NULL
              ORDER BY ss.id LIMIT 1), s.failure_reason), ''), 2000) END
        FROM scans s
        WHERE m.workspace_id = ${ws} AND m.fleet_scan_id = ${payload.fleet_scan_id} AND m.state = 'started'
          AND s.id = m.scan_id AND s.workspace_id = m.workspace_id AND s.status IN ('completed', 'failed')`
      const [counts] = yield* sql<{ running: number; queued: number; completed: number }>`
        SELECT count(*) FILTER (WHERE state = 'started')::int AS running, count(*) FILTER (WHERE state = 'queued')::int AS queued,
               count(*) FILTER (WHERE state = 'completed')::int AS completed
        FROM fleet_scan_members WHERE workspace_id = ${ws} AND fleet_scan_id = ${payload.fleet_scan_id}`
      const free = Math.max(0, fleet.member_cap - counts!.running)
      const next = free === 0 ? [] : yield* sql<Candidate>`
        SELECT m.account_id, a.cloud_provider_id::int AS cloud_provider_id, a.credentials_sealed
        FROM fleet_scan_members m JOIN accounts a ON a.id = m.account_id AND a.workspace_id = m.workspace_id
        WHERE m.workspace_id = ${ws} AND m.fleet_scan_id = ${payload.fleet_scan_id} AND m.state = 'queued'
        ORDER BY m.position LIMIT ${free}`
      if (counts!.running === 0 && counts!.queued === 0) {
        yield* sql`UPDATE fleet_scans SET status = ${counts!.completed > 0 ? "completed" : "failed"}, finished_at = now()
                   WHERE workspace_id = ${ws} AND id = ${payload.fleet_scan_id}`
        yield* recordAudit({
          action: "fleet_scan.finished", workspaceId: ws, actorUserId: null, targetType: "fleet_scan", targetId: payload.fleet_scan_id,
          details: { completed: counts!.completed },
        })
        return undefined
      }
      return { fleet, next }
    }))
    if (plan === undefined) return
    // 2. Probe the AWS members about to start (network, no transaction open).
    const probes = yield* Effect.forEach(plan.next, (c) =>
      Effect.gen(function* () {
        if (c.cloud_provider_id !== ProviderIds.AWS) return undefined
        const stored = openCredentials(config.appSecretKey, c.credentials_sealed, { workspaceId: ws, accountId: c.account_id })
        if (stored === undefined) return "The member's credentials could not be read"
        return yield* probeAwsMember(stored, { endpoint: config.awsEndpointUrl })
      }), { concurrency: 10 })
    // 3. Start them, each in its own savepoint: one that cannot start fails alone. The fleet row is locked again and
    //    the plan re-checked: another advance of the same fleet scan (a second job runner) may have started members
    //    since step 1, and a member is started by one advance only, within the cap.
    const userId = plan.fleet.created_by
    yield* scope(Effect.gen(function* () {
      const locked = yield* sql<{ status: string }>`
        SELECT status FROM fleet_scans WHERE workspace_id = ${ws} AND id = ${payload.fleet_scan_id} FOR UPDATE`
      if (locked[0]?.status !== "running" && locked[0]?.status !== "pending") return
      const [now] = yield* sql<{ running: number }>`
        SELECT count(*)::int AS running FROM fleet_scan_members
        WHERE workspace_id = ${ws} AND fleet_scan_id = ${payload.fleet_scan_id} AND state = 'started'`
      const stillQueued = new Set((yield* sql<{ account_id: number }>`
        SELECT account_id FROM fleet_scan_members
        WHERE workspace_id = ${ws} AND fleet_scan_id = ${payload.fleet_scan_id} AND state = 'queued'`).map((r) => r.account_id))
      let free = Math.max(0, plan.fleet.member_cap - now!.running)
      for (const [i, c] of plan.next.entries()) {
        if (!stillQueued.has(c.account_id)) continue
        const failure = probes[i]
        if (failure !== undefined || userId === null) {
          yield* sql`UPDATE fleet_scan_members SET state = 'failed', reason = ${(failure ?? "The member who started the scan is no longer known").slice(0, 2000)}
                     WHERE workspace_id = ${ws} AND fleet_scan_id = ${payload.fleet_scan_id} AND account_id = ${c.account_id}`
          continue
        }
        if (free === 0) continue
        free--
        const account = yield* loadSealedAccount(ws, c.account_id)
        const started = yield* sql.withTransaction(startScan(
          memberContext(ws, userId),
          {
            account_id: c.account_id as AccountId,
            cloud_provider_id: c.cloud_provider_id as CloudProviderId,
            cloud_provider_name: providerDisplayName(c.cloud_provider_id).toLowerCase(),
            user_id: userId as UserId,
          },
          jobs,
          {
            trigger: plan.fleet.trigger,
            ...(plan.fleet.scope_regions === null && plan.fleet.scope_services === null
              ? {}
              : { scope: { regions: plan.fleet.scope_regions, services: plan.fleet.scope_services } }),
          },
        )).pipe(
          Effect.map((scan) => ({ scanId: scan.id as number, error: null as string | null })),
          Effect.catchTags({
            Conflict: (e) => Effect.succeed({ scanId: null, error: e.message }),
            NotFound: (e) => Effect.succeed({ scanId: null, error: e.message }),
            ValidationError: (e) => Effect.succeed({ scanId: null, error: e.message }),
          }),
        )
        if (started.scanId === null) {
          yield* sql`UPDATE fleet_scan_members SET state = 'failed', reason = ${started.error ?? `${account?.accountName ?? ""} could not be scanned`}
                     WHERE workspace_id = ${ws} AND fleet_scan_id = ${payload.fleet_scan_id} AND account_id = ${c.account_id}`
        } else {
          yield* sql`UPDATE scans SET fleet_scan_id = ${payload.fleet_scan_id} WHERE workspace_id = ${ws} AND id = ${started.scanId}`
          yield* sql`UPDATE fleet_scan_members SET state = 'started', scan_id = ${started.scanId}
                     WHERE workspace_id = ${ws} AND fleet_scan_id = ${payload.fleet_scan_id} AND account_id = ${c.account_id}`
        }
      }
    }))
    const queue = yield* JobQueue
    yield* queue.send(self, payload, { startAfterSeconds: ADVANCE_SECONDS, singletonKey: `fleet-${payload.fleet_scan_id}` })
  }).pipe(Effect.tapError((e) => Effect.sync(() => logLine("warn", "fleet advance failed", { fleet_scan_id: payload.fleet_scan_id, error: String(e) }))))
