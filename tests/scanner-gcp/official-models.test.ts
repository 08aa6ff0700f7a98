/**
 * The GCP decoders checked against Google's own resource models (issue 29): every field a decoder reads must exist
 * in the official model at the same path, with a compatible type (a string where the model has a string, a list where
 * it has a list, …). The models are the `@googleapis/<api>` devDependencies or, for the APIs without such a package,
 * the `Schema$…` interfaces extracted from `googleapis` into ./official-models by scripts/gcp-official-models.ts.
 *
 * The check is done by the type checker (`npx tsc --noEmit -p .`): a misspelt, missing or mistyped field is a build
 * error naming the path, e.g. `Type '"Instance.shieldedInstanceConfig.enableVTPM: not in the official model"' does
 * not satisfy the constraint 'never'`. The runtime part below proves the rule itself catches such mistakes, and that
 * the decoders accept every documented enum value (they decode enum fields as strings, never as a literal subset).
 */
import { Schema, SchemaAST } from "effect"
import { describe, expect, it } from "vitest"
import type { compute_v1 } from "@googleapis/compute/build/v1"
import type { container_v1 } from "@googleapis/container/build/v1"
import type { sqladmin_v1 } from "@googleapis/sqladmin/build/v1"
import type { storage_v1 } from "@googleapis/storage/build/v1"
import type { iam_v1 } from "@googleapis/iam/build/v1"
import type { cloudresourcemanager_v1 } from "@googleapis/cloudresourcemanager/build/v1"
import type { logging_v2 } from "@googleapis/logging/build/v2"
import type { serviceusage_v1 } from "@googleapis/serviceusage/build/v1"
import type { accessapproval_v1 } from "./official-models/accessapproval_v1.d.ts"
import type { apikeys_v2 } from "./official-models/apikeys_v2.d.ts"
import type { bigquery_v2 } from "./official-models/bigquery_v2.d.ts"
import type { cloudkms_v1 } from "./official-models/cloudkms_v1.d.ts"
import type { dataproc_v1 } from "./official-models/dataproc_v1.d.ts"
import type { dns_v1 } from "./official-models/dns_v1.d.ts"
import type { essentialcontacts_v1 } from "./official-models/essentialcontacts_v1.d.ts"
import type { monitoring_v3 } from "./official-models/monitoring_v3.d.ts"
import type { secretmanager_v1 } from "./official-models/secretmanager_v1.d.ts"
import type { cloudfunctions_v2 } from "./official-models/cloudfunctions_v2.d.ts"
import type { artifactregistry_v1 } from "./official-models/artifactregistry_v1.d.ts"
import type { orgpolicy_v2 } from "./official-models/orgpolicy_v2.d.ts"
import { Secret, SecretsPage } from "../../server/scanner/gcp/collectors/secretmanager.ts"
import { CloudFunction, FunctionsPage } from "../../server/scanner/gcp/collectors/cloudfunctions.ts"
import { LocationsPage as ArtifactLocationsPage, Repository, RepositoriesPage } from "../../server/scanner/gcp/collectors/artifactregistry.ts"
import { IamPolicy } from "../../server/scanner/gcp/context.ts"
import { ApiKey } from "../../server/scanner/gcp/collectors/apikeys.ts"
import { Dataset, DatasetsPage, Table, TablesPage } from "../../server/scanner/gcp/collectors/bigquery.ts"
import { BackendService, BackendsPage, ComputeProject, Disk, DisksPage, Firewall, FirewallsPage, Instance, InstancesPage, Metadata, Network, NetworksPage, RegionsPage, SubnetsPage, Subnetwork } from "../../server/scanner/gcp/collectors/compute.ts"
import { Cluster } from "../../server/scanner/gcp/collectors/dataproc.ts"
import { DnsPolicy, ManagedZone } from "../../server/scanner/gcp/collectors/dns.ts"
import { ClustersPage, GkeCluster } from "../../server/scanner/gcp/collectors/gke.ts"
import { ServiceAccount, ServiceAccountKey } from "../../server/scanner/gcp/collectors/iam.ts"
import { CryptoKey } from "../../server/scanner/gcp/collectors/kms.ts"
import { AlertPolicy, BucketRetention, LogMetric, LogSink } from "../../server/scanner/gcp/collectors/logging.ts"
import { AccessApprovalSettings, Ancestry, Contact, EffectivePolicy, ServiceState } from "../../server/scanner/gcp/collectors/project.ts"
import { SqlInstance } from "../../server/scanner/gcp/collectors/sql.ts"
import { Bucket } from "../../server/scanner/gcp/collectors/storage.ts"

