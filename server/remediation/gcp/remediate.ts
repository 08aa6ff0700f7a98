/**
 * Entry point of GCP remediation for the job layer:
 *
 *   remediateGcpFinding({ credentials: { serviceAccountKey }, checkId, row, projectId?, endpoints? })
 *     -> { status: "remediated" | "failed" | "pass", message, ... }
 *
 * Applies the check's fixer to the detail row, then re-scans that check and reports "remediated" only when the
 * row's resource now complies. Never throws for API errors. The scanner service account needs write roles for
 * the fix (e.g. roles/storage.admin for buckets); a 403 comes back as "failed" with the missing permission.
 */
import { runRemediation, type RemediationResult } from "../../scanner/rest/remediation.ts"
import type { DetailRow } from "../../scanner/check.ts"
import { gcpChecks } from "../../scanner/gcp/catalogue.ts"
import { scanGcpService } from "../../scanner/gcp/scan-service.ts"
import { openGcpSession, type GcpSessionInput } from "../../scanner/gcp/session.ts"
import { gcpFixers, type GcpFixContext, type GcpFixer } from "./fixers.ts"

export function gcpFixerFor(checkId: string): GcpFixer | undefined {
  return gcpFixers.find((f) => f.checkIds.includes(checkId))
}

/** Check ids with an automatic fix, what the fix does and whether it can cut access (for the UI). */
export function gcpRemediableChecks(): ReadonlyArray<{ readonly checkId: string; readonly description: string; readonly cutsAccess?: string }> {
  return gcpFixers.flatMap((f) => f.checkIds.map((checkId) => ({ checkId, description: f.description, ...(f.cutsAccess === undefined ? {} : { cutsAccess: f.cutsAccess }) })))
}

export interface GcpRemediateInput extends GcpSessionInput {
  readonly checkId: string
  readonly row: DetailRow
  /** Evaluation clock of the verification scan. */
  readonly now?: Date
}

export async function remediateGcpFinding(input: GcpRemediateInput): Promise<RemediationResult> {
  const check = gcpChecks.find((c) => c.id === input.checkId)
  const { checkId: _c, row, now, ...session } = input
  return runRemediation<GcpFixContext>({
    checkId: input.checkId,
    row,
    checkKnown: check !== undefined,
    fixer: gcpFixerFor(input.checkId),
    open: async () => {
      const s = await openGcpSession(session)
      return { client: s.client, projectId: s.projectId, endpoints: s.endpoints, now: now ?? new Date(), ...(input.signal === undefined ? {} : { signal: input.signal }) }
    },
    verify: async () => {
      if (check === undefined) return undefined
      const scan = await scanGcpService({ ...session, service: check.service, checkIds: [check.id], ...(now === undefined ? {} : { now }) })
      return scan.findings[0]?.details.find((d) => d.resource_id === row.resource_id && d.region === row.region)
    },
  })
}
