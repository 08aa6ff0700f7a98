/**
 * S3 inventory: every bucket (ListBuckets is global; no MaxBuckets, which moto truncates without a token) with
 * its region, public access block, policy, ACL, default encryption, versioning, access logging and ownership
 * controls, plus the account-level public access block (S3 Control). Absent configurations are `null`; inputs
 * that could not be read are `undefined` (the error is in the context).
 */
import {
  GetBucketAclCommand,
  GetBucketEncryptionCommand,
  GetBucketLifecycleConfigurationCommand,
  GetBucketLocationCommand,
  GetBucketLoggingCommand,
  GetBucketOwnershipControlsCommand,
  GetBucketPolicyCommand,
  GetBucketVersioningCommand,
  GetObjectLockConfigurationCommand,
  GetPublicAccessBlockCommand,
  ListBucketsCommand,
} from "@aws-sdk/client-s3"
import { GetPublicAccessBlockCommand as GetAccountPublicAccessBlockCommand } from "@aws-sdk/client-s3-control"
import type { CollectContext } from "../context.ts"
import { parsePolicy, type PolicyDocument } from "../policy.ts"

export const s3ResourceTypes = [
  "s3.buckets",
  "s3.public_access_block",
  "s3.account_public_access_block",
  "s3.policy",
  "s3.acl",
  "s3.encryption",
  "s3.versioning",
  "s3.logging",
  "s3.ownership",
  "s3.lifecycle",
  "s3.object_lock",
] as const

export interface PublicAccessBlock {
  readonly blockPublicAcls: boolean
  readonly ignorePublicAcls: boolean
  readonly blockPublicPolicy: boolean
  readonly restrictPublicBuckets: boolean
}

export interface AclGrant {
  readonly granteeType: string
  readonly granteeUri: string | undefined
  readonly granteeId: string | undefined
  readonly permission: string
}

export interface EncryptionRule {
  readonly algorithm: string
  readonly kmsKeyId: string | undefined
  readonly bucketKeyEnabled: boolean
}

export interface S3Bucket {
  readonly name: string
  readonly arn: string
  readonly region: string
  readonly createdAt: Date | undefined
  readonly publicAccessBlock: PublicAccessBlock | null | undefined
  /** Parsed policy; `policyText` keeps the raw text when it could not be parsed. */
  readonly policy: PolicyDocument | null | undefined
  readonly policyText: string | null | undefined
  readonly acl: { readonly ownerId: string | undefined; readonly grants: ReadonlyArray<AclGrant> } | undefined
  readonly encryption: ReadonlyArray<EncryptionRule> | null | undefined
  readonly versioning: { readonly status: string | null; readonly mfaDelete: string | null } | undefined
  readonly logging: { readonly targetBucket: string; readonly targetPrefix: string } | null | undefined
  readonly ownership: string | null | undefined
  readonly lifecycleRules: number | null | undefined
  /** Object Lock: enabled, with the default retention mode when one is set; null when never enabled. */
  readonly objectLock: { readonly enabled: boolean; readonly mode: string | null } | null | undefined
}

export interface S3Inventory {
  readonly buckets: ReadonlyArray<S3Bucket> | undefined
  readonly accountPublicAccessBlock: PublicAccessBlock | null | undefined
}

const toPab = (c: {
  BlockPublicAcls?: boolean | undefined
  IgnorePublicAcls?: boolean | undefined
  BlockPublicPolicy?: boolean | undefined
  RestrictPublicBuckets?: boolean | undefined
} | undefined): PublicAccessBlock => ({
  blockPublicAcls: c?.BlockPublicAcls === true,
  ignorePublicAcls: c?.IgnorePublicAcls === true,
  blockPublicPolicy: c?.BlockPublicPolicy === true,
  restrictPublicBuckets: c?.RestrictPublicBuckets === true,
})

/** GetBucketLocation answers null/"" for us-east-1 and the legacy "EU" for eu-west-1. */
export function normalizeBucketRegion(constraint: string | undefined | null): string {
  if (constraint === undefined || constraint === null || constraint === "") return "us-east-1"
  if (constraint === "EU") return "eu-west-1"
  return constraint
}

