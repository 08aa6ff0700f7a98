/**
 * Audit records of the integrations (Security Hub export settings, the Jira connection, Jira issues created from
 * findings), written to the append-only `audit_log` inside the caller's workspace scope, in the row format of
 * server/audit/scanning-audit.ts (whose action list belongs to the scanning area; these are declared here).
 *
 * Invariant: `details` never holds a credential (the Jira API token is never audited, only whether it changed).
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { presentedKeyDetails } from "../audit/audit-log.ts"

export type IntegrationAuditAction =
  | "security_hub.updated"
  | "security_hub.export_requested"
  | "jira.configured"
  | "jira.removed"
  | "jira.issue_created"

export interface IntegrationAuditEntry {
  readonly action: IntegrationAuditAction
  readonly workspaceId: number
  readonly actorUserId: number | null
  readonly targetType: "account" | "workspace" | "finding"
  readonly targetId: number
  readonly details?: Record<string, unknown>
  readonly ip?: string | undefined
}

export const recordIntegrationAudit = Effect.fn("IntegrationAudit.record")(function* (entry: IntegrationAuditEntry) {
  const sql = yield* SqlClient.SqlClient
  yield* sql`INSERT INTO audit_log (workspace_id, actor_user_id, action, target_type, target_id, details, ip)
    VALUES (${entry.workspaceId}, ${entry.actorUserId}, ${entry.action}, ${entry.targetType}, ${String(entry.targetId)},
            ${JSON.stringify(entry.details ?? {})}::jsonb || ${presentedKeyDetails(sql)}, ${entry.ip ?? null})`
})
