/**
 * The Integrations settings page's machine (issue 33 parts 5 and 6): every (state, event) edge is driven
 * (model-based, xstate/graph), then the flows are checked step by step: the Jira form validated against the contract
 * (a token required only when none is stored), saved, tested, removed; a Security Hub account's export edited, refused
 * without a region, saved and sent; a non-admin's 403 named.
 */
import { describe, expect, it } from "vitest"
import { createActor } from "xstate"
import { IntegrationsPageMessages, JiraMessages, type JiraConnection, type JiraConnectionPayload } from "../../src/contracts/jira.ts"
import { SecurityHubMessages, type SecurityHubAccount, type SecurityHubSettingsPayload } from "../../src/contracts/security-hub.ts"
import type { IntegrationsSnapshot, Saved } from "../../src/machines/integrations-effects.ts"
import { integrationsSettingsMachine } from "../../src/machines/integrations-settings.machine.ts"
import { coverTransitions, formatCoverage } from "../support/graph.ts"
import { controlled, httpFailure, never } from "./auth-fakes.ts"
import { environment } from "./scan-fakes.ts"

const connection: JiraConnection = {
  site_url: "https://acme.atlassian.net", email: "bot@acme.io", project_key: "SEC", issue_type: "Task", labels: ["security"],
  token_set: true, updated_at: "2026-11-27T10:00:00.000Z",
}
const account = (id: number, enabled = false, regions: ReadonlyArray<string> = []): SecurityHubAccount => ({
  account_id: id as SecurityHubAccount["account_id"], account_name: `Account ${id}`, cloud_account_id: `11112222333${id}`, enabled, regions,
  last_export: null,
})
const snapshot = (jira: JiraConnection | null = connection): IntegrationsSnapshot => ({ jira, accounts: [account(1), account(2, true, ["eu-west-1"])] })

