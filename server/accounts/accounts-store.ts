/**
 * SQL of the accounts area. Every function runs inside the caller's RLS scope (server/auth/rls.ts `inScope`, which
 * `inWorkspace` opens), and also filters on `workspace_id` explicitly: a foreign id simply finds nothing (→ 404).
 *
 * Responses are built to the contract's shapes (src/contracts/accounts.ts): lists never carry credentials; the detail
 * carries the access key id and a mask for the secret.
 */
import { randomBytes } from "node:crypto"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import type { Account, AccountDetail, RecentScan } from "../../src/contracts/accounts.ts"
import { SECRET_MASK } from "../../src/contracts/accounts.ts"
import { toRunStatus } from "../../src/contracts/common.ts"
import { ProviderIds } from "../../src/contracts/constants.ts"
import type { AccountId, CloudProviderId, ScanId } from "../../src/contracts/ids.ts"
import { providerDisplayName } from "./providers.ts"

/** Timestamps from the driver (Date) or text, as ISO-8601. */
export const iso = (value: Date | string): string => (value instanceof Date ? value : new Date(value)).toISOString()
export const isoOrNull = (value: Date | string | null | undefined): string | null =>
  value === null || value === undefined ? null : iso(value)

/** How many recent scans the account detail lists. */
export const RECENT_SCANS = 10

/** The workspace's AWS external id, created on first use (one per workspace, never chosen by a user). */
export const externalIdFor = Effect.fn("AccountsStore.externalIdFor")(function* (workspaceId: number) {
  const sql = yield* SqlClient.SqlClient
  const candidate = `ca-${randomBytes(18).toString("base64url")}`
  yield* sql`INSERT INTO workspace_cloud_settings (workspace_id, aws_external_id) VALUES (${workspaceId}, ${candidate})
             ON CONFLICT (workspace_id) DO NOTHING`
  const rows = yield* sql<{ aws_external_id: string }>`
    SELECT aws_external_id FROM workspace_cloud_settings WHERE workspace_id = ${workspaceId}`
  return rows[0]!.aws_external_id
})

interface AccountRow {
  readonly id: number
  readonly account_name: string
  readonly cloud_account_id: string
  readonly cloud_provider_id: number
  readonly last_scan_date: Date | string | null
  readonly last_status: string | null
  readonly total_scans: number
  readonly failed_findings: number | null
  readonly is_organization: boolean
  readonly organization_id: number | null
  readonly org_unit_path: string | null
  readonly retired_at: Date | string | null
}

const toAccount = (row: AccountRow): Account => ({
  id: row.id as AccountId,
  account_name: row.account_name,
  account_id: row.cloud_account_id,
  cloud_provider_id: row.cloud_provider_id as CloudProviderId,
  cloud_provider_name: providerDisplayName(row.cloud_provider_id),
  last_scan_date: isoOrNull(row.last_scan_date),
  total_scans: row.total_scans,
  failed_findings: row.failed_findings ?? 0,
  status: row.last_status === null ? null : toRunStatus(row.last_status),
  is_organization: row.is_organization,
  organization_account_id: row.organization_id as AccountId | null,
  org_unit_path: row.org_unit_path,
  retired_at: isoOrNull(row.retired_at),
})

/** Accounts of one provider with their last scan's date, status and failed findings. */
export const listAccounts = Effect.fn("AccountsStore.list")(function* (workspaceId: number, cloudProviderId: number) {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql<AccountRow>`
    SELECT a.id, a.account_name, a.cloud_account_id, a.cloud_provider_id::int AS cloud_provider_id,
           last.scan_start AS last_scan_date, last.status AS last_status, last.failed_findings,
           a.is_organization, a.organization_id, a.org_unit_path, a.retired_at,
           (SELECT count(*)::int FROM scans c WHERE c.account_id = a.id AND c.workspace_id = a.workspace_id) AS total_scans
    FROM accounts a
    LEFT JOIN LATERAL (
      SELECT s.scan_start, s.status, s.failed_findings FROM scans s
      WHERE s.account_id = a.id AND s.workspace_id = a.workspace_id
      ORDER BY s.scan_start DESC, s.id DESC LIMIT 1
    ) last ON true
    WHERE a.workspace_id = ${workspaceId} AND a.cloud_provider_id = ${cloudProviderId}
    ORDER BY a.created_at, a.id`
  return rows.map(toAccount)
})

