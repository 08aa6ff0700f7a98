/**
 * Integration events (issue 33; docs/integrations.md): the product's changes told to the workspace's webhooks and Slack
 * channels, at least once, through an outbox.
 *
 * `publishIntegrationEvent(workspaceId, type, data, dedupeKey)` runs in the transaction of the change that caused the
 * event. It writes the event (`integration_events`) and, for each enabled webhook of the workspace subscribed to the
 * type, a delivery row holding the exact body to send (`webhook_deliveries`) and a `webhooks.deliver` job carrying
 * only the delivery's id (./webhook-delivery.ts). So the event, its deliveries and their jobs commit with the change
 * or not at all, and a delivery can never be lost between a commit and a send. `dedupeKey` makes a publish idempotent:
 * a second publish with the same key (a re-delivered job, another roll-up of a completed scan) writes nothing.
 *
 * What other code calls (each in the transaction of its change, in the workspace's RLS scope):
 * - `publishScanCompletion(workspaceId, scanId)`: `scan.completed` and `findings.new_failing` once the scan is
 *   completed (no-op before; server/scans/scans-store.ts `rollUpScan` calls it);
 * - `publishMuteRuleCreated(...)`, `publishMuteRuleExpired(...)` (server/posture/mute-rules.ts);
 * - `publishRemediationCompleted(workspaceId, remediationId)` (server/scans/remediation.ts, once the re-check passed);
 * - `publishRemediationUndone(workspaceId, remediationId, message, actor)` (for the undo of a remediation);
 * - `publishReportReady(workspaceId, reportId)` (server/compliance/reports.ts, once the PDF is stored).
 *
 * Counts come from the one algebra (server/posture/algebra.ts): the scan's stored check counts, `failingBySeverityOf`
 * and `digestNumbers` (new failing = failing rows whose delta is "new", the delta the scan computed), the numbers the
 * scan page and the digest show. Links use APP_ORIGIN, as emails do.
 */
import { randomUUID } from "node:crypto"
import { Effect, Option } from "effect"
import { SqlClient } from "effect/sql"
import { SEVERITIES, type Severity } from "../../src/contracts/findings.ts"
import {
  atLeast,
  type IntegrationEvent,
  type IntegrationEventData,
  type IntegrationEventType,
  NEW_FAILING_LISTED,
  type NewFailingData,
  type SeverityCounts,
} from "../../src/contracts/integrations-events.ts"
import { providerDisplayName } from "../accounts/providers.ts"
import { AppConfig } from "../config.ts"
import { digestNumbers, failingBySeverityOf, REMEDIATED_ROW_SQL, SEVERITY_ORDER_SQL } from "../posture/algebra.ts"
import { slackMessage } from "./slack.ts"
import { enqueueDelivery } from "./webhook-delivery.ts"

/** The product's origin for links (APP_ORIGIN; the configuration's own default when no AppConfig is provided). */
const origin = Effect.map(Effect.serviceOption(AppConfig), (c) => Option.match(c, { onNone: () => "http://localhost:8080", onSome: (x) => x.appOrigin }))

interface Subscriber {
  readonly id: number
  readonly kind: "webhook" | "slack"
  readonly min_severity: Severity
}

/**
 * The body one webhook receives for an event, or undefined when the webhook's filter leaves nothing to say (new failing
 * resources all below its minimum severity).
 */
export const bodyFor = (hook: { readonly kind: "webhook" | "slack"; readonly min_severity: Severity }, event: IntegrationEvent): string | undefined => {
  let shaped: IntegrationEvent = event
  if (event.type === "findings.new_failing") {
    const data = filterNewFailing(event.data, hook.min_severity)
    if (data.total === 0) return undefined
    shaped = { ...event, data }
  }
  return JSON.stringify(hook.kind === "slack" ? slackMessage(shaped) : shaped)
}

/** The new failing resources at or above `minimum` (counts below it are 0). */
export const filterNewFailing = (data: NewFailingData, minimum: Severity): NewFailingData => {
  const counts = Object.fromEntries(SEVERITIES.map((s) => [s, atLeast(s, minimum) ? data.counts[s] : 0])) as unknown as SeverityCounts
  const total = SEVERITIES.reduce((n, s) => n + counts[s], 0)
  const resources = data.resources.filter((r) => atLeast(r.severity, minimum)).slice(0, NEW_FAILING_LISTED)
  return { ...data, minimum_severity: minimum, counts, total, resources, truncated: total > resources.length }
}

