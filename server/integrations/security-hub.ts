/**
 * AWS Security Hub export (issue 33 part 6; docs/integrations-security-hub.md): after each completed scan of an AWS
 * account whose export is enabled, the failing resources of every evaluated check are sent to the account's Security
 * Hub as ASFF findings through `BatchImportFindings`, with the account's own connected credentials.
 *
 * - One ASFF finding per (account, check, resource): `Id` = `cloud-audit/account-<id>/<check>/<sha256 of the resource
 *   identity, 32 hex>`, stable across scans; `ProductArn` = the account's `default` product in the receiving region;
 *   `GeneratorId` = the check id; `Severity.Label` from the check severity; `Compliance.Status` FAILED; `Workflow`
 *   NEW (SUPPRESSED while a mute rule mutes the row); `Title`/`Description`/`Remediation` from the check metadata.
 * - A previously sent finding whose resource passes now, was remediated or is gone (its check was evaluated in this
 *   scan without it failing) is sent once more with `RecordState` ARCHIVED, `Compliance` PASSED, `Workflow` RESOLVED.
 *   A check not evaluated in this scan (outside the scan's scope, or unreadable) leaves its findings as they are.
 * - What was sent is recorded per finding (`security_hub_findings`: a digest of the content without its timestamps),
 *   so an export sends only new, changed and newly archived findings; `CreatedAt` stays the first sending's time.
 * - Receiving region: the resource's own region when it is in the account's list, else the list's first region
 *   (global resources such as IAM and S3 too).
 * - Batches of at most 100 findings per call (the API's limit). `FailedFindings` are counted and reported in the
 *   account's export status (the first few with their error code) and are not recorded as sent, so the next export
 *   sends them again. Missing permission (securityhub:BatchImportFindings) and a hub not enabled in a region end the
 *   export with a clear status and no retry; other failures (network, throttling, 5xx) fail the job so pg-boss
 *   retries it.
 */
