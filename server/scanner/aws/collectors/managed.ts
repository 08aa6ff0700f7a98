/** Inventory of managed integration services, per region: DMS replication instances, Amazon MQ brokers, Cognito user pools, SSM documents and parameters, Transfer Family servers. */
import { DescribeReplicationInstancesCommand } from "@aws-sdk/client-database-migration-service"
import { DescribeBrokerCommand, ListBrokersCommand } from "@aws-sdk/client-mq"
import { DescribeUserPoolCommand, ListUserPoolsCommand } from "@aws-sdk/client-cognito-identity-provider"
import { DescribeDocumentPermissionCommand, DescribeParametersCommand, ListDocumentsCommand } from "@aws-sdk/client-ssm"
import { DescribeServerCommand, ListServersCommand } from "@aws-sdk/client-transfer"
import type { CollectContext } from "../context.ts"
import { listPerRegion, type ItemsInventory } from "./per-region.ts"

export const dmsResourceTypes = ["dms.replication_instances"] as const
export const mqResourceTypes = ["mq.brokers"] as const
export const cognitoResourceTypes = ["cognito.user_pools"] as const
export const ssmResourceTypes = ["ssm.documents", "ssm.parameters"] as const
export const transferResourceTypes = ["transfer.servers"] as const

const SECRET_NAME = /(secret|passw(or)?d|pwd|token|api_?key|private_?key|access_?key|credential)/i
const defined = <T>(inv: ItemsInventory<T | undefined>): ItemsInventory<T> => ({ regions: inv.regions.map((r) => ({ region: r.region, items: r.items?.filter((i): i is T => i !== undefined) })) })

export interface ReplicationInstance {
  readonly id: string
  readonly publiclyAccessible: boolean
  readonly autoMinorVersionUpgrade: boolean
  readonly multiAz: boolean
}
export type DmsInventory = ItemsInventory<ReplicationInstance>

export async function collectDms(ctx: CollectContext): Promise<DmsInventory> {
  return listPerRegion(
    ctx,
    { type: "dms.replication_instances", op: "dms:DescribeReplicationInstances" },
    (region, m, o) => ctx.clients.get("dms", region).send(new DescribeReplicationInstancesCommand({ ...(m === undefined ? {} : { Marker: m }) }), o),
    (p) => ({ items: p.ReplicationInstances, next: p.Marker }),
    async (i) => ({ id: i.ReplicationInstanceIdentifier ?? "", publiclyAccessible: i.PubliclyAccessible === true, autoMinorVersionUpgrade: i.AutoMinorVersionUpgrade === true, multiAz: i.MultiAZ === true }),
  )
}

export interface Broker {
  readonly name: string
  readonly publiclyAccessible: boolean
  readonly autoMinorVersionUpgrade: boolean
  readonly auditLogs: boolean
  readonly generalLogs: boolean
  readonly engine: string
}
export type MqInventory = ItemsInventory<Broker>

export async function collectMq(ctx: CollectContext): Promise<MqInventory> {
  return defined(
    await listPerRegion(
      ctx,
      { type: "mq.brokers", op: "mq:ListBrokers" },
      (region, t, o) => ctx.clients.get("mq", region).send(new ListBrokersCommand({ ...(t === undefined ? {} : { NextToken: t }) }), o),
      (p) => ({ items: p.BrokerSummaries, next: p.NextToken }),
      async (b, region): Promise<Broker | undefined> => {
        const id = b.BrokerId ?? ""
        const d = await ctx.call({ type: "mq.brokers", region, op: "mq:DescribeBroker", id }, (o) => ctx.clients.get("mq", region).send(new DescribeBrokerCommand({ BrokerId: id }), o))
        if (d === undefined) return undefined
        return {
          name: d.BrokerName ?? b.BrokerName ?? id,
          publiclyAccessible: d.PubliclyAccessible === true,
          autoMinorVersionUpgrade: d.AutoMinorVersionUpgrade === true,
          auditLogs: d.Logs?.Audit === true,
          generalLogs: d.Logs?.General === true,
          engine: d.EngineType ?? "",
        }
      },
    ),
  )
}

export interface UserPool {
  readonly id: string
  readonly name: string
  readonly mfa: string
  readonly minLength: number
  readonly advancedSecurity: string
  readonly deletionProtection: boolean
}
export type CognitoInventory = ItemsInventory<UserPool>