/**
 * Writes an event and its deliveries in the caller's transaction (module header). Answers the event id, or undefined
 * when an event with this `dedupeKey` was already published in the workspace.
 */
export const publishIntegrationEvent = <T extends IntegrationEventType | "webhook.test">(
  workspaceId: number,
  type: T,
  data: IntegrationEventData[T],
  dedupeKey: string,
  /** A test event: delivered to this webhook only, whatever its event filter (and to no other). */
  options?: { readonly onlyWebhook?: number },
) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const id = randomUUID()
    const inserted = yield* sql<{ created_at: Date; workspace_name: string }>`
      INSERT INTO integration_events (id, workspace_id, type, dedupe_key, data)
      VALUES (${id}, ${workspaceId}, ${type}, ${dedupeKey}, ${JSON.stringify(data)}::jsonb)
      ON CONFLICT (workspace_id, dedupe_key) DO NOTHING
      RETURNING created_at, (SELECT name FROM workspaces WHERE id = ${workspaceId}) AS workspace_name`
    const row = inserted[0]
    if (row === undefined) return undefined
    const only = options?.onlyWebhook
    const hooks = yield* sql<Subscriber>`
      SELECT id, kind, min_severity FROM webhooks
      WHERE workspace_id = ${workspaceId} AND enabled AND ${only === undefined ? sql`${type} = ANY (events)` : sql`id = ${only}`} ORDER BY id`
    const event = {
      id,
      type,
      created_at: new Date(row.created_at).toISOString(),
      workspace: { id: workspaceId, name: row.workspace_name },
      data,
    } as unknown as IntegrationEvent
    for (const hook of hooks) {
      const body = bodyFor(hook, event)
      if (body === undefined) continue
      yield* queueDelivery(workspaceId, hook.id, id, type, body, null)
    }
    return id
  })

/** Writes one delivery row and its job (also used by replay and test-send). */
export const queueDelivery = (workspaceId: number, webhookId: number, eventId: string, type: string, body: string, replayOf: number | null) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<{ id: number }>`
      INSERT INTO webhook_deliveries (workspace_id, webhook_id, event_id, event_type, body, next_attempt_at, replay_of)
      VALUES (${workspaceId}, ${webhookId}, ${eventId}, ${type}, ${body}, now(), ${replayOf})
      RETURNING id`
    const deliveryId = rows[0]!.id
    yield* enqueueDelivery(workspaceId, deliveryId, 0)
    return deliveryId
  })

// ---------------------------------------------------------------------------------------------------
// The product's events

interface ScanFacts {
  readonly id: number
  readonly status: string
  readonly trigger: string
  readonly scan_start: Date | null
  readonly scan_end: Date | null
  readonly findings_count: number
  readonly passed_findings: number
  readonly failed_findings: number
  readonly muted_findings: number
  readonly account_id: number
  readonly account_name: string
  readonly cloud_account_id: string
  readonly cloud_provider_id: number
}

const iso = (d: Date | string | null) => (d === null ? null : new Date(d).toISOString())

const bySeverity = (pick: (s: Severity) => number): SeverityCounts =>
  Object.fromEntries(SEVERITIES.map((s) => [s, pick(s)])) as unknown as SeverityCounts

/**
 * `scan.completed` and, when some resources newly fail, `findings.new_failing`, for a scan that is completed; nothing
 * for a scan still open or failed, or already published. Call it after the scan's roll-up, in its transaction.
 */
