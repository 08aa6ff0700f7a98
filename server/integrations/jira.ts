/**
 * Jira Cloud issues from findings (issue 33 part 5; contract src/contracts/jira.ts; docs/integrations-jira.md).
 *
 * - The connection: one Jira site per workspace (`jira_connections`): site URL, account email, API token (sealed with
 *   AES-256-GCM under the HKDF sub-key "integrations:jira-token:v1" of APP_SECRET_KEY, bound to the workspace id, as
 *   cloud credentials are: server/accounts/credential-vault.ts), project key, issue type, labels.
 * - An issue is keyed by (account, check, resource): `resource_uid` '' for one issue about the whole finding, else the
 *   failing resource's identity. So the same finding in later scans of the account shows the same issues, and a second
 *   request for the same key is refused with the existing issue's key (409).
 * - The issue: summary "<check title> — <resource>", an ADF description (the check's description, account, severity,
 *   the failing resources, the remediation guidance and a link back to the finding page), labels (the connection's,
 *   "cloud-audit" and the check id).
 * - Status: `status_name` and `status_category` (Jira's statusCategory key: new, indeterminate, done) read with
 *   GET /rest/api/3/issue/{key}?fields=status, by the `integrations.jira-refresh` job (a chain per workspace while it
 *   holds issues not done) and by the refresh call. "done" shows the issue as closed.
 *
 * Jira calls never run inside a database transaction: callers read in one scope, call Jira, then write in another.
 */
