/**
 * EC2/VPC fixers (plan vocabulary, ./fixer.ts): EBS default encryption, internet ingress on admin/CIFS/all/service
 * ports, open egress, default SG, IMDSv2, public snapshots/AMIs, VPC flow logs. Security group rules are read in a
 * canonical form (one permission per protocol and port range, sources sorted) so a rule revoked and authorized again
 * compares equal; the undo authorizes exactly the sources revoked, with their descriptions.
 */
import {
  DescribeFlowLogsCommand,
  DescribeImageAttributeCommand,
  DescribeInstancesCommand,
  DescribeNetworkInterfacesCommand,
  DescribeSecurityGroupsCommand,
  DescribeSnapshotAttributeCommand,
  GetEbsEncryptionByDefaultCommand,
  type IpPermission,
} from "@aws-sdk/client-ec2"
import { DescribeLogGroupsCommand } from "@aws-sdk/client-cloudwatch-logs"
import { GetRoleCommand } from "@aws-sdk/client-iam"
import { ADMIN_PORTS, CIFS_PORTS, HIGH_RISK_PORTS, SERVICE_PORTS, coversPort, coversTcpPort, type PortSpec } from "../../scanner/aws/checks/ec2.ts"
import { ref, toJson, type Json } from "../plan.ts"
import { awsCall, FixError, isAbsent, registerTerraform, sendOptions, tfBlock, tfName, type AwsPlanFixer, type FixContext } from "./fixer.ts"

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

/** A permission in canonical form: sources sorted, empty lists dropped. */
const canonicalPermissions = (perms: ReadonlyArray<IpPermission>): Json => {
  const byKey = new Map<string, { IpProtocol: string; FromPort?: number; ToPort?: number; IpRanges: Json[]; Ipv6Ranges: Json[]; UserIdGroupPairs: Json[]; PrefixListIds: Json[] }>()
  for (const p of perms) {
    const protocol = p.IpProtocol ?? "-1"
    const key = `${protocol}|${p.FromPort ?? ""}|${p.ToPort ?? ""}`
    const entry = byKey.get(key) ?? {
      IpProtocol: protocol,
      ...(p.FromPort === undefined || protocol === "-1" ? {} : { FromPort: p.FromPort }),
      ...(p.ToPort === undefined || protocol === "-1" ? {} : { ToPort: p.ToPort }),
      IpRanges: [],
      Ipv6Ranges: [],
      UserIdGroupPairs: [],
      PrefixListIds: [],
    }
    for (const r of p.IpRanges ?? []) entry.IpRanges.push(toJson({ CidrIp: r.CidrIp, ...(r.Description ? { Description: r.Description } : {}) }))
    for (const r of p.Ipv6Ranges ?? []) entry.Ipv6Ranges.push(toJson({ CidrIpv6: r.CidrIpv6, ...(r.Description ? { Description: r.Description } : {}) }))
    for (const g of p.UserIdGroupPairs ?? []) entry.UserIdGroupPairs.push(toJson({ GroupId: g.GroupId, ...(g.Description ? { Description: g.Description } : {}) }))
    for (const l of p.PrefixListIds ?? []) entry.PrefixListIds.push(toJson({ PrefixListId: l.PrefixListId, ...(l.Description ? { Description: l.Description } : {}) }))
    byKey.set(key, entry)
  }
  const sorted = (xs: Json[]) => [...new Set(xs.map((x) => JSON.stringify(x)))].sort().map((s) => JSON.parse(s) as Json)
  return [...byKey.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([, e]) => {
      const { IpRanges, Ipv6Ranges, UserIdGroupPairs, PrefixListIds, ...rest } = e
      return toJson({
        ...rest,
        ...(IpRanges.length === 0 ? {} : { IpRanges: sorted(IpRanges) }),
        ...(Ipv6Ranges.length === 0 ? {} : { Ipv6Ranges: sorted(Ipv6Ranges) }),
        ...(UserIdGroupPairs.length === 0 ? {} : { UserIdGroupPairs: sorted(UserIdGroupPairs) }),
        ...(PrefixListIds.length === 0 ? {} : { PrefixListIds: sorted(PrefixListIds) }),
      })
    })
}