export const getAccountSummary = Effect.fn("AccountsStore.summary")(function* (workspaceId: number, accountId: number) {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql<AccountRow>`
    SELECT a.id, a.account_name, a.cloud_account_id, a.cloud_provider_id::int AS cloud_provider_id,
           last.scan_start AS last_scan_date, last.status AS last_status, last.failed_findings,
           a.is_organization, a.organization_id, a.org_unit_path, a.retired_at,
           (SELECT count(*)::int FROM scans c WHERE c.account_id = a.id AND c.workspace_id = a.workspace_id) AS total_scans
    FROM accounts a
    LEFT JOIN LATERAL (
      SELECT s.scan_start, s.status, s.failed_findings FROM scans s
      WHERE s.account_id = a.id AND s.workspace_id = a.workspace_id
      ORDER BY s.scan_start DESC, s.id DESC LIMIT 1
    ) last ON true
    WHERE a.workspace_id = ${workspaceId} AND a.id = ${accountId}`
  const row = rows[0]
  return row === undefined ? undefined : toAccount(row)
})

export interface SealedAccount {
  readonly id: number
  readonly workspaceId: number
  readonly accountName: string
  readonly cloudProviderId: number
  readonly cloudAccountId: string
  readonly authMethod: "access_key" | "role"
  readonly accessKeyId: string | null
  /** Azure tenant id (null for AWS and GCP). */
  readonly tenantId: string | null
  readonly credentialsSealed: string
  readonly createdAt: string
  /** A member retired from its organisation (issue 31): no longer scanned nor acted in; null otherwise. */
  readonly retiredAt: string | null
}

/** The account row with its sealed credentials (for scans, remediation, reveal); undefined when not in this workspace. */
export const loadSealedAccount = Effect.fn("AccountsStore.loadSealed")(function* (workspaceId: number, accountId: number) {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql<{
    id: number; workspace_id: number; account_name: string; cloud_provider_id: number; cloud_account_id: string
    auth_method: "access_key" | "role"; access_key_id: string | null; tenant_id: string | null; credentials_sealed: string; created_at: Date | string
    retired_at: Date | string | null
  }>`SELECT id, workspace_id, account_name, cloud_provider_id::int AS cloud_provider_id, cloud_account_id, auth_method,
            access_key_id, tenant_id, credentials_sealed, created_at, retired_at
     FROM accounts WHERE workspace_id = ${workspaceId} AND id = ${accountId}`
  const r = rows[0]
  if (r === undefined) return undefined
  return {
    id: r.id,
    workspaceId: r.workspace_id,
    accountName: r.account_name,
    cloudProviderId: r.cloud_provider_id,
    cloudAccountId: r.cloud_account_id,
    authMethod: r.auth_method,
    accessKeyId: r.access_key_id,
    tenantId: r.tenant_id,
    credentialsSealed: r.credentials_sealed,
    createdAt: iso(r.created_at),
    retiredAt: isoOrNull(r.retired_at),
  } satisfies SealedAccount
})

/**
 * The detail's credential_data: the spec's AWS fields (aws_account_id, access_key) for AWS only, the provider's own
 * labelled identifiers for GCP (project_id, client_email) and Azure (tenant_id, client_id, subscription_id), and the
 * secret as a mask (AWS secret access key, GCP service-account key, Azure client secret). Only keys have a secret to
 * mask: an AWS role assumed with the server's own credentials stores none.
 */
export function credentialData(account: Pick<SealedAccount, "cloudProviderId" | "cloudAccountId" | "accessKeyId" | "tenantId">): AccountDetail["credential_data"] {
  const secret_key = account.accessKeyId !== null ? SECRET_MASK : null
  switch (account.cloudProviderId) {
    case ProviderIds.GCP:
      return { aws_account_id: null, access_key: null, secret_key, project_id: account.cloudAccountId, client_email: account.accessKeyId }
    case ProviderIds.Azure:
      return { aws_account_id: null, access_key: null, secret_key, tenant_id: account.tenantId, client_id: account.accessKeyId, subscription_id: account.cloudAccountId }
    default:
      return { aws_account_id: account.cloudAccountId, access_key: account.accessKeyId, secret_key }
  }
}

