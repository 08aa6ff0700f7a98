/**
 * OCSF Detection Finding (class 2004, category 2 "Findings", schema 1.3.0) for each evaluated resource of a finding:
 * the interchange format of the leading open-source cloud scanner (Prowler), so exports can be loaded by tools that read
 * it (Security Hub via OCSF, SIEMs, Prowler's own dashboards).
 *
 * Mapping: severity → severity_id (Low 2, Medium 3, High 4, Critical 5); the resource row's compliance → status_code
 * PASS/FAIL, or NOT_EVALUATED for a check that could not decide and its rows for unreadable inputs; a row remediated → status "Resolved" (status_id 4), otherwise "New" (1); the check id → metadata.event_code;
 * CIS/FSBP references → unmapped.compliance { framework: [controls] } (as Prowler does).
 */
import type { Finding } from "../../src/contracts/findings.ts"
import { AppInfo } from "../../src/contracts/constants.ts"

export const OCSF_VERSION = "1.3.0"

const SEVERITY_IDS = { low: 2, medium: 3, high: 4, critical: 5 } as const
const capitalise = (s: string) => s.charAt(0).toUpperCase() + s.slice(1)

export interface OcsfDetectionFinding {
  readonly [key: string]: unknown
}

const complianceMap = (f: Finding): Record<string, Array<string>> => {
  const out: Record<string, Array<string>> = {}
  for (const c of f.compliance) (out[c.framework] ??= []).push(c.control)
  return out
}

/** The OCSF records of one finding (one per detail row, or one without resources when the finding has no rows). */
export const toOcsf = (f: Finding): ReadonlyArray<OcsfDetectionFinding> => {
  const created = new Date(f.created_at)
  const rows: ReadonlyArray<Readonly<Record<string, unknown>> | undefined> = f.details.length === 0 ? [undefined] : f.details
  return rows.map((row, index) => {
    const compliant = row === undefined ? f.status !== "fail" : row["compliance"] !== false
    // A check that could not decide, or a row for an input that could not be read (no compliance flag).
    const unevaluated = row === undefined ? f.outcome === "not_evaluated" : typeof row["compliance"] !== "boolean" && row["error_kind"] !== undefined
    const remediate = row?.["remediate"] as { status?: unknown } | undefined
    const resolved = remediate?.status === "remediated" || (row === undefined && f.status === "remediated")
    // A muted failing row is an accepted risk: OCSF's "Suppressed" (docs/outcomes.md).
    const suppressed = !resolved && (row === undefined ? f.muted : row["compliance"] === false && row["muted"] !== undefined)
    const region = typeof row?.["region"] === "string" ? (row["region"] as string) : undefined
    const resourceId = typeof row?.["resource_id"] === "string" ? (row["resource_id"] as string) : undefined
    const reason = typeof row?.["reason"] === "string" ? (row["reason"] as string) : f.policy_check
    return {
      activity_id: 1,
      activity_name: "Create",
      category_uid: 2,
      category_name: "Findings",
      class_uid: 2004,
      class_name: "Detection Finding",
      type_uid: 200401,
      type_name: "Detection Finding: Create",
      severity_id: SEVERITY_IDS[f.severity],
      severity: capitalise(f.severity),
      status_id: resolved ? 4 : suppressed ? 3 : 1,
      status: resolved ? "Resolved" : suppressed ? "Suppressed" : "New",
      status_code: unevaluated ? "NOT_EVALUATED" : compliant ? "PASS" : "FAIL",
      status_detail: reason,
      message: reason,
      time: created.getTime(),
      time_dt: created.toISOString(),
      metadata: {
        version: OCSF_VERSION,
        profiles: ["cloud", "datetime"],
        event_code: f.check_id,
        uid: `cloud-audit-${f.id}-${typeof row?.["result_seq"] === "number" ? row["result_seq"] : index}`,
        product: { name: "Cloud Audit", uid: "cloud-audit", vendor_name: "Cloud Audit", version: AppInfo.version },
      },
      finding_info: {
        uid: `cloud-audit-${f.scan_id ?? 0}-${f.check_id}${resourceId === undefined ? "" : `-${resourceId}`}${region === undefined ? "" : `-${region}`}`,
        title: f.policy_check,
        desc: f.description,
        created_time: created.getTime(),
        created_time_dt: created.toISOString(),
        types: [f.service_name],
      },
      cloud: {
        provider: f.cloud_provider_name,
        ...(region === undefined || region === "global" ? {} : { region }),
        account: { uid: f.aws_account_id ?? "", name: f.account_name, type: "AWS Account", type_id: 10 },
      },
      resources:
        row === undefined
          ? []
          : [
              {
                uid: resourceId ?? "",
                name: resourceId ?? "",
                ...(region === undefined ? {} : { region }),
                cloud_partition: "aws",
                type: f.service_name,
                group: { name: f.service_name },
                data: { details: row },
              },
            ],
      remediation: { desc: f.remediation ?? "" },
      unmapped: { compliance: complianceMap(f), check_id: f.check_id, finding_id: f.id, scan_id: f.scan_id ?? null },
    } satisfies OcsfDetectionFinding
  })
}
