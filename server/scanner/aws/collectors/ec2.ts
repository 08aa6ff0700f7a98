/**
 * EC2/VPC inventory per region: EBS encryption-by-default, security groups, network ACLs, instances, volumes,
 * own snapshots (with their create-volume permissions), own AMIs, VPCs, flow logs and subnets. Only the inputs the
 * scan's checks read are fetched (`ctx.wants`). Snapshots are filtered by owner id too: moto ignores OwnerIds.
 */
import {
  DescribeFlowLogsCommand,
  DescribeImagesCommand,
  DescribeInstancesCommand,
  DescribeNetworkAclsCommand,
  DescribeSecurityGroupsCommand,
  DescribeSnapshotAttributeCommand,
  DescribeSnapshotsCommand,
  DescribeSubnetsCommand,
  DescribeVolumesCommand,
  DescribeVpcsCommand,
  GetEbsEncryptionByDefaultCommand,
  type IpPermission,
} from "@aws-sdk/client-ec2"
import type { CollectContext } from "../context.ts"

export const ec2ResourceTypes = [
  "ec2.ebs_default_encryption",
  "ec2.security_groups",
  "ec2.network_acls",
  "ec2.instances",
  "ec2.volumes",
  "ec2.snapshots",
  "ec2.images",
  "ec2.vpcs",
  "ec2.flow_logs",
  "ec2.subnets",
] as const

/** EC2 tags as `key=value` strings, in key order. */
const tagStrings = (tags: ReadonlyArray<{ readonly Key?: string | undefined; readonly Value?: string | undefined }> | undefined): ReadonlyArray<string> =>
  (tags ?? []).flatMap((t) => (t.Key === undefined ? [] : [`${t.Key}=${t.Value ?? ""}`])).sort()

export interface SgRule {
  readonly protocol: string
  readonly fromPort: number | undefined
  readonly toPort: number | undefined
  readonly ipv4: ReadonlyArray<string>
  readonly ipv6: ReadonlyArray<string>
  readonly groups: ReadonlyArray<string>
}

export interface SecurityGroup {
  readonly id: string
  readonly name: string
  readonly vpcId: string | undefined
  /** The group's tags as `key=value` strings (mute rules match them). */
  readonly tags: ReadonlyArray<string>
  readonly ingress: ReadonlyArray<SgRule>
  readonly egress: ReadonlyArray<SgRule>
}

export interface NaclEntry {
  readonly ruleNumber: number
  readonly egress: boolean
  readonly action: string
  readonly protocol: string
  readonly cidr: string | undefined
  readonly ipv6Cidr: string | undefined
  readonly fromPort: number | undefined
  readonly toPort: number | undefined
}

export interface Instance {
  readonly id: string
  /** The instance's tags as `key=value` strings (mute rules match them). */
  readonly tags: ReadonlyArray<string>
  readonly state: string
  readonly httpTokens: string | undefined
  readonly httpEndpoint: string | undefined
  readonly publicIp: string | undefined
  readonly instanceProfileArn: string | undefined
  readonly securityGroupIds: ReadonlyArray<string>
}

export interface Ec2Region {
  readonly region: string
  readonly ebsEncryptionByDefault: boolean | undefined
  readonly securityGroups: ReadonlyArray<SecurityGroup> | undefined
  readonly networkAcls: ReadonlyArray<{ readonly id: string; readonly vpcId: string | undefined; readonly isDefault: boolean; readonly entries: ReadonlyArray<NaclEntry> }> | undefined
  readonly instances: ReadonlyArray<Instance> | undefined
  readonly volumes: ReadonlyArray<{ readonly id: string; readonly encrypted: boolean; readonly kmsKeyId: string | undefined; readonly state: string }> | undefined
  readonly snapshots: ReadonlyArray<{ readonly id: string; readonly encrypted: boolean; readonly public: boolean | undefined; readonly sharedWith: ReadonlyArray<string> }> | undefined
  readonly images: ReadonlyArray<{ readonly id: string; readonly name: string; readonly public: boolean }> | undefined
  readonly vpcs: ReadonlyArray<{ readonly id: string; readonly isDefault: boolean; readonly cidr: string | undefined }> | undefined
  readonly flowLogs: ReadonlyArray<{ readonly id: string; readonly resourceId: string; readonly trafficType: string; readonly status: string }> | undefined
  readonly subnets: ReadonlyArray<{ readonly id: string; readonly vpcId: string | undefined; readonly mapPublicIpOnLaunch: boolean; readonly defaultForAz: boolean }> | undefined
}

