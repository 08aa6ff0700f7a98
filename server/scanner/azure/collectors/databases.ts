/**
 * Database services (CIS Azure v3 section 5): Azure SQL servers (Microsoft.Sql 2021-11-01: auditing, firewall
 * rules, TDE protector, Entra admins, databases and their TDE), PostgreSQL and MySQL flexible servers (server
 * parameters read one by one, firewall rules) and Cosmos DB accounts.
 */
import { Schema } from "effect"
import { ArmResource, armGet, armList, armOptional, locationOf, type AzureCollectContext } from "../context.ts"

export const sqlResourceTypes = ["sql.servers", "sql.auditing", "sql.firewall_rules", "sql.encryption_protector", "sql.administrators", "sql.databases"] as const
export const postgresqlResourceTypes = ["postgresql.servers", "postgresql.configurations", "postgresql.firewall_rules"] as const
export const mysqlResourceTypes = ["mysql.servers", "mysql.configurations"] as const
export const cosmosdbResourceTypes = ["cosmosdb.accounts"] as const

export const SQL_API = "2021-11-01"
export const POSTGRES_API = "2022-12-01"
export const MYSQL_API = "2023-12-30"
export const COSMOS_API = "2024-05-15"

export const SqlServer = ArmResource({
  version: Schema.optionalKey(Schema.String),
  publicNetworkAccess: Schema.optionalKey(Schema.String),
  minimalTlsVersion: Schema.optionalKey(Schema.NullOr(Schema.String)),
  administrators: Schema.optionalKey(Schema.NullOr(Schema.Struct({ administratorType: Schema.optionalKey(Schema.String), login: Schema.optionalKey(Schema.String) }))),
})
export const Auditing = Schema.Struct({ properties: Schema.optionalKey(Schema.Struct({ state: Schema.optionalKey(Schema.String), retentionDays: Schema.optionalKey(Schema.Number) })) })
export const FirewallRule = Schema.Struct({ id: Schema.optionalKey(Schema.String), name: Schema.String, properties: Schema.optionalKey(Schema.Struct({ startIpAddress: Schema.optionalKey(Schema.String), endIpAddress: Schema.optionalKey(Schema.String) })) })
export type FirewallRule = typeof FirewallRule.Type
export const Protector = Schema.Struct({ properties: Schema.optionalKey(Schema.Struct({ serverKeyType: Schema.optionalKey(Schema.String), serverKeyName: Schema.optionalKey(Schema.String) })) })
export const Administrator = Schema.Struct({ name: Schema.optionalKey(Schema.String), properties: Schema.optionalKey(Schema.Struct({ administratorType: Schema.optionalKey(Schema.String), login: Schema.optionalKey(Schema.String) })) })
export const Database = ArmResource({ status: Schema.optionalKey(Schema.String) })
export const Tde = Schema.Struct({ properties: Schema.optionalKey(Schema.Struct({ state: Schema.optionalKey(Schema.String) })) })

export interface SqlDatabaseInfo {
  readonly id: string
  readonly name: string
  readonly location: string
  /** "Enabled" / "Disabled"; undefined when unread. */
  readonly tdeState: string | undefined
}

export interface SqlServerInfo extends Readonly<typeof SqlServer.Type> {
  readonly auditing: typeof Auditing.Type | undefined
  readonly firewallRules: ReadonlyArray<FirewallRule> | undefined
  readonly protector: typeof Protector.Type | undefined
  readonly administratorsList: ReadonlyArray<typeof Administrator.Type> | undefined
  readonly databases: ReadonlyArray<SqlDatabaseInfo> | undefined
}

export interface SqlInventory {
  readonly servers: ReadonlyArray<SqlServerInfo> | undefined
}

