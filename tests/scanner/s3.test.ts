import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  CreateBucketCommand,
  PutBucketAclCommand,
  PutBucketEncryptionCommand,
  PutBucketLifecycleConfigurationCommand,
  PutBucketLoggingCommand,
  PutBucketOwnershipControlsCommand,
  PutBucketPolicyCommand,
  PutBucketVersioningCommand,
  PutPublicAccessBlockCommand,
} from "@aws-sdk/client-s3"
import { PutPublicAccessBlockCommand as PutAccountPublicAccessBlockCommand } from "@aws-sdk/client-s3-control"
import type { AwsClients } from "../../server/scanner/aws/clients.ts"
import type { ScanServiceResult } from "../../server/scanner/aws/scan-service.ts"
import { startMoto, type Moto } from "../support/moto.ts"
import { expectCases, expectStatus, finding, OTHER_ACCOUNT, otherAccountKeys, rowFor, scan, seedClients } from "./helpers.ts"

// moto's canned "public-read-write" only grants READ, so the grants are spelled out.
const ALL_USERS = "http://acs.amazonaws.com/groups/global/AllUsers"
const LOG_DELIVERY = "http://acs.amazonaws.com/groups/s3/LogDelivery"
const allBlocked = { BlockPublicAcls: true, IgnorePublicAcls: true, BlockPublicPolicy: true, RestrictPublicBuckets: true }
const tlsOnly = (bucket: string) =>
  JSON.stringify({
    Version: "2012-10-17",
    Statement: [
      {
        Sid: "DenyHttp",
        Effect: "Deny",
        Principal: "*",
        Action: "s3:*",
        Resource: [`arn:aws:s3:::${bucket}`, `arn:aws:s3:::${bucket}/*`],
        Condition: { Bool: { "aws:SecureTransport": "false" } },
      },
    ],
  })
const publicPolicy = (bucket: string, action: string) =>
  JSON.stringify({
    Version: "2012-10-17",
    Statement: [{ Effect: "Allow", Principal: "*", Action: action, Resource: `arn:aws:s3:::${bucket}/*` }],
  })

async function createBucket(c: AwsClients, name: string, region: string, options: { readonly logTarget?: boolean; readonly objectLock?: boolean } = {}) {
  await c.get("s3", region).send(
    new CreateBucketCommand({
      Bucket: name,
      ...(region === "us-east-1" ? {} : { CreateBucketConfiguration: { LocationConstraint: region as "eu-west-1" } }),
      ...(options.objectLock === true ? { ObjectLockEnabledForBucket: true } : {}),
    }),
  )
  if (options.logTarget === true) await c.get("s3", region).send(new PutBucketAclCommand({ Bucket: name, GrantWrite: `uri="${LOG_DELIVERY}"`, GrantReadACP: `uri="${LOG_DELIVERY}"` }))
}

/** A bucket with every S3 control in place. */
async function hardenBucket(c: AwsClients, name: string, region: string, logTarget: string) {
  const s3 = c.get("s3", region)
  await createBucket(c, name, region, { objectLock: true })
  await s3.send(new PutPublicAccessBlockCommand({ Bucket: name, PublicAccessBlockConfiguration: allBlocked }))
  await s3.send(new PutBucketPolicyCommand({ Bucket: name, Policy: tlsOnly(name) }))
  await s3.send(
    new PutBucketEncryptionCommand({
      Bucket: name,
      ServerSideEncryptionConfiguration: { Rules: [{ ApplyServerSideEncryptionByDefault: { SSEAlgorithm: "aws:kms", KMSMasterKeyID: "alias/aws/s3" }, BucketKeyEnabled: true }] },
    }),
  )
  await s3.send(new PutBucketVersioningCommand({ Bucket: name, VersioningConfiguration: { Status: "Enabled" } }))
  await s3.send(new PutBucketLoggingCommand({ Bucket: name, BucketLoggingStatus: { LoggingEnabled: { TargetBucket: logTarget, TargetPrefix: `${name}/` } } }))
  await s3.send(new PutBucketOwnershipControlsCommand({ Bucket: name, OwnershipControls: { Rules: [{ ObjectOwnership: "BucketOwnerEnforced" }] } }))
  await s3.send(
    new PutBucketLifecycleConfigurationCommand({
      Bucket: name,
      LifecycleConfiguration: { Rules: [{ ID: "expire-old", Status: "Enabled", Filter: { Prefix: "" }, NoncurrentVersionExpiration: { NoncurrentDays: 90 } }] },
    }),
  )
}