type Defined<T> = Exclude<T, null | undefined>
type IsAny<T> = 0 extends 1 & T ? true : false

/**
 * The paths where decoder type S departs from official model O, as string literals (never when S conforms): every key
 * of S must be a key of O, lists must be lists, objects objects, and a scalar must be assignable to the model's.
 */
export type Mismatches<S, O, P extends string> =
  IsAny<O> extends true
    ? never
    : unknown extends S
      ? never
      : Defined<S> extends ReadonlyArray<infer SE>
        ? Defined<O> extends ReadonlyArray<infer OE>
          ? Mismatches<SE, OE, `${P}[]`>
          : `${P}: a list, not in the official model`
        : Defined<S> extends string | number | boolean
          ? [Defined<S>] extends [Defined<O>]
            ? never
            : `${P}: type differs from the official model`
          : Defined<O> extends ReadonlyArray<unknown> | string | number | boolean
            ? `${P}: an object, not in the official model`
            : {
                [K in keyof Defined<S> & string]-?: K extends keyof Defined<O> ? Mismatches<Defined<S>[K], Defined<O>[K], `${P}.${K}`> : `${P}.${K}: not in the official model`
              }[keyof Defined<S> & string]

/** Compiles only when T is never: the error message is the first mismatching path. */
type Conforms<T extends never> = T

