import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { CreateBucketCommand } from "@aws-sdk/client-s3"
import { CreateAccessKeyCommand, CreateUserCommand, PutUserPolicyCommand } from "@aws-sdk/client-iam"
import { scanService, ScanSetupError } from "../../server/scanner/aws/scan-service.ts"
import { startMoto, type Moto } from "../support/moto.ts"
import { finding, scan, seedClients } from "./helpers.ts"

describe("collection errors on moto: AccessDenied, unknown keys, unknown services", () => {
  let moto: Moto
  let keys = { accessKeyId: "", secretAccessKey: "" }

  beforeAll(async () => {
    moto = await startMoto()
    const c = seedClients(moto)
    await c.get("s3", "us-east-1").send(new CreateBucketCommand({ Bucket: "audited-bucket" }))
    const iam = c.get("iam", "us-east-1")
    await iam.send(new CreateUserCommand({ UserName: "scanner" }))
    // A least-privilege role that forgot bucket policies and public access blocks. (moto authorises
    // GetBucketEncryption as s3:ListBucket, AWS as s3:GetEncryptionConfiguration: both are listed.)
    await iam.send(
      new PutUserPolicyCommand({
        UserName: "scanner",
        PolicyName: "partial-audit",
        PolicyDocument: JSON.stringify({
          Version: "2012-10-17",
          Statement: [{ Effect: "Allow", Action: ["s3:ListAllMyBuckets", "s3:GetBucketLocation", "s3:GetBucketAcl", "s3:GetEncryptionConfiguration", "s3:ListBucket", "sts:GetCallerIdentity"], Resource: "*" }],
        }),
      }),
    )
    const key = await iam.send(new CreateAccessKeyCommand({ UserName: "scanner" }))
    keys = { accessKeyId: key.AccessKey?.AccessKeyId ?? "", secretAccessKey: key.AccessKey?.SecretAccessKey ?? "" }
    c.destroy()
  })
  afterAll(async () => {
    await moto?.enforceAuth(false).catch(() => undefined)
    await moto?.stop()
  })

  it("records AccessDenied per input and reports the affected checks as errors, without failing the scan", async () => {
    await moto.enforceAuth(true)
    try {
      const result = await scan(moto, "s3", { credentials: keys, checkIds: ["s3_bucket_default_encryption", "s3_bucket_secure_transport_policy", "s3_account_level_public_access_blocks"] })
      expect(result.resourcesScanned).toBe(1)
      // encryption was readable: a real (failing) row
      const enc = finding(result, "s3_bucket_default_encryption")
      expect(enc.status).toBe("fail")
      expect(enc.errors).toEqual([])
      // bucket policy was not: no row, status error with the reason
      const tls = finding(result, "s3_bucket_secure_transport_policy")
      expect(tls.status).toBe("error")
      expect(tls.details).toEqual([])
      expect(tls.errors).toEqual([
        expect.objectContaining({ kind: "access_denied", operation: "s3:GetBucketPolicy", resourceId: "audited-bucket", resourceType: "s3.policy" }),
      ])
      expect(tls.errors[0]?.code).toBe("AccessDenied")
      expect(finding(result, "s3_account_level_public_access_blocks").status).toBe("error")
      // only the inputs the selected checks read were requested
      expect(Object.keys(result.apiCallsByOperation).some((k) => k.includes("GetBucketVersioning"))).toBe(false)
    } finally {
      await moto.enforceAuth(false)
    }
  })

  it("rejects unusable credentials with ScanSetupError(invalid_credentials)", async () => {
    await moto.enforceAuth(true)
    try {
      const error = await scan(moto, "s3", { credentials: { accessKeyId: "AKIAUNKNOWN000000000", secretAccessKey: "nope" } }).then(
        () => undefined,
        (e: unknown) => e,
      )
      expect(error).toBeInstanceOf(ScanSetupError)
      expect((error as ScanSetupError).reason).toBe("invalid_credentials")
    } finally {
      await moto.enforceAuth(false)
    }
  })

  it("rejects unknown services and malformed regions before calling AWS", async () => {
    await expect(scanService({ credentials: keys, service: "mainframe", endpoint: moto.endpoint })).rejects.toMatchObject({ reason: "unknown_service" })
    await expect(scanService({ credentials: keys, service: "s3", regions: ["mars-1"], endpoint: moto.endpoint })).rejects.toMatchObject({ reason: "invalid_input" })
  })

  it("discovers enabled regions with DescribeRegions when none are given", async () => {
    const result = await scanService({ credentials: keys, service: "guardduty", endpoint: moto.endpoint, maxAttempts: 1, concurrency: 16 })
    expect(result.regions.length).toBeGreaterThan(15)
    expect(result.regions).toContain("eu-west-1")
    expect(finding(result, "guardduty_is_enabled").details).toHaveLength(result.regions.length)
  })

  it("global services (IAM, S3, Account) skip region discovery", async () => {
    const result = await scanService({ credentials: keys, service: "account", endpoint: moto.endpoint, maxAttempts: 1, checkIds: ["account_security_contact_information_is_registered"] })
    expect(result.regions).toEqual(["us-east-1"])
    expect(Object.keys(result.apiCallsByOperation).some((k) => k.includes("DescribeRegions"))).toBe(false)
  })

  it("an aborted scan rejects instead of reporting partial results", async () => {
    const controller = new AbortController()
    const pending = scanService({ credentials: keys, service: "ec2", endpoint: moto.endpoint, regions: ["us-east-1", "eu-west-1"], maxAttempts: 1, signal: controller.signal })
    setTimeout(() => controller.abort(new Error("job cancelled")), 5)
    await expect(pending).rejects.toThrow()
  })
})
