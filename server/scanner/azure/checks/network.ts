/** Networking checks (CIS Azure v3 7.x, 8.1 / v4 8.x, 9.4.1): NSG exposure, flow log retention, Network Watcher, Bastion. */
import { row } from "../../rest/engine.ts"
import { defineAzureCheck, resourceRow, subscriptionRow } from "../define-check.ts"
import { locationOf } from "../context.ts"
import type { NetworkSecurityGroup, SecurityRule } from "../collectors/network.ts"
import { entriesAdmitInternet } from "../address.ts"
import { describePorts, FIREWALL_SERVICE_PORTS, type ServicePorts } from "../../service-ports.ts"


/** Whether a port spec ("*", "22", "20-30") covers the port. */
export function portSpecCovers(spec: string, port: number): boolean {
  const s = spec.trim()
  if (s === "*") return true
  const [lo, hi] = s.split("-").map((x) => Number(x.trim()))
  if (lo === undefined || Number.isNaN(lo)) return false
  return hi === undefined ? lo === port : lo <= port && port <= hi
}

/** An inbound rule of `access` from the Internet covering the protocol (and port, when given; every port when undefined). */
function inboundFromInternet(rule: SecurityRule, access: "Allow" | "Deny", protocol: "Tcp" | "Udp", port: number | undefined): boolean {
  const p = rule.properties
  if (p === undefined || (p.direction ?? "").toLowerCase() !== "inbound" || (p.access ?? "").toLowerCase() !== access.toLowerCase()) return false
  const proto = (p.protocol ?? "*").toLowerCase()
  if (proto !== "*" && proto !== protocol.toLowerCase()) return false
  // Sources given as application security groups are VMs of the virtual network, not the Internet.
  if (access === "Allow" && (p.sourceApplicationSecurityGroups ?? []).length > 0) return false
  const sources = [...(p.sourceAddressPrefix === undefined ? [] : [p.sourceAddressPrefix]), ...(p.sourceAddressPrefixes ?? [])]
  // What the sources admit together: "*", "Any", "Internet", 0.0.0.0/0, ::/0, but also 0.0.0.0/1 + 128.0.0.0/1 or a range broader than a /8.
  if (!entriesAdmitInternet(sources)) return false
  const ports = [...(p.destinationPortRange === undefined ? [] : [p.destinationPortRange]), ...(p.destinationPortRanges ?? [])]
  if (port === undefined) return access === "Allow" || ports.some((s) => s.trim() === "*" || /^0-65535$/.test(s.trim()))
  return ports.some((s) => portSpecCovers(s, port))
}

/** Whether an inbound Allow rule from the Internet admits the protocol (and port, when given). */
export function ruleExposes(rule: SecurityRule, protocol: "Tcp" | "Udp", port: number | undefined): boolean {
  return inboundFromInternet(rule, "Allow", protocol, port)
}

/**
 * Whether the rule exposes the protocol/port within its group: NSG rules are applied by priority (lowest number
 * first), so an Allow behind a Deny from the whole Internet for the same protocol and port admits nothing.
 */
export function ruleExposesIn(rules: ReadonlyArray<SecurityRule>, rule: SecurityRule, protocol: "Tcp" | "Udp", port: number | undefined): boolean {
  if (!ruleExposes(rule, protocol, port)) return false
  const priority = rule.properties?.priority ?? Number.MAX_SAFE_INTEGER
  return !rules.some((r) => (r.properties?.priority ?? Number.MAX_SAFE_INTEGER) < priority && inboundFromInternet(r, "Deny", protocol, port))
}

const exposureCheck = (spec: { id: string; v3: string; v4: string; what: string; protocol: "Tcp" | "Udp"; ports: ReadonlyArray<number> | undefined; severity: "high" | "medium" }) =>
  defineAzureCheck({
    id: spec.id,
    service: "network",
    title: `${spec.what} access from the Internet should be evaluated and restricted`,
    description: `Flags network security groups with an inbound Allow rule from any source (*, Internet, 0.0.0.0/0) for ${spec.ports === undefined ? "any UDP port" : `${spec.protocol.toUpperCase()} port ${spec.ports.join("/")}`}.`,
    severity: spec.severity,
    cis: { v3: spec.v3, v4: spec.v4 },
    remediation: "Restrict the rule's source to known addresses or remove it (az network nsg rule update --source-address-prefixes …); use Azure Bastion or JIT access for administration.",
    field_labels: { exposing_rules: "Exposing rules" },
    uses: ["network.security_groups"],
    reads: nsgReads,
    evaluate: (inv) =>
      (inv.network.securityGroups ?? []).map((nsg: NetworkSecurityGroup) => {
        const all = nsg.properties?.securityRules ?? []
        const rules = all.filter((r) => (spec.ports === undefined ? ruleExposesIn(all, r, spec.protocol, undefined) : spec.ports.some((port) => ruleExposesIn(all, r, spec.protocol, port))))
        return resourceRow(nsg, rules.length === 0, rules.length === 0 ? `No rule opens ${spec.what} to the Internet.` : `Rules ${rules.map((r) => r.name).join(", ")} open ${spec.what} to the Internet.`, { exposing_rules: rules.map((r) => r.name) })
      }),
  })

