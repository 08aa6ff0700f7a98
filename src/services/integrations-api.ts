/**
 * Typed calls of the Integrations settings page (beyond the spec, issue 33 parts 5 and 6) on the shared API client,
 * and the page's effects built from them (`integrationsEffectsFrom(services)`, handed to
 * `<IntegrationsEffectsProvider>` by the composition root), and the finding page's Jira panel's calls. Answers are decoded with the contracts' schemas; failures reject with the client's
 * catalogue error (the server's message for 4xx, with a 400's field errors in `data.errors`).
 */
import { OkMessage } from "../contracts/common.ts"
import {
  CreateJiraIssuesResponse,
  FindingJiraIssuesResponse,
  JiraConnectionResponse,
  JiraConnectionSaved,
} from "../contracts/jira.ts"
import { SecurityHubAccountsResponse, SecurityHubSettingsResponse } from "../contracts/security-hub.ts"
import type { IntegrationsEffects } from "../machines/integrations-effects.ts"
import { endpoint, pathWith, type Endpoint } from "./api-client.ts"
import type { AppServices } from "./app-services.ts"

export const INTEGRATIONS_ENDPOINTS = {
  jira: endpoint({ method: "GET", path: "/api/integrations/jira", response: JiraConnectionResponse }),
  saveJira: endpoint({ method: "PUT", path: "/api/integrations/jira", response: JiraConnectionSaved }),
  removeJira: endpoint({ method: "DELETE", path: "/api/integrations/jira", response: OkMessage }),
  testJira: endpoint({ method: "POST", path: "/api/integrations/jira/test", response: OkMessage }),
  hubAccounts: endpoint({ method: "GET", path: "/api/integrations/security-hub/accounts", response: SecurityHubAccountsResponse }),
  saveHub: endpoint({ method: "PUT", path: "/api/integrations/security-hub/accounts/:id", response: SecurityHubSettingsResponse }),
  exportHub: endpoint({ method: "POST", path: "/api/integrations/security-hub/accounts/:id/export", response: OkMessage }),
  findingIssues: endpoint({ method: "GET", path: "/api/findings/:id/jira-issues", response: FindingJiraIssuesResponse }),
  createIssues: endpoint({ method: "POST", path: "/api/findings/:id/jira-issues", response: CreateJiraIssuesResponse }),
  refreshIssues: endpoint({ method: "POST", path: "/api/findings/:id/jira-issues/refresh", response: FindingJiraIssuesResponse }),
} satisfies Record<string, Endpoint<unknown>>

const signalOpt = (signal: AbortSignal | undefined) => (signal === undefined ? {} : { signal })
const withId = <A>(e: Endpoint<A>, id: number): Endpoint<A> => ({ ...e, path: pathWith(e.path, { id }) })

export const integrationsEffectsFrom = (services: Pick<AppServices, "client">): IntegrationsEffects => ({
  loadIntegrations: async (_, signal) => {
    const [jira, hub] = await Promise.all([
      services.client.request(INTEGRATIONS_ENDPOINTS.jira, signalOpt(signal)),
      services.client.request(INTEGRATIONS_ENDPOINTS.hubAccounts, signalOpt(signal)),
    ])
    return { jira: jira.data, accounts: hub.data }
  },
  saveJira: async (payload, signal) => {
    const answer = await services.client.request(INTEGRATIONS_ENDPOINTS.saveJira, { body: payload, ...signalOpt(signal) })
    return { message: answer.message, data: answer.data }
  },
  testJira: async (_, signal) => (await services.client.request(INTEGRATIONS_ENDPOINTS.testJira, signalOpt(signal))).message,
  removeJira: async (_, signal) => (await services.client.request(INTEGRATIONS_ENDPOINTS.removeJira, signalOpt(signal))).message,
  saveSecurityHub: async ({ accountId, settings }, signal) => {
    const answer = await services.client.request(withId(INTEGRATIONS_ENDPOINTS.saveHub, accountId), { body: settings, ...signalOpt(signal) })
    return { message: answer.message, data: answer.data }
  },
  exportSecurityHub: async (accountId, signal) =>
    (await services.client.request(withId(INTEGRATIONS_ENDPOINTS.exportHub, accountId), signalOpt(signal))).message,
  findingIssues: async (findingId, signal) =>
    (await services.client.request(withId(INTEGRATIONS_ENDPOINTS.findingIssues, findingId), signalOpt(signal))).data,
  createIssues: async ({ findingId, mode }, signal) =>
    services.client.request(withId(INTEGRATIONS_ENDPOINTS.createIssues, findingId), { body: { mode }, ...signalOpt(signal) }),
  refreshIssues: async (findingId, signal) =>
    (await services.client.request(withId(INTEGRATIONS_ENDPOINTS.refreshIssues, findingId), signalOpt(signal))).data,
})
