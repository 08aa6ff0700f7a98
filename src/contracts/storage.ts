/**
 * Storage and retention (beyond the spec, issue 30): what a workspace's scan history occupies, per account and in all,
 * and the retention setting its admins choose. Shapes shared by the server (server/api/storage.ts) and the SPA's
 * storage page; messages are the texts both show.
 *
 * Units: `scans` are completed (or ended) scans kept; `results` are the result rows the kept scans answer (the sum of
 * their findings' resources checked: what a reader sees); `rows` are the rows stored for them (versions shared by
 * scans, server/db/migrations/0020_storage_by_change.ts); `bytes` are bytes on disk (tables, indexes and TOAST),
 * estimated per account from its share of each table's rows.
 */
import { Schema } from "effect"
import { AccountId } from "./ids.ts"
import { Count, NullableTimestamp, withData } from "./common.ts"

export const StorageMessages = {
  loadStorageFailed: "Failed to load storage. Please try again.",
  saveRetentionFailed: "Failed to save the retention setting. Please try again.",
  retentionSaved: "Retention setting saved",
  retentionDaysInvalid: "Keep scans for 1 to 3650 days, or leave it empty",
  retentionScansInvalid: "Keep 1 to 1000 scans per account, or leave it empty",
  storagePermissionDenied: "Only workspace admins can see storage and change retention",
} as const

export const RETENTION_MAX_DAYS = 3650
export const RETENTION_MAX_SCANS = 1000

/** An integer from 1 to `max`, or null; anything else (missing, not a number, out of range) fails with `message`. */
const retentionLimit = (max: number, message: string) =>
  Schema.NullOr(Schema.Number.check(Schema.isInt({ message }), Schema.isBetween({ minimum: 1, maximum: max }, { message })))
    .annotate({ message })
    .pipe(Schema.annotateKey({ messageMissingKey: message }))

/**
 * The retention setting: keep ended scans for `keep_days` days and/or the last `keep_scans` scans of each account
 * (null: no limit of that kind; both null: keep everything). Whatever it says, the latest completed scan of every
 * account, every scan started after it, every scan a kept compliance report references, and every scan with a
 * remediation under way are kept.
 */
export const RetentionSetting = Schema.Struct({
  keep_days: retentionLimit(RETENTION_MAX_DAYS, StorageMessages.retentionDaysInvalid),
  keep_scans: retentionLimit(RETENTION_MAX_SCANS, StorageMessages.retentionScansInvalid),
})
export type RetentionSetting = typeof RetentionSetting.Type

/** What some scans occupy. */
export const StorageFigures = Schema.Struct({
  scans: Count,
  results: Count,
  rows: Count,
  bytes: Count,
})
export type StorageFigures = typeof StorageFigures.Type

export const AccountStorage = Schema.Struct({
  account_id: AccountId,
  account_name: Schema.String,
  provider: Schema.String,
  used: StorageFigures,
  /** What applying the current retention setting now would remove from this account. */
  frees: StorageFigures,
})
export type AccountStorage = typeof AccountStorage.Type

export const WorkspaceStorage = Schema.Struct({
  used: StorageFigures,
  frees: StorageFigures,
  accounts: Schema.Array(AccountStorage),
  retention: RetentionSetting,
  retention_updated_at: NullableTimestamp,
  retention_updated_by: Schema.NullOr(Schema.String),
  /** When the daily retention job last expired scans of this workspace. */
  retention_applied_at: NullableTimestamp,
})
export type WorkspaceStorage = typeof WorkspaceStorage.Type

/** GET /api/workspaces/{id}/storage and PUT /api/workspaces/{id}/retention (which answers the page recomputed). */
export const WorkspaceStorageResponse = withData(WorkspaceStorage)
export type WorkspaceStorageResponse = typeof WorkspaceStorageResponse.Type
