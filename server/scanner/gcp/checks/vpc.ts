/**
 * VPC network checks (CIS GCP v4.0 2.12, 2.16, 3.1, 3.2, 3.6–3.8): DNS logging per network, HTTP(S) load balancer
 * logging, the default and legacy networks, SSH/RDP open to the Internet, subnet flow logs.
 */
import { row } from "../../rest/engine.ts"
import { lastSegment } from "../context.ts"
import { defineGcpCheck } from "../define-check.ts"
import type { Firewall } from "../collectors/compute.ts"
import { admitsInternet, internetRanges } from "../../ip-ranges.ts"
import { describePorts, FIREWALL_SERVICE_PORTS, type PortSpec, type ServicePorts } from "../../service-ports.ts"

/**
 * A rule's source ranges. An ingress rule created without any source (no ranges, tags or service accounts) gets
 * 0.0.0.0/0 from the API (defaults.ts): an answer without any source is read that way.
 */
export const sourceRangesOf = (fw: Firewall): ReadonlyArray<string> =>
  fw.sourceRanges ?? ((fw.sourceTags ?? []).length === 0 && (fw.sourceServiceAccounts ?? []).length === 0 ? ["0.0.0.0/0"] : [])

/** Whether a rule's source ranges let the internet in (0.0.0.0/0, ::/0, halves of them, or a huge public block). */
const fromInternet = (fw: Firewall) => admitsInternet(sourceRangesOf(fw))

/** Whether a firewall `ports` list (absent = every port) covers `port`. */
export function portsCover(ports: ReadonlyArray<string> | undefined, port: number): boolean {
  if (ports === undefined || ports.length === 0) return true
  return ports.some((p) => {
    const [lo, hi] = p.split("-").map((x) => Number(x.trim()))
    if (lo === undefined || Number.isNaN(lo)) return false
    return hi === undefined ? lo === port : lo <= port && port <= hi
  })
}

/** Whether a firewall `ports` list (absent = every port) admits every port 1-65535, whatever way it is split. */
export function coversAllPorts(ports: ReadonlyArray<string> | undefined): boolean {
  if (ports === undefined || ports.length === 0) return true
  const ranges = ports
    .map((p) => p.split("-").map((x) => Number(x.trim())))
    .flatMap(([lo, hi]) => (lo === undefined || Number.isNaN(lo) ? [] : [[lo, hi === undefined || Number.isNaN(hi) ? lo : hi] as const]))
    .sort((a, b) => a[0] - b[0])
  let next = 1
  for (const [lo, hi] of ranges) {
    if (lo > next) return false
    next = Math.max(next, hi + 1)
    if (next > 65535) return true
  }
  return next > 65535
}

/** Whether an enabled ingress rule from the Internet allows TCP to `port`. */
export function exposesPort(fw: Firewall, port: number): boolean {
  if ((fw.direction ?? "INGRESS") !== "INGRESS" || fw.disabled === true) return false
  if (!fromInternet(fw)) return false
  return (fw.allowed ?? []).some((a) => {
    const proto = a.IPProtocol.toLowerCase()
    return (proto === "tcp" || proto === "all" || proto === "6") && portsCover(a.ports, port)
  })
}

/** Protocol numbers and names of a firewall `allowed` entry that carry `proto`. */
const carries = (ipProtocol: string, proto: PortSpec["proto"]) => {
  const p = ipProtocol.toLowerCase()
  return p === "all" || p === proto || (proto === "tcp" && p === "6") || (proto === "udp" && p === "17")
}

/** "tcp/6379" for every service port an enabled ingress rule from the Internet lets through. */
export function exposedPorts(fw: Firewall, specs: ReadonlyArray<PortSpec>): string[] {
  if ((fw.direction ?? "INGRESS") !== "INGRESS" || fw.disabled === true) return []
  if (!fromInternet(fw)) return []
  return specs.filter((s) => (fw.allowed ?? []).some((a) => carries(a.IPProtocol, s.proto) && portsCover(a.ports, s.port))).map((s) => `${s.proto}/${s.port}`)
}

const ingressRules = (firewalls: ReadonlyArray<Firewall> | undefined) =>
  (firewalls ?? []).filter((fw) => (fw.direction ?? "INGRESS") === "INGRESS" && fw.disabled !== true && (fw.allowed ?? []).length > 0)

