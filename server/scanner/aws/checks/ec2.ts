/**
 * EC2 checks (CIS AWS v3.0 2.2.1 and 5.x / v7.0 6.x, FSBP EC2.x): EBS encryption, snapshot/AMI exposure,
 * security group and network ACL exposure to the internet, IMDSv2, public IPs and instance roles.
 */
import type { DetailRow } from "../../check.ts"
import type { Ec2Region, NaclEntry, SecurityGroup, SgRule } from "../collectors/ec2.ts"
import { defineCheck, row } from "../define-check.ts"
import { SERVICE_PORTS, type PortSpec } from "../../service-ports.ts"

export { SERVICE_PORTS, type PortSpec }

const ANY_V4 = "0.0.0.0/0"
const ANY_V6 = "::/0"
export const ADMIN_PORTS: ReadonlyArray<number> = [22, 3389]
export const CIFS_PORTS: ReadonlyArray<number> = [139, 445]
export const HIGH_RISK_PORTS: ReadonlyArray<number> = [20, 21, 22, 23, 25, 110, 135, 143, 445, 1433, 1434, 3000, 3306, 3389, 4333, 5000, 5432, 5500, 5601, 8080, 8088, 8888, 9200, 9300]

const normProtocol = (p: string) => (p === "6" ? "tcp" : p === "17" ? "udp" : p === "all" ? "-1" : p.toLowerCase())


/** A resource's tags as a row field (`key=value` strings), only when it has some: mute rules can match them. */
export const tagged = (r: { readonly tags: ReadonlyArray<string> }): { readonly tags?: ReadonlyArray<string> } => (r.tags.length === 0 ? {} : { tags: r.tags })
/** Whether a rule/entry with this protocol and port range lets TCP traffic reach `port`. */
export function coversTcpPort(protocol: string, from: number | undefined, to: number | undefined, port: number): boolean {
  const p = normProtocol(protocol)
  if (p === "-1") return true
  if (p !== "tcp") return false
  if (from === undefined || to === undefined || from === -1) return true
  return from <= port && port <= to
}

const openToInternet = (r: SgRule, family: "ipv4" | "ipv6") => (family === "ipv4" ? r.ipv4.includes(ANY_V4) : r.ipv6.includes(ANY_V6))

/** "tcp/22 from 0.0.0.0/0" for every port in `ports` that an ingress rule opens to the internet. */
export function exposedPorts(sg: SecurityGroup, ports: ReadonlyArray<number>, families: ReadonlyArray<"ipv4" | "ipv6">): string[] {
  const out = new Set<string>()
  for (const r of sg.ingress) {
    for (const family of families) {
      if (!openToInternet(r, family)) continue
      for (const port of ports) {
        if (coversTcpPort(r.protocol, r.fromPort, r.toPort, port)) out.add(`tcp/${port} from ${family === "ipv4" ? ANY_V4 : ANY_V6}`)
      }
    }
  }
  return [...out]
}

const allPortsOpen = (r: SgRule) =>
  normProtocol(r.protocol) === "-1" || (normProtocol(r.protocol) === "tcp" && (r.fromPort ?? 0) <= 0 && (r.toPort ?? 65535) >= 65535)

/** First matching ingress entry from anywhere decides, as the NACL evaluates rules in number order. */
export function naclOpenPorts(entries: ReadonlyArray<NaclEntry>, ports: ReadonlyArray<number>): string[] {
  const ingress = entries.filter((e) => !e.egress).sort((a, b) => a.ruleNumber - b.ruleNumber)
  const out: string[] = []
  for (const [family, any] of [["ipv4", ANY_V4], ["ipv6", ANY_V6]] as const) {
    for (const port of ports) {
      const first = ingress.find((e) => (family === "ipv4" ? e.cidr === any : e.ipv6Cidr === any) && coversTcpPort(e.protocol, e.fromPort, e.toPort, port))
      if (first?.action === "allow") out.push(`tcp/${port} from ${any} (rule ${first.ruleNumber})`)
    }
  }
  return out
}

