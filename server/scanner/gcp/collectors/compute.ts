/**
 * Compute Engine (compute v1): project metadata (projects.get: common instance metadata, default service account),
 * VPC networks, firewall rules, subnetworks / instances / disks / backend services across all scopes
 * (aggregatedList, whose `items` map "zones/…", "regions/…" and "global" to scoped lists), and the regions.
 */
import { Schema } from "effect"
import { aggregated, aggregatedPageOf, listAll, Paged, ScopedWarning, type GcpCollectContext } from "../context.ts"

export const computeResourceTypes = [
  "compute.project",
  "compute.networks",
  "compute.firewalls",
  "compute.subnetworks",
  "compute.instances",
  "compute.disks",
  "compute.backend_services",
  "compute.regions",
] as const

const MetadataItems = Schema.Array(Schema.Struct({ key: Schema.String, value: Schema.optionalKey(Schema.String) }))

export const Metadata = Schema.Struct({ fingerprint: Schema.optionalKey(Schema.String), items: Schema.optionalKey(MetadataItems) })
export type Metadata = typeof Metadata.Type

export const ComputeProject = Schema.Struct({
  name: Schema.String,
  id: Schema.optionalKey(Schema.String),
  defaultServiceAccount: Schema.optionalKey(Schema.String),
  commonInstanceMetadata: Schema.optionalKey(Metadata),
})
export type ComputeProject = typeof ComputeProject.Type

export const Network = Schema.Struct({
  name: Schema.String,
  selfLink: Schema.optionalKey(Schema.String),
  IPv4Range: Schema.optionalKey(Schema.String),
  autoCreateSubnetworks: Schema.optionalKey(Schema.Boolean),
  subnetworks: Schema.optionalKey(Schema.Array(Schema.String)),
})
export type Network = typeof Network.Type

const PortRule = Schema.Struct({ IPProtocol: Schema.String, ports: Schema.optionalKey(Schema.Array(Schema.String)) })

export const Firewall = Schema.Struct({
  name: Schema.String,
  network: Schema.optionalKey(Schema.String),
  direction: Schema.optionalKey(Schema.String),
  priority: Schema.optionalKey(Schema.Number),
  disabled: Schema.optionalKey(Schema.Boolean),
  sourceRanges: Schema.optionalKey(Schema.Array(Schema.String)),
  sourceTags: Schema.optionalKey(Schema.Array(Schema.String)),
  sourceServiceAccounts: Schema.optionalKey(Schema.Array(Schema.String)),
  allowed: Schema.optionalKey(Schema.Array(PortRule)),
  denied: Schema.optionalKey(Schema.Array(PortRule)),
})
export type Firewall = typeof Firewall.Type

export const Subnetwork = Schema.Struct({
  name: Schema.String,
  region: Schema.optionalKey(Schema.String),
  network: Schema.optionalKey(Schema.String),
  purpose: Schema.optionalKey(Schema.String),
  fingerprint: Schema.optionalKey(Schema.String),
  enableFlowLogs: Schema.optionalKey(Schema.Boolean),
  logConfig: Schema.optionalKey(
    Schema.Struct({
      enable: Schema.optionalKey(Schema.Boolean),
      aggregationInterval: Schema.optionalKey(Schema.String),
      flowSampling: Schema.optionalKey(Schema.Number),
      metadata: Schema.optionalKey(Schema.String),
      filterExpr: Schema.optionalKey(Schema.String),
    }),
  ),
})
export type Subnetwork = typeof Subnetwork.Type

export const Instance = Schema.Struct({
  name: Schema.String,
  id: Schema.optionalKey(Schema.String),
  zone: Schema.optionalKey(Schema.String),
  status: Schema.optionalKey(Schema.String),
  canIpForward: Schema.optionalKey(Schema.Boolean),
  serviceAccounts: Schema.optionalKey(Schema.Array(Schema.Struct({ email: Schema.String, scopes: Schema.optionalKey(Schema.Array(Schema.String)) }))),
  metadata: Schema.optionalKey(Metadata),
  shieldedInstanceConfig: Schema.optionalKey(
    Schema.Struct({ enableSecureBoot: Schema.optionalKey(Schema.Boolean), enableVtpm: Schema.optionalKey(Schema.Boolean), enableIntegrityMonitoring: Schema.optionalKey(Schema.Boolean) }),
  ),
  confidentialInstanceConfig: Schema.optionalKey(Schema.Struct({ enableConfidentialCompute: Schema.optionalKey(Schema.Boolean), confidentialInstanceType: Schema.optionalKey(Schema.String) })),
  networkInterfaces: Schema.optionalKey(
    Schema.Array(
      Schema.Struct({
        network: Schema.optionalKey(Schema.String),
        accessConfigs: Schema.optionalKey(Schema.Array(Schema.Struct({ name: Schema.optionalKey(Schema.String), natIP: Schema.optionalKey(Schema.String), type: Schema.optionalKey(Schema.String) }))),
        ipv6AccessConfigs: Schema.optionalKey(Schema.Array(Schema.Struct({ externalIpv6: Schema.optionalKey(Schema.String) }))),
      }),
    ),
  ),
  labels: Schema.optionalKey(Schema.Record(Schema.String, Schema.String)),
})
export type Instance = typeof Instance.Type

