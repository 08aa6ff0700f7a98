/**
 * The Integrations settings page (beyond the spec, issue 33 parts 5 and 6; docs/integrations-jira.md and
 * docs/integrations-security-hub.md), for workspace admins: the workspace's Jira connection (site, account email, API
 * token — never shown, empty keeps the stored one —, project key, issue type, labels; test, remove) and, per AWS
 * account, the Security Hub export (on/off, regions, last export's outcome, "send now").
 *
 * `loading` → `ready` or `failed` ('Failed to load the integrations. Please try again.'; a 403 says 'Only workspace
 * admins can configure integrations'; `integrations.retryRequested`). From `ready` each request has its own state
 * (`savingJira`, `testingJira`, `removingJira`, `savingHub`, `exportingHub`) and comes back to `ready` with a toast:
 * success with the server's message, or the failure (a 400's field errors stay beside their fields).
 *
 * Events accepted:
 * - `integrations.retryRequested` — retry after the page failed to load.
 * - `jira.fieldChanged` { field, value } — the user typed in a field of the Jira form; its error clears.
 * - `jira.submitted` — Save: a form the contract accepts is saved, else each bad field shows its message.
 * - `jira.testRequested` — Test connection (a saved connection only).
 * - `jira.removeRequested` — Remove the connection (a saved connection only).
 * - `hub.enabledChanged` { accountId, enabled } / `hub.regionsChanged` { accountId, value } — an account's export edited.
 * - `hub.saveRequested` { accountId } — save that account's export setting (an enabled export needs a region).
 * - `hub.exportRequested` { accountId } — send the latest completed scan now (an enabled, saved export only).
 */
import { assertEvent, assign, fromPromise, setup } from "xstate"
import {
  IntegrationsPageMessages as P,
  JiraConnectionPayload,
  JiraMessages,
  jiraPayloadOf,
  jiraValuesOf,
  JIRA_FIELDS,
  type JiraConnection,
  type JiraField,
  type JiraValues,
} from "../contracts/jira.ts"
import { securityHubSettingsError, type SecurityHubAccount, type SecurityHubSettingsPayload } from "../contracts/security-hub.ts"
import { formErrors } from "../contracts/validation.ts"
import { errorOf, outputOf } from "./actor-output.ts"
import { toFailure, type NotifyParams } from "./auth-effects.ts"
import { notProvided } from "./building-blocks.ts"
import type { IntegrationsSnapshot, Saved } from "./integrations-effects.ts"

export type JiraErrors = Readonly<Partial<Record<JiraField, string>>>

/** Each field the contract's `JiraConnectionPayload` refuses, with its message (`{}`: it can be saved). */
export const validateJira = (values: JiraValues, hasConnection: boolean): JiraErrors => {
  const issues = formErrors(JiraConnectionPayload, jiraPayloadOf(values))
  const out: Partial<Record<JiraField, string>> = {}
  for (const field of JIRA_FIELDS) {
    const hit = Object.keys(issues).find((path) => path === field || path.startsWith(`${field}.`) || path.startsWith(`${field}[`))
    if (hit !== undefined) out[field] = issues[hit]!
  }
  if (!hasConnection && values.api_token.trim() === "") out.api_token = JiraMessages.tokenRequired
  return out
}

/** A failure's text on this page: a 403 names the admin rule, anything else its own text or `fallback`. */
export const integrationsFailureMessage = (error: unknown, fallback: string): string => {
  const failure = toFailure(error, fallback)
  return failure.status === 403 ? P.adminOnly : failure.message
}

/** Field messages of a 400 (`errors: [{ path, message }]`) for the Jira form. */
const serverJiraErrors = (error: unknown): JiraErrors => {
  const data = toFailure(error).data
  const list = typeof data === "object" && data !== null ? (data as { errors?: unknown }).errors : undefined
  if (!Array.isArray(list)) return {}
  const out: Partial<Record<JiraField, string>> = {}
  for (const item of list) {
    const field = JIRA_FIELDS.find((f) => f === (item as { path?: unknown }).path)
    const message = (item as { message?: unknown }).message
    if (field !== undefined && typeof message === "string" && out[field] === undefined) out[field] = message
  }
  return out
}

