/** EC2/VPC fixers: EBS default encryption, internet ingress on admin/CIFS/all ports, default SG, IMDSv2, public snapshots/AMIs, VPC flow logs. */
import {
  CreateFlowLogsCommand,
  DescribeSecurityGroupsCommand,
  EnableEbsEncryptionByDefaultCommand,
  ModifyImageAttributeCommand,
  ModifyInstanceMetadataOptionsCommand,
  ModifySnapshotAttributeCommand,
  RevokeSecurityGroupEgressCommand,
  RevokeSecurityGroupIngressCommand,
  type IpPermission,
} from "@aws-sdk/client-ec2"
import { CreateLogGroupCommand } from "@aws-sdk/client-cloudwatch-logs"
import { CreateRoleCommand, GetRoleCommand, PutRolePolicyCommand } from "@aws-sdk/client-iam"
import { ADMIN_PORTS, CIFS_PORTS, HIGH_RISK_PORTS, SERVICE_PORTS, coversPort, coversTcpPort, type PortSpec } from "../../scanner/aws/checks/ec2.ts"
import { errorCode } from "../../scanner/aws/errors.ts"
import { FixError, sendOptions, type FixContext, type Fixer } from "./fixer.ts"

const ANY_V4 = "0.0.0.0/0"
const ANY_V6 = "::/0"

/** The parts of each ingress permission that open `ports` (or everything) to the internet. */
export function internetIngressToRevoke(perms: ReadonlyArray<IpPermission>, ports: ReadonlyArray<number> | "all", families: ReadonlyArray<"ipv4" | "ipv6">): IpPermission[] {
  const out: IpPermission[] = []
  for (const p of perms) {
    const protocol = p.IpProtocol ?? "-1"
    const hits =
      ports === "all"
        ? protocol === "-1" || ((protocol === "tcp" || protocol === "6") && (p.FromPort ?? 0) <= 0 && (p.ToPort ?? 65535) >= 65535)
        : ports.some((port) => coversTcpPort(protocol, p.FromPort, p.ToPort, port))
    if (!hits) continue
    const v4 = families.includes("ipv4") ? (p.IpRanges ?? []).filter((r) => r.CidrIp === ANY_V4) : []
    const v6 = families.includes("ipv6") ? (p.Ipv6Ranges ?? []).filter((r) => r.CidrIpv6 === ANY_V6) : []
    if (v4.length === 0 && v6.length === 0) continue
    out.push({
      IpProtocol: protocol,
      ...(p.FromPort === undefined ? {} : { FromPort: p.FromPort }),
      ...(p.ToPort === undefined ? {} : { ToPort: p.ToPort }),
      ...(v4.length === 0 ? {} : { IpRanges: v4.map((r) => ({ CidrIp: r.CidrIp })) }),
      ...(v6.length === 0 ? {} : { Ipv6Ranges: v6.map((r) => ({ CidrIpv6: r.CidrIpv6 })) }),
    })
  }
  return out
}

/** Keeps only the internet sources (0.0.0.0/0, ::/0) of a permission, or undefined when it has none. */
const internetPart = (p: IpPermission): IpPermission | undefined => {
  const v4 = (p.IpRanges ?? []).filter((r) => r.CidrIp === ANY_V4)
  const v6 = (p.Ipv6Ranges ?? []).filter((r) => r.CidrIpv6 === ANY_V6)
  if (v4.length === 0 && v6.length === 0) return undefined
  return {
    IpProtocol: p.IpProtocol ?? "-1",
    ...(p.FromPort === undefined ? {} : { FromPort: p.FromPort }),
    ...(p.ToPort === undefined ? {} : { ToPort: p.ToPort }),
    ...(v4.length === 0 ? {} : { IpRanges: v4.map((r) => ({ CidrIp: r.CidrIp })) }),
    ...(v6.length === 0 ? {} : { Ipv6Ranges: v6.map((r) => ({ CidrIpv6: r.CidrIpv6 })) }),
  }
}

