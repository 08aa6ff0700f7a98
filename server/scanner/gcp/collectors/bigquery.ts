/**
 * BigQuery (v2): datasets (datasets.list, then datasets.get for the access list and default CMEK) and tables
 * (tables.list per dataset, then tables.get for the encryption configuration, which the list omits).
 */
import { Schema } from "effect"
import { listAll, Paged, type GcpCollectContext } from "../context.ts"

export const bigqueryResourceTypes = ["bigquery.datasets", "bigquery.tables"] as const

const DatasetReference = Schema.Struct({ datasetId: Schema.String, projectId: Schema.optionalKey(Schema.String) })

export const Dataset = Schema.Struct({
  id: Schema.optionalKey(Schema.String),
  datasetReference: DatasetReference,
  location: Schema.optionalKey(Schema.String),
  access: Schema.optionalKey(
    Schema.Array(
      Schema.Struct({
        role: Schema.optionalKey(Schema.String),
        specialGroup: Schema.optionalKey(Schema.String),
        iamMember: Schema.optionalKey(Schema.String),
        userByEmail: Schema.optionalKey(Schema.String),
        groupByEmail: Schema.optionalKey(Schema.String),
        domain: Schema.optionalKey(Schema.String),
      }),
    ),
  ),
  defaultEncryptionConfiguration: Schema.optionalKey(Schema.Struct({ kmsKeyName: Schema.optionalKey(Schema.String) })),
})
export type Dataset = typeof Dataset.Type

export const Table = Schema.Struct({
  id: Schema.optionalKey(Schema.String),
  tableReference: Schema.Struct({ tableId: Schema.String, datasetId: Schema.String, projectId: Schema.optionalKey(Schema.String) }),
  type: Schema.optionalKey(Schema.String),
  location: Schema.optionalKey(Schema.String),
  encryptionConfiguration: Schema.optionalKey(Schema.Struct({ kmsKeyName: Schema.optionalKey(Schema.String) })),
})
export type Table = typeof Table.Type

export const DatasetsPage = Paged({ datasets: Schema.optionalKey(Schema.Array(Schema.Struct({ datasetReference: DatasetReference, location: Schema.optionalKey(Schema.String) }))) })
/** tables.list items carry the reference and type only (no encryption configuration: that needs tables.get). */
export const TablesPage = Paged({ tables: Schema.optionalKey(Schema.Array(Schema.Struct({ tableReference: Table.fields.tableReference, type: Schema.optionalKey(Schema.String) }))) })

export interface BigQueryInventory {
  /** Full dataset resources; a dataset whose get failed is left out (the error is recorded). */
  readonly datasets: ReadonlyArray<Dataset> | undefined
  readonly tables: ReadonlyArray<Table> | undefined
}

export async function collectBigQuery(ctx: GcpCollectContext): Promise<BigQueryInventory> {
  const base = `${ctx.endpoints.bigquery}/bigquery/v2/projects/${ctx.projectId}`
  const listed = await listAll(
    ctx,
    { type: "bigquery.datasets", region: "global", op: "bigquery.datasets.list" },
    `${base}/datasets?all=true&maxResults=1000`,
    DatasetsPage,
    (page) => page.datasets,
  )
  if (listed === undefined) {
    // The dataset list feeds the table input too: its failure must show on the table checks as well.
    const failure = [...ctx.errors].reverse().find((e) => e.operation === "bigquery.datasets.list")
    if (failure !== undefined && ctx.wants("bigquery.tables")) ctx.recordError({ ...failure, resourceType: "bigquery.tables" })
    return { datasets: undefined, tables: undefined }
  }
  ctx.countResources(listed.length)
  const datasets = ctx.wants("bigquery.datasets")
    ? (
        await ctx.map(listed, (d) =>
          ctx.get(
            { type: "bigquery.datasets", region: (d.location ?? "global").toLowerCase(), op: "bigquery.datasets.get", id: d.datasetReference.datasetId },
            { url: `${base}/datasets/${encodeURIComponent(d.datasetReference.datasetId)}` },
            Dataset,
          ),
        )
      ).flatMap((d) => (d === undefined ? [] : [d]))
    : undefined
  let tables: Table[] | undefined
  if (ctx.wants("bigquery.tables")) {
    const perDataset = await ctx.map(listed, async (d) => {
      const ds = encodeURIComponent(d.datasetReference.datasetId)
      const list = await listAll(
        ctx,
        { type: "bigquery.tables", region: (d.location ?? "global").toLowerCase(), op: "bigquery.tables.list", id: d.datasetReference.datasetId },
        `${base}/datasets/${ds}/tables?maxResults=1000`,
        TablesPage,
        (page) => page.tables,
      )
      const full = await ctx.map(list ?? [], (t) =>
        ctx.get(
          { type: "bigquery.tables", region: (d.location ?? "global").toLowerCase(), op: "bigquery.tables.get", id: `${d.datasetReference.datasetId}.${t.tableReference.tableId}` },
          { url: `${base}/datasets/${ds}/tables/${encodeURIComponent(t.tableReference.tableId)}` },
          Table,
        ),
      )
      return full.flatMap((t) => (t === undefined ? [] : [{ ...t, location: t.location ?? d.location ?? "global" }]))
    })
    tables = perDataset.flat()
    ctx.countResources(tables.length)
  }
  return { datasets, tables }
}
