// @vitest-environment happy-dom
/**
 * The Integrations settings page and the finding page's Jira panel (issue 33 parts 5 and 6) rendered with fake
 * effects inside the app's root (toasts, router): the Jira form (token never shown, the contract's messages beside the
 * fields, saved with the typed labels), a Security Hub account's export refused without a region then saved, its last
 * export's outcome; the Jira panel listing issues with a Closed mark and creating one.
 */
import type { ReactNode } from "react"
import { act, cleanup, fireEvent, render, screen, within } from "@testing-library/react"
import { afterEach, describe, expect, it } from "vitest"
import { Route, Switch } from "wouter"
import { memoryLocation } from "wouter/memory-location"
import { SimulatedClock } from "xstate"
import { JiraMessages, type JiraConnection, type JiraConnectionPayload, type JiraIssue } from "../../src/contracts/jira.ts"
import { SecurityHubMessages, type SecurityHubAccount } from "../../src/contracts/security-hub.ts"
import type { IntegrationsEffects } from "../../src/machines/integrations-effects.ts"
import { App } from "../../src/views/app.tsx"
import { preloadScreens } from "../../src/views/routes.tsx"
import { FindingJiraCard } from "../../src/views/scans/finding-jira-card.tsx"
import { SessionStatusContext } from "../../src/views/session-status.tsx"
import { IntegrationsEffectsProvider, UNWIRED_INTEGRATIONS_EFFECTS } from "../../src/views/settings/integrations-effects-context.tsx"
import { IntegrationsView } from "../../src/views/settings/integrations.view.tsx"
import { flush } from "../machines/auth-fakes.ts"

await preloadScreens()
afterEach(cleanup)

const settle = async (): Promise<void> => {
  for (let i = 0; i < 3; i += 1) await act(async () => flush())
}

const connection: JiraConnection = {
  site_url: "https://acme.atlassian.net", email: "bot@acme.io", project_key: "SEC", issue_type: "Task", labels: ["security"],
  token_set: true, updated_at: "2026-11-27T10:00:00.000Z",
}
const account = (over: Partial<SecurityHubAccount> = {}): SecurityHubAccount => ({
  account_id: 4 as SecurityHubAccount["account_id"], account_name: "Production", cloud_account_id: "111122223333", enabled: false, regions: [],
  last_export: null, ...over,
})
const issue = (key: string, resource: string | null, closed = false): JiraIssue => ({
  account_id: 4 as JiraIssue["account_id"], check_id: "s3_bucket_versioning_enabled", resource_uid: resource, issue_key: key,
  issue_url: `https://acme.atlassian.net/browse/${key}`, status_name: closed ? "Done" : "To Do", status_category: closed ? "done" : "new",
  closed, refreshed_at: null, created_at: "2026-11-27T10:00:00.000Z",
})

const renderAt = async (path: string, effects: Partial<IntegrationsEffects>, page: ReactNode) => {
  const clock = new SimulatedClock()
  clock.set(Date.parse("2026-11-27T12:00:00.000Z"))
  render(
    <SessionStatusContext value="authenticated">
      <IntegrationsEffectsProvider effects={{ ...UNWIRED_INTEGRATIONS_EFFECTS, ...effects }}>
        <App clock={clock} location={memoryLocation({ path })}>
          <Switch>
            <Route path={path}>{page}</Route>
          </Switch>
        </App>
      </IntegrationsEffectsProvider>
    </SessionStatusContext>,
  )
  await settle()
}

