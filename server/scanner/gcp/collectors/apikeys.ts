/** API keys (apikeys v2 projects.locations.keys.list under locations/global): creation time and restrictions. */
import { Schema } from "effect"
import { listAll, Paged, type GcpCollectContext } from "../context.ts"

export const apikeysResourceTypes = ["apikeys.keys"] as const

export const ApiKey = Schema.Struct({
  name: Schema.String,
  uid: Schema.optionalKey(Schema.String),
  displayName: Schema.optionalKey(Schema.String),
  createTime: Schema.optionalKey(Schema.String),
  deleteTime: Schema.optionalKey(Schema.String),
  restrictions: Schema.optionalKey(
    Schema.Struct({
      apiTargets: Schema.optionalKey(Schema.Array(Schema.Struct({ service: Schema.String, methods: Schema.optionalKey(Schema.Array(Schema.String)) }))),
      browserKeyRestrictions: Schema.optionalKey(Schema.Struct({ allowedReferrers: Schema.optionalKey(Schema.Array(Schema.String)) })),
      serverKeyRestrictions: Schema.optionalKey(Schema.Struct({ allowedIps: Schema.optionalKey(Schema.Array(Schema.String)) })),
      androidKeyRestrictions: Schema.optionalKey(Schema.Unknown),
      iosKeyRestrictions: Schema.optionalKey(Schema.Unknown),
    }),
  ),
})
export type ApiKey = typeof ApiKey.Type

const KeysPage = Paged({ keys: Schema.optionalKey(Schema.Array(ApiKey)) })

export interface ApiKeysInventory {
  readonly keys: ReadonlyArray<ApiKey> | undefined
}

export async function collectApiKeys(ctx: GcpCollectContext): Promise<ApiKeysInventory> {
  const keys = await listAll(
    ctx,
    { type: "apikeys.keys", region: "global", op: "apikeys.projects.locations.keys.list" },
    `${ctx.endpoints.apikeys}/v2/projects/${ctx.projectId}/locations/global/keys?pageSize=300`,
    KeysPage,
    (page) => page.keys?.filter((k) => k.deleteTime === undefined),
  )
  if (keys !== undefined) ctx.countResources(keys.length)
  return { keys }
}