const servicePortCheck = (svc: ServicePorts) =>
  defineGcpCheck({
    id: `vpc_firewall_${svc.key}_not_open`,
    service: "vpc",
    title: `Firewall rules should not allow ${svc.name} from the Internet`,
    description: `Flags enabled ingress firewall rules from the internet (0.0.0.0/0, ::/0, or ranges that together or alone admit it) that allow ${svc.name} (${describePorts(svc.ports)}), including rules for all ports or all protocols.`,
    severity: svc.severity,
    remediation: `Narrow the rule's source ranges to known addresses, or remove ${describePorts(svc.ports)} from it; reach ${svc.name} over the VPC, a VPN or IAP: gcloud compute firewall-rules update RULE --source-ranges=…`,
    field_labels: { network: "Network", exposed: "Exposed ports" },
    uses: ["compute.firewalls"],
    reads: "compute firewalls.list → direction, disabled, sourceRanges, allowed[].IPProtocol/ports",
    evaluate: (inv) =>
      ingressRules(inv.compute.firewalls).map((fw) => {
        const exposed = exposedPorts(fw, svc.ports)
        return row(fw.name, "global", exposed.length === 0, exposed.length === 0 ? `Rule ${fw.name} does not open ${svc.name} to the Internet.` : `Rule ${fw.name} opens ${svc.name} to the Internet: ${exposed.join(", ")}.`, {
          network: lastSegment(fw.network),
          exposed,
        })
      }),
  })

const openPortCheck = (id: string, cis: string, port: number, name: string) =>
  defineGcpCheck({
    id,
    service: "vpc",
    title: `${name} access from the Internet should be restricted`,
    description: `Flags enabled ingress firewall rules that allow TCP port ${port} (or all ports) from the internet (0.0.0.0/0, ::/0, or ranges that together or alone admit it).`,
    severity: "high",
    cis,
    remediation: `Narrow the rule's source ranges to known addresses (or use IAP TCP forwarding, 35.235.240.0/20) or delete it: gcloud compute firewall-rules update RULE --source-ranges=…`,
    field_labels: { network: "Network", source_ranges: "Source ranges", allowed: "Allowed" },
    uses: ["compute.firewalls"],
    reads: "compute firewalls.list → direction, disabled, sourceRanges, allowed[].IPProtocol/ports",
    evaluate: (inv) =>
      (inv.compute.firewalls ?? [])
        .filter((fw) => (fw.direction ?? "INGRESS") === "INGRESS" && fw.disabled !== true && (fw.allowed ?? []).length > 0)
        .map((fw) => {
          const open = exposesPort(fw, port)
          return row(fw.name, "global", !open, open ? `Rule ${fw.name} allows port ${port} from ${internetRanges(sourceRangesOf(fw)).join(", ")}.` : `Rule ${fw.name} does not open port ${port} to the Internet.`, {
            network: lastSegment(fw.network),
            source_ranges: [...sourceRangesOf(fw)],
            allowed: (fw.allowed ?? []).map((a) => `${a.IPProtocol}:${(a.ports ?? ["all"]).join(",")}`),
          })
        }),
  })

const SKIP_FLOW_LOG_PURPOSES = new Set(["REGIONAL_MANAGED_PROXY", "GLOBAL_MANAGED_PROXY", "INTERNAL_HTTPS_LOAD_BALANCER", "PRIVATE_SERVICE_CONNECT", "PRIVATE_NAT"])
const HTTP_PROTOCOLS = new Set(["HTTP", "HTTPS", "HTTP2", "H2C"])

