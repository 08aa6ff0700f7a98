/**
 * S3 fixers (plan vocabulary, ./fixer.ts): public access blocks (bucket and account), default encryption, versioning,
 * TLS-only bucket policy. Each reads the setting it changes (the pre-image) and undoes by writing it back (or deleting
 * the setting when there was none).
 */
import { GetBucketAclCommand, GetBucketPolicyCommand, ListBucketsCommand } from "@aws-sdk/client-s3"
import { awsCall, FixError, isAbsent, nested, registerTerraform, sendOptions, tfBlock, tfName, type AwsPlanFixer, type FixContext } from "./fixer.ts"
import { toJson, type Json } from "../plan.ts"

const allBlocked = { BlockPublicAcls: true, IgnorePublicAcls: true, BlockPublicPolicy: true, RestrictPublicBuckets: true }

const ALL_USERS = "http://acs.amazonaws.com/groups/global/AllUsers"
const AUTH_USERS = "http://acs.amazonaws.com/groups/global/AuthenticatedUsers"

interface PolicyDoc {
  readonly Version?: string
  readonly Statement?: unknown
}

const statementsOf = (policy: PolicyDoc | null): ReadonlyArray<Record<string, unknown>> =>
  policy?.Statement === undefined ? [] : ((Array.isArray(policy.Statement) ? policy.Statement : [policy.Statement]) as ReadonlyArray<Record<string, unknown>>)

const readPolicy = async (ctx: FixContext, bucket: string): Promise<PolicyDoc | null> => {
  try {
    const out = await ctx.clients.get("s3", ctx.region).send(new GetBucketPolicyCommand({ Bucket: bucket }), sendOptions(ctx))
    return out.Policy === undefined ? null : (JSON.parse(out.Policy) as PolicyDoc)
  } catch (error) {
    if (isAbsent(error, "NoSuchBucketPolicy")) return null
    throw error
  }
}

const isPublicPrincipal = (p: unknown): boolean =>
  p === "*" || (typeof p === "object" && p !== null && [(p as { AWS?: unknown }).AWS].flat().includes("*"))

const describeStatement = (s: Record<string, unknown>, i: number) =>
  `${typeof s["Sid"] === "string" ? `"${s["Sid"]}"` : `#${i + 1}`} (${String(s["Effect"])} ${[s["Action"]].flat().join(", ")})`

/** What blocking public access takes away on this bucket: the public policy statements and ACL grants. */
const publicGrantsOf = async (ctx: FixContext, bucket: string): Promise<string[]> => {
  const effects: string[] = []
  const policy = await readPolicy(ctx, bucket)
  statementsOf(policy).forEach((s, i) => {
    if (s["Effect"] === "Allow" && isPublicPrincipal(s["Principal"])) effects.push(`The bucket policy statement ${describeStatement(s, i)} granted to everyone stops applying.`)
  })
  const acl = await ctx.clients.get("s3", ctx.region).send(new GetBucketAclCommand({ Bucket: bucket }), sendOptions(ctx))
  for (const g of acl.Grants ?? []) {
    const uri = g.Grantee?.URI
    if (uri === ALL_USERS || uri === AUTH_USERS) effects.push(`The ACL grant ${g.Permission ?? ""} to ${uri === ALL_USERS ? "everyone (AllUsers)" : "any AWS account (AuthenticatedUsers)"} is ignored.`)
  }
  return effects
}

const bucketPab = (state: Json) => (state as { PublicAccessBlockConfiguration: Json | null }).PublicAccessBlockConfiguration