export async function collectSql(ctx: AzureCollectContext): Promise<SqlInventory> {
  const listed = await armList(ctx, { type: "sql.servers", region: "global", op: "Microsoft.Sql/servers/read" }, `/subscriptions/${ctx.subscriptionId}/providers/Microsoft.Sql/servers`, SQL_API, SqlServer)
  if (listed === undefined) return { servers: undefined }
  ctx.countResources(listed.length)
  const servers = await ctx.map(listed, async (s): Promise<SqlServerInfo> => {
    const region = locationOf(s)
    const spec = (type: string, op: string) => ({ type, region, op, id: s.id })
    const [auditing, firewallRules, protector, administratorsList, dbs] = await Promise.all([
      ctx.wants("sql.auditing") ? armGet(ctx, spec("sql.auditing", "Microsoft.Sql/servers/auditingSettings/read"), `${s.id}/auditingSettings/default`, SQL_API, Auditing) : undefined,
      ctx.wants("sql.firewall_rules") ? armList(ctx, spec("sql.firewall_rules", "Microsoft.Sql/servers/firewallRules/read"), `${s.id}/firewallRules`, SQL_API, FirewallRule) : undefined,
      ctx.wants("sql.encryption_protector") ? armGet(ctx, spec("sql.encryption_protector", "Microsoft.Sql/servers/encryptionProtector/read"), `${s.id}/encryptionProtector/current`, SQL_API, Protector) : undefined,
      ctx.wants("sql.administrators") ? armList(ctx, spec("sql.administrators", "Microsoft.Sql/servers/administrators/read"), `${s.id}/administrators`, SQL_API, Administrator) : undefined,
      ctx.wants("sql.databases") ? armList(ctx, spec("sql.databases", "Microsoft.Sql/servers/databases/read"), `${s.id}/databases`, SQL_API, Database) : undefined,
    ])
    const databases =
      dbs === undefined
        ? undefined
        : await ctx.map(
            dbs.filter((d) => d.name.toLowerCase() !== "master"),
            async (d): Promise<SqlDatabaseInfo> => {
              const tde = await armGet(ctx, { type: "sql.databases", region, op: "Microsoft.Sql/servers/databases/transparentDataEncryption/read", id: d.id }, `${d.id}/transparentDataEncryption/current`, SQL_API, Tde)
              return { id: d.id, name: d.name, location: locationOf(d), tdeState: tde === undefined ? undefined : (tde.properties?.state ?? "Disabled") }
            },
          )
    if (databases !== undefined) ctx.countResources(databases.length)
    return { ...s, auditing, firewallRules, protector, administratorsList, databases }
  })
  return { servers }
}

export const FlexibleServer = ArmResource({
  version: Schema.optionalKey(Schema.String),
  /** PostgreSQL: None | Primary | AsyncReplica | GeoAsyncReplica; MySQL: None | Source | Replica. */
  replicationRole: Schema.optionalKey(Schema.String),
  state: Schema.optionalKey(Schema.String),
  backup: Schema.optionalKey(Schema.NullOr(Schema.Struct({ geoRedundantBackup: Schema.optionalKey(Schema.String), backupRetentionDays: Schema.optionalKey(Schema.Number) }))),
  highAvailability: Schema.optionalKey(Schema.NullOr(Schema.Struct({ mode: Schema.optionalKey(Schema.String) }))),
  network: Schema.optionalKey(Schema.NullOr(Schema.Struct({ publicNetworkAccess: Schema.optionalKey(Schema.String) }))),
})
export const Configuration = Schema.Struct({ name: Schema.optionalKey(Schema.String), properties: Schema.optionalKey(Schema.Struct({ value: Schema.optionalKey(Schema.NullOr(Schema.String)), defaultValue: Schema.optionalKey(Schema.NullOr(Schema.String)) })) })

export interface FlexibleServerInfo extends Readonly<typeof FlexibleServer.Type> {
  /** Parameter values by name (null: the parameter does not exist on this server version). */
  readonly configurations: ReadonlyMap<string, string | null | undefined> | undefined
  readonly firewallRules: ReadonlyArray<FirewallRule> | undefined
}

export interface FlexibleInventory {
  readonly servers: ReadonlyArray<FlexibleServerInfo> | undefined
}

export const POSTGRES_PARAMETERS = ["require_secure_transport", "log_checkpoints", "connection_throttle.enable", "logfiles.retention_days", "log_connections", "log_disconnections"] as const
export const MYSQL_PARAMETERS = ["require_secure_transport", "tls_version", "audit_log_enabled", "audit_log_events"] as const