interface GroupState {
  readonly GroupId: string
  readonly IpPermissions: ReadonlyArray<IpPermission>
  readonly IpPermissionsEgress: ReadonlyArray<IpPermission>
}

const readGroup = async (ctx: FixContext, groupId: string): Promise<Json> => {
  const out = await ctx.clients.get("ec2", ctx.region).send(new DescribeSecurityGroupsCommand({ GroupIds: [groupId] }), sendOptions(ctx))
  const group = out.SecurityGroups?.[0]
  if (group === undefined) throw new FixError(`Security group ${groupId} was not found in ${ctx.region}`)
  return toJson({ GroupId: groupId, IpPermissions: canonicalPermissions(group.IpPermissions ?? []), IpPermissionsEgress: canonicalPermissions(group.IpPermissionsEgress ?? []) })
}

/** The revoked sources as they were (with their descriptions), to authorize them again on undo. */
const asTheyWere = (revoked: ReadonlyArray<IpPermission>, current: ReadonlyArray<IpPermission>): IpPermission[] =>
  revoked.map((r) => {
    const same = current.filter((c) => (c.IpProtocol ?? "-1") === (r.IpProtocol ?? "-1") && c.FromPort === r.FromPort && c.ToPort === r.ToPort)
    const v4 = same.flatMap((c) => c.IpRanges ?? [])
    const v6 = same.flatMap((c) => c.Ipv6Ranges ?? [])
    return {
      ...r,
      ...(r.IpRanges === undefined ? {} : { IpRanges: r.IpRanges.map((x) => v4.find((y) => y.CidrIp === x.CidrIp) ?? x) }),
      ...(r.Ipv6Ranges === undefined ? {} : { Ipv6Ranges: r.Ipv6Ranges.map((x) => v6.find((y) => y.CidrIpv6 === x.CidrIpv6) ?? x) }),
    }
  })

const describeRule = (p: IpPermission) => {
  const ports = (p.IpProtocol ?? "-1") === "-1" ? "all traffic" : p.FromPort === p.ToPort ? `${p.IpProtocol}/${p.FromPort}` : `${p.IpProtocol}/${p.FromPort}-${p.ToPort}`
  const sources = [...(p.IpRanges ?? []).map((r) => r.CidrIp), ...(p.Ipv6Ranges ?? []).map((r) => r.CidrIpv6), ...(p.UserIdGroupPairs ?? []).map((g) => g.GroupId)]
  return `${ports} from ${sources.join(", ")}`
}

/** What the group is attached to: its network interfaces and their instances (read from EC2). */
const attachments = async (ctx: FixContext, groupId: string): Promise<string> => {
  const out = await ctx.clients.get("ec2", ctx.region).send(new DescribeNetworkInterfacesCommand({ Filters: [{ Name: "group-id", Values: [groupId] }] }), sendOptions(ctx))
  const enis = out.NetworkInterfaces ?? []
  if (enis.length === 0) return `Security group ${groupId} is attached to no network interface now.`
  const list = enis.slice(0, 20).map((n) => `${n.NetworkInterfaceId ?? "?"}${n.Attachment?.InstanceId ? ` (instance ${n.Attachment.InstanceId})` : n.Description ? ` (${n.Description})` : ""}`)
  return `Security group ${groupId} is attached to ${enis.length} network interface(s): ${list.join(", ")}${enis.length > 20 ? ", …" : ""}.`
}

type Direction = "ingress" | "egress"

