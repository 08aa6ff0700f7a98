// @vitest-environment happy-dom
/**
 * The API keys settings page (issue 33) rendered with fake effects inside the app's root (toasts, router): the keys
 * with their role, last use and status; creating one in the dialog (a refused role shown there, then the secret shown
 * once until dismissed); revoking one only after the confirmation.
 */
import { act, cleanup, fireEvent, render, screen, within } from "@testing-library/react"
import { afterEach, describe, expect, it } from "vitest"
import { Route, Switch } from "wouter"
import { memoryLocation } from "wouter/memory-location"
import { SimulatedClock } from "xstate"
import { type ApiKey, ApiKeyMessages, type CreateApiKeyPayload } from "../../src/contracts/api-keys.ts"
import type { ApiKeysEffects, ApiKeysLoaded } from "../../src/machines/api-keys-effects.ts"
import { App } from "../../src/views/app.tsx"
import { preloadScreens } from "../../src/views/routes.tsx"
import { SessionStatusContext } from "../../src/views/session-status.tsx"
import { ApiKeysEffectsProvider } from "../../src/views/settings/api-keys-effects-context.tsx"
import { ApiKeysView } from "../../src/views/settings/api-keys.view.tsx"
import { flush, httpFailure } from "../machines/auth-fakes.ts"

await preloadScreens()
afterEach(cleanup)

const settle = async (): Promise<void> => {
  for (let i = 0; i < 3; i += 1) await act(async () => flush())
}

const key = (id: number, over: Partial<ApiKey> = {}): ApiKey => ({
  id: id as ApiKey["id"], name: `Key ${id}`, role_id: 3 as ApiKey["role_id"], is_custom_role: false, role_name: "Auditor",
  account_group_ids: null, prefix: "ca_live_", last_four: "wxyz",
  created_by: { id: 1 as ApiKey["created_by"]["id"], email: "ann@example.com", name: "Ann Lee" },
  created_at: "2026-11-27T10:00:00.000Z", expires_at: "2027-02-25T10:00:00.000Z", last_used_at: "2026-11-27T11:00:00.000Z",
  last_used_ip: "203.0.113.7", revoked_at: null, status: "active", ...over,
})

const loaded = (keys: ReadonlyArray<ApiKey>): ApiKeysLoaded => ({
  keys, roles: [{ id: 3, name: "Auditor", isCustom: false }, { id: 2, name: "Security Engineer", isCustom: false }], groups: [{ id: 7, name: "Prod" }],
})

const SECRET = `ca_live_${"s".repeat(43)}`

const renderPage = async (effects: Partial<ApiKeysEffects>) => {
  const clock = new SimulatedClock()
  clock.set(Date.parse("2026-11-27T12:00:00.000Z"))
  const full: ApiKeysEffects = {
    loadApiKeys: async () => loaded([]),
    createApiKey: async () => Promise.reject(new Error("unused")),
    revokeApiKey: async () => Promise.reject(new Error("unused")),
    ...effects,
  }
  render(
    <SessionStatusContext value="authenticated">
      <ApiKeysEffectsProvider effects={full}>
        <App clock={clock} location={memoryLocation({ path: "/dashboard/settings/api-keys" })}>
          <Switch>
            <Route path="/dashboard/settings/api-keys">
              <ApiKeysView />
            </Route>
          </Switch>
        </App>
      </ApiKeysEffectsProvider>
    </SessionStatusContext>,
  )
  await settle()
}

