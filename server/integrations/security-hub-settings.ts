/**
 * The Security Hub export settings of a workspace's AWS accounts (issue 33 part 6; contract
 * src/contracts/security-hub.ts): list, save (audited `security_hub.updated`), and "send now", which queues the export
 * of the account's latest completed scan. Callers check that the caller is a workspace admin.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { ProviderIds } from "../../src/contracts/constants.ts"
import { NotFound, ValidationError } from "../../src/contracts/errors.ts"
import type { AccountId, ScanId } from "../../src/contracts/ids.ts"
import {
  SecurityHubMessages as M,
  securityHubSettingsError,
  type SecurityHubAccount,
  type SecurityHubSettingsPayload,
} from "../../src/contracts/security-hub.ts"
import type { WorkspaceContext } from "../auth/workspace-context.ts"
import { enqueueInTransaction } from "../scans/transactional-enqueue.ts"
import { recordIntegrationAudit } from "./audit.ts"
import { securityHubExportJob } from "./jobs.ts"

interface Row {
  readonly account_id: number
  readonly account_name: string
  readonly cloud_account_id: string
  readonly enabled: boolean | null
  readonly regions: ReadonlyArray<string> | null
  readonly last_export_at: Date | string | null
  readonly last_export_scan_id: number | null
  readonly last_export_status: "ok" | "partial" | "failed" | null
  readonly last_export_message: string | null
  readonly last_sent: number | null
  readonly last_archived: number | null
  readonly last_failed: number | null
}

const toAccount = (r: Row): SecurityHubAccount => ({
  account_id: r.account_id as AccountId,
  account_name: r.account_name,
  cloud_account_id: r.cloud_account_id,
  enabled: r.enabled === true,
  regions: r.regions ?? [],
  last_export: r.last_export_status === null
    ? null
    : {
        at: r.last_export_at === null ? null : new Date(r.last_export_at).toISOString(),
        scan_id: r.last_export_scan_id as ScanId | null,
        status: r.last_export_status,
        message: r.last_export_message ?? "",
        sent: r.last_sent ?? 0,
        archived: r.last_archived ?? 0,
        failed: r.last_failed ?? 0,
      },
})

const selectAccounts = (sql: SqlClient.SqlClient, workspaceId: number, accountId?: number) =>
  sql<Row>`SELECT a.id AS account_id, a.account_name, a.cloud_account_id, s.enabled, s.regions, s.last_export_at,
                  s.last_export_scan_id, s.last_export_status, s.last_export_message, s.last_sent, s.last_archived, s.last_failed
           FROM accounts a LEFT JOIN security_hub_settings s ON s.workspace_id = a.workspace_id AND s.account_id = a.id
           WHERE a.workspace_id = ${workspaceId} AND a.cloud_provider_id = ${ProviderIds.AWS}
             ${accountId === undefined ? sql`` : sql`AND a.id = ${accountId}`}
           ORDER BY lower(a.account_name), a.id`

/** Every AWS account of the workspace (that the caller may see) with its export setting. */
export const listSecurityHubAccounts = Effect.fn("SecurityHub.list")(function* (workspaceId: number) {
  const sql = yield* SqlClient.SqlClient
  return (yield* selectAccounts(sql, workspaceId)).map(toAccount)
})

const findAwsAccount = Effect.fn("SecurityHub.findAccount")(function* (workspaceId: number, accountId: number) {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql<{ cloud_provider_id: number }>`SELECT cloud_provider_id::int AS cloud_provider_id FROM accounts
    WHERE workspace_id = ${workspaceId} AND id = ${accountId}`
  if (rows[0] === undefined) return yield* new NotFound({ message: M.accountNotFound })
  if (rows[0].cloud_provider_id !== ProviderIds.AWS) return yield* new ValidationError({ message: M.notAws })
})

export const saveSecurityHubSettings = Effect.fn("SecurityHub.save")(function* (
  ctx: WorkspaceContext,
  accountId: number,
  payload: SecurityHubSettingsPayload,
) {
  const sql = yield* SqlClient.SqlClient
  yield* findAwsAccount(ctx.workspaceId, accountId)
  const regions = [...new Set(payload.regions)]
  const invalid = securityHubSettingsError({ enabled: payload.enabled, regions })
  if (invalid !== undefined) return yield* new ValidationError({ message: invalid, errors: [{ path: "regions", message: invalid }] })
  const regionsLiteral = `{${regions.join(",")}}`
  yield* sql`INSERT INTO security_hub_settings (account_id, workspace_id, enabled, regions, updated_by, updated_at)
    VALUES (${accountId}, ${ctx.workspaceId}, ${payload.enabled}, ${regionsLiteral}::text[], ${ctx.userId}, now())
    ON CONFLICT (account_id) DO UPDATE SET enabled = EXCLUDED.enabled, regions = EXCLUDED.regions,
      updated_by = EXCLUDED.updated_by, updated_at = now()`
  yield* recordIntegrationAudit({
    action: "security_hub.updated", workspaceId: ctx.workspaceId, actorUserId: ctx.userId, targetType: "account", targetId: accountId,
    details: { enabled: payload.enabled, regions }, ip: ctx.ip,
  })
  return toAccount((yield* selectAccounts(sql, ctx.workspaceId, accountId))[0]!)
})

/** Queues the export of the account's latest completed scan now. */
export const requestSecurityHubExport = Effect.fn("SecurityHub.exportNow")(function* (ctx: WorkspaceContext, accountId: number) {
  const sql = yield* SqlClient.SqlClient
  yield* findAwsAccount(ctx.workspaceId, accountId)
  const settings = yield* sql<{ enabled: boolean }>`SELECT enabled FROM security_hub_settings
    WHERE workspace_id = ${ctx.workspaceId} AND account_id = ${accountId}`
  if (settings[0]?.enabled !== true) return yield* new ValidationError({ message: M.exportDisabled })
  const latest = yield* sql<{ id: number }>`SELECT id FROM scans WHERE workspace_id = ${ctx.workspaceId}
    AND account_id = ${accountId} AND status = 'completed' ORDER BY scan_end DESC NULLS LAST, id DESC LIMIT 1`
  if (latest[0] === undefined) return yield* new ValidationError({ message: M.noCompletedScan })
  yield* enqueueInTransaction(securityHubExportJob, [{ payload: { workspace_id: ctx.workspaceId, account_id: accountId, scan_id: latest[0].id } }], {
    workspaceId: ctx.workspaceId, userId: ctx.userId, accountIds: ctx.accountIds,
  })
  yield* recordIntegrationAudit({
    action: "security_hub.export_requested", workspaceId: ctx.workspaceId, actorUserId: ctx.userId, targetType: "account",
    targetId: accountId, details: { scan_id: latest[0].id }, ip: ctx.ip,
  })
})
