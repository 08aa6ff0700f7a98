/** Cloud DNS: managed zones with their DNSSEC configuration, and DNS server policies (logging, attached networks). */
import { Schema } from "effect"
import { listAll, Paged, type GcpCollectContext } from "../context.ts"

export const dnsResourceTypes = ["dns.managed_zones", "dns.policies"] as const

export const ManagedZone = Schema.Struct({
  name: Schema.String,
  dnsName: Schema.optionalKey(Schema.String),
  visibility: Schema.optionalKey(Schema.String),
  dnssecConfig: Schema.optionalKey(
    Schema.Struct({
      state: Schema.optionalKey(Schema.String),
      defaultKeySpecs: Schema.optionalKey(
        Schema.Array(Schema.Struct({ keyType: Schema.optionalKey(Schema.String), algorithm: Schema.optionalKey(Schema.String), keyLength: Schema.optionalKey(Schema.Number) })),
      ),
    }),
  ),
})
export type ManagedZone = typeof ManagedZone.Type

export const DnsPolicy = Schema.Struct({
  name: Schema.String,
  enableLogging: Schema.optionalKey(Schema.Boolean),
  networks: Schema.optionalKey(Schema.Array(Schema.Struct({ networkUrl: Schema.optionalKey(Schema.String) }))),
})
export type DnsPolicy = typeof DnsPolicy.Type

const ZonesPage = Paged({ managedZones: Schema.optionalKey(Schema.Array(ManagedZone)) })
const PoliciesPage = Paged({ policies: Schema.optionalKey(Schema.Array(DnsPolicy)) })

export interface DnsInventory {
  readonly managedZones: ReadonlyArray<ManagedZone> | undefined
  readonly policies: ReadonlyArray<DnsPolicy> | undefined
}

export async function collectDns(ctx: GcpCollectContext): Promise<DnsInventory> {
  const base = `${ctx.endpoints.dns}/dns/v1/projects/${ctx.projectId}`
  const [managedZones, policies] = await Promise.all([
    ctx.wants("dns.managed_zones")
      ? listAll(ctx, { type: "dns.managed_zones", region: "global", op: "dns.managedZones.list" }, `${base}/managedZones?maxResults=1000`, ZonesPage, (page) => page.managedZones)
      : undefined,
    ctx.wants("dns.policies")
      ? listAll(ctx, { type: "dns.policies", region: "global", op: "dns.policies.list" }, `${base}/policies?maxResults=1000`, PoliciesPage, (page) => page.policies)
      : undefined,
  ])
  ctx.countResources((managedZones?.length ?? 0) + (policies?.length ?? 0))
  return { managedZones, policies }
}