/** The internet parts of the ingress permissions that cover any of `specs` (TCP or UDP service ports). */
export function internetIngressForPorts(perms: ReadonlyArray<IpPermission>, specs: ReadonlyArray<PortSpec>): IpPermission[] {
  return perms.flatMap((p) => {
    if (!specs.some((spec) => coversPort(p.IpProtocol ?? "-1", p.FromPort, p.ToPort, spec))) return []
    const part = internetPart(p)
    return part === undefined ? [] : [part]
  })
}

/** The internet parts of the egress permissions that allow all traffic (or all TCP/UDP ports). */
export function openEgressToRevoke(perms: ReadonlyArray<IpPermission>): IpPermission[] {
  return perms.flatMap((p) => {
    const protocol = p.IpProtocol ?? "-1"
    const all = protocol === "-1" || ((protocol === "tcp" || protocol === "udp" || protocol === "6" || protocol === "17") && (p.FromPort ?? 0) <= 0 && (p.ToPort ?? 65535) >= 65535)
    if (!all) return []
    const part = internetPart(p)
    return part === undefined ? [] : [part]
  })
}

const describeGroup = async (ctx: FixContext, groupId: string) => {
  const out = await ctx.clients.get("ec2", ctx.region).send(new DescribeSecurityGroupsCommand({ GroupIds: [groupId] }), sendOptions(ctx))
  const group = out.SecurityGroups?.[0]
  if (group === undefined) throw new FixError(`Security group ${groupId} was not found in ${ctx.region}`)
  return group
}

const revokeFixer = (checkIds: ReadonlyArray<string>, ports: ReadonlyArray<number> | "all", families: ReadonlyArray<"ipv4" | "ipv6">, what: string): Fixer => ({
  checkIds,
  description: `Revokes the inbound rules that open ${what} to ${families.map((f) => (f === "ipv4" ? ANY_V4 : ANY_V6)).join(" and ")}; other sources of the same rules stay.`,
  cutsAccess: `Clients reaching ${what} from the internet lose access; use Session Manager, a VPN or a bastion with a narrow source range instead.`,
  apply: async (ctx, row) => {
    const group = await describeGroup(ctx, row.resource_id)
    const revoke = internetIngressToRevoke(group.IpPermissions ?? [], ports, families)
    if (revoke.length === 0) return `Security group ${row.resource_id} had no matching internet rule left.`
    await ctx.clients.get("ec2", ctx.region).send(new RevokeSecurityGroupIngressCommand({ GroupId: row.resource_id, IpPermissions: revoke }), sendOptions(ctx))
    return `Revoked ${revoke.length} internet inbound rule(s) from ${row.resource_id}.`
  },
})

const FLOW_LOG_ROLE = "cloud-audit-vpc-flow-logs"
const FLOW_LOG_GROUP = "/cloud-audit/vpc-flow-logs"

async function ensureFlowLogRole(ctx: FixContext): Promise<string> {
  const iam = ctx.clients.get("iam", ctx.clients.homeRegion)
  try {
    const existing = await iam.send(new GetRoleCommand({ RoleName: FLOW_LOG_ROLE }), sendOptions(ctx))
    if (existing.Role?.Arn !== undefined) return existing.Role.Arn
  } catch (error) {
    if (errorCode(error) !== "NoSuchEntity" && errorCode(error) !== "NoSuchEntityException") throw error
  }
  const created = await iam.send(
    new CreateRoleCommand({
      RoleName: FLOW_LOG_ROLE,
      Description: "Lets VPC Flow Logs deliver to CloudWatch Logs (created by cloud-audit remediation)",
      AssumeRolePolicyDocument: JSON.stringify({
        Version: "2012-10-17",
        Statement: [{ Effect: "Allow", Principal: { Service: "vpc-flow-logs.amazonaws.com" }, Action: "sts:AssumeRole", Condition: { StringEquals: { "aws:SourceAccount": ctx.accountId } } }],
      }),
    }),
    sendOptions(ctx),
  )
  await iam.send(
    new PutRolePolicyCommand({
      RoleName: FLOW_LOG_ROLE,
      PolicyName: "deliver-flow-logs",
      PolicyDocument: JSON.stringify({
        Version: "2012-10-17",
        Statement: [
          {
            Effect: "Allow",
            Action: ["logs:CreateLogGroup", "logs:CreateLogStream", "logs:PutLogEvents", "logs:DescribeLogGroups", "logs:DescribeLogStreams"],
            Resource: `arn:${ctx.partition}:logs:*:${ctx.accountId}:log-group:${FLOW_LOG_GROUP}*`,
          },
        ],
      }),
    }),
    sendOptions(ctx),
  )
  const arn = created.Role?.Arn
  if (arn === undefined) throw new FixError("IAM did not return the flow log role ARN")
  return arn
}

