/**
 * Issue 32 on moto, for every AWS fixer of S3, EC2/VPC, IAM and compute: the preview changes nothing (the resource's
 * full state and the fixer's state are identical before and after it), apply is verified, and undo restores the state
 * before the fix field by field (then a fresh scan fails the resource again). Conflict: a resource changed after the fix
 * refuses the undo with the difference, and a forced undo goes ahead. Timings of each round trip go to
 * REMEDIATION_TIMINGS=<file> when set (one JSON line per fixer).
 */
import { appendFileSync } from "node:fs"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  CreateBucketCommand,
  GetBucketAclCommand,
  GetBucketEncryptionCommand,
  GetBucketPolicyCommand,
  GetBucketVersioningCommand,
  GetPublicAccessBlockCommand,
  PutBucketPolicyCommand,
  PutBucketVersioningCommand,
  PutPublicAccessBlockCommand,
} from "@aws-sdk/client-s3"
import { GetPublicAccessBlockCommand as GetAccountPublicAccessBlockCommand } from "@aws-sdk/client-s3-control"
import {
  AuthorizeSecurityGroupEgressCommand,
  AuthorizeSecurityGroupIngressCommand,
  CreateImageCommand,
  CreateNetworkInterfaceCommand,
  CreateSecurityGroupCommand,
  CreateSnapshotCommand,
  CreateSubnetCommand,
  CreateVolumeCommand,
  CreateVpcCommand,
  DescribeFlowLogsCommand,
  DescribeImageAttributeCommand,
  DescribeInstancesCommand,
  DescribeSecurityGroupsCommand,
  DescribeSnapshotAttributeCommand,
  GetEbsEncryptionByDefaultCommand,
  ModifyImageAttributeCommand,
  ModifySnapshotAttributeCommand,
  RunInstancesCommand,
  DescribeSubnetsCommand,
} from "@aws-sdk/client-ec2"
import { CreateAccessKeyCommand, CreateLoginProfileCommand, CreateRoleCommand, CreateUserCommand, GetAccountPasswordPolicyCommand, ListAccessKeysCommand, PutUserPolicyCommand, UpdateAccountPasswordPolicyCommand } from "@aws-sdk/client-iam"
import { CreateFunctionCommand, CreateFunctionUrlConfigCommand, GetFunctionUrlConfigCommand } from "@aws-sdk/client-lambda"
import { CreateRepositoryCommand, DescribeRepositoriesCommand } from "@aws-sdk/client-ecr"
import { DescribeLogGroupsCommand } from "@aws-sdk/client-cloudwatch-logs"
import { CreateLoadBalancerCommand, DescribeLoadBalancerAttributesCommand, DescribeLoadBalancersCommand } from "@aws-sdk/client-elastic-load-balancing-v2"
import { CreateClusterCommand, DescribeClusterCommand } from "@aws-sdk/client-eks"
import { SERVICE_PORTS } from "../../server/scanner/aws/checks/ec2.ts"
import { previewFinding, remediableChecks, remediateFinding, undoFinding } from "../../server/remediation/aws/remediate.ts"
import type { AwsClients } from "../../server/scanner/aws/clients.ts"
import type { Json } from "../../server/remediation/plan.ts"
import { startMoto, type Moto } from "../support/moto.ts"
import { ACCOUNT, expectRoundTrip, rowFor, scan, seedClients, testKeys, type RoundTrip } from "./helpers.ts"

const E = "us-east-1"
const DAY = 86_400_000
const EMPTY_ZIP = new Uint8Array(Buffer.from(`504b0506${"00".repeat(18)}`, "hex"))

/** A call's answer, or its error code: a snapshot must show "absent" as data, not throw. */
const settle = async (p: Promise<unknown>): Promise<unknown> => {
  try {
    const out = (await p) as Record<string, unknown>
    const { $metadata: _m, ...rest } = out
    return rest
  } catch (error) {
    return { error: (error as { name?: string }).name ?? String(error) }
  }
}

