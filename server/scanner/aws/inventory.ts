/**
 * The scan inventory: one section per collector, filled once per scan, plus the collection errors. Checks
 * declare the inputs (`uses`, e.g. "s3.policy") they read; the engine runs exactly the collectors those inputs
 * belong to and hands the check an inventory in which those sections are present.
 */
import type { CollectionError } from "../check.ts"
import type { CollectContext } from "./context.ts"
import { collectEc2, ec2ResourceTypes, type Ec2Inventory } from "./collectors/ec2.ts"
import { collectIam, iamResourceTypes, type IamInventory } from "./collectors/iam.ts"
import { collectS3, s3ResourceTypes, type S3Inventory } from "./collectors/s3.ts"

export interface Inventories {
  readonly ec2: Ec2Inventory
  readonly iam: IamInventory
  readonly s3: S3Inventory
}

export type CollectorKey = keyof Inventories

export const collectors: { readonly [K in CollectorKey]: (ctx: CollectContext) => Promise<Inventories[K]> } = {
  ec2: collectEc2,
  iam: collectIam,
  s3: collectS3,
}

export const resourceTypes = [...ec2ResourceTypes, ...iamResourceTypes, ...s3ResourceTypes] as const

export type ResourceType = (typeof resourceTypes)[number]

export type CollectorOf<R extends string> = R extends `${infer C}.${string}` ? (C extends CollectorKey ? C : never) : never

export interface ScanInventory extends Partial<Inventories> {
  readonly accountId: string
  readonly partition: string
  readonly regions: ReadonlyArray<string>
  readonly homeRegion: string
  readonly collectedAt: Date
  readonly errors: ReadonlyArray<CollectionError>
}

export type InventoryWith<K extends CollectorKey> = ScanInventory & { readonly [P in K]: Inventories[P] }

export function collectorOf(resourceType: string): CollectorKey {
  const key = resourceType.slice(0, resourceType.indexOf("."))
  if (!(key in collectors)) throw new Error(`Unknown inventory input ${resourceType}`)
  return key as CollectorKey
}