import { createHash } from "node:crypto"
import { BatchImportFindingsCommand, type AwsSecurityFinding } from "@aws-sdk/client-securityhub"
import { Effect, Option, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { SecurityHubMessages as M } from "../../src/contracts/security-hub.ts"
import { ProviderIds } from "../../src/contracts/constants.ts"
import { resourcePath } from "../../src/contracts/posture.ts"
import { loadSealedAccount } from "../accounts/accounts-store.ts"
import { awsCredentialsInput } from "../accounts/connection-test.ts"
import { openCredentials } from "../accounts/credential-vault.ts"
import { inScope } from "../auth/rls.ts"
import { AppConfig } from "../config.ts"
import { JobQueue, type JobDefinition } from "../jobs/queue.ts"
import { enqueueInTransaction } from "../scans/transactional-enqueue.ts"
import { logLine } from "../log.ts"
import { makeAwsClients, type AwsClients, type CommandStub } from "../scanner/aws/clients.ts"
import { errorCode } from "../scanner/aws/errors.ts"

export const SECURITY_HUB_EXPORT_JOB = "integrations.security-hub-export"

export const SecurityHubExportPayload = Schema.Struct({
  workspace_id: Schema.Int,
  account_id: Schema.Int,
  scan_id: Schema.Int,
})
export type SecurityHubExportPayload = typeof SecurityHubExportPayload.Type

/** BatchImportFindings takes at most 100 findings per call. */
export const BATCH_SIZE = 100
/** ASFF limits (Title 256, Description 1024, Remediation text 512 characters). */
const cut = (text: string, max: number) => (text.length <= max ? text : `${text.slice(0, max - 1)}…`)

// ---- Pure part: the findings an export should hold, and what to send -------------------------------------------

/** One failing row of the scan, as read from the stored results. */
export interface FailingRow {
  readonly checkId: string
  readonly title: string
  readonly description: string
  readonly severity: "critical" | "high" | "medium" | "low"
  readonly remediation: string | null
  readonly resourceId: string
  readonly resourceUid: string
  readonly region: string
  readonly muted: boolean
  readonly findingId: number
}

/** What was sent before for one finding. */
export interface SentFinding {
  readonly uid: string
  readonly checkId: string
  /** The ASFF `Resources[0].Id` sent (the resource's ARN when known). */
  readonly resourceUid: string
  readonly region: string
  readonly recordState: "ACTIVE" | "ARCHIVED"
  readonly digest: string
  readonly firstSentAt: string
  /** The finding's last sent content (to archive it without reading the cloud). */
  readonly title: string
}

export interface ExportTarget {
  readonly accountId: number
  readonly awsAccountId: string
  readonly partition: string
  /** Receiving regions; the first one takes global resources and those of unlisted regions. */
  readonly regions: ReadonlyArray<string>
  /** Link back to the product for `SourceUrl` (stable across scans: the resource's history page). */
  readonly findingUrl: (row: FailingRow) => string
}

export const findingUid = (accountId: number, checkId: string, resourceUid: string): string =>
  `cloud-audit/account-${accountId}/${checkId}/${createHash("sha256").update(resourceUid, "utf8").digest("hex").slice(0, 32)}`

export const receivingRegion = (regions: ReadonlyArray<string>, region: string): string =>
  regions.includes(region) ? region : regions[0]!

const SEVERITY_LABEL = { critical: "CRITICAL", high: "HIGH", medium: "MEDIUM", low: "LOW" } as const

/** ASFF resource types for the ARNs we can name; everything else is "Other" (allowed by ASFF). */
const resourceType = (id: string): string => {
  const m = /^arn:[^:]+:([^:]+):[^:]*:[^:]*:(.*)$/.exec(id)
  if (m === null) return "Other"
  const [, service, rest = ""] = m
  const kind = rest.split(/[/:]/)[0] ?? ""
  const table: Record<string, Record<string, string>> = {
    s3: { "": "AwsS3Bucket" },
    iam: { user: "AwsIamUser", role: "AwsIamRole", policy: "AwsIamPolicy", group: "AwsIamGroup" },
    ec2: { instance: "AwsEc2Instance", "security-group": "AwsEc2SecurityGroup", volume: "AwsEc2Volume", vpc: "AwsEc2Vpc", subnet: "AwsEc2Subnet" },
    rds: { db: "AwsRdsDbInstance", cluster: "AwsRdsDbCluster" },
    lambda: { function: "AwsLambdaFunction" },
    kms: { key: "AwsKmsKey" },
    cloudtrail: { trail: "AwsCloudTrailTrail" },
    sns: { "": "AwsSnsTopic" },
    sqs: { "": "AwsSqsQueue" },
    dynamodb: { table: "AwsDynamoDbTable" },
  }
  const byService = table[service ?? ""]
  if (byService === undefined) return "Other"
  return byService[service === "s3" || service === "sns" || service === "sqs" ? "" : kind] ?? "Other"
}

/** The resource's id as ASFF wants it: its ARN when the scanner has one (S3 buckets get theirs), else our identity. */
const resourceArn = (row: FailingRow, partition: string): string => {
  if (row.resourceId.startsWith("arn:")) return row.resourceId
  if (row.resourceUid.startsWith("arn:")) return row.resourceUid
  if (row.resourceUid.startsWith("aws:s3:")) return `arn:${partition}:s3:::${row.resourceId}`
  return row.resourceUid
}

type Asff = AwsSecurityFinding

/** The ASFF content of a failing row, timestamps left out (they are added when sending). */
export const activeFinding = (target: ExportTarget, row: FailingRow): Omit<Asff, "CreatedAt" | "UpdatedAt"> => {
  const region = receivingRegion(target.regions, row.region)
  const id = resourceArn(row, target.partition)
  return {
    SchemaVersion: "2018-10-08",
    Id: findingUid(target.accountId, row.checkId, row.resourceUid),
    ProductArn: `arn:${target.partition}:securityhub:${region}:${target.awsAccountId}:product/${target.awsAccountId}/default`,
    ProductName: "Cloud Audit",
    CompanyName: "Cloud Audit",
    Region: region,
    GeneratorId: row.checkId,
    AwsAccountId: target.awsAccountId,
    Types: ["Software and Configuration Checks/AWS Security Best Practices"],
    Severity: { Label: SEVERITY_LABEL[row.severity] },
    Title: cut(row.title, 256),
    Description: cut(row.description === "" ? row.title : row.description, 1024),
    ...(row.remediation === null || row.remediation === "" ? {} : { Remediation: { Recommendation: { Text: cut(row.remediation, 512) } } }),
    SourceUrl: target.findingUrl(row),
    Resources: [{
      Type: resourceType(id),
      Id: id,
      Partition: target.partition as "aws",
      Region: row.region === "global" ? region : row.region,
    }],
    Compliance: { Status: "FAILED" },
    Workflow: { Status: row.muted ? "SUPPRESSED" : "NEW" },
    RecordState: "ACTIVE",
    ProductFields: { "cloud-audit/check_id": row.checkId, "cloud-audit/resource": row.resourceUid },
  }
}

/** A stable digest of a finding's content (keys sorted, timestamps excluded). */
export const contentDigest = (content: unknown): string => {
  const canonical = (v: unknown): unknown =>
    Array.isArray(v) ? v.map(canonical)
      : v !== null && typeof v === "object"
        ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, canonical((v as Record<string, unknown>)[k])]))
        : v
  return createHash("sha256").update(JSON.stringify(canonical(content)), "utf8").digest("hex").slice(0, 32)
}

