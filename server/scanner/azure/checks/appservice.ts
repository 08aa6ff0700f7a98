/** App Service checks (CIS Azure v3.0 section 9) and App Service HTTP logs (v4 7.1.1.6). */
import { onOff } from "../../rest/engine.ts"
import { defineAzureCheck, resourceRow } from "../define-check.ts"
import { isFunctionApp, type SiteInfo } from "../collectors/appservice.ts"
import { settingsSendingLogs } from "../collectors/keyvault.ts"
import type { DetailRow } from "../../check.ts"

const tlsAtLeast12 = (v: string | undefined) => {
  const n = Number(v ?? "1.0")
  return Number.isFinite(n) && n >= 1.2
}

interface SiteRule {
  readonly id: string
  /** CIS Azure v3.0 control; absent for checks beyond the benchmark. */
  readonly v3?: string
  readonly title: string
  readonly description: string
  readonly severity: "high" | "medium" | "low"
  readonly remediation: string
  readonly reads: string
  readonly input: "appservice.site_config" | "appservice.auth_settings" | undefined
  readonly label: string
  readonly evaluate: (s: SiteInfo) => { readonly ok: boolean; readonly value: DetailRow[string]; readonly reason: string } | undefined
}

/** A rule on a boolean property of the site resource itself (no configuration read): on is compliant. */
const siteFlag = (flag: (s: SiteInfo) => boolean, on: string, off: string): Pick<SiteRule, "input" | "evaluate"> => ({
  input: undefined,
  evaluate: (s) => onOff(flag(s), on, off),
})

/** A rule on the site's FTP state (ftpsState; unset means AllAllowed). */
const ftpRule = (ok: (state: string) => boolean, reason: (state: string) => string): Pick<SiteRule, "reads" | "input" | "label" | "evaluate"> => ({
  reads: "ARM sites/{s}/config/web → properties.ftpsState",
  input: "appservice.site_config",
  label: "FTP state",
  evaluate: (s) => {
    if (s.config === undefined) return undefined
    const v = s.config.properties?.ftpsState ?? "AllAllowed"
    return { ok: ok(v), value: v, reason: reason(v) }
  },
})