/** A security-group fixer that revokes the rules `select` picks from the group's current rules. */
const sgFixer = (spec: {
  readonly checkIds: ReadonlyArray<string>
  readonly description: string
  readonly cutsAccess: string
  readonly select: (group: GroupState) => { readonly ingress: IpPermission[]; readonly egress: IpPermission[] }
}): AwsPlanFixer => ({
  checkIds: spec.checkIds,
  description: spec.description,
  cutsAccess: spec.cutsAccess,
  read: (ctx, row) => readGroup(ctx, row.resource_id),
  plan: async (ctx, row, state) => {
    const group = state as unknown as GroupState
    const { ingress, egress } = spec.select(group)
    const id = row.resource_id
    if (ingress.length === 0 && egress.length === 0) {
      return { calls: [], effects: [], summary: `Security group ${id} had no matching rule left.`, noop: `Security group ${id} had no matching rule left.`, undo: { reversible: true, calls: [] } }
    }
    const op = (d: Direction, verb: "Revoke" | "Authorize", perms: IpPermission[]) =>
      awsCall("ec2", `${verb}SecurityGroup${d === "ingress" ? "Ingress" : "Egress"}`, ctx.region, { GroupId: id, IpPermissions: perms }, { dryRun: true })
    return {
      calls: [...(ingress.length > 0 ? [op("ingress", "Revoke", ingress)] : []), ...(egress.length > 0 ? [op("egress", "Revoke", egress)] : [])],
      effects: [
        await attachments(ctx, id),
        ...ingress.map((p) => `Inbound ${describeRule(p)} is removed.`),
        ...egress.map((p) => `Outbound ${describeRule(p)} is removed.`),
      ],
      summary: `Revoked ${ingress.length} inbound and ${egress.length} outbound rule(s) from ${id}.`,
      undo: {
        reversible: true,
        calls: [
          ...(ingress.length > 0 ? [op("ingress", "Authorize", asTheyWere(ingress, group.IpPermissions))] : []),
          ...(egress.length > 0 ? [op("egress", "Authorize", asTheyWere(egress, group.IpPermissionsEgress))] : []),
        ],
      },
    }
  },
})

const revokeFixer = (checkIds: ReadonlyArray<string>, ports: ReadonlyArray<number> | "all", families: ReadonlyArray<"ipv4" | "ipv6">, what: string): AwsPlanFixer =>
  sgFixer({
    checkIds,
    description: `Revokes the inbound rules that open ${what} to ${families.map((f) => (f === "ipv4" ? ANY_V4 : ANY_V6)).join(" and ")}; other sources of the same rules stay.`,
    cutsAccess: `Clients reaching ${what} from the internet lose access; use Session Manager, a VPN or a bastion with a narrow source range instead.`,
    select: (g) => ({ ingress: internetIngressToRevoke(g.IpPermissions, ports, families), egress: [] }),
  })

const FLOW_LOG_ROLE = "cloud-audit-vpc-flow-logs"
const FLOW_LOG_GROUP = "/cloud-audit/vpc-flow-logs"

const flowLogRolePolicies = (ctx: FixContext) => ({
  trust: JSON.stringify({
    Version: "2012-10-17",
    Statement: [{ Effect: "Allow", Principal: { Service: "vpc-flow-logs.amazonaws.com" }, Action: "sts:AssumeRole", Condition: { StringEquals: { "aws:SourceAccount": ctx.accountId } } }],
  }),
  deliver: JSON.stringify({
    Version: "2012-10-17",
    Statement: [
      {
        Effect: "Allow",
        Action: ["logs:CreateLogGroup", "logs:CreateLogStream", "logs:PutLogEvents", "logs:DescribeLogGroups", "logs:DescribeLogStreams"],
        Resource: `arn:${ctx.partition}:logs:*:${ctx.accountId}:log-group:${FLOW_LOG_GROUP}*`,
      },
    ],
  }),
})

const exists = async (probe: () => Promise<unknown>, ...absent: ReadonlyArray<string>): Promise<boolean> => {
  try {
    await probe()
    return true
  } catch (error) {
    if (isAbsent(error, ...absent)) return false
    throw error
  }
}