describe("Integrations settings page", () => {
  it("saves the Jira connection with the typed labels, never showing the token", async () => {
    const saved: Array<JiraConnectionPayload> = []
    await renderAt("/dashboard/settings/integrations", {
      loadIntegrations: async () => ({ jira: null, accounts: [] }),
      saveJira: async (payload) => {
        saved.push(payload)
        return { message: JiraMessages.connectionSaved, data: connection }
      },
    }, <IntegrationsView />)
    const form = screen.getByRole("form", { name: "Jira connection" })
    fireEvent.click(within(form).getByRole("button", { name: "Save Jira connection" }))
    await settle()
    expect(within(form).getByText(JiraMessages.siteUrlInvalid)).toBeTruthy()
    expect(within(form).getByText(JiraMessages.tokenRequired)).toBeTruthy()
    fireEvent.change(within(form).getByLabelText("Jira site"), { target: { value: "https://acme.atlassian.net" } })
    fireEvent.change(within(form).getByLabelText("Account email"), { target: { value: "bot@acme.io" } })
    fireEvent.change(within(form).getByLabelText("API token"), { target: { value: "t0ken" } })
    fireEvent.change(within(form).getByLabelText("Project key"), { target: { value: "SEC" } })
    fireEvent.change(within(form).getByLabelText("Labels"), { target: { value: "security, audit" } })
    fireEvent.click(within(form).getByRole("button", { name: "Save Jira connection" }))
    await settle()
    expect(saved).toEqual([{ site_url: "https://acme.atlassian.net", email: "bot@acme.io", api_token: "t0ken", project_key: "SEC", issue_type: "Task", labels: ["security", "audit"] }])
    expect((within(form).getByLabelText("API token") as HTMLInputElement).value).toBe("")
    expect(screen.getByText(JiraMessages.connectionSaved)).toBeTruthy()
    expect(within(form).getByRole("button", { name: "Test connection" })).toBeTruthy()
  })

  it("refuses an enabled Security Hub export without a region, then saves it and shows the last export", async () => {
    const calls: Array<unknown> = []
    await renderAt("/dashboard/settings/integrations", {
      loadIntegrations: async () => ({
        jira: connection,
        accounts: [account({ last_export: { at: "2026-11-27T11:00:00.000Z", scan_id: 9 as never, status: "partial", message: "Security Hub rejected 1 finding: InvalidInput: bad", sent: 3, archived: 0, failed: 1 } })],
      }),
      saveSecurityHub: async (input) => {
        calls.push(input)
        return { message: SecurityHubMessages.settingsSaved, data: account({ enabled: true, regions: ["eu-west-1"] }) }
      },
    }, <IntegrationsView />)
    const section = screen.getByRole("region", { name: "Security Hub export of Production" })
    expect(within(section).getAllByText("Security Hub rejected 1 finding: InvalidInput: bad").length).toBeGreaterThan(0)
    fireEvent.click(within(section).getByRole("checkbox", { name: "Send findings to Security Hub after each scan" }))
    fireEvent.click(within(section).getByRole("button", { name: "Save" }))
    await settle()
    expect(within(section).getByText(SecurityHubMessages.regionRequired)).toBeTruthy()
    expect(calls).toEqual([])
    fireEvent.change(within(section).getByLabelText("Regions"), { target: { value: "eu-west-1" } })
    fireEvent.click(within(section).getByRole("button", { name: "Save" }))
    await settle()
    expect(calls).toEqual([{ accountId: 4, settings: { enabled: true, regions: ["eu-west-1"] } }])
    expect(screen.getByText(SecurityHubMessages.settingsSaved)).toBeTruthy()
  })
})

describe("the finding page's Jira panel", () => {
  it("lists issues with a Closed mark and creates one for the finding", async () => {
    const created: Array<unknown> = []
    await renderAt("/dashboard/scans/1/findings/7", {
      findingIssues: async () => [issue("SEC-2", "arn:aws:s3:::logs", true)],
      createIssues: async (input) => {
        created.push(input)
        return { ok: true, message: JiraMessages.created(["SEC-3"]), data: { created: [issue("SEC-3", null)], existing: [] } }
      },
    }, <FindingJiraCard findingId={7} canCreate viewerKnown hasFailing />)
    const list = screen.getByRole("list", { name: "Jira issues" })
    expect(within(list).getByText("Closed · Done")).toBeTruthy()
    expect(within(list).getByRole("link", { name: "SEC-2" }).getAttribute("href")).toBe("https://acme.atlassian.net/browse/SEC-2")
    fireEvent.click(screen.getByRole("button", { name: "Create Jira issue" }))
    await settle()
    expect(created).toEqual([{ findingId: 7, mode: "finding" }])
    expect(within(screen.getByRole("list", { name: "Jira issues" })).getByText("Whole finding")).toBeTruthy()
    expect(screen.getByText(JiraMessages.created(["SEC-3"]))).toBeTruthy()
  })
})