export interface HubDraft {
  readonly enabled: boolean
  /** Regions as typed (comma- or space-separated). */
  readonly regions: string
}

export const hubDraftOf = (account: SecurityHubAccount): HubDraft => ({ enabled: account.enabled, regions: account.regions.join(", ") })
export const hubSettingsOf = (draft: HubDraft): SecurityHubSettingsPayload => ({
  enabled: draft.enabled,
  regions: draft.regions.split(/[\s,]+/).filter((r) => r !== ""),
})

export interface IntegrationsContext {
  readonly jira: JiraConnection | null
  readonly accounts: ReadonlyArray<SecurityHubAccount>
  readonly loadError: string | null
  readonly jiraValues: JiraValues
  readonly jiraErrors: JiraErrors
  readonly drafts: Readonly<Record<number, HubDraft>>
  readonly hubErrors: Readonly<Record<number, string>>
  /** The account whose request runs (savingHub, exportingHub). */
  readonly busyAccount: number | null
}

export type IntegrationsEvent =
  | { readonly type: "integrations.retryRequested" }
  | { readonly type: "jira.fieldChanged"; readonly field: JiraField; readonly value: string }
  | { readonly type: "jira.submitted" }
  | { readonly type: "jira.testRequested" }
  | { readonly type: "jira.removeRequested" }
  | { readonly type: "hub.enabledChanged"; readonly accountId: number; readonly enabled: boolean }
  | { readonly type: "hub.regionsChanged"; readonly accountId: number; readonly value: string }
  | { readonly type: "hub.saveRequested"; readonly accountId: number }
  | { readonly type: "hub.exportRequested"; readonly accountId: number }

const withoutKey = <V>(record: Readonly<Record<number, V>>, key: number): Record<number, V> => {
  const { [key]: _gone, ...rest } = record
  return rest
}

const draftOf = (context: IntegrationsContext, accountId: number): HubDraft | undefined => {
  const account = context.accounts.find((a) => a.account_id === accountId)
  return context.drafts[accountId] ?? (account === undefined ? undefined : hubDraftOf(account))
}

const errorToast = (fallback: string) => ({
  type: "notify" as const,
  params: ({ event }: { event: unknown }) => ({ kind: "error" as const, message: integrationsFailureMessage(errorOf(event), fallback) }),
})
const successToast = {
  type: "notify" as const,
  params: ({ event }: { event: unknown }) => {
    const output = outputOf<string | Saved<unknown>>(event)
    return { kind: "success" as const, message: typeof output === "string" ? output : output.message }
  },
}