export const ec2Fixers: ReadonlyArray<AwsPlanFixer> = [
  {
    checkIds: ["ec2_ebs_default_encryption"],
    description: "Turns on EBS encryption by default in the region (new volumes and snapshot copies are encrypted with the default EBS key).",
    read: async (ctx) => {
      const out = await ctx.clients.get("ec2", ctx.region).send(new GetEbsEncryptionByDefaultCommand({}), sendOptions(ctx))
      return { EbsEncryptionByDefault: out.EbsEncryptionByDefault === true }
    },
    plan: (ctx, _row, state) => ({
      calls: [awsCall("ec2", "EnableEbsEncryptionByDefault", ctx.region, {}, { dryRun: true })],
      effects: [`Every EBS volume created in ${ctx.region} from now on is encrypted; existing volumes are unchanged. Instance types without EBS encryption support can no longer launch there.`],
      summary: `Enabled EBS encryption by default in ${ctx.region}.`,
      undo:
        (state as { EbsEncryptionByDefault: boolean }).EbsEncryptionByDefault
          ? { reversible: true, calls: [] }
          : { reversible: true, calls: [awsCall("ec2", "DisableEbsEncryptionByDefault", ctx.region, {}, { dryRun: true })], note: "Volumes created while it was on stay encrypted." },
    }),
  },
  revokeFixer(["ec2_securitygroup_allow_ingress_from_internet_to_admin_ports_ipv4"], ADMIN_PORTS, ["ipv4"], "SSH/RDP"),
  revokeFixer(["ec2_securitygroup_allow_ingress_from_internet_to_admin_ports_ipv6"], ADMIN_PORTS, ["ipv6"], "SSH/RDP"),
  revokeFixer(["ec2_securitygroup_allow_ingress_from_internet_to_cifs"], CIFS_PORTS, ["ipv4", "ipv6"], "CIFS/SMB"),
  revokeFixer(["ec2_securitygroup_allow_ingress_from_internet_to_high_risk_ports"], HIGH_RISK_PORTS, ["ipv4", "ipv6"], "high-risk ports"),
  revokeFixer(["ec2_securitygroup_allow_ingress_from_internet_to_all_ports"], "all", ["ipv4", "ipv6"], "all ports"),
  ...SERVICE_PORTS.map((svc) =>
    sgFixer({
      checkIds: [`ec2_securitygroup_allow_ingress_from_internet_to_${svc.key}`],
      description: `Revokes the inbound rules that open ${svc.name} (${svc.ports.map((p) => `${p.proto}/${p.port}`).join(", ")}) to 0.0.0.0/0 and ::/0; other sources of the same rules stay.`,
      cutsAccess: `Clients reaching ${svc.name} (or anything else the same rule opened) from the internet lose access.`,
      select: (g) => ({ ingress: internetIngressForPorts(g.IpPermissions, svc.ports), egress: [] }),
    }),
  ),
  sgFixer({
    checkIds: ["ec2_securitygroup_egress_unrestricted"],
    description: "Revokes the outbound rules that allow all traffic to 0.0.0.0/0 and ::/0 (add the outbound rules the workload needs first).",
    cutsAccess: "Instances in the group can no longer open connections to the internet or to other AWS services unless another outbound rule allows them.",
    select: (g) => ({ ingress: [], egress: openEgressToRevoke(g.IpPermissionsEgress) }),
  }),
  sgFixer({
    checkIds: ["ec2_securitygroup_default_restrict_traffic"],
    description: "Removes every inbound and outbound rule from the VPC's default security group.",
    cutsAccess: "Resources still attached to the default group lose all network traffic through it; move them to dedicated groups first.",
    select: (g) => ({ ingress: [...g.IpPermissions], egress: [...g.IpPermissionsEgress] }),
  }),
  {
    checkIds: ["ec2_instance_imdsv2_enabled"],
    description: "Requires IMDSv2 session tokens for the instance metadata service (HttpTokens=required).",
    cutsAccess: "Software on the instance that only speaks IMDSv1 (old SDKs/agents) can no longer read credentials from the metadata service.",
    read: async (ctx, row) => {
      const out = await ctx.clients.get("ec2", ctx.region).send(new DescribeInstancesCommand({ InstanceIds: [row.resource_id] }), sendOptions(ctx))
      const instance = out.Reservations?.[0]?.Instances?.[0]
      if (instance === undefined) throw new FixError(`Instance ${row.resource_id} was not found in ${ctx.region}`)
      return { HttpTokens: instance.MetadataOptions?.HttpTokens ?? "optional", HttpEndpoint: instance.MetadataOptions?.HttpEndpoint ?? "enabled" }
    },
    plan: (ctx, row, state) => {
      const before = state as { HttpTokens: string; HttpEndpoint: string }
      return {
        // Not sent with DryRun in the preview: emulators apply this call despite DryRun (docs/remediation.md).
        calls: [awsCall("ec2", "ModifyInstanceMetadataOptions", ctx.region, { InstanceId: row.resource_id, HttpTokens: "required", HttpEndpoint: "enabled" })],
        effects: [`Instance ${row.resource_id}: metadata requests without a session token (IMDSv1) are refused${before.HttpEndpoint === "disabled" ? "; the metadata endpoint, disabled now, is turned on" : ""}.`],
        summary: `Instance ${row.resource_id} now requires IMDSv2.`,
        undo: { reversible: true, calls: [awsCall("ec2", "ModifyInstanceMetadataOptions", ctx.region, { InstanceId: row.resource_id, HttpTokens: before.HttpTokens, HttpEndpoint: before.HttpEndpoint })] },
      }
    },
  },
  {
    checkIds: ["ec2_ebs_public_snapshot"],
    description: "Removes the public (group 'all') create-volume permission from the snapshot.",
    read: async (ctx, row) => {
      const out = await ctx.clients.get("ec2", ctx.region).send(new DescribeSnapshotAttributeCommand({ SnapshotId: row.resource_id, Attribute: "createVolumePermission" }), sendOptions(ctx))
      const perms = (out.CreateVolumePermissions ?? []).map((p) => (p.Group !== undefined ? `group:${p.Group}` : `user:${p.UserId ?? ""}`)).sort()
      return { CreateVolumePermissions: perms }
    },
    plan: (ctx, row) => ({
      calls: [awsCall("ec2", "ModifySnapshotAttribute", ctx.region, { SnapshotId: row.resource_id, Attribute: "createVolumePermission", OperationType: "remove", GroupNames: ["all"] }, { dryRun: true })],
      effects: [`Other AWS accounts can no longer create volumes from snapshot ${row.resource_id}; accounts it is shared with by id keep access. Copies already made elsewhere stay.`],
      summary: `Snapshot ${row.resource_id} is no longer public.`,
      undo: { reversible: true, calls: [awsCall("ec2", "ModifySnapshotAttribute", ctx.region, { SnapshotId: row.resource_id, Attribute: "createVolumePermission", OperationType: "add", GroupNames: ["all"] }, { dryRun: true })] },
    }),
  },
  {
    checkIds: ["ec2_ami_public"],
    description: "Removes the public launch permission from the image.",
    cutsAccess: "Other accounts that launch this AMI by id can no longer do so.",
    read: async (ctx, row) => {
      const out = await ctx.clients.get("ec2", ctx.region).send(new DescribeImageAttributeCommand({ ImageId: row.resource_id, Attribute: "launchPermission" }), sendOptions(ctx))
      return { LaunchPermissions: (out.LaunchPermissions ?? []).map((p) => (p.Group !== undefined ? `group:${p.Group}` : `user:${p.UserId ?? ""}`)).sort() }
    },
    plan: (ctx, row) => ({
      // Not sent with DryRun in the preview: emulators apply this call despite DryRun (docs/remediation.md).
      calls: [awsCall("ec2", "ModifyImageAttribute", ctx.region, { ImageId: row.resource_id, LaunchPermission: { Remove: [{ Group: "all" }] } })],
      effects: [`Accounts that launch image ${row.resource_id} by id through the public permission can no longer launch it; instances already running are unaffected.`],
      summary: `Image ${row.resource_id} is now private.`,
      undo: { reversible: true, calls: [awsCall("ec2", "ModifyImageAttribute", ctx.region, { ImageId: row.resource_id, LaunchPermission: { Add: [{ Group: "all" }] } })] },
    }),
  },
  {
    checkIds: ["vpc_flow_logs_enabled"],
    description: `Creates a REJECT-traffic flow log for the VPC into the CloudWatch Logs group ${FLOW_LOG_GROUP}, creating the group and a delivery role (${FLOW_LOG_ROLE}) when missing.`,
    read: async (ctx, row) => {
      const out = await ctx.clients.get("ec2", ctx.region).send(new DescribeFlowLogsCommand({ Filter: [{ Name: "resource-id", Values: [row.resource_id] }] }), sendOptions(ctx))
      return { FlowLogs: (out.FlowLogs ?? []).map((f) => f.FlowLogId ?? "").sort() }
    },
    plan: async (ctx, row) => {
      const roleExists = await exists(() => ctx.clients.get("iam", ctx.clients.homeRegion).send(new GetRoleCommand({ RoleName: FLOW_LOG_ROLE }), sendOptions(ctx)), "NoSuchEntity", "NoSuchEntityException")
      const groups = await ctx.clients.get("logs", ctx.region).send(new DescribeLogGroupsCommand({ logGroupNamePrefix: FLOW_LOG_GROUP }), sendOptions(ctx))
      const groupExists = (groups.logGroups ?? []).some((g) => g.logGroupName === FLOW_LOG_GROUP)
      const policies = flowLogRolePolicies(ctx)
      const home = ctx.clients.homeRegion
      const calls = [
        ...(roleExists
          ? []
          : [
              awsCall("iam", "CreateRole", home, { RoleName: FLOW_LOG_ROLE, Description: "Lets VPC Flow Logs deliver to CloudWatch Logs (created by cloud-audit remediation)", AssumeRolePolicyDocument: policies.trust }),
              awsCall("iam", "PutRolePolicy", home, { RoleName: FLOW_LOG_ROLE, PolicyName: "deliver-flow-logs", PolicyDocument: policies.deliver }),
            ]),
        ...(groupExists ? [] : [awsCall("logs", "CreateLogGroup", ctx.region, { logGroupName: FLOW_LOG_GROUP })]),
      ]
      const flowLog = calls.length
      calls.push(
        awsCall(
          "ec2",
          "CreateFlowLogs",
          ctx.region,
          { ResourceIds: [row.resource_id], ResourceType: "VPC", TrafficType: "REJECT", LogDestinationType: "cloud-watch-logs", LogGroupName: FLOW_LOG_GROUP, DeliverLogsPermissionArn: `arn:${ctx.partition}:iam::${ctx.accountId}:role/${FLOW_LOG_ROLE}` },
          { dryRun: true },
        ),
      )
      return {
        calls,
        effects: [
          `Rejected traffic of VPC ${row.resource_id} is logged to ${FLOW_LOG_GROUP} in ${ctx.region} (CloudWatch Logs ingestion and storage are billed).`,
          roleExists ? `The existing role ${FLOW_LOG_ROLE} delivers the logs.` : `A role ${FLOW_LOG_ROLE} is created for delivery.`,
          groupExists ? `The existing log group ${FLOW_LOG_GROUP} receives the logs.` : `The log group ${FLOW_LOG_GROUP} is created.`,
        ],
        summary: `Created a flow log for ${row.resource_id}.`,
        undo: {
          reversible: true,
          calls: [awsCall("ec2", "DeleteFlowLogs", ctx.region, { FlowLogIds: [ref(flowLog, "FlowLogIds", 0)] }, { dryRun: true })],
          note: `The delivery role and the log group stay (other VPCs' flow logs may use them); logs already delivered are kept.`,
        },
      }
    },
  },
]

