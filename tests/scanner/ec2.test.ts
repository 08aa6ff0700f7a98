import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  AuthorizeSecurityGroupIngressCommand,
  CreateFlowLogsCommand,
  CreateImageCommand,
  CreateNetworkAclCommand,
  CreateSecurityGroupCommand,
  CreateSnapshotCommand,
  CreateSubnetCommand,
  CreateVolumeCommand,
  CreateVpcCommand,
  DescribeSecurityGroupsCommand,
  EnableEbsEncryptionByDefaultCommand,
  ModifyImageAttributeCommand,
  ModifySnapshotAttributeCommand,
  RevokeSecurityGroupEgressCommand,
  RunInstancesCommand,
  type EC2Client,
} from "@aws-sdk/client-ec2"
import { CreateInstanceProfileCommand, CreateRoleCommand, AddRoleToInstanceProfileCommand } from "@aws-sdk/client-iam"
import type { ScanServiceResult } from "../../server/scanner/aws/scan-service.ts"
import { startMoto, type Moto } from "../support/moto.ts"
import { ACCOUNT, expectCases, expectStatus, finding, rowFor, scan, seedClients } from "./helpers.ts"

const AMI = "ami-12c6146b"

async function group(ec2: EC2Client, vpcId: string | undefined, name: string, perms: ReadonlyArray<{ proto: string; from: number; to: number; v4?: string; v6?: string }>) {
  const g = await ec2.send(new CreateSecurityGroupCommand({ GroupName: name, Description: name, ...(vpcId === undefined ? {} : { VpcId: vpcId }) }))
  await ec2.send(
    new AuthorizeSecurityGroupIngressCommand({
      GroupId: g.GroupId,
      IpPermissions: perms.map((p) => ({
        IpProtocol: p.proto,
        FromPort: p.from,
        ToPort: p.to,
        ...(p.v4 === undefined ? {} : { IpRanges: [{ CidrIp: p.v4 }] }),
        ...(p.v6 === undefined ? {} : { Ipv6Ranges: [{ CidrIpv6: p.v6 }] }),
      })),
    }),
  )
  return g.GroupId ?? ""
}

