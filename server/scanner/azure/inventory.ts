/** The Azure scan inventory: one section per collector (filled once per scan) plus the collection errors. */
import type { BaseInventory } from "../rest/engine.ts"
import type { AzureCollectContext } from "./context.ts"
import { appserviceResourceTypes, collectAppService, type AppServiceInventory } from "./collectors/appservice.ts"
import { collectVm, vmResourceTypes, type VmInventory } from "./collectors/compute.ts"
import {
  collectCosmos,
  collectMysql,
  collectPostgresql,
  collectSql,
  cosmosdbResourceTypes,
  mysqlResourceTypes,
  postgresqlResourceTypes,
  sqlResourceTypes,
  type CosmosInventory,
  type FlexibleInventory,
  type SqlInventory,
} from "./collectors/databases.ts"
import { collectDatabricks, databricksResourceTypes, type DatabricksInventory } from "./collectors/databricks.ts"
import { aksResourceTypes, collectAks, type AksInventory } from "./collectors/aks.ts"
import { acrResourceTypes, collectAcr, type AcrInventory } from "./collectors/acr.ts"
import { collectRecovery, recoveryResourceTypes, type RecoveryInventory } from "./collectors/recovery.ts"
import { collectDefender, defenderResourceTypes, type DefenderInventory } from "./collectors/defender.ts"
import { authorizationResourceTypes, collectAuthorization, collectEntra, entraResourceTypes, type AuthorizationInventory, type EntraInventory } from "./collectors/identity.ts"
import { collectKeyVault, keyvaultResourceTypes, type KeyVaultInventory } from "./collectors/keyvault.ts"
import { collectMonitor, monitorResourceTypes, type MonitorInventory } from "./collectors/monitor.ts"
import { collectNetwork, networkResourceTypes, type NetworkInventory } from "./collectors/network.ts"
import { collectStorage, storageResourceTypes, type StorageInventory } from "./collectors/storage.ts"

export interface AzureInventories {
  readonly entra: EntraInventory
  readonly authorization: AuthorizationInventory
  readonly defender: DefenderInventory
  readonly keyvault: KeyVaultInventory
  readonly storage: StorageInventory
  readonly sql: SqlInventory
  readonly postgresql: FlexibleInventory
  readonly mysql: FlexibleInventory
  readonly cosmosdb: CosmosInventory
  readonly monitor: MonitorInventory
  readonly network: NetworkInventory
  readonly vm: VmInventory
  readonly appservice: AppServiceInventory
  readonly databricks: DatabricksInventory
  readonly aks: AksInventory
  readonly acr: AcrInventory
  readonly recovery: RecoveryInventory
}

export type AzureCollectorKey = keyof AzureInventories

export const azureCollectors: { readonly [K in AzureCollectorKey]: (ctx: AzureCollectContext) => Promise<AzureInventories[K]> } = {
  entra: collectEntra,
  authorization: collectAuthorization,
  defender: collectDefender,
  keyvault: collectKeyVault,
  storage: collectStorage,
  sql: collectSql,
  postgresql: collectPostgresql,
  mysql: collectMysql,
  cosmosdb: collectCosmos,
  monitor: collectMonitor,
  network: collectNetwork,
  vm: collectVm,
  appservice: collectAppService,
  databricks: collectDatabricks,
  aks: collectAks,
  acr: collectAcr,
  recovery: collectRecovery,
}

export const azureResourceTypes = [
  ...entraResourceTypes,
  ...authorizationResourceTypes,
  ...defenderResourceTypes,
  ...keyvaultResourceTypes,
  ...storageResourceTypes,
  ...sqlResourceTypes,
  ...postgresqlResourceTypes,
  ...mysqlResourceTypes,
  ...cosmosdbResourceTypes,
  ...monitorResourceTypes,
  ...networkResourceTypes,
  ...vmResourceTypes,
  ...appserviceResourceTypes,
  ...databricksResourceTypes,
  ...aksResourceTypes,
  ...acrResourceTypes,
  ...recoveryResourceTypes,
] as const

export type AzureResourceType = (typeof azureResourceTypes)[number]

export type AzureCollectorOf<R extends string> = R extends `${infer C}.${string}` ? (C extends AzureCollectorKey ? C : never) : never

export interface AzureScanInventory extends Partial<AzureInventories>, BaseInventory {
  readonly subscriptionId: string
  readonly tenantId: string
}

export type AzureInventoryWith<K extends AzureCollectorKey> = AzureScanInventory & { readonly [P in K]: AzureInventories[P] }