import { Effect, Redacted, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { StatusDetailsSchema } from "jira.js/cloud"
import type { AccountId } from "../../src/contracts/ids.ts"
import {
  JIRA_MAX_ISSUES_PER_REQUEST,
  JiraMessages as M,
  type JiraConnection,
  type JiraConnectionPayload,
  type JiraIssue,
  type JiraIssueMode,
  type JiraStatusCategory,
} from "../../src/contracts/jira.ts"
import { deriveKey, open, seal } from "../auth/crypto.ts"
import { inScope } from "../auth/rls.ts"
import type { WorkspaceContext } from "../auth/workspace-context.ts"
import { AppConfig } from "../config.ts"
import { defineJob, type JobDefinition, type JobQueue } from "../jobs/queue.ts"
import { enqueueInTransaction } from "../scans/transactional-enqueue.ts"
import { logLine } from "../log.ts"
import { recordIntegrationAudit } from "./audit.ts"
import { JiraFailure, jiraClient, type JiraSite, type JiraTransportOptions } from "./jira-client.ts"
import { allowPrivateTargetsFromEnv } from "./safe-fetch.ts"

/** The product label every issue carries, beside the connection's labels and the check id. */
export const PRODUCT_LABEL = "cloud-audit"

// ---- The sealed token ---------------------------------------------------------------------------------------------

const tokenKey = (secret: Redacted.Redacted<string>) => deriveKey(Redacted.value(secret), "integrations:jira-token:v1")
const tokenContext = (workspaceId: number) => `cloud-audit/jira-token/v1/workspace:${workspaceId}`
export const sealJiraToken = (secret: Redacted.Redacted<string>, workspaceId: number, token: string) =>
  seal(tokenKey(secret), token, tokenContext(workspaceId))
export const openJiraToken = (secret: Redacted.Redacted<string>, workspaceId: number, sealed: string) =>
  open(tokenKey(secret), sealed, tokenContext(workspaceId))

// ---- Failures as the catalogue's words -----------------------------------------------------------------------------

/** A Jira failure in the user's words; `unavailable` says whether it is Jira's side (503) rather than the setup (400). */
export const failureMessage = (failure: JiraFailure, projectKey: string): { readonly message: string; readonly unavailable: boolean } => {
  switch (failure.reason) {
    case "unauthorized": return { message: M.unauthorized, unavailable: false }
    case "forbidden": return { message: M.forbidden, unavailable: false }
    case "not_found": return { message: M.projectNotFound(projectKey), unavailable: false }
    case "rejected": return { message: M.rejected(failure.detail), unavailable: false }
    case "blocked": return { message: M.blockedAddress, unavailable: false }
    case "contract":
    case "unreachable": return { message: M.unreachable, unavailable: true }
  }
}

// ---- The connection -----------------------------------------------------------------------------------------------

interface ConnectionRow {
  readonly site_url: string
  readonly email: string
  readonly api_token_sealed: string
  readonly project_key: string
  readonly issue_type: string
  readonly labels: ReadonlyArray<string>
  readonly updated_at: Date | string
}

export interface LoadedConnection {
  readonly connection: JiraConnection
  readonly site: JiraSite
}

const toConnection = (r: ConnectionRow): JiraConnection => ({
  site_url: r.site_url, email: r.email, project_key: r.project_key, issue_type: r.issue_type, labels: [...r.labels], token_set: true,
  updated_at: new Date(r.updated_at).toISOString(),
})

export const getJiraConnection = Effect.fn("Jira.getConnection")(function* (workspaceId: number) {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql<ConnectionRow>`SELECT site_url, email, api_token_sealed, project_key, issue_type, labels, updated_at
    FROM jira_connections WHERE workspace_id = ${workspaceId}`
  return rows[0]
})

/** The connection with its opened token; undefined when none (or the token no longer opens). */
export const loadJiraConnection = Effect.fn("Jira.loadConnection")(function* (workspaceId: number) {
  const config = yield* AppConfig
  const row = yield* getJiraConnection(workspaceId)
  if (row === undefined) return undefined
  const apiToken = openJiraToken(config.appSecretKey, workspaceId, row.api_token_sealed)
  if (apiToken === undefined) return undefined
  return { connection: toConnection(row), site: { siteUrl: row.site_url, email: row.email, apiToken } } satisfies LoadedConnection
})

export const connectionView = (row: ConnectionRow | undefined): JiraConnection | null => (row === undefined ? null : toConnection(row))

/** Only https sites, unless private targets are allowed (tests, on-premises Jira: docs/integrations-jira.md). */
export const siteUrlAllowed = (siteUrl: string): boolean => siteUrl.toLowerCase().startsWith("https://") || allowPrivateTargetsFromEnv()

export const saveJiraConnection = Effect.fn("Jira.saveConnection")(function* (ctx: WorkspaceContext, payload: JiraConnectionPayload) {
  const sql = yield* SqlClient.SqlClient
  const config = yield* AppConfig
  const existing = yield* getJiraConnection(ctx.workspaceId)
  const token = payload.api_token?.trim()
  const sealed = token !== undefined && token !== "" ? sealJiraToken(config.appSecretKey, ctx.workspaceId, token) : existing?.api_token_sealed
  if (sealed === undefined) return { missingToken: true as const }
  const site = payload.site_url.replace(/\/+$/, "")
  const labels = `{${[...new Set(payload.labels)].map((l) => `"${l.replace(/(["\\])/g, "\\$1")}"`).join(",")}}`
  yield* sql`INSERT INTO jira_connections (workspace_id, site_url, email, api_token_sealed, project_key, issue_type, labels, updated_by, updated_at)
    VALUES (${ctx.workspaceId}, ${site}, ${payload.email.trim()}, ${sealed}, ${payload.project_key}, ${payload.issue_type.trim()}, ${labels}::text[], ${ctx.userId}, now())
    ON CONFLICT (workspace_id) DO UPDATE SET site_url = EXCLUDED.site_url, email = EXCLUDED.email, api_token_sealed = EXCLUDED.api_token_sealed,
      project_key = EXCLUDED.project_key, issue_type = EXCLUDED.issue_type, labels = EXCLUDED.labels, updated_by = EXCLUDED.updated_by, updated_at = now()`
  yield* recordIntegrationAudit({
    action: "jira.configured", workspaceId: ctx.workspaceId, actorUserId: ctx.userId, targetType: "workspace", targetId: ctx.workspaceId,
    details: { site_url: site, project_key: payload.project_key, issue_type: payload.issue_type, token_changed: token !== undefined && token !== "" },
    ip: ctx.ip,
  })
  return { connection: connectionView(yield* getJiraConnection(ctx.workspaceId))! }
})