/** Whether a rule/entry with this protocol and port range lets `spec` traffic through. */
export function coversPort(protocol: string, from: number | undefined, to: number | undefined, spec: PortSpec): boolean {
  const p = normProtocol(protocol)
  if (p === "-1") return true
  if (p !== spec.proto) return false
  if (from === undefined || to === undefined || from === -1) return true
  return from <= spec.port && spec.port <= to
}

/** "udp/53 from ::/0" for every service port an ingress rule opens to the internet (IPv4 and IPv6). */
export function exposedServicePorts(sg: SecurityGroup, specs: ReadonlyArray<PortSpec>): string[] {
  const out = new Set<string>()
  for (const r of sg.ingress) {
    for (const family of ["ipv4", "ipv6"] as const) {
      if (!openToInternet(r, family)) continue
      for (const spec of specs) {
        if (coversPort(r.protocol, r.fromPort, r.toPort, spec)) out.add(`${spec.proto}/${spec.port} from ${family === "ipv4" ? ANY_V4 : ANY_V6}`)
      }
    }
  }
  return [...out]
}

const WEB_PORTS: ReadonlyArray<number> = [80, 443]

/** Internet ingress rules other than TCP 80/443 ("tcp/8080-8080 from 0.0.0.0/0"). */
export function nonWebInternetRules(sg: SecurityGroup): string[] {
  const out: string[] = []
  for (const r of sg.ingress) {
    for (const family of ["ipv4", "ipv6"] as const) {
      if (!openToInternet(r, family)) continue
      const p = normProtocol(r.protocol)
      const web = p === "tcp" && r.fromPort !== undefined && r.toPort !== undefined && r.fromPort === r.toPort && WEB_PORTS.includes(r.fromPort)
      const icmpOnly = p === "icmp" || p === "1" || p === "icmpv6" || p === "58"
      if (web || icmpOnly) continue
      out.push(`${p === "-1" ? "all" : p}/${r.fromPort ?? "all"}-${r.toPort ?? "all"} from ${family === "ipv4" ? ANY_V4 : ANY_V6}`)
    }
  }
  return out
}

/** Egress rules letting all traffic out to anywhere. */
export function openEgress(sg: SecurityGroup): string[] {
  const out: string[] = []
  for (const r of sg.egress) {
    if (!allPortsOpen(r) && !(normProtocol(r.protocol) === "udp" && (r.fromPort ?? 0) <= 0 && (r.toPort ?? 65535) >= 65535)) continue
    if (openToInternet(r, "ipv4")) out.push(`${normProtocol(r.protocol) === "-1" ? "all traffic" : `${normProtocol(r.protocol)}/all`} to ${ANY_V4}`)
    if (openToInternet(r, "ipv6")) out.push(`${normProtocol(r.protocol) === "-1" ? "all traffic" : `${normProtocol(r.protocol)}/all`} to ${ANY_V6}`)
  }
  return out
}

/** NACL: whether the first rule (by number) matching all-protocol traffic to/from anywhere in `direction` allows it. */
export function naclAllowsAll(entries: ReadonlyArray<NaclEntry>, egress: boolean): string[] {
  const ordered = entries.filter((e) => e.egress === egress).sort((a, b) => a.ruleNumber - b.ruleNumber)
  const out: string[] = []
  for (const [family, any] of [["ipv4", ANY_V4], ["ipv6", ANY_V6]] as const) {
    const first = ordered.find((e) => family === "ipv4" ? e.cidr === any : e.ipv6Cidr === any)
    if (first !== undefined && first.action === "allow" && normProtocol(first.protocol) === "-1") out.push(`all traffic ${egress ? "to" : "from"} ${any} (rule ${first.ruleNumber})`)
  }
  return out
}

const perRegion = <T>(regions: ReadonlyArray<Ec2Region>, pick: (r: Ec2Region) => ReadonlyArray<T> | undefined, f: (item: T, region: string) => DetailRow): DetailRow[] =>
  regions.flatMap((r) => (pick(r) ?? []).map((item) => f(item, r.region)))