export const Disk = Schema.Struct({
  name: Schema.String,
  zone: Schema.optionalKey(Schema.String),
  users: Schema.optionalKey(Schema.Array(Schema.String)),
  diskEncryptionKey: Schema.optionalKey(Schema.Struct({ sha256: Schema.optionalKey(Schema.String), kmsKeyName: Schema.optionalKey(Schema.String) })),
})
export type Disk = typeof Disk.Type

export const BackendService = Schema.Struct({
  name: Schema.String,
  region: Schema.optionalKey(Schema.String),
  protocol: Schema.optionalKey(Schema.String),
  loadBalancingScheme: Schema.optionalKey(Schema.String),
  fingerprint: Schema.optionalKey(Schema.String),
  logConfig: Schema.optionalKey(Schema.Struct({ enable: Schema.optionalKey(Schema.Boolean), sampleRate: Schema.optionalKey(Schema.Number) })),
})
export type BackendService = typeof BackendService.Type

export const NetworksPage = Paged({ items: Schema.optionalKey(Schema.Array(Network)) })
export const FirewallsPage = Paged({ items: Schema.optionalKey(Schema.Array(Firewall)) })
export const RegionsPage = Paged({ items: Schema.optionalKey(Schema.Array(Schema.Struct({ name: Schema.String, status: Schema.optionalKey(Schema.String) }))) })
export const SubnetsPage = aggregatedPageOf(Schema.Struct({ subnetworks: Schema.optionalKey(Schema.Array(Subnetwork)), warning: ScopedWarning }))
export const InstancesPage = aggregatedPageOf(Schema.Struct({ instances: Schema.optionalKey(Schema.Array(Instance)), warning: ScopedWarning }))
export const DisksPage = aggregatedPageOf(Schema.Struct({ disks: Schema.optionalKey(Schema.Array(Disk)), warning: ScopedWarning }))
export const BackendsPage = aggregatedPageOf(Schema.Struct({ backendServices: Schema.optionalKey(Schema.Array(BackendService)), warning: ScopedWarning }))

export interface Scoped<T> {
  /** Zone, region or "global". */
  readonly scope: string
  readonly item: T
}

export interface ComputeInventory {
  readonly project: ComputeProject | undefined
  readonly networks: ReadonlyArray<Network> | undefined
  readonly firewalls: ReadonlyArray<Firewall> | undefined
  readonly subnetworks: ReadonlyArray<Scoped<Subnetwork>> | undefined
  readonly instances: ReadonlyArray<Scoped<Instance>> | undefined
  readonly disks: ReadonlyArray<Scoped<Disk>> | undefined
  readonly backendServices: ReadonlyArray<Scoped<BackendService>> | undefined
  readonly regions: ReadonlyArray<string> | undefined
}

/** Value of a metadata key (keys are case-sensitive; values are compared case-insensitively by the checks). */
export const metadataValue = (m: Metadata | undefined, key: string): string | undefined => m?.items?.find((i) => i.key === key)?.value

export async function collectCompute(ctx: GcpCollectContext): Promise<ComputeInventory> {
  const base = `${ctx.endpoints.compute}/compute/v1/projects/${ctx.projectId}`
  const when = <A>(type: string, f: () => Promise<A | undefined>) => (ctx.wants(type) ? f() : Promise.resolve(undefined))
  const [project, networks, firewalls, subnetworks, instances, disks, backendServices, regions] = await Promise.all([
    when("compute.project", () => ctx.get({ type: "compute.project", region: "global", op: "compute.projects.get" }, { url: base }, ComputeProject)),
    when("compute.networks", () =>
      listAll(ctx, { type: "compute.networks", region: "global", op: "compute.networks.list" }, `${base}/global/networks?maxResults=500`, NetworksPage, (p) => p.items),
    ),
    when("compute.firewalls", () =>
      listAll(ctx, { type: "compute.firewalls", region: "global", op: "compute.firewalls.list" }, `${base}/global/firewalls?maxResults=500`, FirewallsPage, (p) => p.items),
    ),
    when("compute.subnetworks", () =>
      aggregated(ctx, { type: "compute.subnetworks", region: "global", op: "compute.subnetworks.aggregatedList" }, `${base}/aggregated/subnetworks?maxResults=500`, SubnetsPage, (l) => l.subnetworks),
    ),
    when("compute.instances", () =>
      aggregated(ctx, { type: "compute.instances", region: "global", op: "compute.instances.aggregatedList" }, `${base}/aggregated/instances?maxResults=500`, InstancesPage, (l) => l.instances),
    ),
    when("compute.disks", () =>
      aggregated(ctx, { type: "compute.disks", region: "global", op: "compute.disks.aggregatedList" }, `${base}/aggregated/disks?maxResults=500`, DisksPage, (l) => l.disks),
    ),
    when("compute.backend_services", () =>
      aggregated(
        ctx,
        { type: "compute.backend_services", region: "global", op: "compute.backendServices.aggregatedList" },
        `${base}/aggregated/backendServices?maxResults=500`,
        BackendsPage,
        (l) => l.backendServices,
      ),
    ),
    when("compute.regions", () =>
      listAll(ctx, { type: "compute.regions", region: "global", op: "compute.regions.list" }, `${base}/regions?maxResults=500`, RegionsPage, (p) => p.items?.map((r) => r.name)),
    ),
  ])
  ctx.countResources(
    (networks?.length ?? 0) + (firewalls?.length ?? 0) + (subnetworks?.length ?? 0) + (instances?.length ?? 0) + (disks?.length ?? 0) + (backendServices?.length ?? 0),
  )
  return { project, networks, firewalls, subnetworks, instances, disks, backendServices, regions }
}