export interface PlannedFinding {
  readonly uid: string
  readonly region: string
  readonly checkId: string
  readonly resourceUid: string
  readonly recordState: "ACTIVE" | "ARCHIVED"
  readonly digest: string
  readonly createdAt: string
  readonly content: Omit<Asff, "CreatedAt" | "UpdatedAt">
}

/**
 * What an export sends: every failing row whose content differs from what was last sent (or was never sent), and
 * every ACTIVE sent finding of an evaluated check that no longer fails (archived). Pure; `now` is the CreatedAt of
 * findings sent for the first time.
 */
export const planExport = (
  target: ExportTarget,
  failing: ReadonlyArray<FailingRow>,
  evaluatedChecks: ReadonlySet<string>,
  sent: ReadonlyArray<SentFinding>,
  now: string,
): ReadonlyArray<PlannedFinding> => {
  const before = new Map(sent.map((s) => [s.uid, s]))
  const out: Array<PlannedFinding> = []
  const failingUids = new Set<string>()
  for (const row of failing) {
    const content = activeFinding(target, row)
    const uid = content.Id!
    if (failingUids.has(uid)) continue
    failingUids.add(uid)
    const digest = contentDigest(content)
    const previous = before.get(uid)
    if (previous !== undefined && previous.digest === digest && previous.recordState === "ACTIVE") continue
    out.push({ uid, region: content.Region!, checkId: row.checkId, resourceUid: content.Resources![0]!.Id!, recordState: "ACTIVE", digest, createdAt: previous?.firstSentAt ?? now, content })
  }
  for (const s of sent) {
    if (s.recordState !== "ACTIVE" || failingUids.has(s.uid) || !evaluatedChecks.has(s.checkId)) continue
    const content: Omit<Asff, "CreatedAt" | "UpdatedAt"> = {
      SchemaVersion: "2018-10-08",
      Id: s.uid,
      ProductArn: `arn:${target.partition}:securityhub:${s.region}:${target.awsAccountId}:product/${target.awsAccountId}/default`,
      ProductName: "Cloud Audit",
      CompanyName: "Cloud Audit",
      Region: s.region,
      GeneratorId: s.checkId,
      AwsAccountId: target.awsAccountId,
      Types: ["Software and Configuration Checks/AWS Security Best Practices"],
      Severity: { Label: "INFORMATIONAL" },
      Title: cut(s.title, 256),
      Description: cut(`${s.title} — the resource passes now, was remediated, or no longer exists.`, 1024),
      Resources: [{ Type: resourceType(s.resourceUid), Id: s.resourceUid, Partition: target.partition as "aws", Region: s.region }],
      Compliance: { Status: "PASSED" },
      Workflow: { Status: "RESOLVED" },
      RecordState: "ARCHIVED",
    }
    out.push({ uid: s.uid, region: s.region, checkId: s.checkId, resourceUid: s.resourceUid, recordState: "ARCHIVED", digest: contentDigest(content), createdAt: s.firstSentAt, content })
  }
  return out
}

// ---- Sending ----------------------------------------------------------------------------------------------------

