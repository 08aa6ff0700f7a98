/**
 * Amazon MSK inventory per region: provisioned clusters with their encryption, client authentication, public access
 * and monitoring (ListClustersV2 carries all of it), and whether the key encrypting their data volumes is a customer
 * managed key (KMS DescribeKey, once per distinct key).
 */
import { ListClustersV2Command } from "@aws-sdk/client-kafka"
import { DescribeKeyCommand } from "@aws-sdk/client-kms"
import type { CollectContext } from "../context.ts"
import { listPerRegion, type ItemsInventory } from "./per-region.ts"

export const kafkaResourceTypes = ["kafka.clusters"] as const

export interface KafkaCluster {
  readonly name: string
  readonly arn: string
  readonly clientBroker: string
  readonly inCluster: boolean
  readonly publicAccess: boolean
  readonly unauthenticated: boolean
  readonly tls: boolean
  readonly iam: boolean
  readonly scram: boolean
  readonly enhancedMonitoring: string
  /** true: a customer managed key; false: the AWS managed key or none named; undefined: the key could not be read. */
  readonly customerKey: boolean | undefined
}
export type KafkaInventory = ItemsInventory<KafkaCluster>

export async function collectKafka(ctx: CollectContext): Promise<KafkaInventory> {
  const keyManagers = new Map<string, Promise<string | undefined>>()
  const keyManager = (region: string, keyId: string) => {
    const key = `${region}/${keyId}`
    let got = keyManagers.get(key)
    if (got === undefined) {
      got = ctx
        .call({ type: "kafka.clusters", region, op: "kms:DescribeKey", id: keyId }, (o) => ctx.clients.get("kms", region).send(new DescribeKeyCommand({ KeyId: keyId }), o))
        .then((d) => d?.KeyMetadata?.KeyManager)
      keyManagers.set(key, got)
    }
    return got
  }
  return listPerRegion(
    ctx,
    { type: "kafka.clusters", op: "kafka:ListClustersV2" },
    (region, t, o) => ctx.clients.get("kafka", region).send(new ListClustersV2Command({ ClusterTypeFilter: "PROVISIONED", ...(t === undefined ? {} : { NextToken: t }) }), o),
    (p) => ({ items: p.ClusterInfoList?.filter((c) => c.Provisioned !== undefined), next: p.NextToken }),
    async (c, region): Promise<KafkaCluster> => {
      const p = c.Provisioned!
      const auth = p.ClientAuthentication
      const keyId = p.EncryptionInfo?.EncryptionAtRest?.DataVolumeKMSKeyId
      const manager = keyId === undefined || keyId === "" ? "AWS" : await keyManager(region, keyId)
      return {
        name: c.ClusterName ?? "",
        arn: c.ClusterArn ?? "",
        // The API's default when not set is TLS.
        clientBroker: p.EncryptionInfo?.EncryptionInTransit?.ClientBroker ?? "TLS",
        inCluster: p.EncryptionInfo?.EncryptionInTransit?.InCluster !== false,
        publicAccess: (p.BrokerNodeGroupInfo?.ConnectivityInfo?.PublicAccess?.Type ?? "DISABLED") !== "DISABLED",
        unauthenticated: auth?.Unauthenticated?.Enabled === true || (auth?.Tls === undefined && auth?.Sasl === undefined),
        tls: auth?.Tls?.Enabled === true || (auth?.Tls?.CertificateAuthorityArnList?.length ?? 0) > 0,
        iam: auth?.Sasl?.Iam?.Enabled === true,
        scram: auth?.Sasl?.Scram?.Enabled === true,
        enhancedMonitoring: p.EnhancedMonitoring ?? "DEFAULT",
        customerKey: manager === undefined ? undefined : manager === "CUSTOMER",
      }
    },
  )
}