describe("remediation preview and undo on moto (issue 32)", () => {
  let moto: Moto
  let c: AwsClients
  const ids: Record<string, string> = {}
  const id = (k: string) => ids[k] ?? ""
  const timings: Array<{ check: string; apply_s: number; undo_s: number }> = []
  const roundTrip = async (service: string, checkId: string, resourceId: string, snapshot: () => Promise<unknown>, options: { region?: string; now?: Date } = {}): Promise<RoundTrip> => {
    const r = await expectRoundTrip(moto, service, checkId, resourceId, snapshot, options)
    timings.push({ check: checkId, apply_s: Number(r.applySeconds.toFixed(2)), undo_s: Number(r.undoSeconds.toFixed(2)) })
    return r
  }

  const s3State = (bucket: string) => async () => {
    const s3 = c.get("s3", E)
    return {
      pab: await settle(s3.send(new GetPublicAccessBlockCommand({ Bucket: bucket }))),
      policy: await settle(s3.send(new GetBucketPolicyCommand({ Bucket: bucket }))),
      encryption: await settle(s3.send(new GetBucketEncryptionCommand({ Bucket: bucket }))),
      versioning: await settle(s3.send(new GetBucketVersioningCommand({ Bucket: bucket }))),
      acl: await settle(s3.send(new GetBucketAclCommand({ Bucket: bucket }))),
    }
  }
  const groupState = (groupId: string) => async () => settle(c.get("ec2", E).send(new DescribeSecurityGroupsCommand({ GroupIds: [groupId] })))

  beforeAll(async () => {
    moto = await startMoto()
    c = seedClients(moto)
    const s3 = c.get("s3", E)
    for (const b of ["u-pab", "u-read", "u-enc", "u-ver", "u-ver-new", "u-tls", "u-conflict"]) await s3.send(new CreateBucketCommand({ Bucket: b }))
    await s3.send(new PutBucketPolicyCommand({ Bucket: "u-read", Policy: JSON.stringify({ Version: "2012-10-17", Statement: [{ Sid: "Public", Effect: "Allow", Principal: "*", Action: "s3:GetObject", Resource: "arn:aws:s3:::u-read/*" }] }) }))
    await s3.send(new PutPublicAccessBlockCommand({ Bucket: "u-pab", PublicAccessBlockConfiguration: { BlockPublicAcls: true, IgnorePublicAcls: false, BlockPublicPolicy: false, RestrictPublicBuckets: false } }))
    await s3.send(new PutBucketVersioningCommand({ Bucket: "u-ver", VersioningConfiguration: { Status: "Suspended" } }))
    await s3.send(new PutBucketPolicyCommand({ Bucket: "u-tls", Policy: JSON.stringify({ Version: "2012-10-17", Statement: [{ Sid: "Partner", Effect: "Allow", Principal: { AWS: "arn:aws:iam::111122223333:root" }, Action: "s3:GetObject", Resource: "arn:aws:s3:::u-tls/*" }] }) }))

    const ec2 = c.get("ec2", E)
    ids.vpc = (await ec2.send(new CreateVpcCommand({ CidrBlock: "10.50.0.0/16" }))).Vpc?.VpcId ?? ""
    ids.subnet = (await ec2.send(new CreateSubnetCommand({ VpcId: ids.vpc, CidrBlock: "10.50.1.0/24" }))).Subnet?.SubnetId ?? ""
    const sg = async (name: string, perms: Array<{ p: string; f: number; t: number; v4?: string; v6?: string; d?: string }>) => {
      const g = await ec2.send(new CreateSecurityGroupCommand({ GroupName: name, Description: name, VpcId: ids.vpc }))
      await ec2.send(
        new AuthorizeSecurityGroupIngressCommand({
          GroupId: g.GroupId,
          IpPermissions: perms.map((x) => ({
            IpProtocol: x.p,
            FromPort: x.f,
            ToPort: x.t,
            ...(x.v4 === undefined ? {} : { IpRanges: [{ CidrIp: x.v4, ...(x.d === undefined ? {} : { Description: x.d }) }] }),
            ...(x.v6 === undefined ? {} : { Ipv6Ranges: [{ CidrIpv6: x.v6 }] }),
          })),
        }),
      )
      return g.GroupId ?? ""
    }
    ids.ssh = await sg("u-ssh", [{ p: "tcp", f: 22, t: 22, v4: "0.0.0.0/0", d: "anywhere" }, { p: "tcp", f: 22, t: 22, v4: "203.0.113.0/24", d: "office" }])
    ids.rdp6 = await sg("u-rdp6", [{ p: "tcp", f: 3389, t: 3389, v6: "::/0" }])
    ids.smb = await sg("u-smb", [{ p: "tcp", f: 445, t: 445, v4: "0.0.0.0/0" }])
    ids.all = await sg("u-all", [{ p: "-1", f: -1, t: -1, v4: "0.0.0.0/0" }])
    ids.db = await sg("u-db", [{ p: "tcp", f: 5432, t: 5432, v4: "0.0.0.0/0" }, { p: "tcp", f: 443, t: 443, v4: "0.0.0.0/0" }])
    const svc = SERVICE_PORTS[0]!
    ids.svc = await sg("u-svc", svc.ports.map((p) => ({ p: p.proto, f: p.port, t: p.port, v4: "0.0.0.0/0" })))
    ids.egress = await sg("u-egress", [{ p: "tcp", f: 443, t: 443, v4: "10.0.0.0/8" }])
    ids.defaultSg = (await ec2.send(new DescribeSecurityGroupsCommand({ Filters: [{ Name: "vpc-id", Values: [ids.vpc] }, { Name: "group-name", Values: ["default"] }] }))).SecurityGroups?.[0]?.GroupId ?? ""
    // The SSH group is attached to a network interface: the preview must name it.
    ids.eni = (await ec2.send(new CreateNetworkInterfaceCommand({ SubnetId: ids.subnet, Groups: [ids.ssh] }))).NetworkInterface?.NetworkInterfaceId ?? ""
    ids.instance = (await ec2.send(new RunInstancesCommand({ ImageId: "ami-12c6146b", MinCount: 1, MaxCount: 1, InstanceType: "t3.micro" }))).Instances?.[0]?.InstanceId ?? ""
    const vol = await ec2.send(new CreateVolumeCommand({ AvailabilityZone: "us-east-1a", Size: 1 }))
    ids.snap = (await ec2.send(new CreateSnapshotCommand({ VolumeId: vol.VolumeId }))).SnapshotId ?? ""
    await ec2.send(new ModifySnapshotAttributeCommand({ SnapshotId: ids.snap, Attribute: "createVolumePermission", OperationType: "add", GroupNames: ["all"] }))
    ids.image = (await ec2.send(new CreateImageCommand({ InstanceId: ids.instance, Name: "u-shared" }))).ImageId ?? ""
    await ec2.send(new ModifyImageAttributeCommand({ ImageId: ids.image, LaunchPermission: { Add: [{ Group: "all" }] } }))

    const iam = c.get("iam", E)
    await iam.send(new UpdateAccountPasswordPolicyCommand({ MinimumPasswordLength: 8, RequireSymbols: false, AllowUsersToChangePassword: true }))
    await iam.send(new CreateUserCommand({ UserName: "u-stale" }))
    ids.staleKey = (await iam.send(new CreateAccessKeyCommand({ UserName: "u-stale" }))).AccessKey?.AccessKeyId ?? ""
    await iam.send(new CreateUserCommand({ UserName: "u-newbie" }))
    await iam.send(new CreateLoginProfileCommand({ UserName: "u-newbie", Password: "Initial-Passw0rd!" }))
    await iam.send(new CreateAccessKeyCommand({ UserName: "u-newbie" }))

    const role = await iam.send(new CreateRoleCommand({ RoleName: "u-fn", AssumeRolePolicyDocument: JSON.stringify({ Version: "2012-10-17", Statement: [{ Effect: "Allow", Principal: { Service: "lambda.amazonaws.com" }, Action: "sts:AssumeRole" }] }) }))
    const lambda = c.get("lambda", E)
    for (const fn of ["u-hook", "u-worker"]) await lambda.send(new CreateFunctionCommand({ FunctionName: fn, Runtime: "nodejs22.x", Role: role.Role?.Arn, Handler: "index.handler", Code: { ZipFile: EMPTY_ZIP } }))
    await lambda.send(new CreateFunctionUrlConfigCommand({ FunctionName: "u-hook", AuthType: "NONE" }))
    await c.get("ecr", E).send(new CreateRepositoryCommand({ repositoryName: "u-app" }))
    const subnets = (await ec2.send(new DescribeSubnetsCommand({ Filters: [{ Name: "default-for-az", Values: ["true"] }] }))).Subnets ?? []
    const subnetIds = subnets.slice(0, 2).flatMap((s) => (s.SubnetId === undefined ? [] : [s.SubnetId]))
    await c.get("elbv2", E).send(new CreateLoadBalancerCommand({ Name: "u-edge", Subnets: subnetIds, Type: "application" }))
    await c.get("eks", E).send(new CreateClusterCommand({ name: "u-prod", roleArn: `arn:aws:iam::${ACCOUNT}:role/eks`, resourcesVpcConfig: { subnetIds } }))
  })
  afterAll(async () => {
    const file = process.env["REMEDIATION_TIMINGS"]
    if (file !== undefined && file !== "") for (const t of timings) appendFileSync(file, `${JSON.stringify(t)}\n`)
    c?.destroy()
    await moto?.stop()
  })

  it("S3: bucket and account public access blocks, public read, encryption, versioning, TLS policy", { timeout: 240_000 }, async () => {
    const read = await roundTrip("s3", "s3_bucket_public_read_access", "u-read", s3State("u-read"))
    // Effects are read from the cloud: the public statement that stops applying.
    expect(read.preview.effects.join(" ")).toContain(`"Public" (Allow s3:GetObject) granted to everyone stops applying`)
    expect(read.preview.calls.map((x) => `${x.service}:${x.operation}`)).toEqual(["s3:PutPublicAccessBlock"])
    expect(read.preview.undo_calls.map((x) => x.operation)).toEqual(["DeletePublicAccessBlock"])
    expect(read.preview.cli).toBe(
      `aws s3api put-public-access-block --region us-east-1 --bucket u-read --public-access-block-configuration '{"BlockPublicAcls":true,"IgnorePublicAcls":true,"BlockPublicPolicy":true,"RestrictPublicBuckets":true}'`,
    )
    expect(read.preview.terraform).toContain(`resource "aws_s3_bucket_public_access_block" "u_read" {`)
    expect(read.preview.terraform).toContain("restrict_public_buckets = true")
    expect(read.preview.permissions.map((p) => p.action)).toEqual(["s3:PutBucketPublicAccessBlock"])
    // moto does not simulate IAM policies (an HTML error page): the preview says so in words, not the SDK's "Error".
    expect(read.preview.permissions[0]).toEqual({
      action: "s3:PutBucketPublicAccessBlock",
      status: "unknown",
      how: "IAM policy simulation unavailable: HTTP 500 with an answer that is not an AWS error document",
    })

    // An existing partial block is written back as it was.
    const pab = await roundTrip("s3", "s3_bucket_level_public_access_block", "u-pab", s3State("u-pab"))
    expect(pab.preview.undo_calls[0]?.params).toMatchObject({ PublicAccessBlockConfiguration: { BlockPublicAcls: true, IgnorePublicAcls: false } })

    await roundTrip("s3", "s3_account_level_public_access_blocks", ACCOUNT, () => settle(c.get("s3control", E).send(new GetAccountPublicAccessBlockCommand({ AccountId: ACCOUNT }))))
    const enc = await roundTrip("s3", "s3_bucket_default_encryption", "u-enc", s3State("u-enc"))
    expect(enc.preview.permissions.map((p) => p.action)).toEqual(["s3:PutEncryptionConfiguration"])
    await roundTrip("s3", "s3_bucket_versioning_enabled", "u-ver", s3State("u-ver"))
    const tls = await roundTrip("s3", "s3_bucket_secure_transport_policy", "u-tls", s3State("u-tls"))
    expect(tls.preview.effects[0]).toBe("The 1 existing statement(s) of the bucket policy are kept unchanged.")
  })

  it("S3: a bucket never versioned cannot be returned to unversioned: the preview says so before anything changes", async () => {
    const row = rowFor(await scan(moto, "s3", { checkIds: ["s3_bucket_versioning_enabled"], regions: [E] }), "s3_bucket_versioning_enabled", "u-ver-new")
    const before = await s3State("u-ver-new")()
    const preview = await previewFinding({ credentials: testKeys, checkId: "s3_bucket_versioning_enabled", row, endpoint: moto.endpoint, maxAttempts: 1 })
    expect(preview.reversible).toBe(false)
    expect(preview.undo_note).toBe("A bucket that has had versioning enabled can never return to unversioned; it can only be suspended.")
    expect(await s3State("u-ver-new")()).toEqual(before)
  })

  it("EC2: internet ingress (admin, CIFS, all ports, high-risk, service ports), open egress, default group", { timeout: 300_000 }, async () => {
    const ssh = await roundTrip("ec2", "ec2_securitygroup_allow_ingress_from_internet_to_admin_ports_ipv4", id("ssh"), groupState(id("ssh")))
    expect(ssh.preview.effects[0]).toBe(`Security group ${id("ssh")} is attached to 1 network interface(s): ${id("eni")}.`)
    expect(ssh.preview.effects[1]).toBe("Inbound tcp/22 from 0.0.0.0/0 is removed.")
    // DryRun answered for the EC2 call: moto accepts every caller.
    expect(ssh.preview.permissions).toEqual([{ action: "ec2:RevokeSecurityGroupIngress", status: "allowed", how: "EC2 DryRun" }])
    // The undo authorizes the revoked source with its description.
    expect(ssh.preview.undo_calls[0]?.params).toEqual({ GroupId: id("ssh"), IpPermissions: [{ IpProtocol: "tcp", FromPort: 22, ToPort: 22, IpRanges: [{ CidrIp: "0.0.0.0/0", Description: "anywhere" }] }] })
    expect(ssh.preview.terraform).toContain(`# resource "aws_vpc_security_group_ingress_rule"`)
    await roundTrip("ec2", "ec2_securitygroup_allow_ingress_from_internet_to_admin_ports_ipv6", id("rdp6"), groupState(id("rdp6")))
    await roundTrip("ec2", "ec2_securitygroup_allow_ingress_from_internet_to_cifs", id("smb"), groupState(id("smb")))
    await roundTrip("ec2", "ec2_securitygroup_allow_ingress_from_internet_to_all_ports", id("all"), groupState(id("all")))
    await roundTrip("ec2", "ec2_securitygroup_allow_ingress_from_internet_to_high_risk_ports", id("db"), groupState(id("db")))
    await roundTrip("ec2", `ec2_securitygroup_allow_ingress_from_internet_to_${SERVICE_PORTS[0]!.key}`, id("svc"), groupState(id("svc")))
    await roundTrip("ec2", "ec2_securitygroup_egress_unrestricted", id("egress"), groupState(id("egress")))
    await roundTrip("ec2", "ec2_securitygroup_default_restrict_traffic", id("defaultSg"), groupState(id("defaultSg")))
  })

  it("EC2: IMDSv2, EBS default encryption, public snapshot and AMI; VPC flow logs", { timeout: 240_000 }, async () => {
    const ec2 = () => c.get("ec2", E)
    await roundTrip("ec2", "ec2_instance_imdsv2_enabled", id("instance"), async () => (await ec2().send(new DescribeInstancesCommand({ InstanceIds: [id("instance")] }))).Reservations?.[0]?.Instances?.[0]?.MetadataOptions)
    const ebs = await roundTrip("ec2", "ec2_ebs_default_encryption", `${ACCOUNT}/eu-west-1`, () => settle(c.get("ec2", "eu-west-1").send(new GetEbsEncryptionByDefaultCommand({}))), { region: "eu-west-1" })
    expect(ebs.preview.terraform).toBe(`resource "aws_ebs_encryption_by_default" "this" {\n  enabled = true\n}`)
    await roundTrip("ec2", "ec2_ebs_public_snapshot", id("snap"), () => settle(ec2().send(new DescribeSnapshotAttributeCommand({ SnapshotId: id("snap"), Attribute: "createVolumePermission" }))))
    await roundTrip("ec2", "ec2_ami_public", id("image"), () => settle(ec2().send(new DescribeImageAttributeCommand({ ImageId: id("image"), Attribute: "launchPermission" }))))
    const flow = await roundTrip("vpc", "vpc_flow_logs_enabled", id("vpc"), () => settle(ec2().send(new DescribeFlowLogsCommand({ Filter: [{ Name: "resource-id", Values: [id("vpc")] }] }))))
    expect(flow.preview.calls.map((x) => x.operation)).toEqual(["CreateRole", "PutRolePolicy", "CreateLogGroup", "CreateFlowLogs"])
    // The undo deletes the flow log the apply created, by the id the apply answered.
    expect(flow.preview.undo_calls[0]?.cli).toBe(`aws ec2 delete-flow-logs --region us-east-1 --flow-log-ids '<FlowLogIds.0 answered by step 4 of the fix>'`)
  })

  it("IAM: password policy written back as it was; access keys re-activated", { timeout: 240_000 }, async () => {
    const iam = () => c.get("iam", E)
    const policy = await roundTrip("iam", "iam_password_policy_minimum_length_14", ACCOUNT, () => settle(iam().send(new GetAccountPasswordPolicyCommand({}))))
    expect(policy.preview.undo_calls[0]?.params).toMatchObject({ MinimumPasswordLength: 8, RequireSymbols: false })
    expect(policy.preview.terraform).toContain("minimum_password_length = 14")
    const later = new Date(Date.now() + 60 * DAY)
    const unused = await roundTrip("iam", "iam_user_accesskey_unused", id("staleKey"), () => settle(iam().send(new ListAccessKeysCommand({ UserName: "u-stale" }))), { now: later })
    expect(unused.preview.effects).toEqual([`User u-stale loses programmatic access through key ${id("staleKey")} (never used).`])
    await roundTrip("iam", "iam_user_no_setup_initial_access_key", "u-newbie", () => settle(iam().send(new ListAccessKeysCommand({ UserName: "u-newbie" }))))
  })

  it("Compute: Lambda log group and URL auth, ECR scanning and tag immutability, ELBv2 attributes, EKS endpoint", { timeout: 300_000 }, async () => {
    await roundTrip("lambda", "awslambda_function_log_group_exists", "u-worker", () => settle(c.get("logs", E).send(new DescribeLogGroupsCommand({ logGroupNamePrefix: "/aws/lambda/u-worker" }))))
    await roundTrip("lambda", "awslambda_function_url_public", "u-hook", () => settle(c.get("lambda", E).send(new GetFunctionUrlConfigCommand({ FunctionName: "u-hook" }))))
    const repo = () => settle(c.get("ecr", E).send(new DescribeRepositoriesCommand({ repositoryNames: ["u-app"] })))
    await roundTrip("ecr", "ecr_repositories_scan_images_on_push_enabled", "u-app", repo)
    await roundTrip("ecr", "ecr_repositories_tag_immutability", "u-app", repo)
    const lbAttrs = async () => {
      const arn = (await c.get("elbv2", E).send(new DescribeLoadBalancersCommand({ Names: ["u-edge"] }))).LoadBalancers?.[0]?.LoadBalancerArn
      return settle(c.get("elbv2", E).send(new DescribeLoadBalancerAttributesCommand({ LoadBalancerArn: arn })))
    }
    await roundTrip("elbv2", "elbv2_deletion_protection", "u-edge", lbAttrs)
    await roundTrip("elbv2", "elbv2_drop_invalid_header_fields", "u-edge", lbAttrs)
    await roundTrip("eks", "eks_cluster_not_publicly_accessible", "u-prod", async () => (await c.get("eks", E).send(new DescribeClusterCommand({ name: "u-prod" }))).cluster?.resourcesVpcConfig)
  })

  it("conflict: a resource changed after the fix refuses the undo with the difference; forced, the undo restores the pre-image", async () => {
    const checkId = "s3_bucket_level_public_access_block"
    const row = rowFor(await scan(moto, "s3", { checkIds: [checkId], regions: [E] }), checkId, "u-conflict")
    const input = { credentials: testKeys, checkId, row, endpoint: moto.endpoint, maxAttempts: 1 }
    const fixed = await remediateFinding(input)
    expect(fixed.status).toBe("remediated")
    // Someone else turns one setting off again.
    await c.get("s3", E).send(new PutPublicAccessBlockCommand({ Bucket: "u-conflict", PublicAccessBlockConfiguration: { BlockPublicAcls: false, IgnorePublicAcls: true, BlockPublicPolicy: true, RestrictPublicBuckets: true } }))
    const undo = { ...input, plan: fixed.plan!, outputs: fixed.outputs ?? [], preImage: fixed.pre_image as Json, postImage: fixed.post_image as Json }
    const refused = await undoFinding({ ...undo, force: false })
    expect(refused.status).toBe("conflict")
    expect(refused.differences).toEqual([{ path: "PublicAccessBlockConfiguration.BlockPublicAcls", expected: true, actual: false }])
    // Refused means untouched.
    expect((await c.get("s3", E).send(new GetPublicAccessBlockCommand({ Bucket: "u-conflict" }))).PublicAccessBlockConfiguration?.BlockPublicAcls).toBe(false)
    const forced = await undoFinding({ ...undo, force: true })
    expect(forced.status).toBe("undone")
    expect(forced.state).toEqual(fixed.pre_image)
  })

  it("permissions: credentials that may read but not revoke get 'denied' from EC2 DryRun, and the preview still changes nothing", async () => {
    const iam = c.get("iam", E)
    await iam.send(new CreateUserCommand({ UserName: "u-reader" }))
    await iam.send(
      new PutUserPolicyCommand({
        UserName: "u-reader",
        PolicyName: "read-only",
        PolicyDocument: JSON.stringify({ Version: "2012-10-17", Statement: [{ Effect: "Allow", Action: ["sts:GetCallerIdentity", "ec2:Describe*"], Resource: "*" }] }),
      }),
    )
    const key = (await iam.send(new CreateAccessKeyCommand({ UserName: "u-reader" }))).AccessKey!
    const group = await (async () => {
      const g = await c.get("ec2", E).send(new CreateSecurityGroupCommand({ GroupName: "u-denied", Description: "denied", VpcId: id("vpc") }))
      await c.get("ec2", E).send(new AuthorizeSecurityGroupIngressCommand({ GroupId: g.GroupId, IpPermissions: [{ IpProtocol: "tcp", FromPort: 22, ToPort: 22, IpRanges: [{ CidrIp: "0.0.0.0/0" }] }] }))
      return g.GroupId ?? ""
    })()
    const checkId = "ec2_securitygroup_allow_ingress_from_internet_to_admin_ports_ipv4"
    const row = rowFor(await scan(moto, "ec2", { checkIds: [checkId], regions: [E] }), checkId, group)
    const before = await groupState(group)()
    await moto.enforceAuth(true)
    try {
      const preview = await previewFinding({ credentials: { accessKeyId: key.AccessKeyId!, secretAccessKey: key.SecretAccessKey! }, checkId, row, endpoint: moto.endpoint, maxAttempts: 1 })
      expect(preview.permissions).toEqual([{ action: "ec2:RevokeSecurityGroupIngress", status: "denied", how: "EC2 DryRun" }])
    } finally {
      await moto.enforceAuth(false)
    }
    expect(await groupState(group)()).toEqual(before)
  })

  it("every fixer of S3, EC2/VPC, IAM and compute plans (preview and undo); the rest keep their apply until converted", () => {
    const converted = remediableChecks().filter((r) => r.previewable).map((r) => r.checkId)
    for (const check of ["s3_bucket_public_read_access", "ec2_securitygroup_default_restrict_traffic", "iam_user_accesskey_unused", "eks_cluster_not_publicly_accessible", "vpc_flow_logs_enabled"]) expect(converted).toContain(check)
  })
})