export const integrationsSettingsMachine = setup({
  types: { context: {} as IntegrationsContext, events: {} as IntegrationsEvent },
  actors: {
    loadIntegrations: fromPromise<IntegrationsSnapshot, void>(notProvided("loadIntegrations")),
    saveJira: fromPromise<Saved<JiraConnection>, ReturnType<typeof jiraPayloadOf>>(notProvided("saveJira")),
    testJira: fromPromise<string, void>(notProvided("testJira")),
    removeJira: fromPromise<string, void>(notProvided("removeJira")),
    saveSecurityHub: fromPromise<Saved<SecurityHubAccount>, { accountId: number; settings: SecurityHubSettingsPayload }>(notProvided("saveSecurityHub")),
    exportSecurityHub: fromPromise<string, number>(notProvided("exportSecurityHub")),
  },
  guards: {
    /** The Jira form passes the contract (and names a token when none is stored). */
    isJiraValid: ({ context }) => Object.keys(validateJira(context.jiraValues, context.jira !== null)).length === 0,
    /** A Jira connection is saved. */
    hasJira: ({ context }) => context.jira !== null,
    /** The account's edited export can be saved (an enabled export names a region). */
    isHubValid: ({ context, event }) => {
      assertEvent(event, "hub.saveRequested")
      const draft = draftOf(context, event.accountId)
      return draft !== undefined && securityHubSettingsError(hubSettingsOf(draft)) === undefined
    },
    /** The account is one of the page's. */
    isKnownAccount: ({ context, event }) => {
      assertEvent(event, ["hub.saveRequested", "hub.enabledChanged", "hub.regionsChanged"])
      return context.accounts.some((a) => a.account_id === event.accountId)
    },
    /** The account's saved export is on (send now). */
    isHubEnabled: ({ context, event }) => {
      assertEvent(event, "hub.exportRequested")
      return context.accounts.some((a) => a.account_id === event.accountId && a.enabled)
    },
  },
  actions: {
    /** Environment: a toast. */
    notify: (_, _params: NotifyParams) => {},
    assignLoaded: assign(({ event }) => {
      const { jira, accounts } = outputOf<IntegrationsSnapshot>(event)
      return { jira, accounts, loadError: null, jiraValues: jiraValuesOf(jira), jiraErrors: {}, drafts: {}, hubErrors: {} }
    }),
    assignLoadError: assign({ loadError: ({ event }) => integrationsFailureMessage(errorOf(event), P.loadFailed) }),
    assignJiraField: assign(({ context, event }) => {
      assertEvent(event, "jira.fieldChanged")
      const { [event.field]: _cleared, ...jiraErrors } = context.jiraErrors
      return { jiraValues: { ...context.jiraValues, [event.field]: event.value }, jiraErrors }
    }),
    showJiraErrors: assign({ jiraErrors: ({ context }) => validateJira(context.jiraValues, context.jira !== null) }),
    assignJiraSaved: assign(({ event }) => {
      const { data } = outputOf<Saved<JiraConnection>>(event)
      return { jira: data, jiraValues: jiraValuesOf(data), jiraErrors: {} }
    }),
    assignJiraSaveError: assign({ jiraErrors: ({ event }) => serverJiraErrors(errorOf(event)) }),
    clearJira: assign({ jira: null, jiraValues: jiraValuesOf(null), jiraErrors: {} }),
    assignEnabled: assign(({ context, event }) => {
      assertEvent(event, "hub.enabledChanged")
      const draft = draftOf(context, event.accountId)!
      return { drafts: { ...context.drafts, [event.accountId]: { ...draft, enabled: event.enabled } }, hubErrors: withoutKey(context.hubErrors, event.accountId) }
    }),
    assignRegions: assign(({ context, event }) => {
      assertEvent(event, "hub.regionsChanged")
      const draft = draftOf(context, event.accountId)!
      return { drafts: { ...context.drafts, [event.accountId]: { ...draft, regions: event.value } }, hubErrors: withoutKey(context.hubErrors, event.accountId) }
    }),
    showHubError: assign(({ context, event }) => {
      assertEvent(event, "hub.saveRequested")
      const draft = draftOf(context, event.accountId)
      const message = draft === undefined ? undefined : securityHubSettingsError(hubSettingsOf(draft))
      return { hubErrors: message === undefined ? context.hubErrors : { ...context.hubErrors, [event.accountId]: message } }
    }),
    assignBusy: assign({
      busyAccount: ({ event }) => {
        assertEvent(event, ["hub.saveRequested", "hub.exportRequested"])
        return event.accountId
      },
    }),
    clearBusy: assign({ busyAccount: null }),
    assignHubSaved: assign(({ context, event }) => {
      const { data } = outputOf<Saved<SecurityHubAccount>>(event)
      return {
        accounts: context.accounts.map((a) => (a.account_id === data.account_id ? data : a)),
        drafts: withoutKey(context.drafts, data.account_id),
        hubErrors: withoutKey(context.hubErrors, data.account_id),
      }
    }),
    assignHubSaveError: assign(({ context, event }) =>
      context.busyAccount === null ? {} : { hubErrors: { ...context.hubErrors, [context.busyAccount]: integrationsFailureMessage(errorOf(event), P.saveHubFailed) } }),
  },
}).createMachine({
  id: "integrationsSettings",
  context: {
    jira: null,
    accounts: [],
    loadError: null,
    jiraValues: jiraValuesOf(null),
    jiraErrors: {},
    drafts: {},
    hubErrors: {},
    busyAccount: null,
  },
  initial: "loading",
  states: {
    loading: {
      description: "The page fetches the Jira connection and the AWS accounts' Security Hub settings; nothing is shown yet.",
      invoke: {
        id: "loadIntegrations",
        src: "loadIntegrations",
        /** Loaded: the Jira form shows the saved connection (never its token) and each AWS account its export. */
        onDone: { target: "ready", actions: "assignLoaded" },
        /** The load failed: keeps why (a 403: only workspace admins; otherwise 'Failed to load the integrations. Please try again.'). */
        onError: { target: "failed", actions: "assignLoadError" },
      },
    },
    failed: {
      description: "The integrations could not be loaded: the error is shown with a retry button.",
      on: { "integrations.retryRequested": "loading" },
    },
    ready: {
      description: "The Jira form and the Security Hub accounts are shown and can be edited, saved, tested and sent.",
      on: {
        "jira.fieldChanged": { actions: "assignJiraField" },
        "jira.submitted": [{ guard: "isJiraValid", target: "savingJira" }, { actions: "showJiraErrors" }],
        "jira.testRequested": { guard: "hasJira", target: "testingJira" },
        "jira.removeRequested": { guard: "hasJira", target: "removingJira" },
        "hub.enabledChanged": { guard: "isKnownAccount", actions: "assignEnabled" },
        "hub.regionsChanged": { guard: "isKnownAccount", actions: "assignRegions" },
        "hub.saveRequested": [
          { guard: "isHubValid", target: "savingHub", actions: "assignBusy" },
          { guard: "isKnownAccount", actions: "showHubError" },
        ],
        "hub.exportRequested": { guard: "isHubEnabled", target: "exportingHub", actions: "assignBusy" },
      },
    },
    savingJira: {
      description: "The Jira connection is being saved; the form cannot be edited meanwhile.",
      invoke: {
        id: "saveJira",
        src: "saveJira",
        input: ({ context }) => jiraPayloadOf(context.jiraValues),
        /** Saved: the form shows the saved connection (the token field empty again) and a success toast. */
        onDone: { target: "ready", actions: ["assignJiraSaved", successToast] },
        /** Refused or failed: the form keeps what was typed with the server's field errors, and an error toast. */
        onError: { target: "ready", actions: ["assignJiraSaveError", errorToast(P.saveJiraFailed)] },
      },
    },
    testingJira: {
      description: "The saved connection is being tested by reading its project in Jira.",
      invoke: {
        id: "testJira",
        src: "testJira",
        /** Jira answered: a success toast naming the project. */
        onDone: { target: "ready", actions: successToast },
        /** Jira refused or could not be reached: an error toast with the reason. */
        onError: { target: "ready", actions: errorToast(P.testJiraFailed) },
      },
    },
    removingJira: {
      description: "The Jira connection is being removed.",
      invoke: {
        id: "removeJira",
        src: "removeJira",
        /** Removed: the form is empty again, with a success toast. */
        onDone: { target: "ready", actions: ["clearJira", successToast] },
        /** The removal failed: the connection stays, with an error toast. */
        onError: { target: "ready", actions: errorToast(P.removeJiraFailed) },
      },
    },
    savingHub: {
      description: "One AWS account's Security Hub export setting is being saved.",
      invoke: {
        id: "saveSecurityHub",
        src: "saveSecurityHub",
        input: ({ context }) => ({ accountId: context.busyAccount!, settings: hubSettingsOf(draftOf(context, context.busyAccount!)!) }),
        /** Saved: the account shows its saved setting, with a success toast. */
        onDone: { target: "ready", actions: ["assignHubSaved", "clearBusy", successToast] },
        /** Refused or failed: the account keeps what was typed with the reason beside it, and an error toast. */
        onError: { target: "ready", actions: ["assignHubSaveError", "clearBusy", errorToast(P.saveHubFailed)] },
      },
    },
    exportingHub: {
      description: "The export of one account's latest completed scan is being queued.",
      invoke: {
        id: "exportSecurityHub",
        src: "exportSecurityHub",
        input: ({ context }) => context.busyAccount!,
        /** Queued: a success toast. */
        onDone: { target: "ready", actions: ["clearBusy", successToast] },
        /** Refused (no completed scan) or failed: an error toast. */
        onError: { target: "ready", actions: ["clearBusy", errorToast(P.exportHubFailed)] },
      },
    },
  },
})