export async function collectCognito(ctx: CollectContext): Promise<CognitoInventory> {
  return defined(
    await listPerRegion(
      ctx,
      { type: "cognito.user_pools", op: "cognito-idp:ListUserPools" },
      (region, t, o) => ctx.clients.get("cognito", region).send(new ListUserPoolsCommand({ MaxResults: 60, ...(t === undefined ? {} : { NextToken: t }) }), o),
      (p) => ({ items: p.UserPools, next: p.NextToken }),
      async (u, region): Promise<UserPool | undefined> => {
        const id = u.Id ?? ""
        const p = (await ctx.call({ type: "cognito.user_pools", region, op: "cognito-idp:DescribeUserPool", id }, (o) => ctx.clients.get("cognito", region).send(new DescribeUserPoolCommand({ UserPoolId: id }), o)))?.UserPool
        if (p === undefined) return undefined
        return {
          id,
          name: p.Name ?? u.Name ?? id,
          mfa: p.MfaConfiguration ?? "OFF",
          minLength: p.Policies?.PasswordPolicy?.MinimumLength ?? 8,
          advancedSecurity: p.UserPoolAddOns?.AdvancedSecurityMode ?? "OFF",
          deletionProtection: p.DeletionProtection === "ACTIVE",
        }
      },
    ),
  )
}

export interface SsmRegion {
  readonly region: string
  readonly documents: ReadonlyArray<{ readonly name: string; readonly public: boolean }> | undefined
  readonly parameters: ReadonlyArray<{ readonly name: string; readonly type: string }> | undefined
}
export interface SsmInventory {
  readonly regions: ReadonlyArray<SsmRegion>
}

export async function collectSsm(ctx: CollectContext): Promise<SsmInventory> {
  const regions = await ctx.perRegion(async (region): Promise<SsmRegion> => {
    const ssm = ctx.clients.get("ssm", region)
    const [docs, params] = await Promise.all([
      ctx.wants("ssm.documents")
        ? ctx.paginate(
            { type: "ssm.documents", region, op: "ssm:ListDocuments" },
            (t, o) => ssm.send(new ListDocumentsCommand({ Filters: [{ Key: "Owner", Values: ["Self"] }], ...(t === undefined ? {} : { NextToken: t }) }), o),
            (p) => ({ items: p.DocumentIdentifiers, next: p.NextToken }),
          )
        : undefined,
      ctx.wants("ssm.parameters")
        ? ctx.paginate(
            { type: "ssm.parameters", region, op: "ssm:DescribeParameters" },
            (t, o) => ssm.send(new DescribeParametersCommand({ MaxResults: 50, ...(t === undefined ? {} : { NextToken: t }) }), o),
            (p) => ({ items: p.Parameters, next: p.NextToken }),
          )
        : undefined,
    ])
    // moto ignores the Owner filter and lists the AWS-owned documents too: keep the account's own.
    const own = docs?.filter((d) => d.Owner === undefined || d.Owner === ctx.accountId)
    const documents =
      own === undefined
        ? undefined
        : (
            await ctx.map(own, async (d) => {
              const name = d.Name ?? ""
              const perm = await ctx.call({ type: "ssm.documents", region, op: "ssm:DescribeDocumentPermission", id: name }, (o) => ssm.send(new DescribeDocumentPermissionCommand({ Name: name, PermissionType: "Share" }), o))
              return perm === undefined ? undefined : { name, public: (perm.AccountIds ?? []).some((a) => a.toLowerCase() === "all") }
            })
          ).filter((d): d is { name: string; public: boolean } => d !== undefined)
    ctx.countResources((documents?.length ?? 0) + (params?.length ?? 0))
    return { region, documents, parameters: params?.map((p) => ({ name: p.Name ?? "", type: p.Type ?? "String" })) }
  })
  return { regions }
}

export const secretLikeName = (name: string) => SECRET_NAME.test(name)

export interface TransferServer {
  readonly id: string
  readonly protocols: ReadonlyArray<string>
  readonly endpointType: string
  readonly loggingRole: string | undefined
}
export type TransferInventory = ItemsInventory<TransferServer>

export async function collectTransfer(ctx: CollectContext): Promise<TransferInventory> {
  return defined(
    await listPerRegion(
      ctx,
      { type: "transfer.servers", op: "transfer:ListServers" },
      (region, t, o) => ctx.clients.get("transfer", region).send(new ListServersCommand({ ...(t === undefined ? {} : { NextToken: t }) }), o),
      (p) => ({ items: p.Servers, next: p.NextToken }),
      async (s, region): Promise<TransferServer | undefined> => {
        const id = s.ServerId ?? ""
        const d = (await ctx.call({ type: "transfer.servers", region, op: "transfer:DescribeServer", id }, (o) => ctx.clients.get("transfer", region).send(new DescribeServerCommand({ ServerId: id }), o)))?.Server
        if (d === undefined) return undefined
        return { id, protocols: d.Protocols ?? ["SFTP"], endpointType: d.EndpointType ?? "PUBLIC", loggingRole: d.LoggingRole || undefined }
      },
    ),
  )
}
