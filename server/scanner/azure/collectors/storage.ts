/**
 * Storage accounts (Microsoft.Storage 2023-05-01): account properties (secure transfer, TLS, public access,
 * network rules, encryption, private endpoints, shared keys…), and per account the blob service (soft delete,
 * versioning) and file service (share soft delete, SMB settings) of `default`, and the Azure Monitor diagnostic
 * settings of the blob, queue and table services (`{account}/{blob,queue,table}Services/default/providers/
 * Microsoft.Insights/diagnosticSettings`, the resource-log successor of classic Storage Analytics logging).
 */
import { Schema } from "effect"
import { ArmResource, armGet, armList, locationOf, type AzureCollectContext } from "../context.ts"
import { DIAGNOSTICS_API, DiagnosticSetting } from "./keyvault.ts"

export const storageResourceTypes = ["storage.accounts", "storage.blob_services", "storage.file_services", "storage.blob_diagnostics", "storage.queue_diagnostics", "storage.table_diagnostics"] as const
export const STORAGE_API = "2023-05-01"

/** The data services whose resource logs CIS Azure v3 4.12–4.14 ask for. */
export type StorageLogService = "blob" | "queue" | "table"

const Retention = Schema.optionalKey(Schema.Struct({ enabled: Schema.optionalKey(Schema.Boolean), days: Schema.optionalKey(Schema.Number) }))

export const StorageAccount = ArmResource({
  supportsHttpsTrafficOnly: Schema.optionalKey(Schema.Boolean),
  minimumTlsVersion: Schema.optionalKey(Schema.String),
  allowBlobPublicAccess: Schema.optionalKey(Schema.Boolean),
  allowCrossTenantReplication: Schema.optionalKey(Schema.Boolean),
  allowSharedKeyAccess: Schema.optionalKey(Schema.NullOr(Schema.Boolean)),
  defaultToOAuthAuthentication: Schema.optionalKey(Schema.Boolean),
  publicNetworkAccess: Schema.optionalKey(Schema.String),
  networkAcls: Schema.optionalKey(
    Schema.Struct({
      bypass: Schema.optionalKey(Schema.String),
      defaultAction: Schema.optionalKey(Schema.String),
      ipRules: Schema.optionalKey(Schema.Array(Schema.Struct({ value: Schema.String, action: Schema.optionalKey(Schema.String) }))),
      virtualNetworkRules: Schema.optionalKey(Schema.Array(Schema.Struct({ id: Schema.String, action: Schema.optionalKey(Schema.String) }))),
    }),
  ),
  encryption: Schema.optionalKey(Schema.Struct({ keySource: Schema.optionalKey(Schema.String), requireInfrastructureEncryption: Schema.optionalKey(Schema.Boolean) })),
  privateEndpointConnections: Schema.optionalKey(
    Schema.Array(Schema.Struct({ id: Schema.optionalKey(Schema.String), properties: Schema.optionalKey(Schema.Struct({ privateLinkServiceConnectionState: Schema.optionalKey(Schema.Struct({ status: Schema.optionalKey(Schema.String) })) })) })),
  ),
})
export type StorageAccount = typeof StorageAccount.Type

export const BlobService = Schema.Struct({
  id: Schema.optionalKey(Schema.String),
  properties: Schema.optionalKey(Schema.Struct({ deleteRetentionPolicy: Retention, containerDeleteRetentionPolicy: Retention, isVersioningEnabled: Schema.optionalKey(Schema.Boolean) })),
})
export type BlobService = typeof BlobService.Type

export const FileService = Schema.Struct({
  id: Schema.optionalKey(Schema.String),
  properties: Schema.optionalKey(
    Schema.Struct({
      shareDeleteRetentionPolicy: Retention,
      protocolSettings: Schema.optionalKey(Schema.Struct({ smb: Schema.optionalKey(Schema.Struct({ versions: Schema.optionalKey(Schema.NullOr(Schema.String)), channelEncryption: Schema.optionalKey(Schema.NullOr(Schema.String)) })) })),
    }),
  ),
})
export type FileService = typeof FileService.Type

export interface StorageAccountInfo extends StorageAccount {
  readonly blobService: BlobService | undefined
  /** undefined when unread or when the account kind has no file service (BlobStorage, BlockBlobStorage). */
  readonly fileService: FileService | undefined
  /** Diagnostic settings per data service; a service is absent when unread, failed, or the account kind lacks it. */
  readonly diagnostics: Readonly<Partial<Record<StorageLogService, ReadonlyArray<DiagnosticSetting>>>>
}

export interface StorageInventory {
  readonly accounts: ReadonlyArray<StorageAccountInfo> | undefined
}

export const hasFileService = (a: StorageAccount) => a.kind !== "BlobStorage" && a.kind !== "BlockBlobStorage"
/** Queues and tables exist only on general-purpose accounts (StorageV2 and the classic "Storage" kind). */
export const hasDataService = (a: StorageAccount, service: StorageLogService): boolean =>
  service === "blob" ? a.kind !== "FileStorage" : a.kind === undefined || a.kind === "StorageV2" || a.kind === "Storage"

const logServices: ReadonlyArray<StorageLogService> = ["blob", "queue", "table"]

export async function collectStorage(ctx: AzureCollectContext): Promise<StorageInventory> {
  const listed = await armList(ctx, { type: "storage.accounts", region: "global", op: "Microsoft.Storage/storageAccounts/read" }, `/subscriptions/${ctx.subscriptionId}/providers/Microsoft.Storage/storageAccounts`, STORAGE_API, StorageAccount)
  if (listed === undefined) return { accounts: undefined }
  ctx.countResources(listed.length)
  const accounts = await ctx.map(listed, async (a): Promise<StorageAccountInfo> => {
    const [blobService, fileService] = await Promise.all([
      ctx.wants("storage.blob_services") && a.kind !== "FileStorage"
        ? armGet(ctx, { type: "storage.blob_services", region: locationOf(a), op: "Microsoft.Storage/storageAccounts/blobServices/read", id: a.id }, `${a.id}/blobServices/default`, STORAGE_API, BlobService)
        : undefined,
      ctx.wants("storage.file_services") && hasFileService(a)
        ? armGet(ctx, { type: "storage.file_services", region: locationOf(a), op: "Microsoft.Storage/storageAccounts/fileServices/read", id: a.id }, `${a.id}/fileServices/default`, STORAGE_API, FileService)
        : undefined,
    ])
    const diagnostics = Object.fromEntries(
      (
        await Promise.all(
          logServices.map(async (service) => {
            const type = `storage.${service}_diagnostics`
            if (!ctx.wants(type) || !hasDataService(a, service)) return undefined
            const settings = await armList(
              ctx,
              { type, region: locationOf(a), op: "Microsoft.Insights/diagnosticSettings/read", id: `${a.id}/${service}Services/default` },
              `${a.id}/${service}Services/default/providers/Microsoft.Insights/diagnosticSettings`,
              DIAGNOSTICS_API,
              DiagnosticSetting,
            )
            return settings === undefined ? undefined : ([service, settings] as const)
          }),
        )
      ).flatMap((e) => (e === undefined ? [] : [e])),
    )
    return { ...a, blobService, fileService, diagnostics }
  })
  return { accounts }
}
