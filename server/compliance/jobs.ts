/**
 * The compliance area's job (registered in server/jobs/registry.ts): `compliance.report`, one per report request
 * (./reports.ts). A report of a large scan takes seconds, so one retry and a 10-minute lease; the heartbeat lets a
 * report whose worker died be retried within a minute. Payloads carry ids only.
 */
import { defineJob } from "../jobs/queue.ts"
import { REPORT_JOB, REPORT_RETRY_LIMIT, ReportPayload, runReport } from "./reports.ts"

export const reportJob = defineJob(REPORT_JOB, ReportPayload, runReport, {
  queue: { retryLimit: REPORT_RETRY_LIMIT, retryDelaySeconds: 5, expireInSeconds: 600, heartbeatSeconds: 15 },
  work: { localConcurrency: 1, pollingIntervalSeconds: 2 },
})

export const complianceJobs = [reportJob] as const
