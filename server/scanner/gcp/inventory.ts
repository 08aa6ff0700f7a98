/**
 * The GCP scan inventory: one section per collector, filled once per scan, plus the collection errors. Checks
 * declare the inputs ("storage.buckets") they read; the engine runs exactly the collectors those inputs belong to.
 */
import type { BaseInventory } from "../rest/engine.ts"
import type { GcpCollectContext } from "./context.ts"
import { apikeysResourceTypes, collectApiKeys, type ApiKeysInventory } from "./collectors/apikeys.ts"
import { artifactregistryResourceTypes, collectArtifactRegistry, type ArtifactRegistryInventory } from "./collectors/artifactregistry.ts"
import { cloudfunctionsResourceTypes, collectCloudFunctions, type CloudFunctionsInventory } from "./collectors/cloudfunctions.ts"
import { collectSecretManager, secretmanagerResourceTypes, type SecretManagerInventory } from "./collectors/secretmanager.ts"
import { bigqueryResourceTypes, collectBigQuery, type BigQueryInventory } from "./collectors/bigquery.ts"
import { collectCompute, computeResourceTypes, type ComputeInventory } from "./collectors/compute.ts"
import { collectDataproc, dataprocResourceTypes, type DataprocInventory } from "./collectors/dataproc.ts"
import { collectGke, gkeResourceTypes, type GkeInventory } from "./collectors/gke.ts"
import { collectDns, dnsResourceTypes, type DnsInventory } from "./collectors/dns.ts"
import { collectIam, iamResourceTypes, type IamInventory } from "./collectors/iam.ts"
import { collectKms, kmsResourceTypes, type KmsInventory } from "./collectors/kms.ts"
import { collectLogging, loggingResourceTypes, type LoggingInventory } from "./collectors/logging.ts"
import { collectProject, projectResourceTypes, type ProjectInventory } from "./collectors/project.ts"
import { collectSql, sqlResourceTypes, type SqlInventory } from "./collectors/sql.ts"
import { collectStorage, storageResourceTypes, type StorageInventory } from "./collectors/storage.ts"

export interface GcpInventories {
  readonly project: ProjectInventory
  readonly iam: IamInventory
  readonly kms: KmsInventory
  readonly apikeys: ApiKeysInventory
  readonly logging: LoggingInventory
  readonly storage: StorageInventory
  readonly dns: DnsInventory
  readonly compute: ComputeInventory
  readonly sql: SqlInventory
  readonly bigquery: BigQueryInventory
  readonly dataproc: DataprocInventory
  readonly gke: GkeInventory
  readonly secretmanager: SecretManagerInventory
  readonly cloudfunctions: CloudFunctionsInventory
  readonly artifactregistry: ArtifactRegistryInventory
}

export type GcpCollectorKey = keyof GcpInventories

export const gcpCollectors: { readonly [K in GcpCollectorKey]: (ctx: GcpCollectContext) => Promise<GcpInventories[K]> } = {
  project: collectProject,
  iam: collectIam,
  kms: collectKms,
  apikeys: collectApiKeys,
  logging: collectLogging,
  storage: collectStorage,
  dns: collectDns,
  compute: collectCompute,
  sql: collectSql,
  bigquery: collectBigQuery,
  dataproc: collectDataproc,
  gke: collectGke,
  secretmanager: collectSecretManager,
  cloudfunctions: collectCloudFunctions,
  artifactregistry: collectArtifactRegistry,
}

export const gcpResourceTypes = [
  ...projectResourceTypes,
  ...iamResourceTypes,
  ...kmsResourceTypes,
  ...apikeysResourceTypes,
  ...loggingResourceTypes,
  ...storageResourceTypes,
  ...dnsResourceTypes,
  ...computeResourceTypes,
  ...sqlResourceTypes,
  ...bigqueryResourceTypes,
  ...dataprocResourceTypes,
  ...gkeResourceTypes,
  ...secretmanagerResourceTypes,
  ...cloudfunctionsResourceTypes,
  ...artifactregistryResourceTypes,
] as const

export type GcpResourceType = (typeof gcpResourceTypes)[number]

export type GcpCollectorOf<R extends string> = R extends `${infer C}.${string}` ? (C extends GcpCollectorKey ? C : never) : never

export interface GcpScanInventory extends Partial<GcpInventories>, BaseInventory {
  readonly projectId: string
  readonly projectNumber: string
}

export type GcpInventoryWith<K extends GcpCollectorKey> = GcpScanInventory & { readonly [P in K]: GcpInventories[P] }