const sgExposureCheck = (spec: {
  readonly id: string
  readonly title: string
  readonly description: string
  readonly severity: "critical" | "high" | "medium"
  readonly cis: { readonly v3?: string; readonly v7?: string }
  readonly fsbp?: string
  readonly ports: ReadonlyArray<number>
  readonly families: ReadonlyArray<"ipv4" | "ipv6">
  readonly what: string
}) =>
  defineCheck({
    id: spec.id,
    service: "ec2",
    title: spec.title,
    description: spec.description,
    severity: spec.severity,
    cis: spec.cis,
    ...(spec.fsbp === undefined ? {} : { fsbp: spec.fsbp }),
    remediation: `Remove the ingress rules that allow ${spec.what} from ${spec.families.map((f) => (f === "ipv4" ? ANY_V4 : ANY_V6)).join(" or ")}; allow only known address ranges, or use Session Manager / a bastion instead of open admin ports.`,
    field_labels: { group_name: "Group name", vpc_id: "VPC", exposed: "Exposed ports" },
    uses: ["ec2.security_groups"],
    testedWith: "moto",
    evaluate: (inv) =>
      perRegion(inv.ec2.regions, (r) => r.securityGroups, (sg, region) => {
        const exposed = exposedPorts(sg, spec.ports, spec.families)
        return row(sg.id, region, exposed.length === 0, exposed.length === 0 ? `Security group ${sg.id} (${sg.name}) does not expose ${spec.what} to the internet.` : `Security group ${sg.id} (${sg.name}) allows ${exposed.join(", ")}.`, {
          group_name: sg.name, ...tagged(sg),
          vpc_id: sg.vpcId ?? null,
          exposed,
        })
      }),
  })

