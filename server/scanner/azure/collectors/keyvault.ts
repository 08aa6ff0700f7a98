/**
 * Key Vault (Microsoft.KeyVault 2023-07-01): vaults, their keys (ARM exposes attributes and the rotation policy
 * without reading key material), secrets (attributes only, never values) and diagnostic settings.
 */
import { Schema } from "effect"
import { ArmResource, armGet, armList, locationOf, type AzureCollectContext } from "../context.ts"

export const keyvaultResourceTypes = ["keyvault.vaults", "keyvault.keys", "keyvault.key_rotation", "keyvault.secrets", "keyvault.diagnostics"] as const
export const KEYVAULT_API = "2023-07-01"
export const DIAGNOSTICS_API = "2021-05-01-preview"

const PrivateEndpointConnections = Schema.optionalKey(
  Schema.Array(Schema.Struct({ id: Schema.optionalKey(Schema.String), properties: Schema.optionalKey(Schema.Struct({ privateLinkServiceConnectionState: Schema.optionalKey(Schema.Struct({ status: Schema.optionalKey(Schema.String) })) })) })),
)

export const Vault = ArmResource({
  tenantId: Schema.optionalKey(Schema.String),
  enableSoftDelete: Schema.optionalKey(Schema.Boolean),
  enablePurgeProtection: Schema.optionalKey(Schema.Boolean),
  enableRbacAuthorization: Schema.optionalKey(Schema.Boolean),
  publicNetworkAccess: Schema.optionalKey(Schema.String),
  networkAcls: Schema.optionalKey(Schema.Struct({ defaultAction: Schema.optionalKey(Schema.String), bypass: Schema.optionalKey(Schema.String) })),
  privateEndpointConnections: PrivateEndpointConnections,
  vaultUri: Schema.optionalKey(Schema.String),
})
export type Vault = typeof Vault.Type

const Attributes = Schema.optionalKey(Schema.Struct({ enabled: Schema.optionalKey(Schema.Boolean), exp: Schema.optionalKey(Schema.Number), nbf: Schema.optionalKey(Schema.Number), created: Schema.optionalKey(Schema.Number) }))

export const VaultKey = ArmResource({
  attributes: Attributes,
  kty: Schema.optionalKey(Schema.String),
  keyUri: Schema.optionalKey(Schema.String),
  rotationPolicy: Schema.optionalKey(
    Schema.Struct({
      lifetimeActions: Schema.optionalKey(Schema.Array(Schema.Struct({ action: Schema.optionalKey(Schema.Struct({ type: Schema.optionalKey(Schema.String) })), trigger: Schema.optionalKey(Schema.Unknown) }))),
    }),
  ),
})
export type VaultKey = typeof VaultKey.Type

export const VaultSecret = ArmResource({ attributes: Attributes, contentType: Schema.optionalKey(Schema.String) })
export type VaultSecret = typeof VaultSecret.Type

export const DiagnosticSetting = Schema.Struct({
  id: Schema.optionalKey(Schema.String),
  name: Schema.String,
  properties: Schema.optionalKey(
    Schema.Struct({
      storageAccountId: Schema.optionalKey(Schema.NullOr(Schema.String)),
      workspaceId: Schema.optionalKey(Schema.NullOr(Schema.String)),
      eventHubAuthorizationRuleId: Schema.optionalKey(Schema.NullOr(Schema.String)),
      logs: Schema.optionalKey(Schema.Array(Schema.Struct({ category: Schema.optionalKey(Schema.NullOr(Schema.String)), categoryGroup: Schema.optionalKey(Schema.NullOr(Schema.String)), enabled: Schema.Boolean }))),
    }),
  ),
})
export type DiagnosticSetting = typeof DiagnosticSetting.Type

/**
 * The settings among `settings` that send an enabled log of one of `categories` or of one of the category `groups`
 * (names compared case-insensitively, as Azure does).
 */
export const settingsSendingLogs = (
  settings: ReadonlyArray<DiagnosticSetting>,
  want: { readonly categories: ReadonlyArray<string>; readonly groups: ReadonlyArray<string> },
): ReadonlyArray<DiagnosticSetting> => {
  const has = (names: ReadonlyArray<string>, value: string | null | undefined) => value != null && names.some((n) => n.toLowerCase() === value.toLowerCase())
  return settings.filter((d) => (d.properties?.logs ?? []).some((l) => l.enabled && (has(want.categories, l.category) || has(want.groups, l.categoryGroup))))
}

export interface VaultInfo extends Vault {
  readonly keys: ReadonlyArray<VaultKey> | undefined
  readonly secrets: ReadonlyArray<VaultSecret> | undefined
  readonly diagnostics: ReadonlyArray<DiagnosticSetting> | undefined
}

export interface KeyVaultInventory {
  readonly vaults: ReadonlyArray<VaultInfo> | undefined
}

export async function collectKeyVault(ctx: AzureCollectContext): Promise<KeyVaultInventory> {
  const listed = await armList(ctx, { type: "keyvault.vaults", region: "global", op: "Microsoft.KeyVault/vaults/read" }, `/subscriptions/${ctx.subscriptionId}/providers/Microsoft.KeyVault/vaults`, KEYVAULT_API, Vault)
  if (listed === undefined) return { vaults: undefined }
  ctx.countResources(listed.length)
  const wantKeys = ctx.wants("keyvault.keys") || ctx.wants("keyvault.key_rotation")
  const vaults = await ctx.map(listed, async (v): Promise<VaultInfo> => {
    const region = locationOf(v)
    const [listedKeys, secrets, diagnostics] = await Promise.all([
      wantKeys ? armList(ctx, { type: "keyvault.keys", region, op: "Microsoft.KeyVault/vaults/keys/read", id: v.id }, `${v.id}/keys`, KEYVAULT_API, VaultKey) : undefined,
      ctx.wants("keyvault.secrets") ? armList(ctx, { type: "keyvault.secrets", region, op: "Microsoft.KeyVault/vaults/secrets/read", id: v.id }, `${v.id}/secrets`, KEYVAULT_API, VaultSecret) : undefined,
      ctx.wants("keyvault.diagnostics")
        ? armList(ctx, { type: "keyvault.diagnostics", region, op: "Microsoft.Insights/diagnosticSettings/read", id: v.id }, `${v.id}/providers/Microsoft.Insights/diagnosticSettings`, DIAGNOSTICS_API, DiagnosticSetting)
        : undefined,
    ])
    // The list may omit the rotation policy; a GET per key returns it.
    const keys =
      listedKeys !== undefined && ctx.wants("keyvault.key_rotation")
        ? (
            await ctx.map(listedKeys, (k) =>
              k.properties?.rotationPolicy !== undefined ? Promise.resolve(k) : armGet(ctx, { type: "keyvault.key_rotation", region, op: "Microsoft.KeyVault/vaults/keys/read", id: k.id }, k.id, KEYVAULT_API, VaultKey),
            )
          ).flatMap((k) => (k === undefined ? [] : [k]))
        : listedKeys
    ctx.countResources((keys?.length ?? 0) + (secrets?.length ?? 0))
    return { ...v, keys, secrets, diagnostics }
  })
  return { vaults }
}