export const publishScanCompletion = Effect.fn("Integrations.publishScanCompletion")(function* (workspaceId: number, scanId: number) {
  const sql = yield* SqlClient.SqlClient
  const scans = yield* sql<ScanFacts>`
    SELECT s.id, s.status, s.trigger, s.scan_start, s.scan_end, s.findings_count, s.passed_findings, s.failed_findings, s.muted_findings,
           a.id AS account_id, a.account_name, a.cloud_account_id, s.cloud_provider_id::int AS cloud_provider_id
    FROM scans s JOIN accounts a ON a.id = s.account_id
    WHERE s.workspace_id = ${workspaceId} AND s.id = ${scanId} AND s.status = 'completed'
      AND NOT EXISTS (SELECT 1 FROM integration_events e WHERE e.workspace_id = ${workspaceId} AND e.dedupe_key = ${`scan.completed:${scanId}`})`
  const s = scans[0]
  if (s === undefined) return
  const base = yield* origin
  const scan = {
    id: s.id,
    account: { id: s.account_id, name: s.account_name, provider: providerDisplayName(s.cloud_provider_id).toLowerCase(), cloud_account_id: s.cloud_account_id },
    trigger: s.trigger,
    started_at: iso(s.scan_start),
    completed_at: iso(s.scan_end),
    url: `${base}/dashboard/scans/${s.id}`,
  }
  const failing = (yield* failingBySeverityOf(workspaceId, [scanId])).get(scanId) ?? bySeverity(() => 0)
  const { counts } = yield* digestNumbers(workspaceId, scanId, 0)
  const count = (s: Severity, key: "newFailing" | "fixed") => counts.find((c) => c.severity === s)?.[key] ?? 0
  yield* publishIntegrationEvent(workspaceId, "scan.completed", {
    scan,
    findings: {
      total: s.findings_count,
      passed: s.passed_findings,
      failed: s.failed_findings,
      muted: s.muted_findings,
      not_evaluated: Math.max(0, s.findings_count - s.passed_findings - s.failed_findings - s.muted_findings),
    },
    failing_resources: bySeverity((sev) => failing[sev]),
    new_failing_resources: bySeverity((sev) => count(sev, "newFailing")),
    fixed_resources: bySeverity((sev) => count(sev, "fixed")),
  }, `scan.completed:${scanId}`)

  const newCounts = bySeverity((sev) => count(sev, "newFailing"))
  const total = SEVERITIES.reduce((n, sev) => n + newCounts[sev], 0)
  if (total === 0) return
  // The same rows `digestNumbers` counts as new failing, most severe first; each webhook lists at most
  // NEW_FAILING_LISTED of those at or above its minimum severity, so 5× that are kept in the event.
  const listed = yield* sql<{ finding_id: number; check_id: string; title: string; severity: Severity; service: string; resource_id: string; region: string }>`
    SELECT f.id AS finding_id, f.check_id, f.title, f.severity, cs.key AS service, r.resource_id, r.region
    FROM findings f JOIN results r ON r.workspace_id = f.workspace_id AND r.finding_id = f.id AND r.rank = 0
      JOIN cloud_services cs ON cs.id = f.service_id
    WHERE f.workspace_id = ${workspaceId} AND f.scan_id = ${scanId} AND f.status = 'fail' AND f.resources_new > 0 AND r.delta = 'new'
      AND r.muted_by IS NULL AND NOT ${sql.literal(REMEDIATED_ROW_SQL)}
    ORDER BY ${sql.literal(SEVERITY_ORDER_SQL)}, f.id, r.seq
    LIMIT ${NEW_FAILING_LISTED * 5}`
  yield* publishIntegrationEvent(workspaceId, "findings.new_failing", {
    scan,
    minimum_severity: "low",
    counts: newCounts,
    total,
    resources: listed.map((r) => ({ ...r, url: `${base}/dashboard/scans/${scanId}/findings/${r.finding_id}` })),
    truncated: total > listed.length,
  }, `findings.new_failing:${scanId}`)
})

export interface MuteRuleFacts {
  readonly id: number
  readonly account_id: number | null
  readonly check_id: string | null
  readonly resource_pattern: string | null
  readonly tag_key: string | null
  readonly tag_value: string | null
  readonly reason: string
  readonly expires_at: Date | string | null
}

const muteRuleEvent = (type: "mute_rule.created" | "mute_rule.expired") =>
  Effect.fn(`Integrations.${type}`)(function* (
    workspaceId: number,
    rule: MuteRuleFacts,
    rows: number,
    actorUserId: number | null,
  ) {
    const sql = yield* SqlClient.SqlClient
    const base = yield* origin
    const actor = actorUserId === null ? null
      : { id: actorUserId, email: (yield* sql<{ email: string }>`SELECT email FROM users WHERE id = ${actorUserId}`)[0]?.email ?? "" }
    yield* publishIntegrationEvent(workspaceId, type, {
      rule: {
        id: rule.id,
        account_id: rule.account_id,
        check_id: rule.check_id,
        resource_pattern: rule.resource_pattern,
        tag_key: rule.tag_key,
        tag_value: rule.tag_value,
        reason: rule.reason,
        expires_at: iso(rule.expires_at),
      },
      rows,
      actor,
      url: rule.account_id === null ? `${base}/dashboard` : `${base}/dashboard/accounts/${rule.account_id}`,
    }, `${type}:${rule.id}:${type === "mute_rule.expired" ? iso(rule.expires_at) : "0"}`)
  })

