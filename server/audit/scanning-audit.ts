/**
 * Audit records of the scanning area, written to the identity area's append-only `audit_log` (migration 0002) inside the
 * caller's workspace scope. The identity helper's `AuditAction` union does not list these actions, so they are declared
 * here; the row format is the same.
 *
 * Invariant: `details` never holds a credential (only ids, names and outcomes). An action done with an API key names the
 * key in `details.api_key` ({ id, name }: `presentedKeyDetails`, server/audit/audit-log.ts).
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { presentedKeyDetails } from "./audit-log.ts"

export type ScanningAuditAction =
  | "account.created"
  | "account.deleted"
  | "account.secret_revealed"
  | "scan.started"
  | "scan.canceled"
  | "remediation.requested"
  | "remediation.succeeded"
  | "remediation.failed"
  | "remediation.undo_requested"
  | "remediation.undone"
  | "remediation.undo_failed"
  | "mute_rule.created"
  | "mute_rule.updated"
  | "mute_rule.deleted"
  | "mute_rule.expired"
  | "schedule.updated"
  | "schedule.scan_started"
  | "schedule.scan_skipped"
  | "retention.updated"
  | "retention.applied"
  | "account_group.created"
  | "account_group.updated"
  | "account_group.deleted"
  | "organization.created"
  | "organization.synced"
  | "organization.sync_failed"
  | "organization.selection_updated"
  | "organization.member_role_changed"
  | "fleet_scan.started"
  | "fleet_scan.finished"
  | "account.approval_updated"
  | "remediation_request.created"
  | "remediation_request.approved"
  | "remediation_request.rejected"
  | "remediation_request.expired"
  | "remediation_request.cancelled"
  | "remediation_batch.started"
  | "remediation_batch.stop_requested"
  | "remediation_batch.finished"
  | "remediation_batch.undo_requested"
  | "remediation_batch.undo_finished"

export interface ScanningAuditEntry {
  readonly action: ScanningAuditAction
  readonly workspaceId: number
  readonly actorUserId?: number | null | undefined
  readonly targetType: "account" | "scan" | "finding" | "mute_rule" | "workspace" | "account_group" | "fleet_scan" | "remediation_request" | "remediation_batch"
  readonly targetId: number
  readonly details?: Record<string, unknown>
  readonly ip?: string | undefined
}

export const recordAudit = Effect.fn("ScanningAudit.record")(function* (entry: ScanningAuditEntry) {
  const sql = yield* SqlClient.SqlClient
  yield* sql`INSERT INTO audit_log (workspace_id, actor_user_id, action, target_type, target_id, details, ip)
    VALUES (${entry.workspaceId}, ${entry.actorUserId ?? null}, ${entry.action}, ${entry.targetType}, ${String(entry.targetId)},
            ${JSON.stringify(entry.details ?? {})}::jsonb || ${presentedKeyDetails(sql)}, ${entry.ip ?? null})`
})
