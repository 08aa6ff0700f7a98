/**
 * IAM: service accounts (iam v1 projects.serviceAccounts.list) and each one's user-managed keys
 * (serviceAccounts.keys.list?keyTypes=USER_MANAGED; Google-managed keys are rotated by Google and not listed).
 */
import { Schema } from "effect"
import { listAll, Paged, type GcpCollectContext } from "../context.ts"

export const iamResourceTypes = ["iam.service_accounts", "iam.keys"] as const

export const ServiceAccount = Schema.Struct({
  name: Schema.String,
  email: Schema.String,
  uniqueId: Schema.optionalKey(Schema.String),
  displayName: Schema.optionalKey(Schema.String),
  disabled: Schema.optionalKey(Schema.Boolean),
})
export type ServiceAccount = typeof ServiceAccount.Type

export const ServiceAccountKey = Schema.Struct({
  name: Schema.String,
  validAfterTime: Schema.optionalKey(Schema.String),
  validBeforeTime: Schema.optionalKey(Schema.String),
  keyAlgorithm: Schema.optionalKey(Schema.String),
  keyOrigin: Schema.optionalKey(Schema.String),
  keyType: Schema.optionalKey(Schema.String),
  disabled: Schema.optionalKey(Schema.Boolean),
})
export type ServiceAccountKeyInfo = typeof ServiceAccountKey.Type

const AccountsPage = Paged({ accounts: Schema.optionalKey(Schema.Array(ServiceAccount)) })
const KeysResponse = Schema.Struct({ keys: Schema.optionalKey(Schema.Array(ServiceAccountKey)) })

export interface ServiceAccountWithKeys extends ServiceAccount {
  /** User-managed keys; undefined when they could not be listed. */
  readonly keys: ReadonlyArray<ServiceAccountKeyInfo> | undefined
}

export interface IamInventory {
  readonly serviceAccounts: ReadonlyArray<ServiceAccountWithKeys> | undefined
}

export async function collectIam(ctx: GcpCollectContext): Promise<IamInventory> {
  const accounts = await listAll(
    ctx,
    { type: "iam.service_accounts", region: "global", op: "iam.projects.serviceAccounts.list" },
    `${ctx.endpoints.iam}/v1/projects/${ctx.projectId}/serviceAccounts?pageSize=100`,
    AccountsPage,
    (page) => page.accounts,
  )
  if (accounts === undefined) return { serviceAccounts: undefined }
  ctx.countResources(accounts.length)
  const wantKeys = ctx.wants("iam.keys")
  const serviceAccounts = await ctx.map(accounts, async (sa): Promise<ServiceAccountWithKeys> => {
    if (!wantKeys) return { ...sa, keys: undefined }
    const out = await ctx.get(
      { type: "iam.keys", region: "global", op: "iam.projects.serviceAccounts.keys.list", id: sa.email },
      { url: `${ctx.endpoints.iam}/v1/projects/${ctx.projectId}/serviceAccounts/${encodeURIComponent(sa.email)}/keys?keyTypes=USER_MANAGED` },
      KeysResponse,
    )
    const keys = out?.keys?.filter((k) => k.keyType === undefined || k.keyType === "USER_MANAGED")
    if (keys !== undefined) ctx.countResources(keys.length)
    return { ...sa, keys }
  })
  return { serviceAccounts }
}