export const ec2Checks = [
  defineCheck({
    id: "ec2_ebs_default_encryption",
    service: "ec2",
    title: "EBS default encryption should be enabled in every region",
    description: "Checks that EBS encryption by default is on in each scanned region, so every new volume and snapshot copy is encrypted.",
    severity: "medium",
    cis: { v3: "2.2.1", v7: "6.1.1" },
    fsbp: "EC2.7",
    remediation: "EC2 console > Settings > EBS encryption > Always encrypt new EBS volumes (aws ec2 enable-ebs-encryption-by-default), in every region.",
    field_labels: { enabled: "Encryption by default" },
    uses: ["ec2.ebs_default_encryption"],
    testedWith: "moto",
    evaluate: (inv) =>
      inv.ec2.regions.flatMap((r) =>
        r.ebsEncryptionByDefault === undefined
          ? []
          : [row(`${inv.accountId}/${r.region}`, r.region, r.ebsEncryptionByDefault, r.ebsEncryptionByDefault ? `EBS encryption by default is enabled in ${r.region}.` : `EBS encryption by default is disabled in ${r.region}.`, {
              enabled: r.ebsEncryptionByDefault,
            })],
      ),
  }),
  defineCheck({
    id: "ec2_ebs_volume_encryption",
    service: "ec2",
    title: "Attached and unattached EBS volumes should be encrypted at rest",
    description: "Finds EBS volumes that are not encrypted.",
    severity: "medium",
    cis: {},
    fsbp: "EC2.3",
    remediation: "Snapshot the volume, copy the snapshot with encryption, create a volume from it and swap it in; enable EBS encryption by default to prevent new ones.",
    field_labels: { encrypted: "Encrypted", kms_key: "KMS key" },
    uses: ["ec2.volumes"],
    testedWith: "moto",
    evaluate: (inv) =>
      perRegion(inv.ec2.regions, (r) => r.volumes, (v, region) =>
        row(v.id, region, v.encrypted, v.encrypted ? `Volume ${v.id} is encrypted.` : `Volume ${v.id} is not encrypted.`, { encrypted: v.encrypted, kms_key: v.kmsKeyId ?? null }),
      ),
  }),
  defineCheck({
    id: "ec2_ebs_public_snapshot",
    service: "ec2",
    title: "EBS snapshots should not be publicly restorable",
    description: "Finds snapshots owned by the account whose create-volume permission includes the group 'all'.",
    severity: "critical",
    cis: {},
    fsbp: "EC2.1",
    remediation: "Remove the public permission: aws ec2 modify-snapshot-attribute --snapshot-id ID --attribute createVolumePermission --operation-type remove --group-names all.",
    field_labels: { public: "Public", shared_with: "Shared with accounts" },
    uses: ["ec2.snapshots"],
    testedWith: "moto",
    evaluate: (inv) =>
      perRegion(inv.ec2.regions, (r) => r.snapshots?.filter((s) => s.public !== undefined), (s, region) =>
        row(s.id, region, s.public !== true, s.public === true ? `Snapshot ${s.id} can be restored by anyone.` : `Snapshot ${s.id} is not public.`, { public: s.public === true, shared_with: s.sharedWith }),
      ),
  }),
  defineCheck({
    id: "ec2_ebs_snapshots_encrypted",
    service: "ec2",
    title: "EBS snapshots should be encrypted",
    description: "Finds snapshots owned by the account that are not encrypted.",
    severity: "medium",
    cis: {},
    remediation: "Copy the snapshot with --encrypted (and a KMS key), then delete the unencrypted original.",
    field_labels: { encrypted: "Encrypted" },
    uses: ["ec2.snapshots"],
    testedWith: "moto",
    evaluate: (inv) =>
      perRegion(inv.ec2.regions, (r) => r.snapshots, (s, region) => row(s.id, region, s.encrypted, s.encrypted ? `Snapshot ${s.id} is encrypted.` : `Snapshot ${s.id} is not encrypted.`, { encrypted: s.encrypted })),
  }),
  defineCheck({
    id: "ec2_ami_public",
    service: "ec2",
    title: "AMIs owned by the account should not be public",
    description: "Finds the account's machine images that anyone can launch.",
    severity: "critical",
    cis: {},
    remediation: "Make the image private: aws ec2 modify-image-attribute --image-id ID --launch-permission \"Remove=[{Group=all}]\".",
    field_labels: { image_name: "Name", public: "Public" },
    uses: ["ec2.images"],
    testedWith: "moto",
    evaluate: (inv) =>
      perRegion(inv.ec2.regions, (r) => r.images, (i, region) => row(i.id, region, !i.public, i.public ? `Image ${i.id} (${i.name}) is public.` : `Image ${i.id} (${i.name}) is private.`, { image_name: i.name, public: i.public })),
  }),
  sgExposureCheck({
    id: "ec2_securitygroup_allow_ingress_from_internet_to_admin_ports_ipv4",
    title: "Security groups should not allow ingress from 0.0.0.0/0 to remote administration ports",
    description: "Finds security groups that allow SSH (22) or RDP (3389), or all traffic, from 0.0.0.0/0.",
    severity: "high",
    cis: { v3: "5.2", v7: "6.3" },
    fsbp: "EC2.53",
    ports: ADMIN_PORTS,
    families: ["ipv4"],
    what: "SSH/RDP",
  }),
  sgExposureCheck({
    id: "ec2_securitygroup_allow_ingress_from_internet_to_admin_ports_ipv6",
    title: "Security groups should not allow ingress from ::/0 to remote administration ports",
    description: "Finds security groups that allow SSH (22) or RDP (3389), or all traffic, from ::/0.",
    severity: "high",
    cis: { v3: "5.3", v7: "6.4" },
    fsbp: "EC2.54",
    ports: ADMIN_PORTS,
    families: ["ipv6"],
    what: "SSH/RDP",
  }),
  sgExposureCheck({
    id: "ec2_securitygroup_allow_ingress_from_internet_to_high_risk_ports",
    title: "Security groups should not allow unrestricted access to high-risk ports",
    description: `Finds security groups open to the internet on any of ${HIGH_RISK_PORTS.join(", ")}.`,
    severity: "high",
    cis: {},
    fsbp: "EC2.19",
    ports: HIGH_RISK_PORTS,
    families: ["ipv4", "ipv6"],
    what: "high-risk ports",
  }),
  sgExposureCheck({
    id: "ec2_securitygroup_allow_ingress_from_internet_to_cifs",
    title: "CIFS access should be restricted to trusted networks",
    description: "Finds security groups open to the internet on the SMB/CIFS ports 139 and 445.",
    severity: "high",
    cis: { v7: "6.1.2" },
    ports: CIFS_PORTS,
    families: ["ipv4", "ipv6"],
    what: "CIFS/SMB",
  }),
  defineCheck({
    id: "ec2_securitygroup_allow_ingress_from_internet_to_all_ports",
    service: "ec2",
    title: "Security groups should not allow all traffic from the internet",
    description: "Finds security groups with an ingress rule for all protocols or all TCP ports from 0.0.0.0/0 or ::/0.",
    severity: "critical",
    cis: {},
    fsbp: "EC2.18",
    remediation: "Replace the all-traffic rule with rules for the specific ports the workload serves, from the narrowest source ranges possible.",
    field_labels: { group_name: "Group name", vpc_id: "VPC" },
    uses: ["ec2.security_groups"],
    testedWith: "moto",
    evaluate: (inv) =>
      perRegion(inv.ec2.regions, (r) => r.securityGroups, (sg, region) => {
        const open = sg.ingress.some((r) => allPortsOpen(r) && (openToInternet(r, "ipv4") || openToInternet(r, "ipv6")))
        return row(sg.id, region, !open, open ? `Security group ${sg.id} (${sg.name}) allows all traffic from the internet.` : `Security group ${sg.id} (${sg.name}) does not allow all traffic from the internet.`, {
          group_name: sg.name, ...tagged(sg),
          vpc_id: sg.vpcId ?? null,
        })
      }),
  }),
  defineCheck({
    id: "ec2_securitygroup_default_restrict_traffic",
    service: "ec2",
    title: "The default security group of every VPC should restrict all traffic",
    description: "Checks that each VPC's default security group has no inbound and no outbound rules, so resources must opt into explicit groups.",
    severity: "high",
    cis: { v3: "5.4", v7: "6.5" },
    fsbp: "EC2.2",
    remediation: "Move resources to purpose-built security groups, then delete every inbound and outbound rule of the default group.",
    field_labels: { vpc_id: "VPC", ingress_rules: "Inbound rules", egress_rules: "Outbound rules" },
    uses: ["ec2.security_groups"],
    testedWith: "moto",
    evaluate: (inv) =>
      perRegion(inv.ec2.regions, (r) => r.securityGroups?.filter((g) => g.name === "default"), (sg, region) => {
        const ok = sg.ingress.length === 0 && sg.egress.length === 0
        return row(sg.id, region, ok, ok ? `Default security group ${sg.id} of ${sg.vpcId ?? "EC2-Classic"} has no rules.` : `Default security group ${sg.id} of ${sg.vpcId ?? "EC2-Classic"} has ${sg.ingress.length} inbound and ${sg.egress.length} outbound rule(s).`, {
          vpc_id: sg.vpcId ?? null,
          ingress_rules: sg.ingress.length,
          egress_rules: sg.egress.length,
        })
      }),
  }),
  defineCheck({
    id: "ec2_networkacl_allow_ingress_admin_ports",
    service: "ec2",
    title: "Network ACLs should not allow ingress from 0.0.0.0/0 or ::/0 to remote administration ports",
    description: "Evaluates each network ACL's inbound rules in order and finds ACLs whose first matching rule for SSH (22) or RDP (3389) from anywhere is an allow.",
    severity: "medium",
    cis: { v3: "5.1", v7: "6.2" },
    fsbp: "EC2.21",
    remediation: "Add lower-numbered deny rules for TCP 22 and 3389 from 0.0.0.0/0 and ::/0 (or replace the allow-all rule with rules for the ports actually needed).",
    field_labels: { vpc_id: "VPC", is_default: "Default ACL", exposed: "Exposed ports" },
    uses: ["ec2.network_acls"],
    testedWith: "moto",
    evaluate: (inv) =>
      perRegion(inv.ec2.regions, (r) => r.networkAcls, (n, region) => {
        const exposed = naclOpenPorts(n.entries, ADMIN_PORTS)
        return row(n.id, region, exposed.length === 0, exposed.length === 0 ? `Network ACL ${n.id} blocks remote administration from the internet.` : `Network ACL ${n.id} allows ${exposed.join(", ")}.`, {
          vpc_id: n.vpcId ?? null,
          is_default: n.isDefault,
          exposed,
        })
      }),
  }),
  defineCheck({
    id: "ec2_instance_imdsv2_enabled",
    service: "ec2",
    title: "EC2 instances should use Instance Metadata Service Version 2 (IMDSv2)",
    description: "Finds instances whose metadata service accepts IMDSv1 requests (HttpTokens optional).",
    severity: "high",
    cis: { v3: "5.6", v7: "6.7" },
    fsbp: "EC2.8",
    remediation: "aws ec2 modify-instance-metadata-options --instance-id ID --http-tokens required --http-endpoint enabled (check that the software on the instance supports IMDSv2 first).",
    field_labels: { http_tokens: "HTTP tokens", http_endpoint: "Metadata endpoint" },
    uses: ["ec2.instances"],
    testedWith: "moto",
    evaluate: (inv) =>
      perRegion(inv.ec2.regions, (r) => r.instances, (i, region) => {
        const ok = i.httpTokens === "required" || i.httpEndpoint === "disabled"
        return row(i.id, region, ok, ok ? `Instance ${i.id} requires IMDSv2 (or has no metadata endpoint).` : `Instance ${i.id} accepts IMDSv1 (HttpTokens ${i.httpTokens ?? "optional"}).`, {
          ...tagged(i),
          http_tokens: i.httpTokens ?? null,
          http_endpoint: i.httpEndpoint ?? null,
        })
      }),
  }),
  defineCheck({
    id: "ec2_instance_public_ip",
    service: "ec2",
    title: "EC2 instances should not have a public IPv4 address",
    description: "Finds running or stopped instances with a public IPv4 address.",
    severity: "medium",
    cis: {},
    fsbp: "EC2.9",
    remediation: "Place instances in private subnets behind a load balancer or NAT; disable auto-assigned public IPs on the subnet and release the address.",
    field_labels: { public_ip: "Public IP" },
    uses: ["ec2.instances"],
    testedWith: "moto",
    evaluate: (inv) =>
      perRegion(inv.ec2.regions, (r) => r.instances, (i, region) =>
        row(i.id, region, i.publicIp === undefined, i.publicIp === undefined ? `Instance ${i.id} has no public IP.` : `Instance ${i.id} has public IP ${i.publicIp}.`, { public_ip: i.publicIp ?? null, ...tagged(i) }),
      ),
  }),
  defineCheck({
    id: "ec2_instance_profile_attached",
    service: "ec2",
    title: "EC2 instances should use IAM instance roles for AWS access",
    description: "Finds instances without an IAM instance profile, which tends to mean long-lived access keys stored on the instance.",
    severity: "medium",
    cis: { v3: "1.18", v7: "2.16" },
    remediation: "Create a role with the permissions the instance needs, wrap it in an instance profile and associate it (aws ec2 associate-iam-instance-profile); remove keys from the instance.",
    field_labels: { instance_profile: "Instance profile" },
    uses: ["ec2.instances"],
    testedWith: "moto",
    evaluate: (inv) =>
      perRegion(inv.ec2.regions, (r) => r.instances, (i, region) =>
        row(i.id, region, i.instanceProfileArn !== undefined, i.instanceProfileArn !== undefined ? `Instance ${i.id} uses instance profile ${i.instanceProfileArn}.` : `Instance ${i.id} has no IAM instance profile.`, {
          ...tagged(i),
          instance_profile: i.instanceProfileArn ?? null,
        }),
      ),
  }),
  ...SERVICE_PORTS.map((svc) =>
    defineCheck({
      id: `ec2_securitygroup_allow_ingress_from_internet_to_${svc.key}`,
      service: "ec2",
      title: `Security groups should not allow ${svc.name} from the internet`,
      description: `Finds security groups with an inbound rule from 0.0.0.0/0 or ::/0 covering ${svc.name} (${svc.ports.map((p) => `${p.proto}/${p.port}`).join(", ")}), including all-traffic rules.`,
      severity: svc.severity,
      cis: {},
      remediation: `Remove the internet sources from the rules covering ${svc.ports.map((p) => `${p.proto}/${p.port}`).join(", ")}; reach ${svc.name} from inside the VPC, over a VPN or through a narrowly scoped source range.`,
      field_labels: { group_name: "Group name", vpc_id: "VPC", exposed: "Exposed ports" },
      uses: ["ec2.security_groups"],
      testedWith: "moto",
      evaluate: (inv) =>
        perRegion(inv.ec2.regions, (r) => r.securityGroups, (sg, region) => {
          const exposed = exposedServicePorts(sg, svc.ports)
          return row(sg.id, region, exposed.length === 0, exposed.length === 0 ? `Security group ${sg.id} (${sg.name}) does not expose ${svc.name} to the internet.` : `Security group ${sg.id} (${sg.name}) exposes ${svc.name}: ${exposed.join(", ")}.`, {
            group_name: sg.name, ...tagged(sg),
            vpc_id: sg.vpcId ?? null,
            exposed,
          })
        }),
    }),
  ),
  defineCheck({
    id: "ec2_securitygroup_allow_ingress_from_internet_to_non_web_ports",
    service: "ec2",
    title: "Security groups should only open HTTP/HTTPS to the internet",
    description: "Finds security groups with an inbound rule from 0.0.0.0/0 or ::/0 on anything other than TCP 80, TCP 443 or ICMP.",
    severity: "medium",
    cis: {},
    remediation: "Restrict the source of every non-web inbound rule to known address ranges or security groups; put other services behind a load balancer, VPN or Session Manager.",
    field_labels: { group_name: "Group name", vpc_id: "VPC", rules: "Internet rules" },
    uses: ["ec2.security_groups"],
    testedWith: "moto",
    evaluate: (inv) =>
      perRegion(inv.ec2.regions, (r) => r.securityGroups, (sg, region) => {
        const rules = nonWebInternetRules(sg)
        return row(sg.id, region, rules.length === 0, rules.length === 0 ? `Security group ${sg.id} (${sg.name}) opens at most HTTP/HTTPS to the internet.` : `Security group ${sg.id} (${sg.name}) opens ${rules.join(", ")}.`, {
          group_name: sg.name, ...tagged(sg),
          vpc_id: sg.vpcId ?? null,
          rules,
        })
      }),
  }),
  defineCheck({
    id: "ec2_securitygroup_egress_unrestricted",
    service: "ec2",
    title: "Security groups should not allow all outbound traffic to anywhere",
    description: "Finds security groups with an outbound rule for all protocols (or all TCP/UDP ports) to 0.0.0.0/0 or ::/0, which lets a compromised workload exfiltrate data or reach command-and-control hosts on any port.",
    severity: "low",
    cis: {},
    remediation: "Replace the allow-all outbound rule with rules for the destinations and ports the workload needs (e.g. TCP 443 to the VPC endpoints or a proxy).",
    field_labels: { group_name: "Group name", vpc_id: "VPC", open_egress: "Open egress" },
    uses: ["ec2.security_groups"],
    testedWith: "moto",
    evaluate: (inv) =>
      perRegion(inv.ec2.regions, (r) => r.securityGroups, (sg, region) => {
        const open = openEgress(sg)
        return row(sg.id, region, open.length === 0, open.length === 0 ? `Security group ${sg.id} (${sg.name}) restricts outbound traffic.` : `Security group ${sg.id} (${sg.name}) allows ${open.join(", ")}.`, {
          group_name: sg.name, ...tagged(sg),
          vpc_id: sg.vpcId ?? null,
          open_egress: open,
        })
      }),
  }),
  defineCheck({
    id: "ec2_securitygroup_from_launch_wizard",
    service: "ec2",
    title: "Security groups created by the EC2 launch wizard should not be used",
    description: "Finds security groups named launch-wizard-N: the console creates them with SSH/RDP open to the world by default and they tend to be reused without review.",
    severity: "medium",
    cis: {},
    remediation: "Create purpose-built security groups with reviewed rules, move the instances to them and delete the launch-wizard groups.",
    field_labels: { group_name: "Group name", vpc_id: "VPC" },
    uses: ["ec2.security_groups"],
    testedWith: "moto",
    evaluate: (inv) =>
      perRegion(inv.ec2.regions, (r) => r.securityGroups, (sg, region) => {
        const wizard = /^launch-wizard-\d+$/.test(sg.name)
        return row(sg.id, region, !wizard, wizard ? `Security group ${sg.id} was created by the launch wizard (${sg.name}).` : `Security group ${sg.id} (${sg.name}) is not a launch-wizard group.`, {
          group_name: sg.name, ...tagged(sg),
          vpc_id: sg.vpcId ?? null,
        })
      }),
  }),
  defineCheck({
    id: "ec2_securitygroup_with_many_rules",
    service: "ec2",
    title: "Security groups should have at most 50 inbound and outbound rules",
    description: "Finds security groups whose rule count (sources and destinations counted one by one) exceeds 50, which makes them hard to review.",
    severity: "low",
    cis: {},
    remediation: "Split the group by role, replace address lists with managed prefix lists or security group references, and delete stale rules.",
    field_labels: { group_name: "Group name", rules: "Rules" },
    uses: ["ec2.security_groups"],
    testedWith: "moto",
    evaluate: (inv) =>
      perRegion(inv.ec2.regions, (r) => r.securityGroups, (sg, region) => {
        const n = [...sg.ingress, ...sg.egress].reduce((a, r) => a + Math.max(1, r.ipv4.length + r.ipv6.length + r.groups.length), 0)
        return row(sg.id, region, n <= 50, n <= 50 ? `Security group ${sg.id} has ${n} rule(s).` : `Security group ${sg.id} has ${n} rules (more than 50).`, { group_name: sg.name, ...tagged(sg), rules: n })
      }),
  }),
  ...([false, true] as const).map((egress) =>
    defineCheck({
      id: egress ? "ec2_networkacl_allow_egress_all_traffic" : "ec2_networkacl_allow_ingress_any_port",
      service: "ec2",
      title: egress ? "Network ACLs should not allow all outbound traffic to anywhere" : "Network ACLs should not allow all inbound traffic from anywhere",
      description: egress
        ? "Evaluates each network ACL's outbound rules in order and finds ACLs whose first rule for 0.0.0.0/0 or ::/0 allows every protocol and port."
        : "Evaluates each network ACL's inbound rules in order and finds ACLs whose first rule for 0.0.0.0/0 or ::/0 allows every protocol and port.",
      severity: egress ? "low" : "medium",
      cis: {},
      remediation: egress
        ? "Replace the allow-all outbound rule with rules for the ports the subnet needs (e.g. TCP 443 and the ephemeral ports back to clients), keeping the final deny."
        : "Replace the allow-all inbound rule with rules for the ports the subnet serves (plus the ephemeral return ports), keeping the final deny.",
      field_labels: { vpc_id: "VPC", is_default: "Default ACL", open: "Open rules" },
      uses: ["ec2.network_acls"],
      testedWith: "moto",
      evaluate: (inv) =>
        perRegion(inv.ec2.regions, (r) => r.networkAcls, (n, region) => {
          const open = naclAllowsAll(n.entries, egress)
          return row(n.id, region, open.length === 0, open.length === 0 ? `Network ACL ${n.id} does not allow all ${egress ? "outbound" : "inbound"} traffic.` : `Network ACL ${n.id} allows ${open.join(", ")}.`, {
            vpc_id: n.vpcId ?? null,
            is_default: n.isDefault,
            open,
          })
        }),
    }),
  ),
]