export const deleteJiraConnection = Effect.fn("Jira.deleteConnection")(function* (ctx: WorkspaceContext) {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql`DELETE FROM jira_connections WHERE workspace_id = ${ctx.workspaceId} RETURNING workspace_id`
  if (rows.length === 0) return false
  yield* recordIntegrationAudit({
    action: "jira.removed", workspaceId: ctx.workspaceId, actorUserId: ctx.userId, targetType: "workspace", targetId: ctx.workspaceId, ip: ctx.ip,
  })
  return true
})

/** Reads the configured project (the connection test). Fails with JiraFailure. */
export const probeProject = (site: JiraSite, projectKey: string, transport: JiraTransportOptions = {}) =>
  Effect.tryPromise({
    try: async () => (await jiraClient(site, transport).projects.getProject({ projectIdOrKey: projectKey })).key ?? projectKey,
    catch: (e) => (e instanceof JiraFailure ? e : new JiraFailure("unreachable", String(e))),
  })

// ---- Issues of a finding -------------------------------------------------------------------------------------------

interface IssueRow {
  readonly account_id: number
  readonly check_id: string
  readonly resource_uid: string
  readonly issue_key: string
  readonly issue_url: string
  readonly status_name: string
  readonly status_category: string
  readonly refreshed_at: Date | string | null
  readonly created_at: Date | string
}

const category = (value: string | undefined): JiraStatusCategory =>
  value === "done" ? "done" : value === "indeterminate" ? "indeterminate" : "new"

const toIssue = (r: IssueRow): JiraIssue => ({
  account_id: r.account_id as AccountId,
  check_id: r.check_id,
  resource_uid: r.resource_uid === "" ? null : r.resource_uid,
  issue_key: r.issue_key,
  issue_url: r.issue_url,
  status_name: r.status_name,
  status_category: category(r.status_category),
  closed: r.status_category === "done",
  refreshed_at: r.refreshed_at === null ? null : new Date(r.refreshed_at).toISOString(),
  created_at: new Date(r.created_at).toISOString(),
})

export interface FindingSubject {
  readonly findingId: number
  readonly scanId: number
  readonly accountId: number
  readonly accountName: string
  readonly cloudAccountId: string
  readonly checkId: string
  readonly title: string
  readonly description: string
  readonly severity: string
  readonly remediation: string | null
  readonly failing: ReadonlyArray<{ readonly resourceUid: string; readonly resourceId: string; readonly region: string }>
}

/** The finding (visible to the caller's scope) with its failing resources; undefined when not found. */
export const findingSubject = Effect.fn("Jira.findingSubject")(function* (workspaceId: number, findingId: number) {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql<{
    scan_id: number; account_id: number; account_name: string; cloud_account_id: string; check_id: string; title: string
    description: string; severity: string; remediation: string | null
  }>`SELECT f.scan_id, s.account_id, a.account_name, a.cloud_account_id, f.check_id, f.title, f.description, f.severity, f.remediation
     FROM findings f JOIN scans s ON s.id = f.scan_id AND s.workspace_id = f.workspace_id
       JOIN accounts a ON a.id = s.account_id AND a.workspace_id = s.workspace_id
     WHERE f.workspace_id = ${workspaceId} AND f.id = ${findingId}`
  const f = rows[0]
  if (f === undefined) return undefined
  const failing = yield* sql<{ resource_uid: string | null; resource_id: string; region: string }>`
    SELECT r.resource_uid, r.resource_id, r.region FROM results r
    WHERE r.workspace_id = ${workspaceId} AND r.finding_id = ${findingId} AND r.rank = 0
      AND NOT coalesce(r.remediate->>'status', '') IN ('remediated', 'pass')
    ORDER BY r.seq LIMIT ${JIRA_MAX_ISSUES_PER_REQUEST + 1}`
  return {
    findingId, scanId: f.scan_id, accountId: f.account_id, accountName: f.account_name, cloudAccountId: f.cloud_account_id,
    checkId: f.check_id, title: f.title, description: f.description, severity: f.severity, remediation: f.remediation,
    failing: failing.map((r) => ({ resourceUid: r.resource_uid ?? r.resource_id, resourceId: r.resource_id, region: r.region })),
  } satisfies FindingSubject
})