export const vpcChecks = [
  defineGcpCheck({
    id: "vpc_dns_logging_enabled",
    service: "vpc",
    title: "Cloud DNS logging should be enabled for all VPC networks",
    description: "Every VPC network should be attached to a DNS server policy with logging enabled, so DNS queries from its VMs are logged.",
    severity: "low",
    cis: "2.12",
    remediation: "gcloud dns policies create POLICY --networks=NETWORK --enable-logging --description=… (or update the network's existing policy with --enable-logging).",
    field_labels: { policy: "DNS policy" },
    uses: ["compute.networks", "dns.policies"],
    reads: "dns policies.list → enableLogging, networks[].networkUrl; compute networks.list",
    evaluate: (inv) =>
      (inv.dns.policies === undefined ? [] : (inv.compute.networks ?? [])).map((n) => {
        const policy = (inv.dns.policies ?? []).find((p) => (p.networks ?? []).some((x) => lastSegment(x.networkUrl) === n.name))
        const ok = policy?.enableLogging === true
        return row(n.name, "global", ok, policy === undefined ? `Network ${n.name} has no DNS policy.` : ok ? `DNS policy ${policy.name} logs queries.` : `DNS policy ${policy.name} does not log queries.`, { policy: policy?.name ?? null })
      }),
  }),
  defineGcpCheck({
    id: "vpc_lb_logging_enabled",
    service: "vpc",
    title: "Logging should be enabled for HTTP(S) load balancers",
    description: "Checks every HTTP, HTTPS or HTTP/2 backend service (global and regional) has request logging enabled.",
    severity: "low",
    cis: "2.16",
    remediation: "gcloud compute backend-services update SERVICE --enable-logging --logging-sample-rate=1 (--global or --region=…).",
    field_labels: { protocol: "Protocol", scheme: "Scheme" },
    uses: ["compute.backend_services"],
    reads: "compute backendServices.aggregatedList → protocol, logConfig.enable, logConfig.sampleRate (absent = 1.0)",
    evaluate: (inv) =>
      (inv.compute.backendServices ?? [])
        .filter((s) => HTTP_PROTOCOLS.has(s.item.protocol ?? "HTTP"))
        .map((s) => {
          const on = s.item.logConfig?.enable === true
          // A sample rate of 0 logs nothing although logging is "enabled" (the documented default is 1.0).
          const rate = s.item.logConfig?.sampleRate ?? 1
          const ok = on && rate > 0
          return row(s.item.name, s.scope, ok, !on ? "Request logging is disabled." : ok ? "Request logging is enabled." : "Request logging is enabled with a sample rate of 0: no request is logged.", {
            protocol: s.item.protocol ?? null,
            scheme: s.item.loadBalancingScheme ?? null,
          })
        }),
  }),
  defineGcpCheck({
    id: "vpc_default_network_absent",
    service: "vpc",
    title: "The default network should not exist in a project",
    description: "The auto-created default network comes with permissive firewall rules (SSH, RDP, ICMP and internal traffic from anywhere in the network).",
    severity: "medium",
    cis: "3.1",
    remediation: "Move workloads to a purpose-built network, then delete the default network's firewall rules and the network.",
    field_labels: { default_network: "Default network present" },
    uses: ["compute.networks"],
    reads: "compute networks.list → name == default",
    evaluate: (inv) => {
      if (inv.compute.networks === undefined) return []
      const present = inv.compute.networks.some((n) => n.name === "default")
      return [row(inv.projectId, "global", !present, present ? "The default network exists." : "The project has no default network.", { default_network: present })]
    },
  }),
  defineGcpCheck({
    id: "vpc_no_legacy_networks",
    service: "vpc",
    title: "Legacy networks should not exist in a project",
    description: "Legacy (pre-VPC) networks have one global IP range, no subnets and no flow logs.",
    severity: "medium",
    cis: "3.2",
    remediation: "Migrate the workloads to a VPC network and delete the legacy network.",
    field_labels: { ipv4_range: "IPv4 range" },
    uses: ["compute.networks"],
    reads: "compute networks.list → IPv4Range (legacy networks only)",
    evaluate: (inv) =>
      (inv.compute.networks ?? []).map((n) => row(n.name, "global", n.IPv4Range === undefined, n.IPv4Range === undefined ? "A VPC network." : `A legacy network (${n.IPv4Range}).`, { ipv4_range: n.IPv4Range ?? null })),
  }),
  openPortCheck("vpc_firewall_ssh_not_open", "3.6", 22, "SSH"),
  openPortCheck("vpc_firewall_rdp_not_open", "3.7", 3389, "RDP"),
  ...FIREWALL_SERVICE_PORTS.map(servicePortCheck),
  defineGcpCheck({
    id: "vpc_firewall_all_ports_not_open",
    service: "vpc",
    title: "Firewall rules should not allow every port from the Internet",
    description: "Flags enabled ingress firewall rules from the internet (0.0.0.0/0, ::/0, or ranges that together or alone admit it) that allow all protocols, or TCP or UDP without a port list.",
    severity: "critical",
    remediation: "List only the ports the service behind the rule needs (gcloud compute firewall-rules update RULE --allow=tcp:443) or narrow its source ranges.",
    field_labels: { network: "Network", allowed: "Allowed" },
    uses: ["compute.firewalls"],
    reads: "compute firewalls.list → direction, disabled, sourceRanges, allowed[].IPProtocol/ports",
    evaluate: (inv) =>
      ingressRules(inv.compute.firewalls).map((fw) => {
        // Judged by what the port lists admit: no list, or ranges that together cover every port 1-65535.
        const everything = (fw.allowed ?? []).some((a) => a.IPProtocol.toLowerCase() === "all" || (["tcp", "udp", "6", "17"].includes(a.IPProtocol.toLowerCase()) && coversAllPorts(a.ports)))
        const open = fromInternet(fw) && everything
        return row(fw.name, "global", !open, open ? `Rule ${fw.name} opens every port to the Internet.` : `Rule ${fw.name} does not open every port to the Internet.`, {
          network: lastSegment(fw.network),
          allowed: (fw.allowed ?? []).map((a) => `${a.IPProtocol}:${(a.ports ?? ["all"]).join(",")}`),
        })
      }),
  }),
  defineGcpCheck({
    id: "vpc_subnet_flow_logs_enabled",
    service: "vpc",
    title: "VPC Flow Logs should be enabled for every subnet",
    description: "Checks each subnet (except proxy-only and Private Service Connect subnets) records flow logs the way CIS 3.8 asks: every flow (sampling 1.0), a 5-second aggregation interval, all metadata, no filter. The API defaults (sampling 0.5, no metadata) do not comply.",
    severity: "low",
    cis: "3.8",
    remediation: "gcloud compute networks subnets update SUBNET --region=REGION --enable-flow-logs --logging-aggregation-interval=interval-5-sec --logging-flow-sampling=1 --logging-metadata=include-all (and remove any --logging-filter-expr).",
    field_labels: { network: "Network", purpose: "Purpose", settings: "Flow log settings" },
    uses: ["compute.subnetworks"],
    reads: "compute subnetworks.aggregatedList → logConfig.enable (legacy enableFlowLogs), aggregationInterval, flowSampling, metadata, filterExpr, purpose",
    evaluate: (inv) =>
      (inv.compute.subnetworks ?? [])
        .filter((s) => !SKIP_FLOW_LOG_PURPOSES.has(s.item.purpose ?? "PRIVATE"))
        .map((s) => {
          const c = s.item.logConfig
          const on = c?.enable ?? s.item.enableFlowLogs ?? false
          // Documented defaults (defaults.ts): interval 5 s, sampling 0.5, metadata EXCLUDE_ALL_METADATA, no filter.
          const interval = c?.aggregationInterval ?? "INTERVAL_5_SEC"
          const sampling = c?.flowSampling ?? 0.5
          const metadata = c?.metadata ?? "EXCLUDE_ALL_METADATA"
          const filter = c?.filterExpr ?? ""
          const gaps = [
            interval === "INTERVAL_5_SEC" ? undefined : `aggregation ${interval}`,
            sampling >= 1 ? undefined : `sampling ${sampling}`,
            metadata === "INCLUDE_ALL_METADATA" ? undefined : `metadata ${metadata}`,
            filter.trim() === "" ? undefined : `filter ${filter}`,
          ].filter((x): x is string => x !== undefined)
          const ok = on && gaps.length === 0
          return row(s.item.name, s.scope, ok, !on ? "Flow logs are disabled." : ok ? "Flow logs record every flow with all metadata every 5 seconds." : `Flow logs are on but incomplete: ${gaps.join(", ")}.`, {
            network: lastSegment(s.item.network),
            purpose: s.item.purpose ?? null,
            settings: on ? `${interval}, sampling ${sampling}, ${metadata}${filter === "" ? "" : `, filter ${filter}`}` : null,
          })
        }),
  }),
]