export const ec2Fixers: ReadonlyArray<Fixer> = [
  {
    checkIds: ["ec2_ebs_default_encryption"],
    description: "Turns on EBS encryption by default in the region (new volumes and snapshot copies are encrypted with the default EBS key).",
    apply: async (ctx) => {
      await ctx.clients.get("ec2", ctx.region).send(new EnableEbsEncryptionByDefaultCommand({}), sendOptions(ctx))
      return `Enabled EBS encryption by default in ${ctx.region}.`
    },
  },
  revokeFixer(["ec2_securitygroup_allow_ingress_from_internet_to_admin_ports_ipv4"], ADMIN_PORTS, ["ipv4"], "SSH/RDP"),
  revokeFixer(["ec2_securitygroup_allow_ingress_from_internet_to_admin_ports_ipv6"], ADMIN_PORTS, ["ipv6"], "SSH/RDP"),
  revokeFixer(["ec2_securitygroup_allow_ingress_from_internet_to_cifs"], CIFS_PORTS, ["ipv4", "ipv6"], "CIFS/SMB"),
  revokeFixer(["ec2_securitygroup_allow_ingress_from_internet_to_high_risk_ports"], HIGH_RISK_PORTS, ["ipv4", "ipv6"], "high-risk ports"),
  revokeFixer(["ec2_securitygroup_allow_ingress_from_internet_to_all_ports"], "all", ["ipv4", "ipv6"], "all ports"),
  ...SERVICE_PORTS.map(
    (svc): Fixer => ({
      checkIds: [`ec2_securitygroup_allow_ingress_from_internet_to_${svc.key}`],
      description: `Revokes the inbound rules that open ${svc.name} (${svc.ports.map((p) => `${p.proto}/${p.port}`).join(", ")}) to 0.0.0.0/0 and ::/0; other sources of the same rules stay.`,
      cutsAccess: `Clients reaching ${svc.name} (or anything else the same rule opened) from the internet lose access.`,
      apply: async (ctx, row) => {
        const group = await describeGroup(ctx, row.resource_id)
        const revoke = internetIngressForPorts(group.IpPermissions ?? [], svc.ports)
        if (revoke.length === 0) return `Security group ${row.resource_id} had no matching internet rule left.`
        await ctx.clients.get("ec2", ctx.region).send(new RevokeSecurityGroupIngressCommand({ GroupId: row.resource_id, IpPermissions: revoke }), sendOptions(ctx))
        return `Revoked ${revoke.length} internet inbound rule(s) from ${row.resource_id}.`
      },
    }),
  ),
  {
    checkIds: ["ec2_securitygroup_egress_unrestricted"],
    description: "Revokes the outbound rules that allow all traffic to 0.0.0.0/0 and ::/0 (add the outbound rules the workload needs first).",
    cutsAccess: "Instances in the group can no longer open connections to the internet or to other AWS services unless another outbound rule allows them.",
    apply: async (ctx, row) => {
      const group = await describeGroup(ctx, row.resource_id)
      const revoke = openEgressToRevoke(group.IpPermissionsEgress ?? [])
      if (revoke.length === 0) return `Security group ${row.resource_id} had no open outbound rule left.`
      await ctx.clients.get("ec2", ctx.region).send(new RevokeSecurityGroupEgressCommand({ GroupId: row.resource_id, IpPermissions: revoke }), sendOptions(ctx))
      return `Revoked ${revoke.length} open outbound rule(s) from ${row.resource_id}.`
    },
  },
  {
    checkIds: ["ec2_securitygroup_default_restrict_traffic"],
    description: "Removes every inbound and outbound rule from the VPC's default security group.",
    cutsAccess: "Resources still attached to the default group lose all network traffic through it; move them to dedicated groups first.",
    apply: async (ctx, row) => {
      const group = await describeGroup(ctx, row.resource_id)
      const ec2 = ctx.clients.get("ec2", ctx.region)
      const ingress = group.IpPermissions ?? []
      const egress = group.IpPermissionsEgress ?? []
      if (ingress.length > 0) await ec2.send(new RevokeSecurityGroupIngressCommand({ GroupId: row.resource_id, IpPermissions: ingress }), sendOptions(ctx))
      if (egress.length > 0) await ec2.send(new RevokeSecurityGroupEgressCommand({ GroupId: row.resource_id, IpPermissions: egress }), sendOptions(ctx))
      return `Removed ${ingress.length} inbound and ${egress.length} outbound rule(s) from default group ${row.resource_id}.`
    },
  },
  {
    checkIds: ["ec2_instance_imdsv2_enabled"],
    description: "Requires IMDSv2 session tokens for the instance metadata service (HttpTokens=required).",
    cutsAccess: "Software on the instance that only speaks IMDSv1 (old SDKs/agents) can no longer read credentials from the metadata service.",
    apply: async (ctx, row) => {
      await ctx.clients
        .get("ec2", ctx.region)
        .send(new ModifyInstanceMetadataOptionsCommand({ InstanceId: row.resource_id, HttpTokens: "required", HttpEndpoint: "enabled" }), sendOptions(ctx))
      return `Instance ${row.resource_id} now requires IMDSv2.`
    },
  },
  {
    checkIds: ["ec2_ebs_public_snapshot"],
    description: "Removes the public (group 'all') create-volume permission from the snapshot.",
    apply: async (ctx, row) => {
      await ctx.clients
        .get("ec2", ctx.region)
        .send(new ModifySnapshotAttributeCommand({ SnapshotId: row.resource_id, Attribute: "createVolumePermission", OperationType: "remove", GroupNames: ["all"] }), sendOptions(ctx))
      return `Snapshot ${row.resource_id} is no longer public.`
    },
  },
  {
    checkIds: ["ec2_ami_public"],
    description: "Removes the public launch permission from the image.",
    cutsAccess: "Other accounts that launch this AMI by id can no longer do so.",
    apply: async (ctx, row) => {
      await ctx.clients.get("ec2", ctx.region).send(new ModifyImageAttributeCommand({ ImageId: row.resource_id, LaunchPermission: { Remove: [{ Group: "all" }] } }), sendOptions(ctx))
      return `Image ${row.resource_id} is now private.`
    },
  },
  {
    checkIds: ["vpc_flow_logs_enabled"],
    description: `Creates a REJECT-traffic flow log for the VPC into the CloudWatch Logs group ${FLOW_LOG_GROUP}, creating the group and a delivery role (${FLOW_LOG_ROLE}) when missing.`,
    apply: async (ctx, row) => {
      const roleArn = await ensureFlowLogRole(ctx)
      try {
        await ctx.clients.get("logs", ctx.region).send(new CreateLogGroupCommand({ logGroupName: FLOW_LOG_GROUP }), sendOptions(ctx))
      } catch (error) {
        if (errorCode(error) !== "ResourceAlreadyExistsException") throw error
      }
      const out = await ctx.clients.get("ec2", ctx.region).send(
        new CreateFlowLogsCommand({
          ResourceIds: [row.resource_id],
          ResourceType: "VPC",
          TrafficType: "REJECT",
          LogDestinationType: "cloud-watch-logs",
          LogGroupName: FLOW_LOG_GROUP,
          DeliverLogsPermissionArn: roleArn,
        }),
        sendOptions(ctx),
      )
      const failed = out.Unsuccessful?.[0]?.Error?.Message
      if (failed !== undefined) throw new FixError(failed)
      return `Created flow log ${out.FlowLogIds?.[0] ?? ""} for ${row.resource_id}.`
    },
  },
]