const nsgReads = "ARM Microsoft.Network/networkSecurityGroups → properties.securityRules[].properties (direction, access, priority, protocol, sourceAddressPrefix(es), destinationPortRange(s))"

/** One check per network service of the shared list: NSGs whose Allow rules from the Internet cover any of its ports. */
const servicePortCheck = (svc: ServicePorts) =>
  defineAzureCheck({
    id: `network_${svc.key}_internet_restricted`,
    service: "network",
    title: `Network security groups should not allow ${svc.name} from the Internet`,
    description: `Flags network security groups with an inbound Allow rule from any source (*, Internet, 0.0.0.0/0, ::/0) covering ${svc.name} (${describePorts(svc.ports)}), including rules for any port or protocol.`,
    severity: svc.severity,
    cis: {},
    remediation: `Restrict the rule's source to known addresses or remove ${describePorts(svc.ports)} from it (az network nsg rule update --source-address-prefixes …); reach ${svc.name} through the virtual network, a VPN or a private endpoint.`,
    field_labels: { exposing_rules: "Exposing rules", exposed: "Exposed ports" },
    uses: ["network.security_groups"],
    reads: nsgReads,
    evaluate: (inv) =>
      (inv.network.securityGroups ?? []).map((nsg: NetworkSecurityGroup) => {
        const all = nsg.properties?.securityRules ?? []
        const hits = all.flatMap((r) =>
          svc.ports.filter((p) => ruleExposesIn(all, r, p.proto === "tcp" ? "Tcp" : "Udp", p.port)).map((p) => ({ rule: r.name ?? "", port: `${p.proto}/${p.port}` })),
        )
        const rules = [...new Set(hits.map((h) => h.rule))]
        const exposed = [...new Set(hits.map((h) => h.port))]
        return resourceRow(nsg, hits.length === 0, hits.length === 0 ? `No rule opens ${svc.name} to the Internet.` : `Rules ${rules.join(", ")} open ${svc.name} to the Internet (${exposed.join(", ")}).`, { exposing_rules: rules, exposed })
      }),
  })

const retentionOk = (r: { readonly enabled?: boolean; readonly days?: number } | undefined) => r?.enabled === true && ((r.days ?? 0) === 0 || (r.days ?? 0) >= 90)

const flowLogCheck = (id: string, cis: { v3?: string; v4: string }, target: "networkSecurityGroups" | "virtualNetworks", what: string) =>
  defineAzureCheck({
    id,
    service: "network",
    title: `${what} flow log retention should be 90 days or more`,
    description: `Checks every ${what} flow log keeps data at least 90 days (0 keeps it forever).`,
    severity: "low",
    cis,
    remediation: "az network watcher flow-log update --location LOC --name FLOWLOG --retention 90",
    field_labels: { target: "Target", retention_days: "Retention (days)" },
    uses: ["network.flow_logs"],
    reads: "ARM networkWatchers/{w}/flowLogs → properties.targetResourceId, retentionPolicy.enabled/days",
    evaluate: (inv) =>
      (inv.network.flowLogs ?? [])
        .filter((f) => new RegExp(`/${target}/`, "i").test(f.properties?.targetResourceId ?? ""))
        .map((f) => {
          const r = f.properties?.retentionPolicy
          const ok = retentionOk(r)
          return resourceRow(f, ok, r?.enabled !== true ? "Retention is disabled." : (r.days ?? 0) === 0 ? "Flow logs are kept forever." : `Flow logs are kept ${r.days} days.`, {
            target: (f.properties?.targetResourceId ?? "").split("/").pop() ?? "",
            retention_days: r?.enabled === true ? (r.days ?? 0) : null,
          })
        }),
  })