export interface SendOutcome {
  readonly sent: ReadonlyArray<PlannedFinding>
  readonly failed: ReadonlyArray<{ readonly uid: string; readonly code: string; readonly message: string }>
  /** Set when the export stopped for a reason retrying cannot fix (permission, hub not enabled). */
  readonly stopped?: string
}

/** A failure of the whole call that a retry may fix (network, throttling, 5xx): the job fails and pg-boss retries. */
export class SecurityHubUnavailable extends Error {
  override readonly name = "SecurityHubUnavailable"
}

const isAccessDenied = (code: string | undefined) =>
  code === "AccessDeniedException" || code === "AccessDenied" || code === "UnauthorizedOperation"
    || code === "UnrecognizedClientException" || code === "InvalidClientTokenId"
const isHubDisabled = (code: string | undefined, message: string) =>
  code === "InvalidAccessException" || /not subscribed to AWS Security Hub/i.test(message)

/** Sends the plan, 100 findings per call and region. Never throws for what the API answers per finding. */
export const sendPlan = async (
  clients: AwsClients,
  awsAccountId: string,
  plan: ReadonlyArray<PlannedFinding>,
  now: string,
  signal?: AbortSignal,
): Promise<SendOutcome> => {
  const sent: Array<PlannedFinding> = []
  const failed: Array<{ uid: string; code: string; message: string }> = []
  const byRegion = new Map<string, Array<PlannedFinding>>()
  for (const p of plan) byRegion.set(p.region, [...(byRegion.get(p.region) ?? []), p])
  for (const [region, findings] of byRegion) {
    const hub = clients.get("securityhub", region)
    for (let i = 0; i < findings.length; i += BATCH_SIZE) {
      const batch = findings.slice(i, i + BATCH_SIZE)
      let answer
      try {
        answer = await hub.send(
          new BatchImportFindingsCommand({ Findings: batch.map((p) => ({ ...p.content, CreatedAt: p.createdAt, UpdatedAt: now }) as Asff) }),
          signal === undefined ? {} : { abortSignal: signal },
        )
      } catch (error) {
        const code = errorCode(error)
        const message = error instanceof Error ? error.message : String(error)
        if (isHubDisabled(code, message)) return { sent, failed, stopped: M.hubNotEnabled(awsAccountId, region) }
        if (isAccessDenied(code)) return { sent, failed, stopped: M.permissionMissing(awsAccountId) }
        throw new SecurityHubUnavailable(`BatchImportFindings in ${region}: ${code ?? "error"}: ${message}`)
      }
      const rejected = new Map((answer.FailedFindings ?? []).map((f) => [f.Id ?? "", f]))
      for (const p of batch) {
        const f = rejected.get(p.uid)
        if (f === undefined) sent.push(p)
        else failed.push({ uid: p.uid, code: f.ErrorCode ?? "Unknown", message: f.ErrorMessage ?? "" })
      }
    }
  }
  return { sent, failed }
}

// ---- The job ----------------------------------------------------------------------------------------------------

/** Options for tests: a stub answering the SDK calls instead of the network. */
export interface ExportOptions {
  readonly stub?: CommandStub
  readonly now?: Date
  readonly signal?: AbortSignal
}

interface SettingsRow {
  readonly enabled: boolean
  readonly regions: ReadonlyArray<string>
}

const readSettings = (workspaceId: number, accountId: number) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<SettingsRow>`SELECT enabled, regions FROM security_hub_settings
      WHERE workspace_id = ${workspaceId} AND account_id = ${accountId}`
    return rows[0]
  })

const recordStatus = (
  workspaceId: number,
  accountId: number,
  scanId: number,
  status: "ok" | "partial" | "failed",
  message: string,
  counts: { sent: number; archived: number; failed: number },
) =>
  inScope({ workspaceId })(
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      yield* sql`UPDATE security_hub_settings SET last_export_at = now(), last_export_scan_id = ${scanId},
          last_export_status = ${status}, last_export_message = ${message},
          last_sent = ${counts.sent}, last_archived = ${counts.archived}, last_failed = ${counts.failed}
        WHERE workspace_id = ${workspaceId} AND account_id = ${accountId}`
    }),
  )