/** The issues of the finding's (account, check): the whole finding's and its resources'. */
export const issuesOf = Effect.fn("Jira.issuesOf")(function* (workspaceId: number, accountId: number, checkId: string) {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql<IssueRow>`SELECT account_id, check_id, resource_uid, issue_key, issue_url, status_name, status_category,
      refreshed_at, created_at FROM jira_issues
    WHERE workspace_id = ${workspaceId} AND account_id = ${accountId} AND check_id = ${checkId}
    ORDER BY resource_uid, id`
  return rows.map(toIssue)
})

/** One paragraph of ADF text nodes. */
const paragraph = (...content: ReadonlyArray<Record<string, unknown>>) => ({ type: "paragraph", content })
const text = (value: string, marks?: ReadonlyArray<Record<string, unknown>>) => ({ type: "text", text: value, ...(marks === undefined ? {} : { marks }) })

/** The issue's description in the Atlassian Document Format (Jira Cloud REST v3). */
export const issueDescription = (subject: FindingSubject, resource: FindingSubject["failing"][number] | undefined, findingUrl: string) => {
  const resources = resource === undefined ? subject.failing.slice(0, JIRA_MAX_ISSUES_PER_REQUEST) : [resource]
  return {
    type: "doc",
    version: 1,
    content: [
      paragraph(text(subject.description === "" ? subject.title : subject.description)),
      paragraph(
        text("Check: ", [{ type: "strong" }]), text(subject.checkId, [{ type: "code" }]),
        text(" · Severity: ", [{ type: "strong" }]), text(subject.severity),
        text(" · Account: ", [{ type: "strong" }]), text(`${subject.accountName} (${subject.cloudAccountId})`),
      ),
      ...(resources.length === 0 ? [] : [
        paragraph(text(resource === undefined ? "Failing resources:" : "Resource:", [{ type: "strong" }])),
        {
          type: "bulletList",
          content: resources.map((r) => ({ type: "listItem", content: [paragraph(text(r.resourceUid, [{ type: "code" }]), text(` (${r.region})`))] })),
        },
      ]),
      ...(subject.remediation === null || subject.remediation === "" ? [] : [
        paragraph(text("Remediation: ", [{ type: "strong" }]), text(subject.remediation)),
      ]),
      paragraph(text("Open the finding in Cloud Audit", [{ type: "link", attrs: { href: findingUrl } }])),
    ],
  }
}

const summaryOf = (subject: FindingSubject, resource: FindingSubject["failing"][number] | undefined) => {
  const s = resource === undefined ? `[Cloud Audit] ${subject.title} (${subject.accountName})` : `[Cloud Audit] ${subject.title} — ${resource.resourceId}`
  return s.length <= 255 ? s : `${s.slice(0, 254)}…`
}

export interface PlannedIssue {
  readonly resourceUid: string
  readonly resource: FindingSubject["failing"][number] | undefined
}

/** What a create request should create, and which of its keys already have an issue. */
export const planIssues = (subject: FindingSubject, mode: JiraIssueMode, existing: ReadonlyArray<JiraIssue>) => {
  const taken = new Map(existing.map((i) => [i.resource_uid ?? "", i]))
  const wanted: ReadonlyArray<PlannedIssue> = mode === "finding"
    ? [{ resourceUid: "", resource: undefined }]
    : subject.failing.map((r) => ({ resourceUid: r.resourceUid, resource: r }))
  return {
    create: wanted.filter((w) => !taken.has(w.resourceUid)),
    existing: wanted.flatMap((w) => (taken.has(w.resourceUid) ? [taken.get(w.resourceUid)!] : [])),
  }
}

