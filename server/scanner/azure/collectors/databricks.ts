/**
 * Azure Databricks (Microsoft.Databricks 2024-05-01): the subscription's workspaces, with their custom parameters
 * (`customVirtualNetworkId` for VNet injection, `encryption` for a customer-managed key on the DBFS root) and their
 * `encryption.entities` (customer-managed keys for managed services and managed disks). One list call; nothing
 * is read from the workspace itself (no Databricks data-plane token).
 */
import { Schema } from "effect"
import { ArmResource, armList, type AzureCollectContext } from "../context.ts"

export const databricksResourceTypes = ["databricks.workspaces"] as const
export const DATABRICKS_API = "2024-05-01"

/** EncryptionV2 / ManagedDiskEncryption: `keySource` is "Microsoft.Keyvault" (case-insensitive) for a customer-managed key. */
const EntityEncryption = Schema.optionalKey(
  Schema.NullOr(
    Schema.Struct({
      keySource: Schema.optionalKey(Schema.NullOr(Schema.String)),
      keyVaultProperties: Schema.optionalKey(
        Schema.NullOr(Schema.Struct({ keyVaultUri: Schema.optionalKey(Schema.String), keyName: Schema.optionalKey(Schema.String), keyVersion: Schema.optionalKey(Schema.String) })),
      ),
    }),
  ),
)

/** A WorkspaceCustom*Parameter: `{type, value}`. */
const Parameter = <S extends Schema.Top>(value: S) => Schema.optionalKey(Schema.NullOr(Schema.Struct({ type: Schema.optionalKey(Schema.String), value: Schema.optionalKey(Schema.NullOr(value)) })))

export const Workspace = ArmResource({
  managedResourceGroupId: Schema.optionalKey(Schema.String),
  provisioningState: Schema.optionalKey(Schema.String),
  publicNetworkAccess: Schema.optionalKey(Schema.String),
  parameters: Schema.optionalKey(
    Schema.NullOr(
      Schema.Struct({
        customVirtualNetworkId: Parameter(Schema.String),
        customPublicSubnetName: Parameter(Schema.String),
        customPrivateSubnetName: Parameter(Schema.String),
        enableNoPublicIp: Parameter(Schema.Boolean),
        /** DBFS root encryption (WorkspaceEncryptionParameter → Encryption: keySource "Default" | "Microsoft.Keyvault"). */
        encryption: Parameter(Schema.Struct({ keySource: Schema.optionalKey(Schema.NullOr(Schema.String)), KeyName: Schema.optionalKey(Schema.NullOr(Schema.String)), keyvaulturi: Schema.optionalKey(Schema.NullOr(Schema.String)) })),
      }),
    ),
  ),
  encryption: Schema.optionalKey(Schema.NullOr(Schema.Struct({ entities: Schema.optionalKey(Schema.NullOr(Schema.Struct({ managedServices: EntityEncryption, managedDisk: EntityEncryption }))) }))),
})
export type Workspace = typeof Workspace.Type

export interface DatabricksInventory {
  readonly workspaces: ReadonlyArray<Workspace> | undefined
}

export async function collectDatabricks(ctx: AzureCollectContext): Promise<DatabricksInventory> {
  const workspaces = await armList(ctx, { type: "databricks.workspaces", region: "global", op: "Microsoft.Databricks/workspaces/read" }, `/subscriptions/${ctx.subscriptionId}/providers/Microsoft.Databricks/workspaces`, DATABRICKS_API, Workspace)
  if (workspaces !== undefined) ctx.countResources(workspaces.length)
  return { workspaces }
}
