/**
 * Recovery Services vaults (Microsoft.RecoveryServices 2024-04-01): soft delete and immutability of backups, public
 * network access, storage redundancy and customer-managed-key encryption. One list call.
 */
import { Schema } from "effect"
import { armList, type AzureCollectContext } from "../context.ts"

export const recoveryResourceTypes = ["recovery.vaults"] as const
export const RECOVERY_API = "2024-04-01"

export const RecoveryVault = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  location: Schema.optionalKey(Schema.String),
  properties: Schema.optionalKey(
    Schema.Struct({
      publicNetworkAccess: Schema.optionalKey(Schema.String),
      securitySettings: Schema.optionalKey(
        Schema.Struct({
          /** Disabled | Unlocked | Locked. */
          immutabilitySettings: Schema.optionalKey(Schema.Struct({ state: Schema.optionalKey(Schema.String) })),
          /** Enabled | Disabled | AlwaysON (Invalid). */
          softDeleteSettings: Schema.optionalKey(Schema.Struct({ softDeleteState: Schema.optionalKey(Schema.String) })),
        }),
      ),
      redundancySettings: Schema.optionalKey(Schema.Struct({ standardTierStorageRedundancy: Schema.optionalKey(Schema.String) })),
      encryption: Schema.optionalKey(Schema.Struct({ keyVaultProperties: Schema.optionalKey(Schema.Struct({ keyUri: Schema.optionalKey(Schema.String) })) })),
    }),
  ),
})
export type RecoveryVault = typeof RecoveryVault.Type

export interface RecoveryInventory {
  readonly vaults: ReadonlyArray<RecoveryVault> | undefined
}

export async function collectRecovery(ctx: AzureCollectContext): Promise<RecoveryInventory> {
  const vaults = await armList(ctx, { type: "recovery.vaults", region: "global", op: "Microsoft.RecoveryServices/vaults/read" }, `/subscriptions/${ctx.subscriptionId}/providers/Microsoft.RecoveryServices/vaults`, RECOVERY_API, RecoveryVault)
  if (vaults !== undefined) ctx.countResources(vaults.length)
  return { vaults }
}