export interface Ec2Inventory {
  readonly regions: ReadonlyArray<Ec2Region>
}

const rules = (perms: ReadonlyArray<IpPermission> | undefined): SgRule[] =>
  (perms ?? []).map((p) => ({
    protocol: p.IpProtocol ?? "-1",
    fromPort: p.FromPort,
    toPort: p.ToPort,
    ipv4: (p.IpRanges ?? []).flatMap((r) => (r.CidrIp === undefined ? [] : [r.CidrIp])),
    ipv6: (p.Ipv6Ranges ?? []).flatMap((r) => (r.CidrIpv6 === undefined ? [] : [r.CidrIpv6])),
    groups: (p.UserIdGroupPairs ?? []).flatMap((g) => (g.GroupId === undefined ? [] : [g.GroupId])),
  }))

export async function collectEc2(ctx: CollectContext): Promise<Ec2Inventory> {
  const regions = await ctx.perRegion(async (region): Promise<Ec2Region> => {
    const ec2 = ctx.clients.get("ec2", region)
    const spec = (type: (typeof ec2ResourceTypes)[number], op: string, id?: string) => ({ type, region, op, ...(id === undefined ? {} : { id }) })
    const skip = Promise.resolve(undefined)
    const nextToken = (token: string | undefined) => (token === undefined ? {} : { NextToken: token })

    const ebsP = ctx.wants("ec2.ebs_default_encryption")
      ? ctx.call(spec("ec2.ebs_default_encryption", "ec2:GetEbsEncryptionByDefault"), (o) => ec2.send(new GetEbsEncryptionByDefaultCommand({}), o))
      : skip
    const sgP = ctx.wants("ec2.security_groups")
      ? ctx.paginate(
          spec("ec2.security_groups", "ec2:DescribeSecurityGroups"),
          (t, o) => ec2.send(new DescribeSecurityGroupsCommand({ ...nextToken(t) }), o),
          (p) => ({ items: p.SecurityGroups, next: p.NextToken }),
        )
      : skip
    const naclP = ctx.wants("ec2.network_acls")
      ? ctx.paginate(
          spec("ec2.network_acls", "ec2:DescribeNetworkAcls"),
          (t, o) => ec2.send(new DescribeNetworkAclsCommand({ ...nextToken(t) }), o),
          (p) => ({ items: p.NetworkAcls, next: p.NextToken }),
        )
      : skip
    const instP = ctx.wants("ec2.instances")
      ? ctx.paginate(
          spec("ec2.instances", "ec2:DescribeInstances"),
          (t, o) => ec2.send(new DescribeInstancesCommand({ ...nextToken(t) }), o),
          (p) => ({ items: (p.Reservations ?? []).flatMap((r) => r.Instances ?? []), next: p.NextToken }),
        )
      : skip
    const volP = ctx.wants("ec2.volumes")
      ? ctx.paginate(
          spec("ec2.volumes", "ec2:DescribeVolumes"),
          (t, o) => ec2.send(new DescribeVolumesCommand({ ...nextToken(t) }), o),
          (p) => ({ items: p.Volumes, next: p.NextToken }),
        )
      : skip
    const snapP = ctx.wants("ec2.snapshots")
      ? ctx.paginate(
          spec("ec2.snapshots", "ec2:DescribeSnapshots"),
          (t, o) =>
            ec2.send(new DescribeSnapshotsCommand({ OwnerIds: ["self"], Filters: [{ Name: "owner-id", Values: [ctx.accountId] }], ...nextToken(t) }), o),
          (p) => ({ items: p.Snapshots, next: p.NextToken }),
        )
      : skip
    const imgP = ctx.wants("ec2.images")
      ? ctx.call(spec("ec2.images", "ec2:DescribeImages"), (o) => ec2.send(new DescribeImagesCommand({ Owners: ["self"] }), o))
      : skip
    const vpcP = ctx.wants("ec2.vpcs")
      ? ctx.paginate(
          spec("ec2.vpcs", "ec2:DescribeVpcs"),
          (t, o) => ec2.send(new DescribeVpcsCommand({ ...nextToken(t) }), o),
          (p) => ({ items: p.Vpcs, next: p.NextToken }),
        )
      : skip
    const flowP = ctx.wants("ec2.flow_logs")
      ? ctx.paginate(
          spec("ec2.flow_logs", "ec2:DescribeFlowLogs"),
          (t, o) => ec2.send(new DescribeFlowLogsCommand({ ...nextToken(t) }), o),
          (p) => ({ items: p.FlowLogs, next: p.NextToken }),
        )
      : skip
    const subnetP = ctx.wants("ec2.subnets")
      ? ctx.paginate(
          spec("ec2.subnets", "ec2:DescribeSubnets"),
          (t, o) => ec2.send(new DescribeSubnetsCommand({ ...nextToken(t) }), o),
          (p) => ({ items: p.Subnets, next: p.NextToken }),
        )
      : skip

    const [ebs, sgs, nacls, instances, volumes, snaps, images, vpcs, flows, subnets] = await Promise.all([
      ebsP, sgP, naclP, instP, volP, snapP, imgP, vpcP, flowP, subnetP,
    ])
    const snapshots =
      snaps === undefined
        ? undefined
        : await ctx.map(snaps, async (s) => {
            const id = s.SnapshotId ?? ""
            const attr = await ctx.call(spec("ec2.snapshots", "ec2:DescribeSnapshotAttribute", id), (o) =>
              ec2.send(new DescribeSnapshotAttributeCommand({ SnapshotId: id, Attribute: "createVolumePermission" }), o),
            )
            const perms = attr?.CreateVolumePermissions
            return {
              id,
              encrypted: s.Encrypted === true,
              public: attr === undefined ? undefined : (perms ?? []).some((p) => p.Group === "all"),
              sharedWith: (perms ?? []).flatMap((p) => (p.UserId === undefined ? [] : [p.UserId])),
            }
          })
    const live = instances?.filter((i) => i.State?.Name !== "terminated")
    ctx.countResources(
      (sgs?.length ?? 0) + (nacls?.length ?? 0) + (live?.length ?? 0) + (volumes?.length ?? 0) + (snapshots?.length ?? 0) +
        (images?.Images?.length ?? 0) + (vpcs?.length ?? 0) + (subnets?.length ?? 0),
    )
    return {
      region,
      ebsEncryptionByDefault: ebs === undefined ? undefined : ebs.EbsEncryptionByDefault === true,
      securityGroups: sgs?.map((g) => ({
        id: g.GroupId ?? "",
        name: g.GroupName ?? "",
        vpcId: g.VpcId,
        tags: tagStrings(g.Tags),
        ingress: rules(g.IpPermissions),
        egress: rules(g.IpPermissionsEgress),
      })),
      networkAcls: nacls?.map((n) => ({
        id: n.NetworkAclId ?? "",
        vpcId: n.VpcId,
        isDefault: n.IsDefault === true,
        entries: (n.Entries ?? []).map((e) => ({
          ruleNumber: e.RuleNumber ?? 32767,
          egress: e.Egress === true,
          action: e.RuleAction ?? "deny",
          protocol: e.Protocol ?? "-1",
          cidr: e.CidrBlock,
          ipv6Cidr: e.Ipv6CidrBlock,
          fromPort: e.PortRange?.From,
          toPort: e.PortRange?.To,
        })),
      })),
      instances: live?.map((i) => ({
        id: i.InstanceId ?? "",
        tags: tagStrings(i.Tags),
        state: i.State?.Name ?? "",
        httpTokens: i.MetadataOptions?.HttpTokens,
        httpEndpoint: i.MetadataOptions?.HttpEndpoint,
        publicIp: i.PublicIpAddress,
        instanceProfileArn: i.IamInstanceProfile?.Arn,
        securityGroupIds: (i.SecurityGroups ?? []).flatMap((g) => (g.GroupId === undefined ? [] : [g.GroupId])),
      })),
      volumes: volumes?.map((v) => ({ id: v.VolumeId ?? "", encrypted: v.Encrypted === true, kmsKeyId: v.KmsKeyId, state: v.State ?? "" })),
      snapshots,
      images: images?.Images?.map((i) => ({ id: i.ImageId ?? "", name: i.Name ?? "", public: i.Public === true })),
      vpcs: vpcs?.map((v) => ({ id: v.VpcId ?? "", isDefault: v.IsDefault === true, cidr: v.CidrBlock })),
      flowLogs: flows?.map((f) => ({ id: f.FlowLogId ?? "", resourceId: f.ResourceId ?? "", trafficType: f.TrafficType ?? "", status: f.FlowLogStatus ?? "" })),
      subnets: subnets?.map((s) => ({ id: s.SubnetId ?? "", vpcId: s.VpcId, mapPublicIpOnLaunch: s.MapPublicIpOnLaunch === true, defaultForAz: s.DefaultForAz === true })),
    }
  })
  return { regions }
}
