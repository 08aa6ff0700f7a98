/**
 * Cloud Storage: buckets of the project (storage v1 buckets.list?project=) with their IAM configuration, and each
 * bucket's IAM policy (buckets.getIamPolicy) for public members.
 */
import { Schema } from "effect"
import { IamPolicy, listAll, Paged, type GcpCollectContext } from "../context.ts"

export const storageResourceTypes = ["storage.buckets", "storage.bucket_policies"] as const

export const Bucket = Schema.Struct({
  name: Schema.String,
  id: Schema.optionalKey(Schema.String),
  location: Schema.optionalKey(Schema.String),
  locationType: Schema.optionalKey(Schema.String),
  iamConfiguration: Schema.optionalKey(
    Schema.Struct({
      uniformBucketLevelAccess: Schema.optionalKey(Schema.Struct({ enabled: Schema.optionalKey(Schema.Boolean), lockedTime: Schema.optionalKey(Schema.String) })),
      bucketPolicyOnly: Schema.optionalKey(Schema.Struct({ enabled: Schema.optionalKey(Schema.Boolean) })),
      publicAccessPrevention: Schema.optionalKey(Schema.String),
    }),
  ),
  retentionPolicy: Schema.optionalKey(Schema.Struct({ retentionPeriod: Schema.optionalKey(Schema.String), isLocked: Schema.optionalKey(Schema.Boolean) })),
  versioning: Schema.optionalKey(Schema.Struct({ enabled: Schema.optionalKey(Schema.Boolean) })),
  logging: Schema.optionalKey(Schema.Struct({ logBucket: Schema.optionalKey(Schema.String), logObjectPrefix: Schema.optionalKey(Schema.String) })),
  softDeletePolicy: Schema.optionalKey(Schema.Struct({ retentionDurationSeconds: Schema.optionalKey(Schema.String) })),
})
export type Bucket = typeof Bucket.Type

const BucketsPage = Paged({ items: Schema.optionalKey(Schema.Array(Bucket)) })

export interface StorageBucket extends Bucket {
  readonly policy: IamPolicy | undefined
}

export interface StorageInventory {
  readonly buckets: ReadonlyArray<StorageBucket> | undefined
}

export const bucketRegion = (b: Bucket): string => (b.location ?? "global").toLowerCase()

export async function collectStorage(ctx: GcpCollectContext): Promise<StorageInventory> {
  const listed = await listAll(
    ctx,
    { type: "storage.buckets", region: "global", op: "storage.buckets.list" },
    `${ctx.endpoints.storage}/storage/v1/b?project=${encodeURIComponent(ctx.projectId)}&maxResults=1000`,
    BucketsPage,
    (page) => page.items,
  )
  if (listed === undefined) return { buckets: undefined }
  ctx.countResources(listed.length)
  const wantPolicies = ctx.wants("storage.bucket_policies")
  const buckets = await ctx.map(listed, async (b): Promise<StorageBucket> => ({
    ...b,
    policy: wantPolicies
      ? await ctx.get(
          { type: "storage.bucket_policies", region: bucketRegion(b), op: "storage.buckets.getIamPolicy", id: b.name },
          { url: `${ctx.endpoints.storage}/storage/v1/b/${encodeURIComponent(b.name)}/iam?optionsRequestedPolicyVersion=3` },
          IamPolicy,
        )
      : undefined,
  }))
  return { buckets }
}
