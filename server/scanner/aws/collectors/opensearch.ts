/** OpenSearch Service inventory per region: domains (access policy, VPC, encryption, endpoint TLS, logs, fine-grained access control, cluster layout). */
import { DescribeDomainsCommand, ListDomainNamesCommand } from "@aws-sdk/client-opensearch"
import type { CollectContext } from "../context.ts"
import type { ItemsInventory, RegionItems } from "./per-region.ts"
import { parsePolicy, type PolicyDocument } from "../policy.ts"

export const opensearchResourceTypes = ["opensearch.domains"] as const

export interface OpenSearchDomain {
  readonly name: string
  readonly arn: string
  readonly policy: PolicyDocument | undefined
  readonly vpcId: string | undefined
  readonly encryptedAtRest: boolean
  readonly kmsKeyId: string | undefined
  readonly nodeToNode: boolean
  readonly enforceHttps: boolean
  readonly tlsPolicy: string | undefined
  readonly logs: ReadonlyArray<string>
  readonly fineGrained: boolean
  readonly dedicatedMaster: boolean
  readonly zoneAwareness: boolean
  readonly instanceCount: number
}

export type OpenSearchInventory = ItemsInventory<OpenSearchDomain>

export async function collectOpenSearch(ctx: CollectContext): Promise<OpenSearchInventory> {
  const regions = await ctx.perRegion(async (region): Promise<RegionItems<OpenSearchDomain>> => {
    const os = ctx.clients.get("opensearch", region)
    const names = await ctx.call({ type: "opensearch.domains", region, op: "es:ListDomainNames" }, (o) => os.send(new ListDomainNamesCommand({}), o))
    if (names === undefined) return { region, items: undefined }
    const list = (names.DomainNames ?? []).flatMap((d) => (d.DomainName === undefined ? [] : [d.DomainName]))
    const batches: string[][] = []
    for (let i = 0; i < list.length; i += 5) batches.push(list.slice(i, i + 5))
    const described = await ctx.map(batches, (batch) => ctx.call({ type: "opensearch.domains", region, op: "es:DescribeDomains" }, (o) => os.send(new DescribeDomainsCommand({ DomainNames: batch }), o)))
    if (described.some((d) => d === undefined)) return { region, items: undefined }
    const items = described.flatMap((d) =>
      (d?.DomainStatusList ?? []).map((s) => ({
        name: s.DomainName ?? "",
        arn: s.ARN ?? "",
        policy: parsePolicy(s.AccessPolicies),
        vpcId: s.VPCOptions?.VPCId || ((s.VPCOptions?.SubnetIds ?? []).length > 0 ? "vpc" : undefined),
        encryptedAtRest: s.EncryptionAtRestOptions?.Enabled === true,
        kmsKeyId: s.EncryptionAtRestOptions?.KmsKeyId,
        nodeToNode: s.NodeToNodeEncryptionOptions?.Enabled === true,
        enforceHttps: s.DomainEndpointOptions?.EnforceHTTPS === true,
        tlsPolicy: s.DomainEndpointOptions?.TLSSecurityPolicy,
        logs: Object.entries(s.LogPublishingOptions ?? {}).filter(([, v]) => v.Enabled === true).map(([k]) => k),
        fineGrained: s.AdvancedSecurityOptions?.Enabled === true,
        dedicatedMaster: s.ClusterConfig?.DedicatedMasterEnabled === true,
        zoneAwareness: s.ClusterConfig?.ZoneAwarenessEnabled === true,
        instanceCount: s.ClusterConfig?.InstanceCount ?? 1,
      })),
    )
    ctx.countResources(items.length)
    return { region, items }
  })
  return { regions }
}