export type Checked = [
  Conforms<Mismatches<typeof IamPolicy.Type, cloudresourcemanager_v1.Schema$Policy, "IamPolicy (resourcemanager)">>,
  Conforms<Mismatches<typeof IamPolicy.Type, storage_v1.Schema$Policy & { auditConfigs?: cloudresourcemanager_v1.Schema$AuditConfig[] }, "IamPolicy (storage)">>,
  Conforms<Mismatches<typeof IamPolicy.Type, cloudkms_v1.Schema$Policy, "IamPolicy (cloudkms)">>,
  Conforms<Mismatches<typeof ApiKey.Type, apikeys_v2.Schema$V2Key, "ApiKey">>,
  Conforms<Mismatches<typeof Dataset.Type, bigquery_v2.Schema$Dataset, "Dataset">>,
  Conforms<Mismatches<typeof DatasetsPage.Type, bigquery_v2.Schema$DatasetList, "DatasetList">>,
  Conforms<Mismatches<typeof TablesPage.Type, bigquery_v2.Schema$TableList, "TableList">>,
  Conforms<Mismatches<typeof Table.Type, bigquery_v2.Schema$Table, "Table">>,
  Conforms<Mismatches<typeof ComputeProject.Type, compute_v1.Schema$Project, "ComputeProject">>,
  Conforms<Mismatches<typeof Metadata.Type, compute_v1.Schema$Metadata, "Metadata">>,
  Conforms<Mismatches<typeof Network.Type, compute_v1.Schema$Network, "Network">>,
  Conforms<Mismatches<typeof Firewall.Type, compute_v1.Schema$Firewall, "Firewall">>,
  Conforms<Mismatches<typeof Subnetwork.Type, compute_v1.Schema$Subnetwork, "Subnetwork">>,
  Conforms<Mismatches<typeof Instance.Type, compute_v1.Schema$Instance, "Instance">>,
  Conforms<Mismatches<typeof Disk.Type, compute_v1.Schema$Disk, "Disk">>,
  Conforms<Mismatches<typeof BackendService.Type, compute_v1.Schema$BackendService, "BackendService">>,
  Conforms<Mismatches<typeof InstancesPage.Type, compute_v1.Schema$InstanceAggregatedList, "InstanceAggregatedList">>,
  Conforms<Mismatches<typeof SubnetsPage.Type, compute_v1.Schema$SubnetworkAggregatedList, "SubnetworkAggregatedList">>,
  Conforms<Mismatches<typeof DisksPage.Type, compute_v1.Schema$DiskAggregatedList, "DiskAggregatedList">>,
  Conforms<Mismatches<typeof BackendsPage.Type, compute_v1.Schema$BackendServiceAggregatedList, "BackendServiceAggregatedList">>,
  Conforms<Mismatches<typeof RegionsPage.Type, compute_v1.Schema$RegionList, "RegionList">>,
  Conforms<Mismatches<typeof NetworksPage.Type, compute_v1.Schema$NetworkList, "NetworkList">>,
  Conforms<Mismatches<typeof FirewallsPage.Type, compute_v1.Schema$FirewallList, "FirewallList">>,
  Conforms<Mismatches<typeof Cluster.Type, dataproc_v1.Schema$Cluster, "Dataproc Cluster">>,
  Conforms<Mismatches<typeof ManagedZone.Type, dns_v1.Schema$ManagedZone, "ManagedZone">>,
  Conforms<Mismatches<typeof DnsPolicy.Type, dns_v1.Schema$Policy, "DnsPolicy">>,
  Conforms<Mismatches<typeof GkeCluster.Type, container_v1.Schema$Cluster, "GkeCluster">>,
  Conforms<Mismatches<typeof ClustersPage.Type, container_v1.Schema$ListClustersResponse & { nextPageToken?: string }, "ListClustersResponse">>,
  Conforms<Mismatches<typeof ServiceAccount.Type, iam_v1.Schema$ServiceAccount, "ServiceAccount">>,
  Conforms<Mismatches<typeof ServiceAccountKey.Type, iam_v1.Schema$ServiceAccountKey, "ServiceAccountKey">>,
  Conforms<Mismatches<typeof CryptoKey.Type, cloudkms_v1.Schema$CryptoKey, "CryptoKey">>,
  Conforms<Mismatches<typeof LogSink.Type, logging_v2.Schema$LogSink, "LogSink">>,
  Conforms<Mismatches<typeof LogMetric.Type, logging_v2.Schema$LogMetric, "LogMetric">>,
  Conforms<Mismatches<typeof AlertPolicy.Type, monitoring_v3.Schema$AlertPolicy, "AlertPolicy">>,
  Conforms<Mismatches<typeof BucketRetention.Type, storage_v1.Schema$Bucket, "BucketRetention">>,
  Conforms<Mismatches<typeof Contact.Type, essentialcontacts_v1.Schema$GoogleCloudEssentialcontactsV1Contact, "Contact">>,
  Conforms<Mismatches<typeof ServiceState.Type, serviceusage_v1.Schema$GoogleApiServiceusageV1Service, "ServiceState">>,
  Conforms<Mismatches<typeof AccessApprovalSettings.Type, accessapproval_v1.Schema$AccessApprovalSettings, "AccessApprovalSettings">>,
  Conforms<Mismatches<typeof SqlInstance.Type, sqladmin_v1.Schema$DatabaseInstance, "SqlInstance">>,
  Conforms<Mismatches<typeof Bucket.Type, storage_v1.Schema$Bucket, "Bucket">>,
  Conforms<Mismatches<typeof Secret.Type, secretmanager_v1.Schema$Secret, "Secret">>,
  Conforms<Mismatches<typeof SecretsPage.Type, secretmanager_v1.Schema$ListSecretsResponse, "ListSecretsResponse">>,
  Conforms<Mismatches<typeof CloudFunction.Type, cloudfunctions_v2.Schema$Function, "CloudFunction">>,
  Conforms<Mismatches<typeof FunctionsPage.Type, cloudfunctions_v2.Schema$ListFunctionsResponse, "ListFunctionsResponse">>,
  Conforms<Mismatches<typeof Repository.Type, artifactregistry_v1.Schema$Repository, "Repository">>,
  Conforms<Mismatches<typeof RepositoriesPage.Type, artifactregistry_v1.Schema$ListRepositoriesResponse, "ListRepositoriesResponse">>,
  Conforms<Mismatches<typeof Ancestry.Type, cloudresourcemanager_v1.Schema$GetAncestryResponse, "GetAncestryResponse">>,
  Conforms<Mismatches<typeof EffectivePolicy.Type, orgpolicy_v2.Schema$GoogleCloudOrgpolicyV2Policy, "OrgPolicy">>,
  Conforms<Mismatches<typeof ArtifactLocationsPage.Type, artifactregistry_v1.Schema$ListLocationsResponse, "ListLocationsResponse (artifactregistry)">>,
]

