/** Fixers for S3, EC2/VPC, IAM, CloudTrail, KMS, GuardDuty and Security Hub on moto: fail -> fix -> re-collect -> pass. */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { CreateBucketCommand, GetBucketPolicyCommand, PutBucketPolicyCommand } from "@aws-sdk/client-s3"
import {
  AuthorizeSecurityGroupIngressCommand,
  CreateImageCommand,
  CreateSecurityGroupCommand,
  CreateSnapshotCommand,
  CreateVolumeCommand,
  CreateVpcCommand,
  DescribeSecurityGroupsCommand,
  ModifyImageAttributeCommand,
  ModifySnapshotAttributeCommand,
  RunInstancesCommand,
} from "@aws-sdk/client-ec2"
import { CreateAccessKeyCommand, CreateLoginProfileCommand, CreateUserCommand } from "@aws-sdk/client-iam"
import { CreateTrailCommand } from "@aws-sdk/client-cloudtrail"
import { CreateKeyCommand } from "@aws-sdk/client-kms"
import { remediateFinding, remediableChecks } from "../../server/remediation/aws/remediate.ts"
import { startMoto, type Moto } from "../support/moto.ts"
import { ACCOUNT, expectFixed, OTHER_ACCOUNT, otherAccountKeys, rowFor, scan, seedClients, testKeys } from "./helpers.ts"

const DAY = 86_400_000
const E = "us-east-1"