export const s3Fixers: ReadonlyArray<AwsPlanFixer> = [
  {
    checkIds: ["s3_bucket_level_public_access_block", "s3_bucket_public_read_access", "s3_bucket_public_write_access"],
    description: "Enables all four Block Public Access settings on the bucket.",
    cutsAccess: "Anonymous and cross-account access granted through public ACLs or a public bucket policy stops working.",
    read: async (ctx, row) => {
      try {
        const out = await ctx.clients.get("s3", ctx.region).send(new (await import("@aws-sdk/client-s3")).GetPublicAccessBlockCommand({ Bucket: row.resource_id }), sendOptions(ctx))
        return toJson({ PublicAccessBlockConfiguration: out.PublicAccessBlockConfiguration ?? null })
      } catch (error) {
        if (isAbsent(error, "NoSuchPublicAccessBlockConfiguration")) return { PublicAccessBlockConfiguration: null }
        throw error
      }
    },
    plan: async (ctx, row, state) => {
      const bucket = row.resource_id
      const previous = bucketPab(state)
      return {
        calls: [awsCall("s3", "PutPublicAccessBlock", ctx.region, { Bucket: bucket, PublicAccessBlockConfiguration: allBlocked }, { action: "s3:PutBucketPublicAccessBlock" })],
        effects: await publicGrantsOf(ctx, bucket),
        summary: `Blocked all public access on bucket ${bucket}.`,
        undo: {
          reversible: true,
          calls: [
            previous === null
              ? awsCall("s3", "DeletePublicAccessBlock", ctx.region, { Bucket: bucket }, { action: "s3:PutBucketPublicAccessBlock" })
              : awsCall("s3", "PutPublicAccessBlock", ctx.region, { Bucket: bucket, PublicAccessBlockConfiguration: previous }, { action: "s3:PutBucketPublicAccessBlock" }),
          ],
        },
      }
    },
  },
  {
    checkIds: ["s3_account_level_public_access_blocks"],
    description: "Enables all four Block Public Access settings for the whole account.",
    cutsAccess: "Every bucket in the account stops serving public ACL/policy grants, including intentionally public websites.",
    read: async (ctx) => {
      try {
        const { GetPublicAccessBlockCommand } = await import("@aws-sdk/client-s3-control")
        const out = await ctx.clients.get("s3control", ctx.clients.homeRegion).send(new GetPublicAccessBlockCommand({ AccountId: ctx.accountId }), sendOptions(ctx))
        return toJson({ PublicAccessBlockConfiguration: out.PublicAccessBlockConfiguration ?? null })
      } catch (error) {
        if (isAbsent(error, "NoSuchPublicAccessBlockConfiguration")) return { PublicAccessBlockConfiguration: null }
        throw error
      }
    },
    plan: async (ctx, _row, state) => {
      const home = ctx.clients.homeRegion
      const previous = bucketPab(state)
      const buckets = (await ctx.clients.get("s3", home).send(new ListBucketsCommand({}), sendOptions(ctx))).Buckets ?? []
      return {
        calls: [awsCall("s3control", "PutPublicAccessBlock", home, { AccountId: ctx.accountId, PublicAccessBlockConfiguration: allBlocked }, { action: "s3:PutAccountPublicAccessBlock" })],
        effects: [`Applies to every bucket of account ${ctx.accountId} (${buckets.length} now${buckets.length === 0 ? "" : `: ${buckets.slice(0, 10).map((b) => b.Name).join(", ")}${buckets.length > 10 ? ", …" : ""}`}) and every bucket created later.`],
        summary: `Blocked public access for account ${ctx.accountId}.`,
        undo: {
          reversible: true,
          calls: [
            previous === null
              ? awsCall("s3control", "DeletePublicAccessBlock", home, { AccountId: ctx.accountId }, { action: "s3:PutAccountPublicAccessBlock" })
              : awsCall("s3control", "PutPublicAccessBlock", home, { AccountId: ctx.accountId, PublicAccessBlockConfiguration: previous }, { action: "s3:PutAccountPublicAccessBlock" }),
          ],
        },
      }
    },
  },
  {
    checkIds: ["s3_bucket_default_encryption", "s3_bucket_kms_encryption"],
    description: "Sets default encryption to SSE-KMS with the AWS managed key aws/s3 and an S3 Bucket Key.",
    read: async (ctx, row) => {
      try {
        const { GetBucketEncryptionCommand } = await import("@aws-sdk/client-s3")
        const out = await ctx.clients.get("s3", ctx.region).send(new GetBucketEncryptionCommand({ Bucket: row.resource_id }), sendOptions(ctx))
        return toJson({ ServerSideEncryptionConfiguration: out.ServerSideEncryptionConfiguration ?? null })
      } catch (error) {
        if (isAbsent(error, "ServerSideEncryptionConfigurationNotFoundError")) return { ServerSideEncryptionConfiguration: null }
        throw error
      }
    },
    plan: (ctx, row, state) => {
      const previous = (state as { ServerSideEncryptionConfiguration: Json | null }).ServerSideEncryptionConfiguration
      return {
        calls: [
          awsCall(
            "s3",
            "PutBucketEncryption",
            ctx.region,
            { Bucket: row.resource_id, ServerSideEncryptionConfiguration: { Rules: [{ ApplyServerSideEncryptionByDefault: { SSEAlgorithm: "aws:kms", KMSMasterKeyID: "alias/aws/s3" }, BucketKeyEnabled: true }] } },
            { action: "s3:PutEncryptionConfiguration" },
          ),
        ],
        effects: ["Only objects written from now on are encrypted with SSE-KMS; existing objects keep their encryption.", "Readers of new objects need kms:Decrypt on the aws/s3 key (principals of this account have it)."],
        summary: `Bucket ${row.resource_id} now encrypts new objects with SSE-KMS (aws/s3).`,
        undo: {
          reversible: true,
          ...(previous === null ? {} : {}),
          note: "Objects written while SSE-KMS was the default stay encrypted with SSE-KMS after the undo.",
          calls: [
            previous === null
              ? awsCall("s3", "DeleteBucketEncryption", ctx.region, { Bucket: row.resource_id }, { action: "s3:PutEncryptionConfiguration" })
              : awsCall("s3", "PutBucketEncryption", ctx.region, { Bucket: row.resource_id, ServerSideEncryptionConfiguration: previous }, { action: "s3:PutEncryptionConfiguration" }),
          ],
        },
      }
    },
  },
  {
    checkIds: ["s3_bucket_versioning_enabled"],
    description: "Enables versioning on the bucket.",
    read: async (ctx, row) => {
      const { GetBucketVersioningCommand } = await import("@aws-sdk/client-s3")
      const out = await ctx.clients.get("s3", ctx.region).send(new GetBucketVersioningCommand({ Bucket: row.resource_id }), sendOptions(ctx))
      return { Status: out.Status ?? null }
    },
    plan: (ctx, row, state) => {
      const previous = (state as { Status: string | null }).Status
      return {
        calls: [awsCall("s3", "PutBucketVersioning", ctx.region, { Bucket: row.resource_id, VersioningConfiguration: { Status: "Enabled" } })],
        effects: ["Overwritten and deleted objects are kept as noncurrent versions (billed as storage until a lifecycle rule expires them)."],
        summary: `Enabled versioning on bucket ${row.resource_id}.`,
        undo:
          previous === "Suspended"
            ? { reversible: true, calls: [awsCall("s3", "PutBucketVersioning", ctx.region, { Bucket: row.resource_id, VersioningConfiguration: { Status: "Suspended" } })], note: "Versions created while versioning was on are kept." }
            : { reversible: false, reason: "A bucket that has had versioning enabled can never return to unversioned; it can only be suspended." },
      }
    },
  },
  {
    checkIds: ["s3_bucket_secure_transport_policy"],
    description: "Adds a statement denying every request made without TLS (aws:SecureTransport false) to the bucket policy, keeping the existing statements.",
    cutsAccess: "Clients that still use plain HTTP endpoints are rejected.",
    read: async (ctx, row) => ({ Policy: toJson(await readPolicy(ctx, row.resource_id)) }),
    plan: (ctx, row, state) => {
      const bucket = row.resource_id
      const current = (state as { Policy: PolicyDoc | null }).Policy
      const statements = statementsOf(current)
      const arn = `arn:${ctx.partition}:s3:::${bucket}`
      const policy = {
        Version: current?.Version ?? "2012-10-17",
        Statement: [
          ...statements,
          { Sid: "DenyInsecureTransport", Effect: "Deny", Principal: "*", Action: "s3:*", Resource: [arn, `${arn}/*`], Condition: { Bool: { "aws:SecureTransport": "false" } } },
        ],
      }
      if (statements.some((s) => s["Sid"] === "DenyInsecureTransport")) throw new FixError(`The policy of ${bucket} already has a statement DenyInsecureTransport that does not deny plain HTTP`)
      return {
        calls: [awsCall("s3", "PutBucketPolicy", ctx.region, { Bucket: bucket, Policy: JSON.stringify(policy) })],
        effects: [
          statements.length === 0 ? "The bucket had no policy: the new policy has this one statement." : `The ${statements.length} existing statement(s) of the bucket policy are kept unchanged.`,
          "Requests over plain HTTP (aws:SecureTransport false) are denied for every principal, this account's included.",
        ],
        summary: `Bucket ${bucket} now denies requests without TLS.`,
        undo: {
          reversible: true,
          calls: [current === null ? awsCall("s3", "DeleteBucketPolicy", ctx.region, { Bucket: bucket }) : awsCall("s3", "PutBucketPolicy", ctx.region, { Bucket: bucket, Policy: JSON.stringify(current) })],
        },
      }
    },
  },
]