export const getAccountDetail = Effect.fn("AccountsStore.detail")(function* (workspaceId: number, accountId: number) {
  const sql = yield* SqlClient.SqlClient
  const account = yield* loadSealedAccount(workspaceId, accountId)
  if (account === undefined) return undefined
  const scans = yield* sql<{
    id: number; status: string; scan_start: Date | string; scan_end: Date | string | null; findings_count: number; failed_findings: number
    passed_findings: number; muted_findings: number
  }>`SELECT id, status, scan_start, scan_end, findings_count, failed_findings, passed_findings, muted_findings FROM scans
     WHERE workspace_id = ${workspaceId} AND account_id = ${accountId}
     ORDER BY scan_start DESC, id DESC LIMIT ${RECENT_SCANS}`
  const recent: Array<RecentScan> = scans.map((s) => ({
    id: s.id as ScanId,
    status: toRunStatus(s.status),
    scan_start: iso(s.scan_start),
    scan_end: isoOrNull(s.scan_end),
    findings_count: s.findings_count,
    failed_findings: s.failed_findings,
    passed_findings: s.passed_findings,
    muted_findings: s.muted_findings,
    // The rest of the checks could not decide (server/scans/scans-store.ts).
    not_evaluated_findings: Math.max(0, s.findings_count - s.passed_findings - s.failed_findings - s.muted_findings),
  }))
  const detail: AccountDetail = {
    id: account.id as AccountId,
    account_name: account.accountName,
    cloud_provider_name: providerDisplayName(account.cloudProviderId),
    cloud_provider_id: account.cloudProviderId as CloudProviderId,
    created_at: account.createdAt,
    credential_data: credentialData(account),
    recent_scans: recent,
    retired_at: account.retiredAt,
  }
  return detail
})

/** Reserves the next account id, so the credentials can be sealed with it before the row exists. */
export const reserveAccountId = Effect.fn("AccountsStore.reserveId")(function* () {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql<{ id: number }>`SELECT nextval(pg_get_serial_sequence('accounts', 'id'))::int AS id`
  return rows[0]!.id
})

export interface NewAccount {
  readonly id: number
  readonly workspaceId: number
  readonly cloudProviderId: number
  readonly accountName: string
  readonly cloudAccountId: string
  readonly principalArn: string | null
  readonly authMethod: "access_key" | "role"
  readonly accessKeyId: string | null
  readonly tenantId: string | null
  readonly credentialsSealed: string
  readonly createdBy: number
}

/** Inserts the account; answers false when the same cloud account is already connected in this workspace. */
export const insertAccount = Effect.fn("AccountsStore.insert")(function* (a: NewAccount) {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql<{ id: number }>`
    INSERT INTO accounts (id, workspace_id, cloud_provider_id, account_name, cloud_account_id, principal_arn, auth_method,
                          access_key_id, tenant_id, credentials_sealed, created_by)
    VALUES (${a.id}, ${a.workspaceId}, ${a.cloudProviderId}, ${a.accountName}, ${a.cloudAccountId}, ${a.principalArn},
            ${a.authMethod}, ${a.accessKeyId}, ${a.tenantId}, ${a.credentialsSealed}, ${a.createdBy})
    ON CONFLICT (workspace_id, cloud_provider_id, cloud_account_id) DO NOTHING
    RETURNING id`
  return rows.length > 0
})

/**
 * Deletes the account; its scans, findings and remediations go with it (ON DELETE CASCADE), and so do an
 * organisation's member accounts (issue 31): the open jobs of their scans are answered too, to be canceled.
 */
export const deleteAccount = Effect.fn("AccountsStore.delete")(function* (workspaceId: number, accountId: number) {
  const sql = yield* SqlClient.SqlClient
  const open = yield* sql<{ job_id: string | null }>`
    SELECT ss.job_id FROM scan_services ss JOIN scans s ON s.id = ss.scan_id
    WHERE s.workspace_id = ${workspaceId} AND ss.status IN ('pending', 'running')
      AND (s.account_id = ${accountId}
           OR s.account_id IN (SELECT m.id FROM accounts m WHERE m.workspace_id = ${workspaceId} AND m.organization_id = ${accountId}))`
  const rows = yield* sql<{ id: number; account_name: string; cloud_account_id: string }>`
    DELETE FROM accounts WHERE workspace_id = ${workspaceId} AND id = ${accountId}
    RETURNING id, account_name, cloud_account_id`
  const row = rows[0]
  return row === undefined
    ? undefined
    : { accountName: row.account_name, cloudAccountId: row.cloud_account_id, openJobIds: open.flatMap((o) => (o.job_id === null ? [] : [o.job_id])) }
})