export async function collectS3(ctx: CollectContext): Promise<S3Inventory> {
  const home = ctx.homeRegion
  const s3Home = ctx.clients.get("s3", home)

  const accountPab = !ctx.wants("s3.account_public_access_block")
    ? Promise.resolve(undefined)
    : ctx.optional(
    { type: "s3.account_public_access_block", region: "global", op: "s3control:GetPublicAccessBlock" },
    ["NoSuchPublicAccessBlockConfiguration"],
    (o) => ctx.clients.get("s3control", home).send(new GetAccountPublicAccessBlockCommand({ AccountId: ctx.accountId }), o),
  )

  const listed = await ctx.call({ type: "s3.buckets", region: "global", op: "s3:ListBuckets" }, (o) =>
    s3Home.send(new ListBucketsCommand({}), o),
  )
  const names = (listed?.Buckets ?? []).flatMap((b) => (b.Name === undefined ? [] : [{ name: b.Name, created: b.CreationDate }]))
  ctx.countResources(names.length)

  const buckets =
    listed === undefined
      ? undefined
      : (
          await ctx.map(names, async ({ name, created }): Promise<S3Bucket | undefined> => {
            const id = name
            const location = await ctx.call({ type: "s3.buckets", region: "global", op: "s3:GetBucketLocation", id }, (o) =>
              s3Home.send(new GetBucketLocationCommand({ Bucket: name }), o),
            )
            if (location === undefined) return undefined
            const region = normalizeBucketRegion(location.LocationConstraint)
            const s3 = ctx.clients.get("s3", region)
            const spec = (type: (typeof s3ResourceTypes)[number], op: string) => ({ type, region, op, id })
            const skip = Promise.resolve(undefined)
            const want = (type: (typeof s3ResourceTypes)[number]) => ctx.wants(type)
            const [pab, policy, acl, enc, ver, log, own, life, lock] = await Promise.all([
              want("s3.public_access_block")
                ? ctx.optional(spec("s3.public_access_block", "s3:GetPublicAccessBlock"), ["NoSuchPublicAccessBlockConfiguration"], (o) =>
                    s3.send(new GetPublicAccessBlockCommand({ Bucket: name }), o),
                  )
                : skip,
              want("s3.policy")
                ? ctx.optional(spec("s3.policy", "s3:GetBucketPolicy"), ["NoSuchBucketPolicy"], (o) => s3.send(new GetBucketPolicyCommand({ Bucket: name }), o))
                : skip,
              want("s3.acl") ? ctx.call(spec("s3.acl", "s3:GetBucketAcl"), (o) => s3.send(new GetBucketAclCommand({ Bucket: name }), o)) : skip,
              want("s3.encryption")
                ? ctx.optional(spec("s3.encryption", "s3:GetBucketEncryption"), ["ServerSideEncryptionConfigurationNotFoundError"], (o) =>
                    s3.send(new GetBucketEncryptionCommand({ Bucket: name }), o),
                  )
                : skip,
              want("s3.versioning") ? ctx.call(spec("s3.versioning", "s3:GetBucketVersioning"), (o) => s3.send(new GetBucketVersioningCommand({ Bucket: name }), o)) : skip,
              want("s3.logging") ? ctx.call(spec("s3.logging", "s3:GetBucketLogging"), (o) => s3.send(new GetBucketLoggingCommand({ Bucket: name }), o)) : skip,
              want("s3.ownership")
                ? ctx.optional(spec("s3.ownership", "s3:GetBucketOwnershipControls"), ["OwnershipControlsNotFoundError"], (o) =>
                    s3.send(new GetBucketOwnershipControlsCommand({ Bucket: name }), o),
                  )
                : skip,
              want("s3.lifecycle")
                ? ctx.optional(spec("s3.lifecycle", "s3:GetBucketLifecycleConfiguration"), ["NoSuchLifecycleConfiguration"], (o) =>
                    s3.send(new GetBucketLifecycleConfigurationCommand({ Bucket: name }), o),
                  )
                : skip,
              want("s3.object_lock")
                ? ctx.optional(spec("s3.object_lock", "s3:GetObjectLockConfiguration"), ["ObjectLockConfigurationNotFoundError"], (o) =>
                    s3.send(new GetObjectLockConfigurationCommand({ Bucket: name }), o),
                  )
                : skip,
            ])
            const policyText = policy === undefined ? undefined : policy === null ? null : (policy.Policy ?? null)
            return {
              name,
              arn: `arn:${ctx.partition}:s3:::${name}`,
              region,
              createdAt: created,
              publicAccessBlock: pab === undefined ? undefined : pab === null ? null : toPab(pab.PublicAccessBlockConfiguration),
              policyText,
              policy: policyText === undefined ? undefined : policyText === null ? null : (parsePolicy(policyText) ?? null),
              acl:
                acl === undefined
                  ? undefined
                  : {
                      ownerId: acl.Owner?.ID,
                      grants: (acl.Grants ?? []).map((g) => ({
                        granteeType: g.Grantee?.Type ?? "",
                        granteeUri: g.Grantee?.URI,
                        granteeId: g.Grantee?.ID,
                        permission: g.Permission ?? "",
                      })),
                    },
              encryption:
                enc === undefined
                  ? undefined
                  : enc === null
                    ? null
                    : (enc.ServerSideEncryptionConfiguration?.Rules ?? []).map((r) => ({
                        algorithm: r.ApplyServerSideEncryptionByDefault?.SSEAlgorithm ?? "",
                        kmsKeyId: r.ApplyServerSideEncryptionByDefault?.KMSMasterKeyID,
                        bucketKeyEnabled: r.BucketKeyEnabled === true,
                      })),
              versioning: ver === undefined ? undefined : { status: ver.Status ?? null, mfaDelete: ver.MFADelete ?? null },
              logging:
                log === undefined
                  ? undefined
                  : log.LoggingEnabled?.TargetBucket === undefined
                    ? null
                    : { targetBucket: log.LoggingEnabled.TargetBucket, targetPrefix: log.LoggingEnabled.TargetPrefix ?? "" },
              ownership:
                own === undefined ? undefined : own === null ? null : (own.OwnershipControls?.Rules?.[0]?.ObjectOwnership ?? null),
              lifecycleRules: life === undefined ? undefined : life === null ? null : (life.Rules ?? []).length,
              objectLock:
                lock === undefined
                  ? undefined
                  : lock === null || lock.ObjectLockConfiguration?.ObjectLockEnabled !== "Enabled"
                    ? null
                    : { enabled: true, mode: lock.ObjectLockConfiguration.Rule?.DefaultRetention?.Mode ?? null },
            }
          })
        ).filter((b): b is S3Bucket => b !== undefined)

  const account = await accountPab
  return {
    buckets,
    accountPublicAccessBlock: account === undefined ? undefined : account === null ? null : toPab(account.PublicAccessBlockConfiguration),
  }
}
