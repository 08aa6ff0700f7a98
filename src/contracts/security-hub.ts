/**
 * AWS Security Hub export (beyond the spec, issue 33 part 6; docs/integrations-security-hub.md): per AWS account,
 * whether each completed scan's failing resources are sent to the account's Security Hub as ASFF findings, to which
 * regions, and how the last export went. Shapes shared by the server (server/api/security-hub.ts) and the SPA;
 * messages are the texts both show. Configured by workspace admins only.
 */
import { Schema } from "effect"
import { AccountId, ScanId, idParam } from "./ids.ts"
import { Count, NullableTimestamp, OkMessage, withData } from "./common.ts"

export const SecurityHubMessages = {
  adminOnly: "Only workspace admins can configure integrations",
  accountNotFound: "Account not found",
  notAws: "Security Hub export is available for AWS accounts only",
  regionRequired: "Choose at least one Security Hub region",
  regionInvalid: "Region names look like us-east-1",
  settingsSaved: "Security Hub settings saved",
  exportQueued: "The latest completed scan will be sent to Security Hub",
  exportDisabled: "Turn the Security Hub export on first",
  noCompletedScan: "This account has no completed scan to send yet",
  credentialsUnreadable: "The account's stored credentials cannot be read; update the account's credentials",
  hubNotEnabled: (awsAccountId: string, region: string) =>
    `Security Hub is not enabled in ${region} for AWS account ${awsAccountId}: enable it there, or choose regions where it is enabled`,
  permissionMissing: (awsAccountId: string) =>
    `The credentials of AWS account ${awsAccountId} may not import findings: allow securityhub:BatchImportFindings`,
  unavailable: (detail: string) => `Security Hub could not be reached; the export will be retried (${detail})`,
  someRejected: (count: number, detail: string) => `Security Hub rejected ${count} finding${count === 1 ? "" : "s"}: ${detail}`,
  exported: (sent: number, archived: number) =>
    sent === 0 && archived === 0 ? "Nothing changed since the last export" : `${sent} finding${sent === 1 ? "" : "s"} sent, ${archived} archived`,
} as const

const REGION = /^[a-z]{2}(?:-[a-z]+)+-\d{1,2}$/

export const SecurityHubRegion = Schema.String.check(Schema.isPattern(REGION, { message: SecurityHubMessages.regionInvalid }))

export const SecurityHubExportStatus = Schema.Literals(["ok", "partial", "failed"])
export type SecurityHubExportStatus = typeof SecurityHubExportStatus.Type

/** An AWS account of the workspace with its Security Hub export setting and last outcome. */
export const SecurityHubAccount = Schema.Struct({
  account_id: AccountId,
  account_name: Schema.String,
  cloud_account_id: Schema.String,
  enabled: Schema.Boolean,
  /** Receiving regions; the first takes global resources and those of regions not listed. */
  regions: Schema.Array(Schema.String),
  last_export: Schema.NullOr(Schema.Struct({
    at: NullableTimestamp,
    scan_id: Schema.NullOr(ScanId),
    status: SecurityHubExportStatus,
    message: Schema.String,
    sent: Count,
    archived: Count,
    failed: Count,
  })),
})
export type SecurityHubAccount = typeof SecurityHubAccount.Type

export const SecurityHubAccountsResponse = withData(Schema.Array(SecurityHubAccount))
export type SecurityHubAccountsResponse = typeof SecurityHubAccountsResponse.Type

export const SecurityHubSettingsPayload = Schema.Struct({
  enabled: Schema.Boolean,
  regions: Schema.Array(SecurityHubRegion).check(Schema.isMaxLength(32)),
})
export type SecurityHubSettingsPayload = typeof SecurityHubSettingsPayload.Type

export const SecurityHubSettingsResponse = Schema.Struct({ ok: Schema.Boolean, message: Schema.String, data: SecurityHubAccount })
export type SecurityHubSettingsResponse = typeof SecurityHubSettingsResponse.Type

export const SecurityHubAccountParams = Schema.Struct({ id: idParam(AccountId) })

export const SecurityHubExportResponse = OkMessage

/** Client-side rule shared with the server: an enabled export needs a region. */
export const securityHubSettingsError = (payload: { readonly enabled: boolean; readonly regions: ReadonlyArray<string> }): string | undefined =>
  payload.enabled && payload.regions.length === 0 ? SecurityHubMessages.regionRequired : undefined