/** `mute_rule.created`: call after the rule is inserted and applied (`rows`: result rows it muted). */
export const publishMuteRuleCreated = muteRuleEvent("mute_rule.created")
/** `mute_rule.expired`: call when the expiry is applied (`rows`: result rows unmuted); once per expiry time. */
export const publishMuteRuleExpired = muteRuleEvent("mute_rule.expired")

const actorOf = (id: number | null, email: string | null) => (id === null ? null : { id, email: email ?? "" })

const remediationEvent = (type: "remediation.completed" | "remediation.undone") =>
  Effect.fn(`Integrations.${type}`)(function* (workspaceId: number, remediationId: number, override?: {
    readonly message: string
    readonly actor: { readonly id: number; readonly email: string } | null
    /** Distinguishes two undos of one remediation (default: one event per remediation). */
    readonly key?: string
  }) {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<{
      id: number; finding_id: number; scan_id: number; account_id: number; check_id: string; resource_id: string; region: string
      message: string | null; requested_by: number | null; email: string | null
    }>`
      SELECT r.id, r.finding_id, f.scan_id, s.account_id, r.check_id, r.resource_id, r.region, r.message, r.requested_by, u.email
      FROM remediations r JOIN findings f ON f.id = r.finding_id JOIN scans s ON s.id = f.scan_id LEFT JOIN users u ON u.id = r.requested_by
      WHERE r.workspace_id = ${workspaceId} AND r.id = ${remediationId}`
    const r = rows[0]
    if (r === undefined) return
    const base = yield* origin
    yield* publishIntegrationEvent(workspaceId, type, {
      remediation: {
        id: r.id,
        finding_id: r.finding_id,
        scan_id: r.scan_id,
        account_id: r.account_id,
        check_id: r.check_id,
        resource_id: r.resource_id,
        region: r.region,
        message: (override?.message ?? r.message ?? "").slice(0, 2000),
      },
      actor: override !== undefined ? override.actor : actorOf(r.requested_by, r.email),
      url: `${base}/dashboard/scans/${r.scan_id}/findings/${r.finding_id}`,
    }, `${type}:${remediationId}${override?.key === undefined ? "" : `:${override.key}`}`)
  })

/** `remediation.completed`: call when a remediation is recorded as remediated (its re-check passed). */
export const publishRemediationCompleted = remediationEvent("remediation.completed")

/**
 * `remediation.undone`: call in the transaction that records the undo of remediation `remediationId`, with what the
 * undo did (`message`), who asked (`actor`) and, when one remediation may be undone more than once, a `key` unique to
 * this undo (e.g. the undo row's id).
 */
export const publishRemediationUndone = (
  workspaceId: number,
  remediationId: number,
  undo: { readonly message: string; readonly actor: { readonly id: number; readonly email: string } | null; readonly key?: string },
) => remediationEvent("remediation.undone")(workspaceId, remediationId, undo)

/** `report.ready`: call when a compliance PDF report is stored as completed. */
export const publishReportReady = Effect.fn("Integrations.publishReportReady")(function* (workspaceId: number, reportId: number) {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql<{ id: number; scan_id: number; framework_ids: ReadonlyArray<string>; pages: number | null; bytes: number | null }>`
    SELECT id, scan_id, framework_ids, pages, bytes::int AS bytes FROM compliance_reports
    WHERE workspace_id = ${workspaceId} AND id = ${reportId} AND status = 'completed'`
  const r = rows[0]
  if (r === undefined) return
  const base = yield* origin
  yield* publishIntegrationEvent(workspaceId, "report.ready", {
    report: { id: r.id, scan_id: r.scan_id, framework_ids: [...r.framework_ids], pages: r.pages ?? 0, bytes: r.bytes ?? 0 },
    download_url: `${base}/api/compliance/reports/${r.id}/download`,
    url: `${base}/dashboard/compliance`,
  }, `report.ready:${reportId}`)
})