// Terraform: the resource that holds each call's end state.
registerTerraform("ec2", "EnableEbsEncryptionByDefault", () => tfBlock("resource", "aws_ebs_encryption_by_default", "this", [["enabled", true]]))
const sgRuleBlocks = (kind: "ingress" | "egress") => (call: { params: Readonly<Record<string, unknown>> }) => {
  const group = String(call.params["GroupId"])
  const perms = call.params["IpPermissions"] as ReadonlyArray<IpPermission>
  const blocks = perms.flatMap((p) =>
    [...(p.IpRanges ?? []).map((r) => ["cidr_ipv4", r.CidrIp] as const), ...(p.Ipv6Ranges ?? []).map((r) => ["cidr_ipv6", r.CidrIpv6] as const), ...(p.UserIdGroupPairs ?? []).map((g) => ["referenced_security_group_id", g.GroupId] as const)].map(
      ([k, v]) =>
        tfBlock("resource", `aws_vpc_security_group_${kind}_rule`, tfName(`${group}_${p.IpProtocol}_${p.FromPort ?? "all"}_${String(v)}`), [
          ["security_group_id", group],
          ["ip_protocol", p.IpProtocol ?? "-1"],
          ...((p.IpProtocol ?? "-1") === "-1" ? [] : [["from_port", p.FromPort ?? 0] as const, ["to_port", p.ToPort ?? 0] as const]),
          [k, v ?? ""],
        ])
          .split("\n")
          .map((l) => `# ${l}`)
          .join("\n"),
    ),
  )
  return [`# Delete these ${kind} rules of ${group} from your configuration (or their ${kind} blocks in aws_security_group):`, ...blocks].join("\n")
}
registerTerraform("ec2", "RevokeSecurityGroupIngress", sgRuleBlocks("ingress"))
registerTerraform("ec2", "RevokeSecurityGroupEgress", sgRuleBlocks("egress"))
registerTerraform("ec2", "ModifyInstanceMetadataOptions", (call) =>
  [`# In the aws_instance resource of ${String(call.params["InstanceId"])}:`, tfBlock("", "metadata_options", "", [["http_tokens", call.params["HttpTokens"]], ["http_endpoint", call.params["HttpEndpoint"]]]).trimStart()].join("\n"),
)
registerTerraform("iam", "CreateRole", (call) =>
  tfBlock("resource", "aws_iam_role", tfName(String(call.params["RoleName"])), [["name", call.params["RoleName"]], ["description", call.params["Description"]], ["assume_role_policy", call.params["AssumeRolePolicyDocument"]]]),
)
registerTerraform("iam", "PutRolePolicy", (call) =>
  tfBlock("resource", "aws_iam_role_policy", tfName(`${String(call.params["RoleName"])}_${String(call.params["PolicyName"])}`), [["name", call.params["PolicyName"]], ["role", call.params["RoleName"]], ["policy", call.params["PolicyDocument"]]]),
)
registerTerraform("logs", "CreateLogGroup", (call) => tfBlock("resource", "aws_cloudwatch_log_group", tfName(String(call.params["logGroupName"])), [["name", call.params["logGroupName"]]]))
registerTerraform("ec2", "CreateFlowLogs", (call) =>
  tfBlock("resource", "aws_flow_log", tfName(String((call.params["ResourceIds"] as string[])[0])), [
    ["vpc_id", (call.params["ResourceIds"] as string[])[0]],
    ["traffic_type", call.params["TrafficType"]],
    ["log_destination_type", call.params["LogDestinationType"]],
    ["log_destination", String(call.params["DeliverLogsPermissionArn"]).replace(/^arn:([^:]+):iam::(\d+):.*$/, `arn:$1:logs:${call.region}:$2:log-group:${String(call.params["LogGroupName"])}`)],
    ["iam_role_arn", call.params["DeliverLogsPermissionArn"]],
  ]),
)