describe("infrastructure fixers on moto", () => {
  let moto: Moto
  const ids: Record<string, string> = {}
  const id = (k: string) => ids[k] ?? ""

  beforeAll(async () => {
    moto = await startMoto()
    const c = seedClients(moto)
    const s3 = c.get("s3", E)
    for (const b of ["fix-pab", "fix-enc", "fix-kms", "fix-ver", "fix-tls", "fix-read", "fix-write"]) await s3.send(new CreateBucketCommand({ Bucket: b }))
    for (const [bucket, action] of [["fix-read", "s3:GetObject"], ["fix-write", "s3:PutObject"]] as const) {
      await s3.send(
        new PutBucketPolicyCommand({
          Bucket: bucket,
          Policy: JSON.stringify({ Version: "2012-10-17", Statement: [{ Effect: "Allow", Principal: "*", Action: action, Resource: `arn:aws:s3:::${bucket}/*` }] }),
        }),
      )
    }
    await s3.send(
      new PutBucketPolicyCommand({
        Bucket: "fix-tls",
        Policy: JSON.stringify({ Version: "2012-10-17", Statement: [{ Sid: "Partner", Effect: "Allow", Principal: { AWS: `arn:aws:iam::${OTHER_ACCOUNT}:root` }, Action: "s3:GetObject", Resource: "arn:aws:s3:::fix-tls/*" }] }),
      }),
    )

    const ec2 = c.get("ec2", E)
    const vpc = await ec2.send(new CreateVpcCommand({ CidrBlock: "10.30.0.0/16" }))
    ids.vpc = vpc.Vpc?.VpcId ?? ""
    const sg = async (name: string, perms: Array<{ p: string; f: number; t: number; v4?: string; v6?: string }>) => {
      const g = await ec2.send(new CreateSecurityGroupCommand({ GroupName: name, Description: name, VpcId: ids.vpc }))
      await ec2.send(
        new AuthorizeSecurityGroupIngressCommand({
          GroupId: g.GroupId,
          IpPermissions: perms.map((x) => ({
            IpProtocol: x.p,
            FromPort: x.f,
            ToPort: x.t,
            ...(x.v4 === undefined ? {} : { IpRanges: [{ CidrIp: x.v4 }] }),
            ...(x.v6 === undefined ? {} : { Ipv6Ranges: [{ CidrIpv6: x.v6 }] }),
          })),
        }),
      )
      return g.GroupId ?? ""
    }
    // SSH from the internet and from the office: only the internet range must go.
    ids.ssh = await sg("ssh", [{ p: "tcp", f: 22, t: 22, v4: "0.0.0.0/0" }, { p: "tcp", f: 22, t: 22, v4: "203.0.113.0/24" }])
    ids.rdp6 = await sg("rdp6", [{ p: "tcp", f: 3389, t: 3389, v6: "::/0" }])
    ids.smb = await sg("smb", [{ p: "tcp", f: 445, t: 445, v4: "0.0.0.0/0" }])
    ids.all = await sg("all", [{ p: "-1", f: -1, t: -1, v4: "0.0.0.0/0" }])
    ids.db = await sg("db", [{ p: "tcp", f: 5432, t: 5432, v4: "0.0.0.0/0" }, { p: "tcp", f: 443, t: 443, v4: "0.0.0.0/0" }])
    const defaults = await ec2.send(new DescribeSecurityGroupsCommand({ Filters: [{ Name: "vpc-id", Values: [ids.vpc] }, { Name: "group-name", Values: ["default"] }] }))
    ids.defaultSg = defaults.SecurityGroups?.[0]?.GroupId ?? ""
    const inst = await ec2.send(new RunInstancesCommand({ ImageId: "ami-12c6146b", MinCount: 1, MaxCount: 1, InstanceType: "t3.micro" }))
    ids.instance = inst.Instances?.[0]?.InstanceId ?? ""
    const vol = await ec2.send(new CreateVolumeCommand({ AvailabilityZone: "us-east-1a", Size: 1 }))
    ids.snap = (await ec2.send(new CreateSnapshotCommand({ VolumeId: vol.VolumeId }))).SnapshotId ?? ""
    await ec2.send(new ModifySnapshotAttributeCommand({ SnapshotId: ids.snap, Attribute: "createVolumePermission", OperationType: "add", GroupNames: ["all"] }))
    ids.image = (await ec2.send(new CreateImageCommand({ InstanceId: ids.instance, Name: "shared" }))).ImageId ?? ""
    await ec2.send(new ModifyImageAttributeCommand({ ImageId: ids.image, LaunchPermission: { Add: [{ Group: "all" }] } }))

    const iam = c.get("iam", E)
    await iam.send(new CreateUserCommand({ UserName: "stale" }))
    ids.staleKey = (await iam.send(new CreateAccessKeyCommand({ UserName: "stale" }))).AccessKey?.AccessKeyId ?? ""
    await iam.send(new CreateUserCommand({ UserName: "newbie" }))
    await iam.send(new CreateLoginProfileCommand({ UserName: "newbie", Password: "Initial-Passw0rd!" }))
    await iam.send(new CreateAccessKeyCommand({ UserName: "newbie" }))

    await s3.send(new CreateBucketCommand({ Bucket: "fix-trail-logs" }))
    await c.get("cloudtrail", E).send(new CreateTrailCommand({ Name: "solo-trail", S3BucketName: "fix-trail-logs" }))
    await c
      .get("cloudtrail", E)
      .send(new CreateTrailCommand({ Name: "cw-trail", S3BucketName: "fix-trail-logs", CloudWatchLogsLogGroupArn: `arn:aws:logs:${E}:${ACCOUNT}:log-group:ct:*`, CloudWatchLogsRoleArn: `arn:aws:iam::${ACCOUNT}:role/ct` }))
    ids.key = (await c.get("kms", E).send(new CreateKeyCommand({ Description: "no rotation" }))).KeyMetadata?.KeyId ?? ""
    c.destroy()
  })
  afterAll(async () => {
    await moto?.stop()
  })

  // Runs before the account-level block is switched on below, which would neutralise these policies for every bucket.
  it("S3: public read/write through a bucket policy is neutralised by the bucket's public access block", async () => {
    await expectFixed(moto, "s3", "s3_bucket_public_read_access", "fix-read")
    await expectFixed(moto, "s3", "s3_bucket_public_write_access", "fix-write")
  })

  it("S3: bucket and account public access blocks, encryption, versioning", async () => {
    await expectFixed(moto, "s3", "s3_bucket_level_public_access_block", "fix-pab")
    await expectFixed(moto, "s3", "s3_account_level_public_access_blocks", ACCOUNT)
    await expectFixed(moto, "s3", "s3_bucket_default_encryption", "fix-enc")
    await expectFixed(moto, "s3", "s3_bucket_kms_encryption", "fix-kms")
    await expectFixed(moto, "s3", "s3_bucket_versioning_enabled", "fix-ver")
  })

  it("S3: the TLS-only statement is added next to the existing policy statements", async () => {
    await expectFixed(moto, "s3", "s3_bucket_secure_transport_policy", "fix-tls")
    const c = seedClients(moto)
    const policy = JSON.parse((await c.get("s3", E).send(new GetBucketPolicyCommand({ Bucket: "fix-tls" }))).Policy ?? "{}") as { Statement: Array<{ Sid: string }> }
    c.destroy()
    expect(policy.Statement.map((s) => s.Sid)).toEqual(["Partner", "DenyInsecureTransport"])
  })

  it("EC2: internet ingress on admin, CIFS and all ports is revoked, other sources stay", async () => {
    await expectFixed(moto, "ec2", "ec2_securitygroup_allow_ingress_from_internet_to_admin_ports_ipv4", id("ssh"))
    await expectFixed(moto, "ec2", "ec2_securitygroup_allow_ingress_from_internet_to_admin_ports_ipv6", id("rdp6"))
    await expectFixed(moto, "ec2", "ec2_securitygroup_allow_ingress_from_internet_to_cifs", id("smb"))
    await expectFixed(moto, "ec2", "ec2_securitygroup_allow_ingress_from_internet_to_all_ports", id("all"))
    await expectFixed(moto, "ec2", "ec2_securitygroup_allow_ingress_from_internet_to_high_risk_ports", id("db"))
    const c = seedClients(moto)
    const ssh = await c.get("ec2", E).send(new DescribeSecurityGroupsCommand({ GroupIds: [id("ssh")] }))
    const db = await c.get("ec2", E).send(new DescribeSecurityGroupsCommand({ GroupIds: [id("db")] }))
    c.destroy()
    expect(ssh.SecurityGroups?.[0]?.IpPermissions?.flatMap((p) => p.IpRanges?.map((r) => r.CidrIp) ?? [])).toEqual(["203.0.113.0/24"])
    // HTTPS (not a high-risk port) stays open
    expect(db.SecurityGroups?.[0]?.IpPermissions?.map((p) => p.FromPort)).toEqual([443])
  })

  it("EC2: default SG, IMDSv2, EBS default encryption, public snapshot and AMI", async () => {
    await expectFixed(moto, "ec2", "ec2_securitygroup_default_restrict_traffic", id("defaultSg"))
    await expectFixed(moto, "ec2", "ec2_instance_imdsv2_enabled", id("instance"))
    await expectFixed(moto, "ec2", "ec2_ebs_default_encryption", `${ACCOUNT}/eu-west-1`, { region: "eu-west-1" })
    await expectFixed(moto, "ec2", "ec2_ebs_public_snapshot", id("snap"))
    await expectFixed(moto, "ec2", "ec2_ami_public", id("image"))
  })

  it("VPC: flow logs (creates the log group and the delivery role)", async () => {
    await expectFixed(moto, "vpc", "vpc_flow_logs_enabled", id("vpc"))
  })

  it("IAM: password policy fixes all seven password checks at once", async () => {
    await expectFixed(moto, "iam", "iam_password_policy_minimum_length_14", ACCOUNT)
    const ids = [
      "iam_password_policy_reuse_24",
      "iam_password_policy_uppercase",
      "iam_password_policy_lowercase",
      "iam_password_policy_number",
      "iam_password_policy_symbol",
      "iam_password_policy_expires_passwords_within_90_days_or_less",
    ]
    const after = await scan(moto, "iam", { regions: [E], checkIds: ids })
    expect(after.findings.map((f) => [f.check_id, f.status])).toEqual(ids.map((i) => [i, "pass"]))
  })

  it("IAM: unused and never-used access keys are deactivated", async () => {
    const later = new Date(Date.now() + 60 * DAY)
    await expectFixed(moto, "iam", "iam_user_accesskey_unused", id("staleKey"), { now: later })
    await expectFixed(moto, "iam", "iam_user_no_setup_initial_access_key", "newbie")
  })

  it("CloudTrail: multi-region + logging, log validation, start logging", async () => {
    await expectFixed(moto, "cloudtrail", "cloudtrail_log_file_validation_enabled", "solo-trail")
    await expectFixed(moto, "cloudtrail", "cloudtrail_cloudwatch_logging_enabled", "cw-trail")
    await expectFixed(moto, "cloudtrail", "cloudtrail_multi_region_enabled", `${ACCOUNT}/${E}`)
  })

  it("KMS rotation, GuardDuty and Security Hub", async () => {
    await expectFixed(moto, "kms", "kms_cmk_rotation_enabled", id("key"))
    await expectFixed(moto, "guardduty", "guardduty_is_enabled", `${ACCOUNT}/${E}`)
    await expectFixed(moto, "securityhub", "securityhub_enabled", `${ACCOUNT}/${E}`)
  })

  it("reports failures instead of throwing: no trail to extend, no fixer, unknown check, incomplete row", async () => {
    const before = await scan(moto, "cloudtrail", { credentials: otherAccountKeys, regions: [E], checkIds: ["cloudtrail_multi_region_enabled"] })
    const row = rowFor(before, "cloudtrail_multi_region_enabled", `${OTHER_ACCOUNT}/${E}`)
    const noTrail = await remediateFinding({ credentials: otherAccountKeys, checkId: "cloudtrail_multi_region_enabled", row, endpoint: moto.endpoint, maxAttempts: 1 })
    expect(noTrail).toMatchObject({ status: "failed", resource_id: `${OTHER_ACCOUNT}/${E}` })
    expect(noTrail.message).toContain("No CloudTrail trail exists")
    const noFixer = await remediateFinding({ credentials: testKeys, checkId: "rds_instance_multi_az", row, endpoint: moto.endpoint })
    expect(noFixer.message).toBe("No automatic remediation is available for this check; follow the remediation guidance.")
    expect((await remediateFinding({ credentials: testKeys, checkId: "nope", row, endpoint: moto.endpoint })).status).toBe("failed")
    const bad = await remediateFinding({ credentials: testKeys, checkId: "kms_cmk_rotation_enabled", row: { ...row, resource_id: "" }, endpoint: moto.endpoint })
    expect(bad.message).toContain("does not identify a resource")
    // an already compliant row is verified, not changed
    const done = await scan(moto, "kms", { regions: [E], checkIds: ["kms_cmk_rotation_enabled"] })
    const ok = await remediateFinding({ credentials: testKeys, checkId: "kms_cmk_rotation_enabled", row: rowFor(done, "kms_cmk_rotation_enabled", id("key")), endpoint: moto.endpoint, maxAttempts: 1 })
    expect(ok.status).toBe("pass")
  })

  it("every fixer says what it does, and the ones that can cut access say so", () => {
    const list = remediableChecks()
    expect(list.length).toBeGreaterThanOrEqual(40)
    for (const f of list) expect(f.description.length).toBeGreaterThan(10)
    const cutting = new Set(list.filter((f) => f.cutsAccess !== undefined).map((f) => f.checkId))
    for (const idCut of ["ec2_securitygroup_allow_ingress_from_internet_to_admin_ports_ipv4", "rds_instance_no_public_access", "ec2_instance_imdsv2_enabled", "iam_user_accesskey_unused", "eks_cluster_not_publicly_accessible", "s3_account_level_public_access_blocks"]) {
      expect(cutting.has(idCut), idCut).toBe(true)
    }
  })
})
