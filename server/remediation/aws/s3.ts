/** S3 fixers: public access blocks (bucket and account), default encryption, versioning, TLS-only bucket policy. */
import {
  GetBucketPolicyCommand,
  PutBucketEncryptionCommand,
  PutBucketPolicyCommand,
  PutBucketVersioningCommand,
  PutPublicAccessBlockCommand,
} from "@aws-sdk/client-s3"
import { PutPublicAccessBlockCommand as PutAccountPublicAccessBlockCommand } from "@aws-sdk/client-s3-control"
import { errorCode } from "../../scanner/aws/errors.ts"
import { sendOptions, type Fixer } from "./fixer.ts"

const allBlocked = { BlockPublicAcls: true, IgnorePublicAcls: true, BlockPublicPolicy: true, RestrictPublicBuckets: true }

export const s3Fixers: ReadonlyArray<Fixer> = [
  {
    checkIds: ["s3_bucket_level_public_access_block", "s3_bucket_public_read_access", "s3_bucket_public_write_access"],
    description: "Enables all four Block Public Access settings on the bucket.",
    cutsAccess: "Anonymous and cross-account access granted through public ACLs or a public bucket policy stops working.",
    apply: async (ctx, row) => {
      await ctx.clients.get("s3", ctx.region).send(new PutPublicAccessBlockCommand({ Bucket: row.resource_id, PublicAccessBlockConfiguration: allBlocked }), sendOptions(ctx))
      return `Blocked all public access on bucket ${row.resource_id}.`
    },
  },
  {
    checkIds: ["s3_account_level_public_access_blocks"],
    description: "Enables all four Block Public Access settings for the whole account.",
    cutsAccess: "Every bucket in the account stops serving public ACL/policy grants, including intentionally public websites.",
    apply: async (ctx) => {
      await ctx.clients
        .get("s3control", ctx.clients.homeRegion)
        .send(new PutAccountPublicAccessBlockCommand({ AccountId: ctx.accountId, PublicAccessBlockConfiguration: allBlocked }), sendOptions(ctx))
      return `Blocked public access for account ${ctx.accountId}.`
    },
  },
  {
    checkIds: ["s3_bucket_default_encryption", "s3_bucket_kms_encryption"],
    description: "Sets default encryption to SSE-KMS with the AWS managed key aws/s3 and an S3 Bucket Key.",
    apply: async (ctx, row) => {
      await ctx.clients.get("s3", ctx.region).send(
        new PutBucketEncryptionCommand({
          Bucket: row.resource_id,
          ServerSideEncryptionConfiguration: { Rules: [{ ApplyServerSideEncryptionByDefault: { SSEAlgorithm: "aws:kms", KMSMasterKeyID: "alias/aws/s3" }, BucketKeyEnabled: true }] },
        }),
        sendOptions(ctx),
      )
      return `Bucket ${row.resource_id} now encrypts new objects with SSE-KMS (aws/s3).`
    },
  },
  {
    checkIds: ["s3_bucket_versioning_enabled"],
    description: "Enables versioning on the bucket.",
    apply: async (ctx, row) => {
      await ctx.clients.get("s3", ctx.region).send(new PutBucketVersioningCommand({ Bucket: row.resource_id, VersioningConfiguration: { Status: "Enabled" } }), sendOptions(ctx))
      return `Enabled versioning on bucket ${row.resource_id}.`
    },
  },
  {
    checkIds: ["s3_bucket_secure_transport_policy"],
    description: "Adds a statement denying every request made without TLS (aws:SecureTransport false) to the bucket policy, keeping the existing statements.",
    cutsAccess: "Clients that still use plain HTTP endpoints are rejected.",
    apply: async (ctx, row) => {
      const s3 = ctx.clients.get("s3", ctx.region)
      const bucket = row.resource_id
      let current: { Version?: string; Statement?: unknown } = {}
      try {
        const out = await s3.send(new GetBucketPolicyCommand({ Bucket: bucket }), sendOptions(ctx))
        current = JSON.parse(out.Policy ?? "{}") as typeof current
      } catch (error) {
        if (errorCode(error) !== "NoSuchBucketPolicy") throw error
      }
      const statements = current.Statement === undefined ? [] : Array.isArray(current.Statement) ? current.Statement : [current.Statement]
      const arn = `arn:${ctx.partition}:s3:::${bucket}`
      const policy = {
        Version: current.Version ?? "2012-10-17",
        Statement: [
          ...statements,
          { Sid: "DenyInsecureTransport", Effect: "Deny", Principal: "*", Action: "s3:*", Resource: [arn, `${arn}/*`], Condition: { Bool: { "aws:SecureTransport": "false" } } },
        ],
      }
      await s3.send(new PutBucketPolicyCommand({ Bucket: bucket, Policy: JSON.stringify(policy) }), sendOptions(ctx))
      return `Bucket ${bucket} now denies requests without TLS.`
    },
  },
]
