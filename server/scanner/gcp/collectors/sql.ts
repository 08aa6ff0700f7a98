/** Cloud SQL (sqladmin v1 projects.instances.list): engine, IP configuration, backups and database flags. */
import { Schema } from "effect"
import { listAll, Paged, type GcpCollectContext } from "../context.ts"

export const sqlResourceTypes = ["sql.instances"] as const

export const SqlInstance = Schema.Struct({
  name: Schema.String,
  databaseVersion: Schema.optionalKey(Schema.String),
  region: Schema.optionalKey(Schema.String),
  instanceType: Schema.optionalKey(Schema.String),
  state: Schema.optionalKey(Schema.String),
  ipAddresses: Schema.optionalKey(Schema.Array(Schema.Struct({ type: Schema.optionalKey(Schema.String), ipAddress: Schema.optionalKey(Schema.String) }))),
  diskEncryptionConfiguration: Schema.optionalKey(Schema.Struct({ kmsKeyName: Schema.optionalKey(Schema.String) })),
  settings: Schema.optionalKey(
    Schema.Struct({
      settingsVersion: Schema.optionalKey(Schema.String),
      ipConfiguration: Schema.optionalKey(
        Schema.Struct({
          ipv4Enabled: Schema.optionalKey(Schema.Boolean),
          requireSsl: Schema.optionalKey(Schema.Boolean),
          sslMode: Schema.optionalKey(Schema.String),
          privateNetwork: Schema.optionalKey(Schema.String),
          authorizedNetworks: Schema.optionalKey(Schema.Array(Schema.Struct({ value: Schema.String, name: Schema.optionalKey(Schema.String) }))),
        }),
      ),
      backupConfiguration: Schema.optionalKey(
        Schema.Struct({ enabled: Schema.optionalKey(Schema.Boolean), binaryLogEnabled: Schema.optionalKey(Schema.Boolean), pointInTimeRecoveryEnabled: Schema.optionalKey(Schema.Boolean) }),
      ),
      availabilityType: Schema.optionalKey(Schema.String),
      deletionProtectionEnabled: Schema.optionalKey(Schema.Boolean),
      databaseFlags: Schema.optionalKey(Schema.Array(Schema.Struct({ name: Schema.String, value: Schema.optionalKey(Schema.String) }))),
    }),
  ),
})
export type SqlInstance = typeof SqlInstance.Type

const InstancesPage = Paged({ items: Schema.optionalKey(Schema.Array(SqlInstance)) })

export interface SqlInventory {
  readonly instances: ReadonlyArray<SqlInstance> | undefined
}

export async function collectSql(ctx: GcpCollectContext): Promise<SqlInventory> {
  const instances = await listAll(
    ctx,
    { type: "sql.instances", region: "global", op: "sqladmin.instances.list" },
    `${ctx.endpoints.sqladmin}/v1/projects/${ctx.projectId}/instances?maxResults=500`,
    InstancesPage,
    (page) => page.items,
  )
  if (instances !== undefined) ctx.countResources(instances.length)
  return { instances }
}