/**
 * Exports scan `scan_id` of the account (the `integrations.security-hub-export` job). Does nothing when the export is
 * off, the account is not AWS, or a later scan of the account has completed (its own job exports it).
 */
export const exportScanToSecurityHub = (p: SecurityHubExportPayload, options: ExportOptions = {}) =>
  Effect.gen(function* () {
    const config = yield* AppConfig
    const loaded = yield* inScope({ workspaceId: p.workspace_id })(
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const settings = yield* readSettings(p.workspace_id, p.account_id)
        if (settings === undefined || !settings.enabled || settings.regions.length === 0) return undefined
        const account = yield* loadSealedAccount(p.workspace_id, p.account_id)
        if (account === undefined || account.cloudProviderId !== ProviderIds.AWS) return undefined
        const latest = yield* sql<{ id: number }>`SELECT id FROM scans WHERE workspace_id = ${p.workspace_id}
          AND account_id = ${p.account_id} AND status = 'completed' ORDER BY scan_end DESC NULLS LAST, id DESC LIMIT 1`
        if (latest[0]?.id !== p.scan_id) return undefined
        const evaluated = yield* sql<{ check_id: string }>`SELECT check_id FROM findings
          WHERE workspace_id = ${p.workspace_id} AND scan_id = ${p.scan_id} AND status <> 'not_evaluated'`
        const failing = yield* sql<{
          check_id: string; title: string; description: string; severity: FailingRow["severity"]; remediation: string | null
          resource_id: string; resource_uid: string | null; region: string; muted_by: number | null; finding_id: number
        }>`SELECT f.check_id, f.title, f.description, f.severity, f.remediation, f.id AS finding_id,
                  r.resource_id, r.resource_uid, r.region, r.muted_by
           FROM findings f JOIN results r ON r.workspace_id = f.workspace_id AND r.finding_id = f.id AND r.rank = 0
           WHERE f.workspace_id = ${p.workspace_id} AND f.scan_id = ${p.scan_id} AND f.status <> 'not_evaluated'
             AND NOT coalesce(r.remediate->>'status', '') IN ('remediated', 'pass')`
        const sent = yield* sql<{
          finding_uid: string; check_id: string; resource_uid: string; region: string; record_state: "ACTIVE" | "ARCHIVED"
          digest: string; first_sent_at: Date | string
        }>`SELECT finding_uid, check_id, resource_uid, region, record_state, digest, first_sent_at FROM security_hub_findings
           WHERE workspace_id = ${p.workspace_id} AND account_id = ${p.account_id}`
        const titles = yield* sql<{ check_id: string; title: string }>`SELECT DISTINCT ON (check_id) check_id, title FROM findings
           WHERE workspace_id = ${p.workspace_id} AND scan_id = ${p.scan_id}`
        return { settings, account, evaluated, failing, sent, titles }
      }),
    )
    if (loaded === undefined) return
    const { settings, account, evaluated, failing, sent, titles } = loaded
    const stored = openCredentials(config.appSecretKey, account.credentialsSealed, { workspaceId: p.workspace_id, accountId: account.id })
    const credentials = stored === undefined ? undefined : awsCredentialsInput(stored)
    if (credentials === undefined) {
      yield* recordStatus(p.workspace_id, p.account_id, p.scan_id, "failed", M.credentialsUnreadable, { sent: 0, archived: 0, failed: 0 })
      return
    }
    const now = (options.now ?? new Date()).toISOString()
    const titleOf = new Map(titles.map((t) => [t.check_id, t.title]))
    const target: ExportTarget = {
      accountId: account.id,
      awsAccountId: account.cloudAccountId,
      partition: "aws",
      regions: settings.regions,
      // The resource's history page: stable across scans (a finding page's URL changes with every scan, which would
      // make every finding differ from what was sent).
      findingUrl: (row) => `${config.appOrigin}${resourcePath(account.id, row.resourceUid)}`,
    }
    const plan = planExport(
      target,
      failing.map((r) => ({
        checkId: r.check_id, title: r.title, description: r.description, severity: r.severity, remediation: r.remediation,
        resourceId: r.resource_id, resourceUid: r.resource_uid ?? r.resource_id, region: r.region, muted: r.muted_by !== null,
        findingId: r.finding_id,
      })),
      new Set(evaluated.map((e) => e.check_id)),
      sent.map((s) => ({
        uid: s.finding_uid, checkId: s.check_id, resourceUid: s.resource_uid, region: s.region, recordState: s.record_state,
        digest: s.digest, firstSentAt: new Date(s.first_sent_at).toISOString(), title: titleOf.get(s.check_id) ?? s.check_id,
      })),
      now,
    )
    const clients = makeAwsClients({
      credentials,
      homeRegion: settings.regions[0]!,
      maxAttempts: 3,
      ...(config.awsEndpointUrl === undefined ? {} : { endpoint: config.awsEndpointUrl }),
      ...(options.stub === undefined ? {} : { stub: options.stub }),
    })
    const outcome = yield* Effect.tryPromise({
      try: () => sendPlan(clients, account.cloudAccountId, plan, now, options.signal),
      catch: (error) => error,
    }).pipe(
      Effect.ensuring(Effect.sync(() => clients.destroy())),
      Effect.tapError((error) =>
        recordStatus(p.workspace_id, p.account_id, p.scan_id, "failed", M.unavailable(error instanceof Error ? error.message : String(error)), {
          sent: 0, archived: 0, failed: 0,
        }).pipe(Effect.ignore)),
    )
    // What was accepted is recorded (so only changes are sent next time), in one transaction.
    yield* inScope({ workspaceId: p.workspace_id })(
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        for (const s of outcome.sent) {
          yield* sql`INSERT INTO security_hub_findings (account_id, workspace_id, finding_uid, region, check_id, resource_uid, record_state, digest, first_sent_at, sent_at)
            VALUES (${p.account_id}, ${p.workspace_id}, ${s.uid}, ${s.region}, ${s.checkId}, ${s.resourceUid}, ${s.recordState}, ${s.digest}, ${s.createdAt}, ${now})
            ON CONFLICT (account_id, finding_uid) DO UPDATE SET region = EXCLUDED.region, record_state = EXCLUDED.record_state,
              digest = EXCLUDED.digest, sent_at = EXCLUDED.sent_at`
        }
      }),
    )
    const archived = outcome.sent.filter((s) => s.recordState === "ARCHIVED").length
    const counts = { sent: outcome.sent.length - archived, archived, failed: outcome.failed.length }
    const status = outcome.stopped !== undefined ? "failed" : outcome.failed.length > 0 ? "partial" : "ok"
    const message = outcome.stopped
      ?? (outcome.failed.length > 0
        ? M.someRejected(outcome.failed.length, outcome.failed.slice(0, 3).map((f) => `${f.code}: ${f.message}`).join("; "))
        : M.exported(counts.sent, counts.archived))
    yield* recordStatus(p.workspace_id, p.account_id, p.scan_id, status, message, counts)
    logLine(status === "ok" ? "info" : "warn", "security hub export", {
      workspace_id: p.workspace_id, account_id: p.account_id, scan_id: p.scan_id, status, ...counts, ...(outcome.stopped === undefined ? {} : { reason: outcome.stopped }),
    })
  })

/**
 * Queues the export of a scan that has just completed, when its account's export is on (called by the scan roll-up
 * in the transaction that completes the scan, so the job exists only if the scan's completion commits). Outside a
 * job queue (tests writing scans straight through the writer) it does nothing.
 */
export const queueSecurityHubExport = (job: JobDefinition<typeof SECURITY_HUB_EXPORT_JOB, SecurityHubExportPayload, any>) =>
  (workspaceId: number, accountId: number, scanId: number) =>
    Effect.gen(function* () {
      const queue = yield* Effect.serviceOption(JobQueue)
      if (Option.isNone(queue)) return
      const settings = yield* readSettings(workspaceId, accountId)
      if (settings === undefined || !settings.enabled) return
      // Inserted as the login role on this transaction's connection (the API role has no rights on pgboss), then the
      // job's scope is restored: ../scans/transactional-enqueue.ts.
      yield* enqueueInTransaction(
        job,
        [{ payload: { workspace_id: workspaceId, account_id: accountId, scan_id: scanId }, singletonKey: `security-hub:${accountId}:${scanId}` }],
        { workspaceId },
      ).pipe(Effect.provideService(JobQueue, queue.value))
    })