export const networkChecks = [
  exposureCheck({ id: "network_rdp_internet_restricted", v3: "7.1", v4: "8.1", what: "RDP", protocol: "Tcp", ports: [3389], severity: "high" }),
  exposureCheck({ id: "network_ssh_internet_restricted", v3: "7.2", v4: "8.2", what: "SSH", protocol: "Tcp", ports: [22], severity: "high" }),
  exposureCheck({ id: "network_udp_internet_restricted", v3: "7.3", v4: "8.3", what: "UDP", protocol: "Udp", ports: undefined, severity: "medium" }),
  exposureCheck({ id: "network_http_internet_restricted", v3: "7.4", v4: "8.4", what: "HTTP(S)", protocol: "Tcp", ports: [80, 443], severity: "medium" }),
  ...FIREWALL_SERVICE_PORTS.map(servicePortCheck),
  defineAzureCheck({
    id: "network_all_ports_internet_restricted",
    service: "network",
    title: "Network security groups should not allow every port from the Internet",
    description: "Flags network security groups with an inbound Allow rule from any source whose destination port range is * (or 0-65535).",
    severity: "critical",
    cis: {},
    remediation: "Replace the rule with rules for the ports the workload serves, each from the narrowest sources (az network nsg rule update --destination-port-ranges 443).",
    field_labels: { exposing_rules: "Exposing rules" },
    uses: ["network.security_groups"],
    reads: nsgReads,
    evaluate: (inv) =>
      (inv.network.securityGroups ?? []).map((nsg: NetworkSecurityGroup) => {
        const all = nsg.properties?.securityRules ?? []
        const rules = all
          .filter((r) => ruleExposesIn(all, r, "Tcp", 1) && ruleExposesIn(all, r, "Tcp", 65535) && ruleExposesIn(all, r, "Tcp", 32768))
          .map((r) => r.name ?? "")
        return resourceRow(nsg, rules.length === 0, rules.length === 0 ? "No rule opens every port to the Internet." : `Rules ${rules.join(", ")} open every port to the Internet.`, { exposing_rules: rules })
      }),
  }),
  flowLogCheck("network_nsg_flow_log_retention", { v3: "7.5", v4: "8.5" }, "networkSecurityGroups", "NSG"),
  flowLogCheck("network_vnet_flow_log_retention", { v4: "8.8" }, "virtualNetworks", "Virtual network"),
  defineAzureCheck({
    id: "network_watcher_enabled",
    service: "network",
    title: "Network Watcher should be enabled in every region in use",
    description: "For each region with a virtual network, checks a Network Watcher exists there.",
    severity: "low",
    cis: { v3: "7.6", v4: "8.6" },
    remediation: "az network watcher configure -g NetworkWatcherRG -l REGION --enabled true",
    field_labels: { watcher: "Network Watcher" },
    uses: ["network.virtual_networks", "network.watchers"],
    reads: "ARM Microsoft.Network/networkWatchers → location; virtualNetworks → location",
    evaluate: (inv) => {
      const vnets = inv.network.virtualNetworks
      const watchers = inv.network.watchers
      if (vnets === undefined || watchers === undefined) return []
      const regions = [...new Set(vnets.map(locationOf))].sort()
      return regions.map((region) => {
        const w = watchers.find((x) => locationOf(x) === region && (x.properties?.provisioningState ?? "Succeeded") === "Succeeded")
        return row(`/subscriptions/${inv.subscriptionId}/locations/${region}`, region, w !== undefined, w !== undefined ? `Network Watcher ${w.name} covers ${region}.` : `No Network Watcher in ${region}.`, { watcher: w?.name ?? null })
      })
    },
  }),
  defineAzureCheck({
    id: "network_bastion_host_exists",
    service: "network",
    title: "An Azure Bastion host should exist",
    description: "Checks the subscription has at least one Bastion host, so VMs can be administered without public RDP/SSH.",
    severity: "low",
    cis: { v3: "8.1", v4: "9.4.1" },
    remediation: "az network bastion create -g RG -n bastion --vnet-name VNET --public-ip-address PIP -l LOCATION",
    field_labels: { bastion_hosts: "Bastion hosts" },
    uses: ["network.bastion_hosts"],
    reads: "ARM Microsoft.Network/bastionHosts → value[]",
    evaluate: (inv) => {
      const b = inv.network.bastionHosts
      if (b === undefined) return []
      return [subscriptionRow(inv, b.length > 0, b.length > 0 ? `Bastion host(s): ${b.map((x) => x.name).join(", ")}.` : "No Bastion host.", { bastion_hosts: b.map((x) => x.name) })]
    },
  }),
]