/** Creates the planned issues in Jira (no transaction open); answers what was created before any failure and the failure. */
export const createInJira = async (
  loaded: LoadedConnection,
  subject: FindingSubject,
  planned: ReadonlyArray<PlannedIssue>,
  findingUrl: string,
  transport: JiraTransportOptions = {},
): Promise<{ created: Array<{ planned: PlannedIssue; id: string; key: string }>; failure?: JiraFailure }> => {
  const jira = jiraClient(loaded.site, transport)
  const labels = [...new Set([...loaded.connection.labels, PRODUCT_LABEL, subject.checkId.replace(/\s+/g, "_").slice(0, 255)])]
  const created: Array<{ planned: PlannedIssue; id: string; key: string }> = []
  for (const p of planned) {
    try {
      const issue = await jira.issues.createIssue({
        fields: {
          project: { key: loaded.connection.project_key },
          issuetype: { name: loaded.connection.issue_type },
          summary: summaryOf(subject, p.resource),
          description: issueDescription(subject, p.resource, findingUrl),
          labels,
        },
      })
      created.push({ planned: p, id: issue.id, key: issue.key })
    } catch (error) {
      return { created, failure: error instanceof JiraFailure ? error : new JiraFailure("unreachable", String(error)) }
    }
  }
  return { created }
}

export const recordCreated = Effect.fn("Jira.recordCreated")(function* (
  ctx: WorkspaceContext,
  subject: FindingSubject,
  siteUrl: string,
  created: ReadonlyArray<{ planned: PlannedIssue; id: string; key: string }>,
) {
  const sql = yield* SqlClient.SqlClient
  for (const c of created) {
    yield* sql`INSERT INTO jira_issues (workspace_id, account_id, check_id, resource_uid, scan_id, finding_id, issue_id, issue_key, issue_url,
        status_name, status_category, created_by)
      VALUES (${ctx.workspaceId}, ${subject.accountId}, ${subject.checkId}, ${c.planned.resourceUid}, ${subject.scanId}, ${subject.findingId},
        ${c.id}, ${c.key}, ${`${siteUrl.replace(/\/+$/, "")}/browse/${c.key}`}, '', 'new', ${ctx.userId})
      ON CONFLICT (workspace_id, account_id, check_id, resource_uid) DO NOTHING`
    yield* recordIntegrationAudit({
      action: "jira.issue_created", workspaceId: ctx.workspaceId, actorUserId: ctx.userId, targetType: "finding", targetId: subject.findingId,
      details: { issue_key: c.key, check_id: subject.checkId, resource_uid: c.planned.resourceUid === "" ? null : c.planned.resourceUid },
      ip: ctx.ip,
    })
  }
  if (created.length > 0) {
    yield* enqueueInTransaction(
      jiraRefreshJob,
      [{ payload: { workspace_id: ctx.workspaceId }, singletonKey: `jira-refresh:${ctx.workspaceId}`, startAfterSeconds: REFRESH_EVERY_SECONDS }],
      { workspaceId: ctx.workspaceId, userId: ctx.userId, accountIds: ctx.accountIds },
    )
  }
})

// ---- Status refresh -----------------------------------------------------------------------------------------------