describe("S3 checks on moto", () => {
  let moto: Moto
  let mixed: ScanServiceResult
  let hardened: ScanServiceResult

  beforeAll(async () => {
    moto = await startMoto()
    // Account 123456789012: insecure buckets, no account-level block.
    const a = seedClients(moto)
    await createBucket(a, "logs-a", "eu-west-1", { logTarget: true })
    await hardenBucket(a, "safe-a", "eu-west-1", "logs-a")
    await createBucket(a, "open-read", "us-east-1")
    await a.get("s3", "us-east-1").send(new PutBucketPolicyCommand({ Bucket: "open-read", Policy: publicPolicy("open-read", "s3:GetObject") }))
    await createBucket(a, "open-acl", "us-east-1")
    await a.get("s3", "us-east-1").send(new PutBucketAclCommand({ Bucket: "open-acl", GrantRead: `uri="${ALL_USERS}"`, GrantWrite: `uri="${ALL_USERS}"` }))
    await createBucket(a, "open-write", "eu-west-1")
    await a.get("s3", "eu-west-1").send(new PutBucketPolicyCommand({ Bucket: "open-write", Policy: publicPolicy("open-write", "s3:PutObject") }))
    // Public policy neutralised by the bucket's RestrictPublicBuckets.
    await createBucket(a, "restricted", "us-east-1")
    await a.get("s3", "us-east-1").send(new PutBucketPolicyCommand({ Bucket: "restricted", Policy: publicPolicy("restricted", "s3:*") }))
    await a.get("s3", "us-east-1").send(
      new PutPublicAccessBlockCommand({ Bucket: "restricted", PublicAccessBlockConfiguration: { ...allBlocked, BlockPublicAcls: false } }),
    )
    a.destroy()

    // Account 111122223333 (reached by AssumeRole with an external id): every control in place.
    const b = seedClients(moto, otherAccountKeys)
    await createBucket(b, "logs-b", "us-east-1", { logTarget: true })
    await hardenBucket(b, "logs-b-hardened", "us-east-1", "logs-b")
    await b.get("s3control", "us-east-1").send(new PutAccountPublicAccessBlockCommand({ AccountId: OTHER_ACCOUNT, PublicAccessBlockConfiguration: allBlocked }))
    b.destroy()

    mixed = await scan(moto, "s3")
    hardened = await scan(moto, "s3", {
      credentials: otherAccountKeys,
      // moto never stores MFADelete (moto.md §2): answer GetBucketVersioning as AWS does for an MFA-protected bucket.
      stub: ({ command }) => (command === "GetBucketVersioningCommand" ? { Status: "Enabled", MFADelete: "Enabled" } : undefined),
    })
  })
  afterAll(async () => {
    await moto?.stop()
  })

  it("scans the assumed-role account separately", () => {
    expect(mixed.accountId).toBe("123456789012")
    expect(hardened.accountId).toBe(OTHER_ACCOUNT)
    expect(mixed.resourcesScanned).toBe(6)
    expect(mixed.apiCalls).toBeGreaterThan(6)
    expect(mixed.errors).toEqual([])
  })

  it("s3_bucket_secure_transport_policy", () => {
    expectCases(mixed, "s3_bucket_secure_transport_policy", { compliant: ["safe-a"], nonCompliant: ["open-read", "logs-a"] })
    expect(rowFor(mixed, "s3_bucket_secure_transport_policy", "logs-a").has_policy).toBe(false)
  })

  it("s3_bucket_level_public_access_block", () => {
    expectCases(mixed, "s3_bucket_level_public_access_block", { compliant: ["safe-a"], nonCompliant: ["open-read", "restricted"] })
    expect(rowFor(mixed, "s3_bucket_level_public_access_block", "restricted").reason).toContain("BlockPublicAcls")
  })

  it("s3_account_level_public_access_blocks", () => {
    expectCases(mixed, "s3_account_level_public_access_blocks", { nonCompliant: ["123456789012"] })
    expectCases(hardened, "s3_account_level_public_access_blocks", { compliant: [OTHER_ACCOUNT] })
  })

  it("s3_bucket_public_read_access and s3_bucket_public_write_access", () => {
    expectCases(mixed, "s3_bucket_public_read_access", { compliant: ["safe-a", "restricted", "open-write"], nonCompliant: ["open-read", "open-acl"] })
    expect(rowFor(mixed, "s3_bucket_public_read_access", "restricted").neutralised_by).toEqual(["RestrictPublicBuckets"])
    expect(rowFor(mixed, "s3_bucket_public_read_access", "open-acl").public_acl_grants).toContain("AllUsers:READ")
    expectCases(mixed, "s3_bucket_public_write_access", { compliant: ["safe-a", "open-read", "restricted"], nonCompliant: ["open-write", "open-acl"] })
  })

  it("s3_bucket_default_encryption and s3_bucket_kms_encryption", () => {
    expectCases(mixed, "s3_bucket_default_encryption", { compliant: ["safe-a"], nonCompliant: ["open-read"] })
    expectCases(mixed, "s3_bucket_kms_encryption", { compliant: ["safe-a"], nonCompliant: ["open-read"] })
  })

  it("s3_bucket_versioning_enabled, s3_bucket_server_access_logging_enabled, s3_bucket_acl_prohibited, s3_bucket_lifecycle_configured", () => {
    for (const id of ["s3_bucket_versioning_enabled", "s3_bucket_server_access_logging_enabled", "s3_bucket_acl_prohibited", "s3_bucket_lifecycle_configured"]) {
      expectCases(mixed, id, { compliant: ["safe-a"], nonCompliant: ["open-write"] })
    }
    expect(rowFor(mixed, "s3_bucket_server_access_logging_enabled", "safe-a").target_bucket).toBe("logs-a")
  })

  it("s3_bucket_no_mfa_delete (moto does not store MFADelete: compliant case via stub)", () => {
    expectCases(mixed, "s3_bucket_no_mfa_delete", { nonCompliant: ["safe-a"] })
    expectCases(hardened, "s3_bucket_no_mfa_delete", { compliant: ["logs-b-hardened"] })
  })

  it("a hardened account passes the bucket-level checks of its hardened bucket", () => {
    for (const f of hardened.findings) {
      const r = f.details.find((d) => d.resource_id === "logs-b-hardened")
      if (r !== undefined) expect(r.compliant, `${f.check_id}: ${r.reason}`).toBe(true)
    }
    expectStatus(hardened, "s3_account_level_public_access_blocks", "pass")
    expectStatus(hardened, "s3_bucket_public_read_access", "pass")
    expect(finding(hardened, "s3_bucket_level_public_access_block").details).toHaveLength(2)
  })
})