async function collectFlexible(
  ctx: AzureCollectContext,
  engine: "postgresql" | "mysql",
  provider: string,
  apiVersion: string,
  parameters: ReadonlyArray<string>,
): Promise<FlexibleInventory> {
  const listed = await armList(ctx, { type: `${engine}.servers`, region: "global", op: `${provider}/flexibleServers/read` }, `/subscriptions/${ctx.subscriptionId}/providers/${provider}/flexibleServers`, apiVersion, FlexibleServer)
  if (listed === undefined) return { servers: undefined }
  ctx.countResources(listed.length)
  const servers = await ctx.map(listed, async (s): Promise<FlexibleServerInfo> => {
    const region = locationOf(s)
    let configurations: Map<string, string | null | undefined> | undefined
    if (ctx.wants(`${engine}.configurations`)) {
      const values = await ctx.map(parameters, (name) =>
        armOptional(ctx, { type: `${engine}.configurations`, region, op: `${provider}/flexibleServers/configurations/read`, id: `${s.id}/configurations/${name}` }, `${s.id}/configurations/${name}`, apiVersion, Configuration),
      )
      configurations = new Map(parameters.map((name, i) => {
        const c = values[i]
        return [name, c === undefined ? undefined : c === null ? null : (c.properties?.value ?? c.properties?.defaultValue ?? null)]
      }))
    }
    const firewallRules = ctx.wants(`${engine}.firewall_rules`)
      ? await armList(ctx, { type: `${engine}.firewall_rules`, region, op: `${provider}/flexibleServers/firewallRules/read`, id: s.id }, `${s.id}/firewallRules`, apiVersion, FirewallRule)
      : undefined
    return { ...s, configurations, firewallRules }
  })
  return { servers }
}

export const collectPostgresql = (ctx: AzureCollectContext) => collectFlexible(ctx, "postgresql", "Microsoft.DBforPostgreSQL", POSTGRES_API, POSTGRES_PARAMETERS)
export const collectMysql = (ctx: AzureCollectContext) => collectFlexible(ctx, "mysql", "Microsoft.DBforMySQL", MYSQL_API, MYSQL_PARAMETERS)

export const CosmosAccount = ArmResource({
  publicNetworkAccess: Schema.optionalKey(Schema.String),
  isVirtualNetworkFilterEnabled: Schema.optionalKey(Schema.Boolean),
  ipRules: Schema.optionalKey(Schema.Array(Schema.Struct({ ipAddressOrRange: Schema.String }))),
  virtualNetworkRules: Schema.optionalKey(Schema.Array(Schema.Struct({ id: Schema.String }))),
  privateEndpointConnections: Schema.optionalKey(Schema.Array(Schema.Struct({ id: Schema.optionalKey(Schema.String) }))),
  minimalTlsVersion: Schema.optionalKey(Schema.String),
  capabilities: Schema.optionalKey(Schema.Array(Schema.Struct({ name: Schema.optionalKey(Schema.String) }))),
  disableLocalAuth: Schema.optionalKey(Schema.Boolean),
  enableAutomaticFailover: Schema.optionalKey(Schema.Boolean),
  backupPolicy: Schema.optionalKey(Schema.Struct({ type: Schema.optionalKey(Schema.String) })),
})
export type CosmosAccount = typeof CosmosAccount.Type

export interface CosmosInventory {
  readonly accounts: ReadonlyArray<CosmosAccount> | undefined
}

export async function collectCosmos(ctx: AzureCollectContext): Promise<CosmosInventory> {
  const accounts = await armList(ctx, { type: "cosmosdb.accounts", region: "global", op: "Microsoft.DocumentDB/databaseAccounts/read" }, `/subscriptions/${ctx.subscriptionId}/providers/Microsoft.DocumentDB/databaseAccounts`, COSMOS_API, CosmosAccount)
  if (accounts !== undefined) ctx.countResources(accounts.length)
  return { accounts }
}