describe("decoders against the official models", () => {
  it("the conformance rule rejects a misspelt, a mistyped and a mis-nested field (the build fails on such a decoder)", () => {
    const Misspelt = Schema.Struct({ shieldedInstanceConfig: Schema.optionalKey(Schema.Struct({ enableVTPM: Schema.optionalKey(Schema.Boolean) })) })
    const Mistyped = Schema.Struct({ canIpForward: Schema.optionalKey(Schema.String) })
    const NotAList = Schema.Struct({ serviceAccounts: Schema.optionalKey(Schema.Struct({ email: Schema.String })) })
    // The expected mismatch paths, as types: the assignments compile only if the rule reports exactly these.
    const a: Mismatches<typeof Misspelt.Type, compute_v1.Schema$Instance, "Instance"> = "Instance.shieldedInstanceConfig.enableVTPM: not in the official model"
    const b: Mismatches<typeof Mistyped.Type, compute_v1.Schema$Instance, "Instance"> = "Instance.canIpForward: type differs from the official model"
    const c: Mismatches<typeof NotAList.Type, compute_v1.Schema$Instance, "Instance"> = "Instance.serviceAccounts: an object, not in the official model"
    expect([a, b, c]).toHaveLength(3)
  })

  it("no decoder narrows a field to a literal subset (so every documented enum value, and any new one, decodes)", () => {
    const decoders: Record<string, Schema.Top> = {
      IamPolicy, ApiKey, Dataset, DatasetsPage, Table, TablesPage, ComputeProject, Metadata, Network, Firewall, Subnetwork, Instance, Disk, BackendService,
      InstancesPage, SubnetsPage, DisksPage, BackendsPage, RegionsPage, Cluster, ManagedZone, DnsPolicy, GkeCluster, ClustersPage, ServiceAccount,
      ServiceAccountKey, CryptoKey, LogSink, LogMetric, AlertPolicy, BucketRetention, Contact, ServiceState, AccessApprovalSettings, Ancestry,
      EffectivePolicy, SqlInstance, Bucket, Secret, SecretsPage, CloudFunction, FunctionsPage, Repository, RepositoriesPage, ArtifactLocationsPage,
    }
    const literals = (ast: SchemaAST.AST, path: string): string[] => {
      switch (ast._tag) {
        case "Literal":
        case "Enum":
        case "TemplateLiteral":
          return [path]
        case "Objects":
          return [...ast.propertySignatures.flatMap((p) => literals(p.type, `${path}.${String(p.name)}`)), ...ast.indexSignatures.flatMap((i) => literals(i.type, `${path}[*]`))]
        case "Arrays":
          return [...ast.elements, ...ast.rest].flatMap((t) => literals(t, `${path}[]`))
        case "Union":
          return ast.types.flatMap((t) => literals(t, path))
        default:
          return []
      }
    }
    expect(Object.entries(decoders).flatMap(([name, schema]) => literals(schema.ast, name))).toEqual([])
  })

  it("decodes every documented value of the enum fields the checks read (enum fields are strings, not literal subsets)", () => {
    const cases: ReadonlyArray<readonly [Schema.Top, Record<string, unknown>]> = [
      // sqladmin DatabaseInstance.instanceType, settings.availabilityType, ipConfiguration.sslMode
      ...["SQL_INSTANCE_TYPE_UNSPECIFIED", "CLOUD_SQL_INSTANCE", "ON_PREMISES_INSTANCE", "READ_REPLICA_INSTANCE", "READ_POOL_INSTANCE"].map((v) => [SqlInstance, { name: "i", instanceType: v }] as const),
      ...["SQL_AVAILABILITY_TYPE_UNSPECIFIED", "ZONAL", "REGIONAL"].map((v) => [SqlInstance, { name: "i", settings: { availabilityType: v } }] as const),
      ...["SSL_MODE_UNSPECIFIED", "ALLOW_UNENCRYPTED_AND_ENCRYPTED", "ENCRYPTED_ONLY", "TRUSTED_CLIENT_CERTIFICATE_REQUIRED"].map((v) => [SqlInstance, { name: "i", settings: { ipConfiguration: { sslMode: v } } }] as const),
      // bigquery Table.type
      ...["TABLE", "VIEW", "EXTERNAL", "MATERIALIZED_VIEW", "SNAPSHOT"].map((v) => [Table, { tableReference: { tableId: "t", datasetId: "d" }, type: v }] as const),
      // container Cluster.databaseEncryption.state, networkConfig.datapathProvider, nodeConfig.workloadMetadataConfig.mode
      ...["UNKNOWN", "ENCRYPTED", "DECRYPTED"].map((v) => [GkeCluster, { name: "c", databaseEncryption: { state: v } }] as const),
      ...["DATAPATH_PROVIDER_UNSPECIFIED", "LEGACY_DATAPATH", "ADVANCED_DATAPATH"].map((v) => [GkeCluster, { name: "c", networkConfig: { datapathProvider: v } }] as const),
      ...["MODE_UNSPECIFIED", "GCE_METADATA", "GKE_METADATA"].map((v) => [GkeCluster, { name: "c", nodePools: [{ name: "p", config: { workloadMetadataConfig: { mode: v } } }] }] as const),
      // compute Firewall.direction, Subnetwork.purpose (a selection), BackendService.protocol
      ...["INGRESS", "EGRESS"].map((v) => [Firewall, { name: "f", direction: v }] as const),
      ...["PRIVATE", "PRIVATE_RFC_1918", "PRIVATE_SERVICE_CONNECT", "REGIONAL_MANAGED_PROXY", "GLOBAL_MANAGED_PROXY", "INTERNAL_HTTPS_LOAD_BALANCER", "PRIVATE_NAT", "PEER_MIGRATION"].map((v) => [Subnetwork, { name: "s", purpose: v }] as const),
      ...["HTTP", "HTTPS", "HTTP2", "H2C", "TCP", "SSL", "UDP", "GRPC", "UNSPECIFIED"].map((v) => [BackendService, { name: "b", protocol: v }] as const),
      // cloudkms CryptoKey.purpose
      ...["CRYPTO_KEY_PURPOSE_UNSPECIFIED", "ENCRYPT_DECRYPT", "ASYMMETRIC_SIGN", "ASYMMETRIC_DECRYPT", "RAW_ENCRYPT_DECRYPT", "MAC", "KEY_ENCAPSULATION"].map((v) => [CryptoKey, { name: "k", purpose: v }] as const),
      // dns ManagedZone.visibility, dnssecConfig.state, defaultKeySpecs[].algorithm
      ...["public", "private"].map((v) => [ManagedZone, { name: "z", visibility: v }] as const),
      ...["off", "on", "transfer"].map((v) => [ManagedZone, { name: "z", dnssecConfig: { state: v } }] as const),
      ...["rsasha1", "rsasha256", "rsasha512", "ecdsap256sha256", "ecdsap384sha384"].map((v) => [ManagedZone, { name: "z", dnssecConfig: { defaultKeySpecs: [{ keyType: "keySigning", algorithm: v }] } }] as const),
      // storage iamConfiguration.publicAccessPrevention
      ...["inherited", "enforced", "unspecified"].map((v) => [Bucket, { name: "b", iamConfiguration: { publicAccessPrevention: v } }] as const),
      // monitoring AlertPolicy.combiner
      ...["COMBINE_UNSPECIFIED", "AND", "OR", "AND_WITH_MATCHING_RESOURCE"].map((v) => [AlertPolicy, { name: "p", combiner: v }] as const),
    ]
    for (const [schema, value] of cases) {
      expect(() => Schema.decodeUnknownSync(schema as Schema.Codec<unknown, unknown>)(value), JSON.stringify(value)).not.toThrow()
    }
  })
})
