/** App Service (Microsoft.Web 2023-12-01): sites (HTTPS only, managed identity) and each site's `web` configuration. */
import { Schema } from "effect"
import { ArmResource, armGet, armList, locationOf, type AzureCollectContext } from "../context.ts"

export const appserviceResourceTypes = ["appservice.sites", "appservice.site_config"] as const
export const WEB_API = "2023-12-01"

export const Site = ArmResource({ httpsOnly: Schema.optionalKey(Schema.Boolean), state: Schema.optionalKey(Schema.String) })
export type Site = typeof Site.Type

export const SiteConfig = Schema.Struct({
  id: Schema.optionalKey(Schema.String),
  properties: Schema.optionalKey(
    Schema.Struct({
      ftpsState: Schema.optionalKey(Schema.String),
      minTlsVersion: Schema.optionalKey(Schema.String),
      http20Enabled: Schema.optionalKey(Schema.Boolean),
      remoteDebuggingEnabled: Schema.optionalKey(Schema.Boolean),
    }),
  ),
})
export type SiteConfig = typeof SiteConfig.Type

export interface SiteInfo extends Site {
  readonly config: SiteConfig | undefined
}

export interface AppServiceInventory {
  readonly sites: ReadonlyArray<SiteInfo> | undefined
}

export async function collectAppService(ctx: AzureCollectContext): Promise<AppServiceInventory> {
  const listed = await armList(ctx, { type: "appservice.sites", region: "global", op: "Microsoft.Web/sites/read" }, `/subscriptions/${ctx.subscriptionId}/providers/Microsoft.Web/sites`, WEB_API, Site)
  if (listed === undefined) return { sites: undefined }
  ctx.countResources(listed.length)
  const sites = await ctx.map(listed, async (s): Promise<SiteInfo> => ({
    ...s,
    config: ctx.wants("appservice.site_config") ? await armGet(ctx, { type: "appservice.site_config", region: locationOf(s), op: "Microsoft.Web/sites/config/read", id: s.id }, `${s.id}/config/web`, WEB_API, SiteConfig) : undefined,
  }))
  return { sites }
}