// Terraform: the resource that holds each call's end state.
const pabBody = (c: Record<string, unknown>) =>
  [
    ["block_public_acls", c["BlockPublicAcls"]],
    ["block_public_policy", c["BlockPublicPolicy"]],
    ["ignore_public_acls", c["IgnorePublicAcls"]],
    ["restrict_public_buckets", c["RestrictPublicBuckets"]],
  ] as const
registerTerraform("s3", "PutPublicAccessBlock", (call) => {
  const bucket = String(call.params["Bucket"])
  return tfBlock("resource", "aws_s3_bucket_public_access_block", tfName(bucket), [["bucket", bucket], ...pabBody(call.params["PublicAccessBlockConfiguration"] as Record<string, unknown>)])
})
registerTerraform("s3control", "PutPublicAccessBlock", (call) =>
  tfBlock("resource", "aws_s3_account_public_access_block", "this", [["account_id", String(call.params["AccountId"])], ...pabBody(call.params["PublicAccessBlockConfiguration"] as Record<string, unknown>)]),
)
registerTerraform("s3", "PutBucketEncryption", (call) => {
  const bucket = String(call.params["Bucket"])
  const rule = ((call.params["ServerSideEncryptionConfiguration"] as { Rules: Array<Record<string, unknown>> }).Rules[0] ?? {}) as {
    ApplyServerSideEncryptionByDefault?: { SSEAlgorithm?: string; KMSMasterKeyID?: string }
    BucketKeyEnabled?: boolean
  }
  const def = rule.ApplyServerSideEncryptionByDefault ?? {}
  return tfBlock("resource", "aws_s3_bucket_server_side_encryption_configuration", tfName(bucket), [
    ["bucket", bucket],
    [
      "rule",
      nested([
        ["apply_server_side_encryption_by_default", nested([["sse_algorithm", def.SSEAlgorithm ?? ""], ...(def.KMSMasterKeyID === undefined ? [] : [["kms_master_key_id", def.KMSMasterKeyID] as const])])],
        ...(rule.BucketKeyEnabled === undefined ? [] : [["bucket_key_enabled", rule.BucketKeyEnabled] as const]),
      ]),
    ],
  ])
})
registerTerraform("s3", "PutBucketVersioning", (call) => {
  const bucket = String(call.params["Bucket"])
  return tfBlock("resource", "aws_s3_bucket_versioning", tfName(bucket), [["bucket", bucket], ["versioning_configuration", nested([["status", (call.params["VersioningConfiguration"] as { Status: string }).Status]])]])
})
registerTerraform("s3", "PutBucketPolicy", (call) => {
  const bucket = String(call.params["Bucket"])
  return tfBlock("resource", "aws_s3_bucket_policy", tfName(bucket), [["bucket", bucket], ["policy", JSON.stringify(JSON.parse(String(call.params["Policy"])), null, 2)]])
})