describe("EC2 and VPC checks on moto", () => {
  let moto: Moto
  let ec2Scan: ScanServiceResult
  let vpcScan: ScanServiceResult
  const ids: Record<string, string> = {}

  beforeAll(async () => {
    moto = await startMoto()
    const c = seedClients(moto)
    const ec2 = c.get("ec2", "us-east-1")
    await ec2.send(new EnableEbsEncryptionByDefaultCommand({}))

    const vpc = await ec2.send(new CreateVpcCommand({ CidrBlock: "10.20.0.0/16" }))
    ids.vpc = vpc.Vpc?.VpcId ?? ""
    const subnet = await ec2.send(new CreateSubnetCommand({ VpcId: ids.vpc, CidrBlock: "10.20.1.0/24", AvailabilityZone: "us-east-1a" }))
    ids.subnet = subnet.Subnet?.SubnetId ?? ""
    await ec2.send(
      new CreateFlowLogsCommand({
        ResourceIds: [ids.vpc],
        ResourceType: "VPC",
        TrafficType: "REJECT",
        LogDestinationType: "cloud-watch-logs",
        LogGroupName: "vpc-flows",
        DeliverLogsPermissionArn: `arn:aws:iam::${ACCOUNT}:role/flow-logs`,
      }),
    )
    const acl = await ec2.send(new CreateNetworkAclCommand({ VpcId: ids.vpc }))
    ids.acl = acl.NetworkAcl?.NetworkAclId ?? ""

    // Default SG of the custom VPC: strip its egress rule (AWS default also self-references; moto has no ingress).
    const defaults = await ec2.send(new DescribeSecurityGroupsCommand({ Filters: [{ Name: "vpc-id", Values: [ids.vpc] }, { Name: "group-name", Values: ["default"] }] }))
    ids.defaultSg = defaults.SecurityGroups?.[0]?.GroupId ?? ""
    await ec2.send(new RevokeSecurityGroupEgressCommand({ GroupId: ids.defaultSg, IpPermissions: [{ IpProtocol: "-1", IpRanges: [{ CidrIp: "0.0.0.0/0" }] }] }))

    ids.ssh = await group(ec2, ids.vpc, "ssh-open", [{ proto: "tcp", from: 22, to: 22, v4: "0.0.0.0/0" }])
    ids.rdp6 = await group(ec2, ids.vpc, "rdp-v6", [{ proto: "tcp", from: 3389, to: 3389, v6: "::/0" }])
    ids.web = await group(ec2, ids.vpc, "web", [{ proto: "tcp", from: 443, to: 443, v4: "0.0.0.0/0", v6: "::/0" }, { proto: "tcp", from: 22, to: 22, v4: "10.0.0.0/8" }])
    ids.smb = await group(ec2, ids.vpc, "smb", [{ proto: "tcp", from: 445, to: 445, v4: "0.0.0.0/0" }])
    ids.wide = await group(ec2, ids.vpc, "wide-open", [{ proto: "-1", from: -1, to: -1, v4: "0.0.0.0/0" }])

    const iam = c.get("iam", "us-east-1")
    await iam.send(new CreateRoleCommand({ RoleName: "app", AssumeRolePolicyDocument: JSON.stringify({ Version: "2012-10-17", Statement: [{ Effect: "Allow", Principal: { Service: "ec2.amazonaws.com" }, Action: "sts:AssumeRole" }] }) }))
    await iam.send(new CreateInstanceProfileCommand({ InstanceProfileName: "app" }))
    await iam.send(new AddRoleToInstanceProfileCommand({ InstanceProfileName: "app", RoleName: "app" }))
    const good = await ec2.send(
      new RunInstancesCommand({
        ImageId: AMI,
        MinCount: 1,
        MaxCount: 1,
        InstanceType: "t3.micro",
        SubnetId: ids.subnet,
        MetadataOptions: { HttpTokens: "required", HttpEndpoint: "enabled" },
        IamInstanceProfile: { Name: "app" },
      }),
    )
    ids.goodInstance = good.Instances?.[0]?.InstanceId ?? ""
    const bad = await ec2.send(new RunInstancesCommand({ ImageId: AMI, MinCount: 1, MaxCount: 1, InstanceType: "t3.micro", Placement: { AvailabilityZone: "us-east-1b" } }))
    ids.badInstance = bad.Instances?.[0]?.InstanceId ?? ""

    const encVol = await ec2.send(new CreateVolumeCommand({ AvailabilityZone: "us-east-1a", Size: 1, Encrypted: true }))
    ids.encVol = encVol.VolumeId ?? ""
    const plainVol = await ec2.send(new CreateVolumeCommand({ AvailabilityZone: "us-east-1a", Size: 1, Encrypted: false }))
    ids.plainVol = plainVol.VolumeId ?? ""
    ids.encSnap = (await ec2.send(new CreateSnapshotCommand({ VolumeId: ids.encVol }))).SnapshotId ?? ""
    ids.pubSnap = (await ec2.send(new CreateSnapshotCommand({ VolumeId: ids.plainVol }))).SnapshotId ?? ""
    await ec2.send(new ModifySnapshotAttributeCommand({ SnapshotId: ids.pubSnap, Attribute: "createVolumePermission", OperationType: "add", GroupNames: ["all"] }))

    ids.privImage = (await ec2.send(new CreateImageCommand({ InstanceId: ids.goodInstance, Name: "private-image" }))).ImageId ?? ""
    ids.pubImage = (await ec2.send(new CreateImageCommand({ InstanceId: ids.badInstance, Name: "public-image" }))).ImageId ?? ""
    await ec2.send(new ModifyImageAttributeCommand({ ImageId: ids.pubImage, LaunchPermission: { Add: [{ Group: "all" }] } }))
    c.destroy()

    ec2Scan = await scan(moto, "ec2")
    vpcScan = await scan(moto, "vpc")
  })
  afterAll(async () => {
    await moto?.stop()
  })

  it("ec2_ebs_default_encryption is per region", () => {
    expectCases(ec2Scan, "ec2_ebs_default_encryption", { compliant: [`${ACCOUNT}/us-east-1`], nonCompliant: [`${ACCOUNT}/eu-west-1`] })
  })

  it("volumes, snapshots and images", () => {
    expectCases(ec2Scan, "ec2_ebs_volume_encryption", { compliant: [ids.encVol ?? ""], nonCompliant: [ids.plainVol ?? ""] })
    expectCases(ec2Scan, "ec2_ebs_public_snapshot", { compliant: [ids.encSnap ?? ""], nonCompliant: [ids.pubSnap ?? ""] })
    expectCases(ec2Scan, "ec2_ebs_snapshots_encrypted", { compliant: [ids.encSnap ?? ""], nonCompliant: [ids.pubSnap ?? ""] })
    expectCases(ec2Scan, "ec2_ami_public", { compliant: [ids.privImage ?? ""], nonCompliant: [ids.pubImage ?? ""] })
  })

  it("security group exposure checks", () => {
    const sg = (k: string) => ids[k] ?? ""
    expectCases(ec2Scan, "ec2_securitygroup_allow_ingress_from_internet_to_admin_ports_ipv4", { compliant: [sg("web"), sg("rdp6"), sg("smb")], nonCompliant: [sg("ssh"), sg("wide")] })
    expect(rowFor(ec2Scan, "ec2_securitygroup_allow_ingress_from_internet_to_admin_ports_ipv4", sg("ssh")).exposed).toEqual(["tcp/22 from 0.0.0.0/0"])
    expectCases(ec2Scan, "ec2_securitygroup_allow_ingress_from_internet_to_admin_ports_ipv6", { compliant: [sg("web"), sg("ssh")], nonCompliant: [sg("rdp6")] })
    expectCases(ec2Scan, "ec2_securitygroup_allow_ingress_from_internet_to_high_risk_ports", { compliant: [sg("web")], nonCompliant: [sg("ssh"), sg("smb"), sg("rdp6")] })
    expectCases(ec2Scan, "ec2_securitygroup_allow_ingress_from_internet_to_cifs", { compliant: [sg("web"), sg("ssh")], nonCompliant: [sg("smb"), sg("wide")] })
    expectCases(ec2Scan, "ec2_securitygroup_allow_ingress_from_internet_to_all_ports", { compliant: [sg("web"), sg("ssh")], nonCompliant: [sg("wide")] })
  })

  it("ec2_securitygroup_default_restrict_traffic only looks at default groups", () => {
    expectCases(ec2Scan, "ec2_securitygroup_default_restrict_traffic", { compliant: [ids.defaultSg ?? ""] })
    const rows = finding(ec2Scan, "ec2_securitygroup_default_restrict_traffic").details
    // the default VPCs' default groups (one per region) keep moto's allow-all egress rule
    expect(rows.filter((r) => !r.compliant).map((r) => r.region).sort()).toEqual(["eu-west-1", "us-east-1"])
    expect(rows.some((r) => r.resource_id === ids.ssh)).toBe(false)
  })

  it("ec2_networkacl_allow_ingress_admin_ports", () => {
    expectCases(ec2Scan, "ec2_networkacl_allow_ingress_admin_ports", { compliant: [ids.acl ?? ""] })
    const open = finding(ec2Scan, "ec2_networkacl_allow_ingress_admin_ports").details.filter((r) => !r.compliant)
    expect(open.length).toBeGreaterThanOrEqual(3) // default ACLs of the two default VPCs and of the custom VPC
    expect(open.every((r) => r.is_default === true)).toBe(true)
  })

  it("instance checks: IMDSv2, public IP, instance profile", () => {
    const good = ids.goodInstance ?? ""
    const bad = ids.badInstance ?? ""
    expectCases(ec2Scan, "ec2_instance_imdsv2_enabled", { compliant: [good], nonCompliant: [bad] })
    expectCases(ec2Scan, "ec2_instance_public_ip", { compliant: [good], nonCompliant: [bad] })
    expectCases(ec2Scan, "ec2_instance_profile_attached", { compliant: [good], nonCompliant: [bad] })
  })

  it("vpc_flow_logs_enabled and vpc_subnet_no_public_ip_by_default", () => {
    expectCases(vpcScan, "vpc_flow_logs_enabled", { compliant: [ids.vpc ?? ""] })
    expect(finding(vpcScan, "vpc_flow_logs_enabled").details.filter((r) => !r.compliant).map((r) => r.is_default)).toEqual([true, true])
    expectCases(vpcScan, "vpc_subnet_no_public_ip_by_default", { compliant: [ids.subnet ?? ""] })
    expectStatus(vpcScan, "vpc_subnet_no_public_ip_by_default", "fail")
  })

  it("reads only the inputs each service needs", () => {
    expect(ec2Scan.errors).toEqual([])
    expect(Object.keys(vpcScan.apiCallsByOperation).sort()).toEqual(
      ["EC2Client.DescribeFlowLogsCommand", "EC2Client.DescribeSubnetsCommand", "EC2Client.DescribeVpcsCommand", "STSClient.GetCallerIdentityCommand"].sort(),
    )
  })
})
