/** BigQuery (CIS GCP v4.0 7.1–7.3) and Dataproc (8.1) checks. */
import { row } from "../../rest/engine.ts"
import { defineGcpCheck } from "../define-check.ts"

const PUBLIC = new Set(["allUsers", "allAuthenticatedUsers"])

/** Table types that store no data in BigQuery, so have nothing to encrypt (Table.type). */
const NO_STORAGE: Readonly<Record<string, string>> = {
  VIEW: "a logical view stores no data (the tables it reads are judged)",
  EXTERNAL: "an external table's data lives outside BigQuery storage",
}

export const bigqueryChecks = [
  defineGcpCheck({
    id: "bigquery_dataset_not_public",
    service: "bigquery",
    title: "BigQuery datasets should not be anonymously or publicly accessible",
    description: "Flags datasets whose access list grants a role to allUsers or allAuthenticatedUsers.",
    severity: "critical",
    cis: "7.1",
    remediation: "Remove the allUsers / allAuthenticatedUsers entries from the dataset's access list (bq update --source=… or the console's sharing panel).",
    field_labels: { public_access: "Public access entries" },
    uses: ["bigquery.datasets"],
    reads: "bigquery datasets.get → access[].specialGroup == allAuthenticatedUsers, access[].iamMember ∈ allUsers/allAuthenticatedUsers",
    evaluate: (inv) =>
      (inv.bigquery.datasets ?? []).map((d) => {
        const pub = (d.access ?? []).flatMap((a) => {
          const who = a.specialGroup === "allAuthenticatedUsers" ? "allAuthenticatedUsers" : a.iamMember !== undefined && PUBLIC.has(a.iamMember) ? a.iamMember : undefined
          return who === undefined ? [] : [`${who}:${a.role ?? ""}`]
        })
        return row(d.datasetReference.datasetId, (d.location ?? "global").toLowerCase(), pub.length === 0, pub.length === 0 ? "The dataset is not public." : `The dataset is public: ${pub.join(", ")}.`, { public_access: pub })
      }),
  }),
  defineGcpCheck({
    id: "bigquery_table_cmek",
    service: "bigquery",
    title: "BigQuery tables should be encrypted with customer-managed keys (CMEK)",
    description: "Checks every table has an encryption configuration with a Cloud KMS key. Views and external tables hold no data in BigQuery storage and are not judged.",
    severity: "low",
    cis: "7.2",
    remediation: "Copy the table into one encrypted with a KMS key (bq cp --destination_kms_key=KEY …) or set the key with bq update --destination_kms_key.",
    field_labels: { dataset: "Dataset", kms_key: "KMS key" },
    uses: ["bigquery.tables"],
    reads: "bigquery tables.get → type (absent = TABLE), encryptionConfiguration.kmsKeyName",
    evaluate: (inv) =>
      (inv.bigquery.tables ?? []).map((t) => {
        const type = t.type ?? "TABLE"
        const why = NO_STORAGE[type]
        if (why !== undefined) return row(`${t.tableReference.datasetId}.${t.tableReference.tableId}`, (t.location ?? "global").toLowerCase(), true, `Not judged: ${why}.`, { dataset: t.tableReference.datasetId, kms_key: null })
        const key = t.encryptionConfiguration?.kmsKeyName
        return row(`${t.tableReference.datasetId}.${t.tableReference.tableId}`, (t.location ?? "global").toLowerCase(), key !== undefined, key !== undefined ? "The table uses a customer-managed key." : "The table uses Google-managed encryption.", {
          dataset: t.tableReference.datasetId,
          kms_key: key ?? null,
        })
      }),
  }),
  defineGcpCheck({
    id: "bigquery_dataset_default_cmek",
    service: "bigquery",
    title: "BigQuery datasets should have a default customer-managed encryption key",
    description: "Checks every dataset sets defaultEncryptionConfiguration.kmsKeyName, so new tables are encrypted with CMEK.",
    severity: "low",
    cis: "7.3",
    remediation: "bq update --default_kms_key=projects/P/locations/L/keyRings/R/cryptoKeys/K DATASET",
    field_labels: { kms_key: "Default KMS key" },
    uses: ["bigquery.datasets"],
    reads: "bigquery datasets.get → defaultEncryptionConfiguration.kmsKeyName",
    evaluate: (inv) =>
      (inv.bigquery.datasets ?? []).map((d) => {
        const key = d.defaultEncryptionConfiguration?.kmsKeyName
        return row(d.datasetReference.datasetId, (d.location ?? "global").toLowerCase(), key !== undefined, key !== undefined ? "The dataset has a default CMEK." : "The dataset has no default CMEK.", { kms_key: key ?? null })
      }),
  }),
]

export const dataprocChecks = [
  defineGcpCheck({
    id: "dataproc_cluster_cmek",
    service: "dataproc",
    title: "Dataproc clusters should be encrypted with customer-managed keys",
    description: "Checks each cluster's encryption config names a Cloud KMS key for its persistent disks.",
    severity: "low",
    cis: "8.1",
    remediation: "CMEK is set at creation: recreate the cluster with --gce-pd-kms-key=KEY.",
    field_labels: { kms_key: "KMS key", state: "State" },
    uses: ["dataproc.clusters"],
    reads: "dataproc projects.regions.clusters.list → config.encryptionConfig.gcePdKmsKeyName",
    evaluate: (inv) =>
      (inv.dataproc.clusters ?? []).map((c) => {
        const key = c.config?.encryptionConfig?.gcePdKmsKeyName ?? c.config?.encryptionConfig?.kmsKey
        return row(c.clusterName, c.region, key !== undefined, key !== undefined ? "The cluster's disks use a customer-managed key." : "The cluster uses Google-managed encryption.", { kms_key: key ?? null, state: c.status?.state ?? null })
      }),
  }),
]