const rules: ReadonlyArray<SiteRule> = [
  {
    id: "app_https_only",
    v3: "9.1",
    title: "App Service apps should redirect HTTP to HTTPS",
    description: "Checks the site's HTTPS Only setting.",
    severity: "high",
    remediation: "az webapp update -g RG -n APP --set httpsOnly=true",
    reads: "ARM Microsoft.Web/sites → properties.httpsOnly",
    label: "HTTPS only",
    ...siteFlag((s) => s.properties?.httpsOnly === true, "HTTP is redirected to HTTPS.", "The app answers plain HTTP."),
  },
  {
    id: "app_authentication_enabled",
    v3: "9.2",
    title: "App Service Authentication should be set up for apps",
    description: "Checks the site's built-in Authentication / Authorization (Easy Auth) is enabled, so requests are authenticated before they reach the app.",
    severity: "medium",
    remediation: "Add an identity provider: az webapp auth microsoft update -g RG -n APP --client-id CLIENT_ID --issuer https://login.microsoftonline.com/TENANT/v2.0, then az webapp auth update -g RG -n APP --enabled true --action RedirectToLoginPage",
    reads: "ARM sites/{s}/config/authsettingsV2 → properties.platform.enabled",
    input: "appservice.auth_settings",
    label: "Authentication",
    evaluate: (s) => {
      if (s.auth === undefined) return undefined
      const on = s.auth.properties?.platform?.enabled === true
      return { ok: on, value: on, reason: on ? "App Service Authentication is enabled." : "App Service Authentication is disabled: the platform lets anonymous requests through." }
    },
  },
  {
    id: "app_ftps_only",
    v3: "9.3",
    title: "FTP deployments should be disabled or FTPS only",
    description: "Checks the site's ftpsState is FtpsOnly or Disabled.",
    severity: "medium",
    remediation: "az webapp config set -g RG -n APP --ftps-state FtpsOnly (or Disabled)",
    ...ftpRule((v) => v === "FtpsOnly" || v === "Disabled", (v) => (v === "AllAllowed" ? "Plain FTP deployments are allowed." : `FTP state is ${v}.`)),
  },
  {
    id: "app_min_tls_12",
    v3: "9.4",
    title: "App Service apps should use TLS 1.2 or later",
    description: "Checks the site's minimum inbound TLS version is 1.2 or higher.",
    severity: "high",
    remediation: "az webapp config set -g RG -n APP --min-tls-version 1.2",
    reads: "ARM sites/{s}/config/web → properties.minTlsVersion",
    input: "appservice.site_config",
    label: "Minimum TLS",
    evaluate: (s) => {
      if (s.config === undefined) return undefined
      const v = s.config.properties?.minTlsVersion ?? "1.0"
      return { ok: tlsAtLeast12(v), value: v, reason: `Minimum TLS version is ${v}.` }
    },
  },
  {
    id: "app_managed_identity",
    v3: "9.5",
    title: "App Service apps should use a managed identity ('Register with Entra ID')",
    description: "Checks the site has a system- or user-assigned managed identity.",
    severity: "low",
    remediation: "az webapp identity assign -g RG -n APP",
    reads: "ARM Microsoft.Web/sites → identity.type",
    input: undefined,
    label: "Identity",
    evaluate: (s) => {
      const t = s.identity?.type ?? "None"
      const ok = /SystemAssigned|UserAssigned/i.test(t)
      return { ok, value: t, reason: ok ? `Managed identity: ${t}.` : "The app has no managed identity." }
    },
  },
  {
    id: "app_http2_enabled",
    v3: "9.10",
    title: "HTTP/2 should be enabled for App Service apps",
    description: "Checks http20Enabled in the site configuration.",
    severity: "low",
    remediation: "az webapp config set -g RG -n APP --http20-enabled true",
    reads: "ARM sites/{s}/config/web → properties.http20Enabled",
    input: "appservice.site_config",
    label: "HTTP/2",
    evaluate: (s) => {
      if (s.config === undefined) return undefined
      // Absent: true (SiteConfig.http20Enabled "default": true, collectors/defaults.ts).
      const on = (s.config.properties?.http20Enabled ?? true) === true
      return { ok: on, value: on, reason: on ? "HTTP/2 is enabled." : "HTTP/2 is disabled." }
    },
  },
  {
    id: "app_remote_debugging_off",
    v3: "9.12",
    title: "Remote debugging should be turned off for App Service apps",
    description: "Checks remoteDebuggingEnabled is false.",
    severity: "medium",
    remediation: "az webapp config set -g RG -n APP --remote-debugging-enabled false",
    reads: "ARM sites/{s}/config/web → properties.remoteDebuggingEnabled",
    input: "appservice.site_config",
    label: "Remote debugging",
    evaluate: (s) => {
      if (s.config === undefined) return undefined
      const on = s.config.properties?.remoteDebuggingEnabled === true
      return { ok: !on, value: on, reason: on ? "Remote debugging is on." : "Remote debugging is off." }
    },
  },
  {
    id: "app_client_certificates_on",
    title: "App Service apps should require incoming client certificates",
    description: "Checks client certificates are enabled in Required mode (Optional modes let clients without a certificate in), so only clients presenting a certificate reach the app (mutual TLS).",
    severity: "medium",
    remediation: "az webapp update -g RG -n APP --set clientCertEnabled=true (and validate the certificate in the app or through the gateway).",
    reads: "ARM Microsoft.Web/sites → properties.clientCertEnabled, clientCertMode",
    label: "Client certificates",
    input: undefined,
    evaluate: (s) => {
      // "ClientCertEnabled: true and ClientCertMode: Required means ClientCert is required"; Optional modes accept clients without one. Absent mode: Required.
      const enabled = s.properties?.clientCertEnabled === true
      const mode = s.properties?.clientCertMode ?? "Required"
      const ok = enabled && mode.toLowerCase() === "required"
      return { ok, value: enabled ? mode : false, reason: ok ? "Incoming client certificates are required." : enabled ? `Client certificates are optional (${mode}): clients without one get in.` : "Incoming client certificates are not required." }
    },
  },
  {
    id: "app_ftp_deployment_disabled",
    title: "FTP and FTPS deployments should be disabled",
    description: "Checks the site's ftpsState is Disabled: deployment credentials over FTP(S) are a second, often forgotten way in.",
    severity: "medium",
    remediation: "az webapp config set -g RG -n APP --ftps-state Disabled (deploy through the SCM site, ZIP deploy or a pipeline with Entra credentials).",
    ...ftpRule((v) => v === "Disabled", (v) => (v === "Disabled" ? "FTP deployments are disabled." : `FTP state is ${v}.`)),
  },
  {
    id: "app_scm_min_tls_12",
    title: "The App Service deployment (SCM) site should use TLS 1.2 or later",
    description: "Checks the minimum TLS version of the site's Kudu/SCM endpoint, which takes deployments and holds the publishing credentials.",
    severity: "medium",
    remediation: "az webapp config set -g RG -n APP --generic-configurations '{\"scmMinTlsVersion\": \"1.2\"}'",
    reads: "ARM sites/{s}/config/web → properties.scmMinTlsVersion",
    input: "appservice.site_config",
    label: "SCM minimum TLS",
    evaluate: (s) => {
      if (s.config === undefined) return undefined
      const v = s.config.properties?.scmMinTlsVersion ?? undefined
      const ok = tlsAtLeast12(v)
      return { ok, value: v ?? null, reason: `The SCM site accepts TLS ${v ?? "1.0"} and later.` }
    },
  },
]