/** Reads each issue's status (no transaction open). A failure of one issue leaves it unchanged. */
export const readStatuses = async (site: JiraSite, keys: ReadonlyArray<string>, transport: JiraTransportOptions = {}) => {
  const jira = jiraClient(site, transport)
  const out: Array<{ key: string; name: string; category: JiraStatusCategory }> = []
  let failure: JiraFailure | undefined
  for (const key of keys) {
    try {
      const issue = await jira.issues.getIssue({ issueIdOrKey: key, fields: ["status"] })
      const status = StatusDetailsSchema.safeParse(issue.fields?.["status"])
      if (!status.success) throw new JiraFailure("contract", `GET /rest/api/3/issue/${key}: fields.status does not match StatusDetails`)
      out.push({ key, name: status.data.name ?? "", category: category(status.data.statusCategory?.key) })
    } catch (error) {
      failure = error instanceof JiraFailure ? error : new JiraFailure("unreachable", String(error))
      if (failure.reason !== "not_found") break
    }
  }
  return { statuses: out, failure }
}

export const recordStatuses = Effect.fn("Jira.recordStatuses")(function* (
  workspaceId: number,
  statuses: ReadonlyArray<{ key: string; name: string; category: JiraStatusCategory }>,
) {
  const sql = yield* SqlClient.SqlClient
  for (const s of statuses) {
    yield* sql`UPDATE jira_issues SET status_name = ${s.name}, status_category = ${s.category}, refreshed_at = now()
      WHERE workspace_id = ${workspaceId} AND issue_key = ${s.key}`
  }
})

export const REFRESH_EVERY_SECONDS = 900
/** Issues refreshed per run of the job (oldest refresh first). */
const REFRESH_BATCH = 200

export const JiraRefreshPayload = Schema.Struct({ workspace_id: Schema.Int })
export type JiraRefreshPayload = typeof JiraRefreshPayload.Type

/**
 * The `integrations.jira-refresh` job: refreshes the workspace's issues that are not done (oldest refresh first), then
 * queues itself again while some remain. Without a connection the chain ends.
 */
export const refreshWorkspaceIssues = (p: JiraRefreshPayload): Effect.Effect<void, unknown, SqlClient.SqlClient | AppConfig | JobQueue> =>
  Effect.gen(function* () {
    const loaded = yield* inScope({ workspaceId: p.workspace_id })(
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const connection = yield* loadJiraConnection(p.workspace_id)
        if (connection === undefined) return undefined
        const keys = yield* sql<{ issue_key: string }>`SELECT issue_key FROM jira_issues
          WHERE workspace_id = ${p.workspace_id} AND status_category <> 'done'
          ORDER BY refreshed_at NULLS FIRST, id LIMIT ${REFRESH_BATCH}`
        return { connection, keys: keys.map((k) => k.issue_key) }
      }),
    )
    if (loaded === undefined || loaded.keys.length === 0) return
    const { statuses, failure } = yield* Effect.promise(() => readStatuses(loaded.connection.site, loaded.keys))
    if (failure !== undefined) logLine("warn", "jira refresh failed", { workspace_id: p.workspace_id, reason: failure.reason, detail: failure.detail })
    yield* inScope({ workspaceId: p.workspace_id })(
      Effect.gen(function* () {
        yield* recordStatuses(p.workspace_id, statuses)
        const sql = yield* SqlClient.SqlClient
        const open = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM jira_issues WHERE workspace_id = ${p.workspace_id} AND status_category <> 'done'`
        if ((open[0]?.n ?? 0) > 0) {
          yield* enqueueInTransaction(
            jiraRefreshJob,
            [{ payload: p, singletonKey: `jira-refresh:${p.workspace_id}`, startAfterSeconds: REFRESH_EVERY_SECONDS }],
            { workspaceId: p.workspace_id },
          )
        }
      }),
    )
  })

export const jiraRefreshJob: JobDefinition<"integrations.jira-refresh", JiraRefreshPayload, SqlClient.SqlClient | AppConfig | JobQueue> = defineJob("integrations.jira-refresh", JiraRefreshPayload, refreshWorkspaceIssues, {
  queue: { retryLimit: 3, retryDelaySeconds: 60, expireInSeconds: 600 },
  work: { localConcurrency: 1, pollingIntervalSeconds: 5 },
})
