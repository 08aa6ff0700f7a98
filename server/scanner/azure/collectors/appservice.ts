/**
 * App Service (Microsoft.Web 2023-12-01): sites (HTTPS only, managed identity), each site's `web` configuration and
 * its Authentication (Easy Auth) settings. The settings are read with `GET sites/{n}/config/authsettingsV2`
 * (WebApps_GetAuthSettingsV2WithoutSecrets): the same `properties.platform.enabled` as `…/authsettingsV2/list`,
 * but it needs only `Microsoft.Web/sites/config/read` (Reader) rather than the `config/list` action, and never
 * returns identity-provider secrets.
 *
 * Web apps (not function apps, whose kind contains "functionapp" and which have no HTTP log category) also get
 * their Azure Monitor diagnostic settings (`{site}/providers/Microsoft.Insights/diagnosticSettings`), for the
 * AppServiceHTTPLogs category.
 */
import { Schema } from "effect"
import { ArmResource, armGet, armList, locationOf, type AzureCollectContext } from "../context.ts"
import { DIAGNOSTICS_API, DiagnosticSetting } from "./keyvault.ts"

export const appserviceResourceTypes = ["appservice.sites", "appservice.site_config", "appservice.auth_settings", "appservice.diagnostics"] as const
export const WEB_API = "2023-12-01"

export const Site = ArmResource({
  httpsOnly: Schema.optionalKey(Schema.Boolean),
  state: Schema.optionalKey(Schema.String),
  clientCertEnabled: Schema.optionalKey(Schema.Boolean),
  /** Required | Optional | OptionalInteractiveUser: with clientCertEnabled, only Required makes a certificate mandatory. */
  clientCertMode: Schema.optionalKey(Schema.String),
})
export type Site = typeof Site.Type

export const SiteConfig = Schema.Struct({
  id: Schema.optionalKey(Schema.String),
  properties: Schema.optionalKey(
    Schema.Struct({
      ftpsState: Schema.optionalKey(Schema.String),
      minTlsVersion: Schema.optionalKey(Schema.String),
      scmMinTlsVersion: Schema.optionalKey(Schema.NullOr(Schema.String)),
      http20Enabled: Schema.optionalKey(Schema.Boolean),
      remoteDebuggingEnabled: Schema.optionalKey(Schema.Boolean),
    }),
  ),
})
export type SiteConfig = typeof SiteConfig.Type

/** SiteAuthSettingsV2 (the parts the checks read; identity providers are not decoded). */
export const SiteAuthSettings = Schema.Struct({
  id: Schema.optionalKey(Schema.String),
  name: Schema.optionalKey(Schema.String),
  properties: Schema.optionalKey(
    Schema.Struct({
      platform: Schema.optionalKey(Schema.Struct({ enabled: Schema.optionalKey(Schema.Boolean), runtimeVersion: Schema.optionalKey(Schema.NullOr(Schema.String)) })),
      globalValidation: Schema.optionalKey(
        Schema.Struct({ requireAuthentication: Schema.optionalKey(Schema.Boolean), unauthenticatedClientAction: Schema.optionalKey(Schema.NullOr(Schema.String)) }),
      ),
    }),
  ),
})
export type SiteAuthSettings = typeof SiteAuthSettings.Type

/** Function apps (kind "functionapp", "functionapp,linux", "functionapp,workflowapp", …) rather than web apps. */
export const isFunctionApp = (s: Site): boolean => /functionapp/i.test(s.kind ?? "")

export interface SiteInfo extends Site {
  readonly config: SiteConfig | undefined
  readonly auth: SiteAuthSettings | undefined
  /** Diagnostic settings of a web app; undefined when unread (and always for function apps). */
  readonly diagnostics: ReadonlyArray<DiagnosticSetting> | undefined
}

export interface AppServiceInventory {
  readonly sites: ReadonlyArray<SiteInfo> | undefined
}

export async function collectAppService(ctx: AzureCollectContext): Promise<AppServiceInventory> {
  const listed = await armList(ctx, { type: "appservice.sites", region: "global", op: "Microsoft.Web/sites/read" }, `/subscriptions/${ctx.subscriptionId}/providers/Microsoft.Web/sites`, WEB_API, Site)
  if (listed === undefined) return { sites: undefined }
  ctx.countResources(listed.length)
  const sites = await ctx.map(listed, async (s): Promise<SiteInfo> => {
    const region = locationOf(s)
    const [config, auth, diagnostics] = await Promise.all([
      ctx.wants("appservice.site_config") ? armGet(ctx, { type: "appservice.site_config", region, op: "Microsoft.Web/sites/config/read", id: s.id }, `${s.id}/config/web`, WEB_API, SiteConfig) : undefined,
      ctx.wants("appservice.auth_settings")
        ? armGet(ctx, { type: "appservice.auth_settings", region, op: "Microsoft.Web/sites/config/read", id: s.id }, `${s.id}/config/authsettingsV2`, WEB_API, SiteAuthSettings)
        : undefined,
      ctx.wants("appservice.diagnostics") && !isFunctionApp(s)
        ? armList(ctx, { type: "appservice.diagnostics", region, op: "Microsoft.Insights/diagnosticSettings/read", id: s.id }, `${s.id}/providers/Microsoft.Insights/diagnosticSettings`, DIAGNOSTICS_API, DiagnosticSetting)
        : undefined,
    ])
    return { ...s, config, auth, diagnostics }
  })
  return { sites }
}
