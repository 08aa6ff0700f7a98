/**
 * The integrations' jobs (registered in server/jobs/registry.ts):
 * - `integrations.security-hub-export`: one per completed scan of an account whose Security Hub export is on
 *   (./security-hub.ts), queued in the transaction that completes the scan. Retried with backoff when Security Hub
 *   cannot be reached; idempotent (only what differs from what was recorded as sent is sent again).
 * - `integrations.jira-refresh`: one chain per workspace holding Jira issues not done yet (./jira.ts), started when an
 *   issue is created; reads their statuses every 15 minutes.
 * Payloads carry ids only, never credentials.
 */
import type { SqlClient } from "effect/sql"
import type { AppConfig } from "../config.ts"
import { defineJob, type JobDefinition } from "../jobs/queue.ts"
import { jiraRefreshJob } from "./jira.ts"
import { exportScanToSecurityHub, queueSecurityHubExport, SECURITY_HUB_EXPORT_JOB, SecurityHubExportPayload } from "./security-hub.ts"

export const securityHubExportJob: JobDefinition<typeof SECURITY_HUB_EXPORT_JOB, SecurityHubExportPayload, SqlClient.SqlClient | AppConfig> = defineJob(
  SECURITY_HUB_EXPORT_JOB,
  SecurityHubExportPayload,
  (payload, job) => exportScanToSecurityHub(payload, { signal: job.signal }),
  {
    queue: { retryLimit: 5, retryDelaySeconds: 30, retryBackoff: true, retryDelayMaxSeconds: 600, expireInSeconds: 900 },
    work: { localConcurrency: 2, pollingIntervalSeconds: 2 },
  },
)

/** Queues the Security Hub export of a scan that has just completed (see ./security-hub.ts `queueSecurityHubExport`). */
export const onScanCompleted = queueSecurityHubExport(securityHubExportJob)

export const integrationJobs = [securityHubExportJob, jiraRefreshJob] as const
