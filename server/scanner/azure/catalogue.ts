/**
 * The Azure check catalogue: scan services (one scan job each), every check with its CIS Microsoft Azure
 * Foundations Benchmark v3.0.0 / v4.0.0 references, and a metadata listing for the API/UI.
 */
import { metaOf, type RestCheckMeta } from "../rest/engine.ts"
import type { AzureCheck } from "./define-check.ts"
import { appserviceChecks } from "./checks/appservice.ts"
import { vmChecks } from "./checks/compute.ts"
import { cosmosdbChecks, mysqlChecks, postgresqlChecks, sqlChecks } from "./checks/databases.ts"
import { databricksChecks } from "./checks/databricks.ts"
import { aksChecks } from "./checks/aks.ts"
import { acrChecks } from "./checks/acr.ts"
import { recoveryChecks } from "./checks/recovery.ts"
import { defenderChecks } from "./checks/defender.ts"
import { authorizationChecks, entraChecks } from "./checks/identity.ts"
import { entraGraphChecks } from "./checks/entra.ts"
import { keyvaultChecks } from "./checks/keyvault.ts"
import { monitorChecks } from "./checks/monitor.ts"
import { networkChecks } from "./checks/network.ts"
import { storageChecks } from "./checks/storage.ts"

export interface AzureServiceInfo {
  readonly id: string
  readonly name: string
}

export const azureServices: ReadonlyArray<AzureServiceInfo> = [
  { id: "entra", name: "Microsoft Entra ID" },
  { id: "iam", name: "Access control (IAM)" },
  { id: "defender", name: "Microsoft Defender for Cloud" },
  { id: "keyvault", name: "Key Vault" },
  { id: "storage", name: "Storage accounts" },
  { id: "sql", name: "Azure SQL" },
  { id: "postgresql", name: "Azure Database for PostgreSQL" },
  { id: "mysql", name: "Azure Database for MySQL" },
  { id: "cosmosdb", name: "Azure Cosmos DB" },
  { id: "monitor", name: "Azure Monitor" },
  { id: "network", name: "Networking" },
  { id: "vm", name: "Virtual machines" },
  { id: "appservice", name: "App Service" },
  { id: "databricks", name: "Azure Databricks" },
  { id: "aks", name: "Azure Kubernetes Service" },
  { id: "acr", name: "Azure Container Registry" },
  { id: "recovery", name: "Recovery Services vaults" },
]

export const azureChecks: ReadonlyArray<AzureCheck> = [
  ...entraChecks,
  ...entraGraphChecks,
  ...authorizationChecks,
  ...defenderChecks,
  ...keyvaultChecks,
  ...storageChecks,
  ...sqlChecks,
  ...postgresqlChecks,
  ...mysqlChecks,
  ...cosmosdbChecks,
  ...monitorChecks,
  ...networkChecks,
  ...vmChecks,
  ...appserviceChecks,
  ...databricksChecks,
  ...aksChecks,
  ...acrChecks,
  ...recoveryChecks,
]

export function azureChecksForService(service: string): ReadonlyArray<AzureCheck> {
  return azureChecks.filter((c) => c.service === service)
}

export function listAzureChecks(service?: string): ReadonlyArray<RestCheckMeta> {
  return azureChecks.filter((c) => service === undefined || c.service === service).map(metaOf)
}

export function scannableAzureServices(): ReadonlyArray<AzureServiceInfo> {
  return azureServices.filter((s) => azureChecks.some((c) => c.service === s.id))
}
