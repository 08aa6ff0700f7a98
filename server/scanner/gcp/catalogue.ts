/**
 * The GCP check catalogue: scan services (one scan job each), every check, and a metadata listing for the API/UI.
 * Covers the 72 automated recommendations of CIS GCP Foundation Benchmark v4.0 (v3.0 has the same ids), and checks beyond it.
 */
import { metaOf, type RestCheckMeta } from "../rest/engine.ts"
import type { GcpCheck } from "./define-check.ts"
import { apikeysChecks } from "./checks/apikeys.ts"
import { artifactregistryChecks } from "./checks/artifactregistry.ts"
import { cloudfunctionsChecks } from "./checks/cloudfunctions.ts"
import { secretmanagerChecks } from "./checks/secretmanager.ts"
import { bigqueryChecks, dataprocChecks } from "./checks/bigquery.ts"
import { gkeChecks } from "./checks/gke.ts"
import { computeChecks } from "./checks/compute.ts"
import { dnsChecks } from "./checks/dns.ts"
import { iamChecks } from "./checks/iam.ts"
import { kmsChecks } from "./checks/kms.ts"
import { loggingChecks } from "./checks/logging.ts"
import { sqlChecks } from "./checks/sql.ts"
import { storageChecks } from "./checks/storage.ts"
import { vpcChecks } from "./checks/vpc.ts"

export interface GcpServiceInfo {
  readonly id: string
  readonly name: string
}

export const gcpServices: ReadonlyArray<GcpServiceInfo> = [
  { id: "iam", name: "IAM" },
  { id: "kms", name: "Cloud KMS" },
  { id: "apikeys", name: "API Keys" },
  { id: "logging", name: "Logging and Monitoring" },
  { id: "vpc", name: "VPC Network" },
  { id: "dns", name: "Cloud DNS" },
  { id: "compute", name: "Compute Engine" },
  { id: "storage", name: "Cloud Storage" },
  { id: "cloudsql", name: "Cloud SQL" },
  { id: "bigquery", name: "BigQuery" },
  { id: "dataproc", name: "Dataproc" },
  { id: "gke", name: "Google Kubernetes Engine" },
  { id: "secretmanager", name: "Secret Manager" },
  { id: "cloudfunctions", name: "Cloud Functions" },
  { id: "artifactregistry", name: "Artifact Registry" },
]

export const gcpChecks: ReadonlyArray<GcpCheck> = [
  ...iamChecks,
  ...kmsChecks,
  ...apikeysChecks,
  ...loggingChecks,
  ...vpcChecks,
  ...dnsChecks,
  ...computeChecks,
  ...storageChecks,
  ...sqlChecks,
  ...bigqueryChecks,
  ...dataprocChecks,
  ...gkeChecks,
  ...secretmanagerChecks,
  ...cloudfunctionsChecks,
  ...artifactregistryChecks,
]

export function gcpChecksForService(service: string): ReadonlyArray<GcpCheck> {
  return gcpChecks.filter((c) => c.service === service)
}

/** Catalogue listing for the API/UI: metadata only. */
export function listGcpChecks(service?: string): ReadonlyArray<RestCheckMeta> {
  return gcpChecks.filter((c) => service === undefined || c.service === service).map(metaOf)
}

/** Services that have at least one check (what a full scan runs). */
export function scannableGcpServices(): ReadonlyArray<GcpServiceInfo> {
  return gcpServices.filter((s) => gcpChecks.some((c) => c.service === s.id))
}
