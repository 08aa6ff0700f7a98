/**
 * Every job the workers run. To add one: define it with `defineJob` in its own file (e.g.
 * `server/scanner/jobs.ts`), then add ONE import line and ONE entry below. API processes create the
 * queues listed here at start, so `JobQueue.send` works before any worker has started.
 */
import { complianceJobs } from "../compliance/jobs.ts"
import { integrationJobs } from "../integrations/jobs.ts"
import { mailJobs } from "../mail/jobs.ts"
import { organizationJobs } from "../organizations/jobs.ts"
import { scanningJobs } from "../scans/jobs.ts"
import { remediationUndoJobs } from "../scans/remediation-undo.ts"
import { remediationBatchJobs } from "../scans/remediation-batches.ts"
import { webhookJobs } from "../integrations/webhook-jobs.ts"
import type { AnyJob } from "./queue.ts"

export const jobs: ReadonlyArray<AnyJob> = [...scanningJobs, ...mailJobs, ...complianceJobs, ...organizationJobs, ...integrationJobs, ...webhookJobs, ...remediationUndoJobs, ...remediationBatchJobs]
