/** Virtual machines and managed disks (Microsoft.Compute): OS/data disks, security profile, disk encryption and access. */
import { Schema } from "effect"
import { ArmResource, armList, type AzureCollectContext } from "../context.ts"

export const vmResourceTypes = ["vm.virtual_machines", "vm.disks"] as const

const DiskRef = Schema.Struct({ name: Schema.optionalKey(Schema.String), managedDisk: Schema.optionalKey(Schema.Struct({ id: Schema.optionalKey(Schema.String) })), vhd: Schema.optionalKey(Schema.Struct({ uri: Schema.optionalKey(Schema.String) })) })

export const VirtualMachine = ArmResource({
  storageProfile: Schema.optionalKey(Schema.Struct({ osDisk: Schema.optionalKey(DiskRef), dataDisks: Schema.optionalKey(Schema.Array(DiskRef)) })),
  securityProfile: Schema.optionalKey(
    Schema.NullOr(Schema.Struct({ securityType: Schema.optionalKey(Schema.String), uefiSettings: Schema.optionalKey(Schema.Struct({ secureBootEnabled: Schema.optionalKey(Schema.Boolean), vTpmEnabled: Schema.optionalKey(Schema.Boolean) })) })),
  ),
})
export type VirtualMachine = typeof VirtualMachine.Type

export const ManagedDisk = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  location: Schema.optionalKey(Schema.String),
  managedBy: Schema.optionalKey(Schema.NullOr(Schema.String)),
  properties: Schema.optionalKey(
    Schema.Struct({
      diskState: Schema.optionalKey(Schema.String),
      encryption: Schema.optionalKey(Schema.Struct({ type: Schema.optionalKey(Schema.String), diskEncryptionSetId: Schema.optionalKey(Schema.String) })),
      networkAccessPolicy: Schema.optionalKey(Schema.String),
      publicNetworkAccess: Schema.optionalKey(Schema.String),
      dataAccessAuthMode: Schema.optionalKey(Schema.String),
    }),
  ),
})
export type ManagedDisk = typeof ManagedDisk.Type

export interface VmInventory {
  readonly virtualMachines: ReadonlyArray<VirtualMachine> | undefined
  readonly disks: ReadonlyArray<ManagedDisk> | undefined
}

export async function collectVm(ctx: AzureCollectContext): Promise<VmInventory> {
  const base = `/subscriptions/${ctx.subscriptionId}/providers/Microsoft.Compute`
  const [virtualMachines, disks] = await Promise.all([
    ctx.wants("vm.virtual_machines") ? armList(ctx, { type: "vm.virtual_machines", region: "global", op: "Microsoft.Compute/virtualMachines/read" }, `${base}/virtualMachines`, "2024-07-01", VirtualMachine) : undefined,
    ctx.wants("vm.disks") ? armList(ctx, { type: "vm.disks", region: "global", op: "Microsoft.Compute/disks/read" }, `${base}/disks`, "2024-03-02", ManagedDisk) : undefined,
  ])
  ctx.countResources((virtualMachines?.length ?? 0) + (disks?.length ?? 0))
  return { virtualMachines, disks }
}
