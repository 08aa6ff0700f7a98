/**
 * The organisations area's jobs (registered in server/jobs/registry.ts): `organizations.fleet-advance`, one chain per
 * open fleet scan (./fleet-scan.ts `advanceFleet`). Payloads carry ids only.
 */
import type { SqlClient } from "effect/sql"
import type { AppConfig } from "../config.ts"
import { defineJob, type JobDefinition, type JobQueue } from "../jobs/queue.ts"
import { runServiceJob, sweepJob } from "../scans/jobs.ts"
import { advanceFleet, FLEET_ADVANCE_JOB, FleetAdvancePayload } from "./fleet-scan.ts"

export const fleetAdvanceJob: JobDefinition<typeof FLEET_ADVANCE_JOB, FleetAdvancePayload, SqlClient.SqlClient | JobQueue | AppConfig> = defineJob(
  FLEET_ADVANCE_JOB,
  FleetAdvancePayload,
  (payload) => advanceFleet(payload, { runService: runServiceJob, sweep: sweepJob }, fleetAdvanceJob),
  {
    queue: { retryLimit: 10, retryDelaySeconds: 5, expireInSeconds: 600 },
    work: { localConcurrency: 4, pollingIntervalSeconds: 1 },
  },
)

export const organizationJobs = [fleetAdvanceJob] as const