describe("API keys settings page", () => {
  it("lists keys with role, masked secret, creator, last use and status", async () => {
    await renderPage({ loadApiKeys: async () => loaded([key(1), key(2, { status: "revoked", revoked_at: "2026-11-27T11:30:00.000Z" })]) })
    const card = screen.getByRole("listitem", { name: "Key 1" })
    expect(within(card).getByText("ca_live_…wxyz")).toBeTruthy()
    expect(within(card).getByText("Auditor")).toBeTruthy()
    expect(within(card).getByText("Ann Lee")).toBeTruthy()
    expect(within(card).getByText(/from 203\.0\.113\.7/)).toBeTruthy()
    expect(within(card).getByRole("button", { name: "Revoke" })).toBeTruthy()
    const revoked = screen.getByRole("listitem", { name: "Key 2" })
    expect(within(revoked).getAllByText("Revoked").length).toBeGreaterThan(0)
    expect(within(revoked).queryByRole("button", { name: "Revoke" })).toBeNull()
  })

  it("creates a key in the dialog: a refused role is shown there, then the secret once", async () => {
    const sent: Array<CreateApiKeyPayload> = []
    await renderPage({
      createApiKey: async (payload) => {
        sent.push(payload)
        if (sent.length === 1) throw httpFailure("generic", 403, { _tag: "Forbidden", message: ApiKeyMessages.roleTooWide })
        return { message: ApiKeyMessages.created, key: key(9, { name: payload.name }), secret: SECRET }
      },
    })
    fireEvent.click(screen.getByRole("button", { name: "Create API key" }))
    await settle()
    const dialog = screen.getByRole("dialog", { name: "Create API key" })
    fireEvent.change(within(dialog).getByRole("textbox", { name: /^Name/ }), { target: { value: "CI pipeline" } })
    fireEvent.click(within(dialog).getByRole("checkbox", { name: "Prod" }))
    await settle()
    await act(async () => {
      fireEvent.submit(within(dialog).getByRole("form", { name: "New API key" }))
    })
    await settle()
    expect(sent[0]).toEqual({ name: "CI pipeline", role_id: 3, is_custom_role: false, expires_in_days: 90, account_group_ids: [7] })
    expect(within(screen.getByRole("dialog", { name: "Create API key" })).getByText(ApiKeyMessages.roleTooWide)).toBeTruthy()
    await act(async () => {
      fireEvent.submit(within(screen.getByRole("dialog", { name: "Create API key" })).getByRole("form", { name: "New API key" }))
    })
    await settle()
    expect(screen.queryByRole("dialog", { name: "Create API key" })).toBeNull()
    const secret = screen.getByRole("region", { name: "New API key secret" })
    expect(within(secret).getByText(SECRET)).toBeTruthy()
    expect(within(secret).getByRole("button", { name: "Copy secret" })).toBeTruthy()
    fireEvent.click(within(secret).getByRole("button", { name: "I have copied it" }))
    await settle()
    expect(screen.queryByText(SECRET)).toBeNull()
    expect(screen.getByRole("listitem", { name: "CI pipeline" })).toBeTruthy()
  })

  it("revokes a key only after the confirmation", async () => {
    const revoked: Array<number> = []
    let loads = 0
    await renderPage({
      loadApiKeys: async () => loaded([loads++ === 0 ? key(1) : key(1, { status: "revoked", revoked_at: "2026-11-27T12:00:00.000Z" })]),
      revokeApiKey: async (id) => {
        revoked.push(id)
        return ApiKeyMessages.revoked
      },
    })
    fireEvent.click(within(screen.getByRole("listitem", { name: "Key 1" })).getByRole("button", { name: "Revoke" }))
    await settle()
    const confirm = screen.getByRole("alertdialog", { name: "Revoke API key" })
    fireEvent.click(within(confirm).getByRole("button", { name: "Keep key" }))
    await settle()
    expect(revoked).toEqual([])
    fireEvent.click(within(screen.getByRole("listitem", { name: "Key 1" })).getByRole("button", { name: "Revoke" }))
    await settle()
    fireEvent.click(within(screen.getByRole("alertdialog", { name: "Revoke API key" })).getByRole("button", { name: "Revoke key" }))
    await settle()
    expect(revoked).toEqual([1])
    expect(within(screen.getByRole("listitem", { name: "Key 1" })).queryByRole("button", { name: "Revoke" })).toBeNull()
  })
})
