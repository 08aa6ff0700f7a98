/**
 * What the Integrations settings page's machine needs from the outside world (beyond the spec, issue 33 parts 5 and
 * 6: the Jira connection and the Security Hub export per AWS account), as types. Nothing here performs an effect: the
 * real `IntegrationsEffects` are built from the SPA services by `integrationsEffectsFrom(services)`
 * (src/services/integrations-api.ts) and reach the view through `<IntegrationsEffectsProvider>`
 * (src/views/settings/integrations-effects-context.tsx); tests hand fakes to `machine.provide()`.
 *
 * Failures reject with a catalogue error value `{ type, message, status?, data? }`: a 403 says the user is not a
 * workspace admin, a 400 carries the server's text (and field errors in `data.errors`).
 */
import type { CreateJiraIssuesResponse, JiraConnection, JiraConnectionPayload, JiraIssue, JiraIssueMode } from "../contracts/jira.ts"
import type { SecurityHubAccount, SecurityHubSettingsPayload } from "../contracts/security-hub.ts"
import type { EffectCall } from "./auth-effects.ts"

export interface IntegrationsSnapshot {
  readonly jira: JiraConnection | null
  readonly accounts: ReadonlyArray<SecurityHubAccount>
}

export interface Saved<A> {
  readonly message: string
  readonly data: A
}

export interface IntegrationsEffects {
  /** GET /api/integrations/jira and GET /api/integrations/security-hub/accounts. */
  readonly loadIntegrations: EffectCall<void, IntegrationsSnapshot>
  /** PUT /api/integrations/jira. */
  readonly saveJira: EffectCall<JiraConnectionPayload, Saved<JiraConnection>>
  /** POST /api/integrations/jira/test: the server's message. */
  readonly testJira: EffectCall<void, string>
  /** DELETE /api/integrations/jira: the server's message. */
  readonly removeJira: EffectCall<void, string>
  /** PUT /api/integrations/security-hub/accounts/{id}. */
  readonly saveSecurityHub: EffectCall<{ readonly accountId: number; readonly settings: SecurityHubSettingsPayload }, Saved<SecurityHubAccount>>
  /** POST /api/integrations/security-hub/accounts/{id}/export: the server's message. */
  readonly exportSecurityHub: EffectCall<number, string>
  /** The finding page's Jira panel: GET /api/findings/{id}/jira-issues. */
  readonly findingIssues: EffectCall<number, ReadonlyArray<JiraIssue>>
  /** POST /api/findings/{id}/jira-issues: the server's message and the issues created and found. */
  readonly createIssues: EffectCall<{ readonly findingId: number; readonly mode: JiraIssueMode }, CreateJiraIssuesResponse>
  /** POST /api/findings/{id}/jira-issues/refresh: the issues with their statuses read from Jira now. */
  readonly refreshIssues: EffectCall<number, ReadonlyArray<JiraIssue>>
}

/** Where the page lives (a workspace admin's page, linked from the user menu next to Storage). */
export const INTEGRATIONS_PATH = "/dashboard/settings/integrations"