describe("integrations-settings machine", () => {
  it("drives every (state, event) edge", async () => {
    const provided = integrationsSettingsMachine.provide({
      actors: {
        loadIntegrations: never(), saveJira: never(), testJira: never(), removeJira: never(), saveSecurityHub: never(), exportSecurityHub: never(),
      },
    })
    const events = [
      { type: "xstate.done.actor.loadIntegrations", output: snapshot() },
      { type: "xstate.error.actor.loadIntegrations", error: httpFailure("generic", 403, { message: "Forbidden" }) },
      { type: "integrations.retryRequested" },
      { type: "jira.fieldChanged", field: "project_key", value: "OPS" },
      { type: "jira.submitted" },
      { type: "jira.testRequested" },
      { type: "jira.removeRequested" },
      { type: "hub.enabledChanged", accountId: 1, enabled: true },
      { type: "hub.regionsChanged", accountId: 1, value: "us-east-1" },
      { type: "hub.saveRequested", accountId: 2 },
      { type: "hub.exportRequested", accountId: 2 },
      { type: "xstate.done.actor.saveJira", output: { message: JiraMessages.connectionSaved, data: connection } },
      { type: "xstate.error.actor.saveJira", error: httpFailure("generic", 500) },
      { type: "xstate.done.actor.testJira", output: JiraMessages.connectionWorks("SEC") },
      { type: "xstate.error.actor.testJira", error: httpFailure("generic", 400, { message: JiraMessages.unauthorized }) },
      { type: "xstate.done.actor.removeJira", output: JiraMessages.connectionRemoved },
      { type: "xstate.error.actor.removeJira", error: httpFailure("generic", 500) },
      { type: "xstate.done.actor.saveSecurityHub", output: { message: SecurityHubMessages.settingsSaved, data: account(2, true, ["eu-west-1"]) } },
      { type: "xstate.error.actor.saveSecurityHub", error: httpFailure("generic", 500) },
      { type: "xstate.done.actor.exportSecurityHub", output: SecurityHubMessages.exportQueued },
      { type: "xstate.error.actor.exportSecurityHub", error: httpFailure("generic", 400, { message: SecurityHubMessages.noCompletedScan }) },
    ]
    const coverage = await coverTransitions(provided, {
      createActor: (clock) => createActor(provided, { clock }),
      events,
      serializeState: (s) => JSON.stringify([s.value, s.context.jira !== null]),
    })
    console.info(formatCoverage("integrationsSettings", coverage))
    expect(coverage.missing).toEqual([])
    expect(coverage.driven).toBe(coverage.total)
  })

  const start = () => {
    const load = controlled<void, IntegrationsSnapshot>()
    const saveJira = controlled<JiraConnectionPayload, Saved<JiraConnection>>()
    const testJira = controlled<void, string>()
    const removeJira = controlled<void, string>()
    const saveHub = controlled<{ accountId: number; settings: SecurityHubSettingsPayload }, Saved<SecurityHubAccount>>()
    const exportHub = controlled<number, string>()
    const env = environment()
    const actor = createActor(
      integrationsSettingsMachine.provide({
        actors: {
          loadIntegrations: load.logic, saveJira: saveJira.logic, testJira: testJira.logic, removeJira: removeJira.logic,
          saveSecurityHub: saveHub.logic, exportSecurityHub: exportHub.logic,
        },
        actions: { notify: env.notify },
      }),
    ).start()
    return { actor, load, saveJira, testJira, removeJira, saveHub, exportHub, env }
  }

  it("validates the Jira form with the contract, needs a token for a new connection, saves and tests it", async () => {
    const { actor, load, saveJira, testJira, env } = start()
    try {
      await load.resolve(snapshot(null))
      expect(actor.getSnapshot().context.jiraValues).toMatchObject({ site_url: "", issue_type: "Task", api_token: "" })
      actor.send({ type: "jira.testRequested" })
      expect(actor.getSnapshot().value).toBe("ready")
      actor.send({ type: "jira.fieldChanged", field: "site_url", value: "acme" })
      actor.send({ type: "jira.fieldChanged", field: "email", value: "bot@acme.io" })
      actor.send({ type: "jira.fieldChanged", field: "project_key", value: "sec ops" })
      actor.send({ type: "jira.submitted" })
      expect(actor.getSnapshot().context.jiraErrors).toEqual({
        site_url: JiraMessages.siteUrlInvalid, project_key: JiraMessages.projectKeyInvalid, api_token: JiraMessages.tokenRequired,
      })
      expect(saveJira.calls).toEqual([])
      actor.send({ type: "jira.fieldChanged", field: "site_url", value: "https://acme.atlassian.net/" })
      expect(actor.getSnapshot().context.jiraErrors.site_url).toBeUndefined()
      actor.send({ type: "jira.fieldChanged", field: "project_key", value: "SEC" })
      actor.send({ type: "jira.fieldChanged", field: "api_token", value: "t0ken" })
      actor.send({ type: "jira.fieldChanged", field: "labels", value: "security, audit  team" })
      actor.send({ type: "jira.submitted" })
      expect(actor.getSnapshot().value).toBe("savingJira")
      expect(saveJira.calls).toEqual([{
        site_url: "https://acme.atlassian.net", email: "bot@acme.io", api_token: "t0ken", project_key: "SEC", issue_type: "Task",
        labels: ["security", "audit", "team"],
      }])
      await saveJira.resolve({ message: JiraMessages.connectionSaved, data: connection })
      expect(actor.getSnapshot().context.jiraValues.api_token).toBe("")
      // A saved connection: an empty token keeps the stored one.
      actor.send({ type: "jira.submitted" })
      expect(actor.getSnapshot().value).toBe("savingJira")
      expect(saveJira.calls[1]).not.toHaveProperty("api_token")
      await saveJira.reject(httpFailure("generic", 400, { message: JiraMessages.siteUrlInvalid, errors: [{ path: "site_url", message: JiraMessages.siteUrlInvalid }] }))
      expect(actor.getSnapshot().context.jiraErrors).toEqual({ site_url: JiraMessages.siteUrlInvalid })
      actor.send({ type: "jira.testRequested" })
      await testJira.reject(httpFailure("generic", 400, { message: JiraMessages.unauthorized }))
      expect(env.toasts).toEqual([
        { kind: "success", message: JiraMessages.connectionSaved },
        { kind: "error", message: JiraMessages.siteUrlInvalid },
        { kind: "error", message: JiraMessages.unauthorized },
      ])
    } finally {
      actor.stop()
    }
  })

  it("edits, refuses, saves and sends one account's Security Hub export", async () => {
    const { actor, load, saveHub, exportHub, env } = start()
    try {
      await load.resolve(snapshot())
      actor.send({ type: "hub.exportRequested", accountId: 1 })
      expect(actor.getSnapshot().value).toBe("ready")
      actor.send({ type: "hub.enabledChanged", accountId: 1, enabled: true })
      actor.send({ type: "hub.saveRequested", accountId: 1 })
      expect(actor.getSnapshot().context.hubErrors).toEqual({ 1: SecurityHubMessages.regionRequired })
      actor.send({ type: "hub.regionsChanged", accountId: 1, value: "us-east-1, eu-west-1" })
      expect(actor.getSnapshot().context.hubErrors).toEqual({})
      actor.send({ type: "hub.saveRequested", accountId: 1 })
      expect(actor.getSnapshot().value).toBe("savingHub")
      expect(saveHub.calls).toEqual([{ accountId: 1, settings: { enabled: true, regions: ["us-east-1", "eu-west-1"] } }])
      await saveHub.resolve({ message: SecurityHubMessages.settingsSaved, data: account(1, true, ["us-east-1", "eu-west-1"]) })
      expect(actor.getSnapshot().context.accounts[0]).toMatchObject({ enabled: true, regions: ["us-east-1", "eu-west-1"] })
      expect(actor.getSnapshot().context.drafts).toEqual({})
      actor.send({ type: "hub.exportRequested", accountId: 1 })
      expect(exportHub.calls).toEqual([1])
      await exportHub.reject(httpFailure("generic", 400, { message: SecurityHubMessages.noCompletedScan }))
      expect(actor.getSnapshot().context.busyAccount).toBeNull()
      expect(env.toasts.map((t) => t.message)).toEqual([SecurityHubMessages.settingsSaved, SecurityHubMessages.noCompletedScan])
    } finally {
      actor.stop()
    }
  })

  it("a non-admin's 403 names the admin rule; retry loads again", async () => {
    const { actor, load } = start()
    try {
      await load.reject(httpFailure("generic", 403, { message: "Forbidden" }))
      expect(actor.getSnapshot().value).toBe("failed")
      expect(actor.getSnapshot().context.loadError).toBe(IntegrationsPageMessages.adminOnly)
      actor.send({ type: "integrations.retryRequested" })
      expect(actor.getSnapshot().value).toBe("loading")
      await load.reject(new Error("boom"))
      expect(actor.getSnapshot().context.loadError).toBe(IntegrationsPageMessages.loadFailed)
    } finally {
      actor.stop()
    }
  })
})