const ruleChecks = rules.map((r) =>
  defineAzureCheck({
    id: r.id,
    service: "appservice",
    title: r.title,
    description: r.description,
    severity: r.severity,
    cis: r.v3 === undefined ? {} : { v3: r.v3 },
    remediation: r.remediation,
    field_labels: { value: r.label },
    uses: r.input === undefined ? ["appservice.sites"] : ["appservice.sites", r.input],
    reads: r.reads,
    evaluate: (inv) =>
      (inv.appservice.sites ?? []).flatMap((s) => {
        const e = r.evaluate(s)
        return e === undefined ? [] : [resourceRow(s, e.ok, e.reason, { value: e.value })]
      }),
  }),
)

export const appserviceChecks = [
  ...ruleChecks,
  defineAzureCheck({
    id: "app_http_logs_enabled",
    service: "appservice",
    title: "App Service HTTP logs should be enabled",
    description:
      "Checks each web app (function apps have no HTTP log category and are skipped) has a diagnostic setting sending the AppServiceHTTPLogs category (or the allLogs category group) to a destination.",
    severity: "medium",
    cis: { v4: "7.1.1.6" },
    remediation: "az monitor diagnostic-settings create --resource SITE_ID --name http-logs --workspace WORKSPACE_ID --logs '[{\"category\":\"AppServiceHTTPLogs\",\"enabled\":true}]'",
    field_labels: { settings: "Diagnostic settings" },
    uses: ["appservice.sites", "appservice.diagnostics"],
    reads: "ARM {site}/providers/Microsoft.Insights/diagnosticSettings → properties.logs[category=AppServiceHTTPLogs | categoryGroup=allLogs].enabled",
    evaluate: (inv) =>
      (inv.appservice.sites ?? []).flatMap((s) => {
        if (isFunctionApp(s) || s.diagnostics === undefined) return []
        const logging = settingsSendingLogs(s.diagnostics, { categories: ["AppServiceHTTPLogs"], groups: ["allLogs"] })
        const reason =
          logging.length > 0
            ? `HTTP logs are sent by ${logging.map((d) => d.name).join(", ")}.`
            : s.diagnostics.length === 0
              ? "The app has no diagnostic setting: its HTTP requests are not logged."
              : `HTTP logs are not enabled in ${s.diagnostics.map((d) => d.name).join(", ")}.`
        return [resourceRow(s, logging.length > 0, reason, { settings: logging.map((d) => d.name) })]
      }),
  }),
]
