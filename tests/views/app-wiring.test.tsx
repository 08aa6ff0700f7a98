// @vitest-environment happy-dom
/**
 * The composed SPA (src/app-composition.ts + <App composition>) on the real services (API client, query cache,
 * storage, session signals) against a scripted `fetch` and a simulated clock, on the browser location: the session
 * feeds the authentication gate, the dashboard gates run in the shell, and every hand-off (login → session, sign-out,
 * expiry) reaches the wire, storage and the router.
 */
import { act, cleanup, fireEvent, render, screen, waitFor, within } from "@testing-library/react"
import { afterEach, describe, expect, it } from "vitest"
import { navigate } from "wouter/use-browser-location"
import { composeApp, type ComposedApp } from "../../src/app-composition.ts"
import { createAppServices } from "../../src/services/app-services.ts"
import { memoryStorage, parseWorkspaceState } from "../../src/services/storage.ts"
import { App } from "../../src/views/app.tsx"
import { advance, json, newClock, scriptedFetch, type RecordedCall } from "../services/support.ts"
import { preloadScreens } from "../../src/views/routes.tsx"

// Every screen but sign-in loads lazily; fetched up front, rendering a route is synchronous as in a warm browser.
await preloadScreens()

const user = {
  id: 7,
  email: "ada@example.com",
  email_verified: true,
  first_name: "Ada",
  last_name: "Lovelace",
  workspace_name: "Acme Security",
  roles: [],
  timezone: null,
}
interface WorkspaceRow {
  readonly workspace_id: number
  readonly workspace_name: string
  readonly is_owner: boolean
  readonly role: string | null
  readonly member_count: number
  readonly joined_at: string
}
const acme: WorkspaceRow = { workspace_id: 1, workspace_name: "Acme Security", is_owner: true, role: null, member_count: 2, joined_at: "2025-01-01T00:00:00Z" }
const globex: WorkspaceRow = { workspace_id: 2, workspace_name: "Globex", is_owner: false, role: "Auditor", member_count: 5, joined_at: "2025-02-01T00:00:00Z" }
const ownerPermissions = { ok: true, is_owner: true, roles: [{ id: 1, name: "Admin", permissions: [{ id: 2, name: "create_user" }] }], custom_roles: [] }
const auditorPermissions = { ok: true, is_owner: false, roles: [{ id: 3, name: "Auditor", permissions: [{ id: 12, name: "read_only" }] }], custom_roles: [] }

type Route = (call: RecordedCall) => Response | undefined

/** The default answers of a healthy backend; `override` answers first (undefined = fall through). */
const backend =
  (override: Route = () => undefined, state: { readonly workspaces: ReadonlyArray<WorkspaceRow>; readonly permissions: object } = { workspaces: [acme], permissions: ownerPermissions }) =>
  (call: RecordedCall): Response => {
    const answer = override(call)
    if (answer !== undefined) return answer
    const path = new URL(call.url, "http://app.test").pathname
    switch (`${call.method} ${path}`) {
      case "POST /api/login":
        return json(200, { access_token: "access-1", refresh_token: "refresh-1", data: user })
      case "GET /api/user-info":
        return json(200, { ok: true, data: user })
      case "GET /api/workspaces":
        return json(200, { ok: true, data: state.workspaces })
      case "POST /api/user/switch-workspace":
        return json(200, { access_token: "access-ws", refresh_token: "refresh-ws", data: { workspace_id: 1, workspace_name: "Acme Security" } })
      case "GET /api/user/permissions":
        return json(200, state.permissions)
      case "POST /api/logout":
        return json(200, { ok: true, message: "Logged out" })
      default:
        return json(404, { _tag: "NotFound", message: `no route ${call.method} ${path}` })
    }
  }

interface Setup {
  readonly path: string
  readonly stored?: Record<string, string>
  readonly route?: (call: RecordedCall) => Response
}

let composed: ComposedApp | undefined

afterEach(() => {
  cleanup()
  composed?.dispose()
  composed = undefined
})

const start = ({ path, stored = {}, route = backend() }: Setup) => {
  window.history.replaceState(null, "", path)
  const clock = newClock()
  const local = memoryStorage(stored)
  const wire = scriptedFetch(clock, route)
  const services = createAppServices({ fetch: wire.fetch, clock, isProduction: false, local, sessionStorage: memoryStorage() })
  composed = composeApp(services, {
    navigate: (to, { replace, state }) => navigate(to, { ...(replace === undefined ? {} : { replace }), state: state ?? null }),
    origin: "http://app.test",
  })
  render(<App clock={clock} composition={composed} />)
  const calls = (method: string, path: string) =>
    wire.calls.filter((c) => c.method === method && new URL(c.url, "http://app.test").pathname === path)
  return { clock, local, wire, calls, services, session: composed.session }
}

const signedIn = { access_token: "access-1", refresh_token: "refresh-1", user_email: "ada@example.com" }
const selected = (id: number) => JSON.stringify({ state: { selectedWorkspaceId: id, lastAccessedWorkspaces: {}, newlyAddedWorkspaces: {} }, version: 0 })

const pathname = () => window.location.pathname

describe("composed app: authentication gate on the session", () => {
  it("a signed-out visitor of an authenticated page lands on /login, keeping the origin", async () => {
    const { wire } = start({ path: "/dashboard/users" })
    expect(await screen.findByRole("heading", { level: 1, name: "Sign in" })).toBeTruthy()
    expect(pathname()).toBe("/login")
    expect(window.history.state).toEqual({ from: "/dashboard/users" })
    expect(wire.calls).toEqual([])
  })

  it("signs in: login → user → workspaces → the only workspace is selected → /dashboard in the shell", async () => {
    const { calls, local } = start({ path: "/login" })
    fireEvent.change(await screen.findByLabelText("Email", { selector: "input" }), { target: { value: "ada@example.com" } })
    fireEvent.change(screen.getByLabelText("Password", { selector: "input" }), { target: { value: "Secret123" } })
    fireEvent.click(screen.getByRole("button", { name: "Sign in" }))
    await waitFor(() => expect(pathname()).toBe("/dashboard"))
    expect(await screen.findByRole("navigation", { name: "Main" })).toBeTruthy()
    expect(calls("POST", "/api/login")).toHaveLength(1)
    expect(calls("GET", "/api/user-info").length).toBeGreaterThanOrEqual(1)
    expect(calls("POST", "/api/user/switch-workspace").map((c) => c.body)).toEqual([{ workspace_id: 1 }])
    expect(local.getItem("access_token")).toBe("access-ws")
    expect(parseWorkspaceState(local.getItem("workspace-store")).selectedWorkspaceId).toBe(1)
    // The dashboard's calls carry the selected workspace.
    await waitFor(() => expect(calls("GET", "/api/user/permissions").length).toBeGreaterThan(0))
    expect(calls("GET", "/api/user/permissions").at(-1)?.headers["x-workspace-id"]).toBe("1")
  })

  it("with several workspaces the sign-in goes to /workspace-selection", async () => {
    start({ path: "/login", route: backend(undefined, { workspaces: [acme, globex], permissions: ownerPermissions }) })
    fireEvent.change(await screen.findByLabelText("Email", { selector: "input" }), { target: { value: "ada@example.com" } })
    fireEvent.change(screen.getByLabelText("Password", { selector: "input" }), { target: { value: "Secret123" } })
    fireEvent.click(screen.getByRole("button", { name: "Sign in" }))
    await waitFor(() => expect(pathname()).toBe("/workspace-selection"))
    expect(await screen.findByText("Globex")).toBeTruthy()
  })

  it("a stored session shows 'Authenticating...' until the user is loaded, then the page", async () => {
    let release: (() => void) | undefined
    const gate = new Promise<void>((resolve) => (release = resolve))
    const route = backend()
    start({
      path: "/dashboard",
      stored: { ...signedIn, "workspace-store": selected(1) },
      route: (call) => (call.url.endsWith("/api/user-info") ? gate.then(() => route(call)) : route(call)) as unknown as Response,
    })
    expect(screen.getAllByText("Authenticating...").length).toBeGreaterThan(0)
    await act(async () => release?.())
    expect(await screen.findByRole("navigation", { name: "Main" })).toBeTruthy()
    expect(pathname()).toBe("/dashboard")
  })

  it("an unavailable user (server trouble) shows the error with Retry; Retry loads it again", async () => {
    let failing = true
    const { clock, calls } = start({
      path: "/dashboard",
      stored: { ...signedIn, "workspace-store": selected(1) },
      route: backend((call) =>
        failing && call.url.endsWith("/api/user-info") ? json(503, { _tag: "ServerError", message: "down" }) : undefined,
      ),
    })
    await advance(clock, 10_000, 250)
    expect(await screen.findByText("We're experiencing technical difficulties. Please try again later.")).toBeTruthy()
    const before = calls("GET", "/api/user-info").length
    failing = false
    fireEvent.click(screen.getByRole("button", { name: "Retry" }))
    expect(await screen.findByRole("navigation", { name: "Main" })).toBeTruthy()
    expect(calls("GET", "/api/user-info").length).toBeGreaterThan(before)
  })

  it("a refused stored session (refresh fails) goes to /login with the expiry message as an error", async () => {
    const { local } = start({
      path: "/dashboard",
      stored: { ...signedIn, "workspace-store": selected(1) },
      route: backend((call) => {
        if (call.url.endsWith("/api/user-info")) return json(401, { _tag: "Unauthorized", message: "Token expired" })
        if (call.url.endsWith("/api/refresh-token")) return json(401, { _tag: "Unauthorized", message: "Invalid refresh token" })
        return undefined
      }),
    })
    const alert = await screen.findByRole("alert")
    expect(alert.textContent).toContain("Your session has expired. Please sign in again.")
    expect(pathname()).toBe("/login")
    expect(local.getItem("access_token")).toBeNull()
    expect(local.getItem("refresh_token")).toBeNull()
  })

  it("signing out clears tokens and workspace data and goes to /login", async () => {
    const { local, calls, session } = start({ path: "/dashboard", stored: { ...signedIn, "workspace-store": selected(1) } })
    await screen.findByRole("navigation", { name: "Main" })
    act(() => session.send({ type: "session.logoutRequested" }))
    await waitFor(() => expect(pathname()).toBe("/login"))
    expect(calls("POST", "/api/logout").map((c) => c.body)).toEqual([{ refresh_token: "refresh-1" }])
    expect(local.getItem("access_token")).toBeNull()
    expect(parseWorkspaceState(local.getItem("workspace-store")).selectedWorkspaceId).toBeNull()
    expect(await screen.findByRole("heading", { level: 1, name: "Sign in" })).toBeTruthy()
  })
})

describe("composed app: workspace gate", () => {
  it("no selected workspace → /workspace-selection", async () => {
    start({ path: "/dashboard", stored: signedIn, route: backend(undefined, { workspaces: [acme, globex], permissions: ownerPermissions }) })
    await waitFor(() => expect(pathname()).toBe("/workspace-selection"))
  })

  it("a selected workspace that vanished from the list is cleared → /workspace-selection", async () => {
    const { local } = start({ path: "/dashboard", stored: { ...signedIn, "workspace-store": selected(99) } })
    await waitFor(() => expect(pathname()).toBe("/workspace-selection"))
    expect(parseWorkspaceState(local.getItem("workspace-store")).selectedWorkspaceId).toBeNull()
  })

  it("a load error shows 'Error loading workspaces' with Retry and 'Select workspace'", async () => {
    let failing = true
    const { clock, calls } = start({
      path: "/dashboard",
      stored: { ...signedIn, "workspace-store": selected(1) },
      route: backend((call) =>
        failing && call.url.endsWith("/api/workspaces") ? json(500, { _tag: "ServerError", message: "boom" }) : undefined,
      ),
    })
    await advance(clock, 60_000, 500)
    expect(await screen.findByText("Error loading workspaces")).toBeTruthy()
    expect(screen.getByRole("button", { name: "Select workspace" })).toBeTruthy()
    failing = false
    const before = calls("GET", "/api/workspaces").length
    fireEvent.click(screen.getByRole("button", { name: "Retry" }))
    expect(await screen.findByRole("navigation", { name: "Main" })).toBeTruthy()
    expect(calls("GET", "/api/workspaces").length).toBeGreaterThan(before)
  })

  it("'Select workspace' on the load error goes to /workspace-selection", async () => {
    const { clock } = start({
      path: "/dashboard",
      stored: { ...signedIn, "workspace-store": selected(1) },
      route: backend((call) => (call.url.endsWith("/api/workspaces") ? json(500, { _tag: "ServerError", message: "boom" }) : undefined)),
    })
    await advance(clock, 60_000, 500)
    fireEvent.click(await screen.findByRole("button", { name: "Select workspace" }))
    await waitFor(() => expect(pathname()).toBe("/workspace-selection"))
  })
})

describe("composed app: permission gate", () => {
  it("a page the user may not see redirects to /dashboard with the message shown as an error", async () => {
    start({
      path: "/dashboard/users",
      stored: { ...signedIn, "workspace-store": selected(2) },
      route: backend(undefined, { workspaces: [globex], permissions: auditorPermissions }),
    })
    await waitFor(() => expect(pathname()).toBe("/dashboard"))
    const message = await screen.findByText("You do not have permission to access this page")
    const alert = message.closest('[role="alert"]')
    expect(alert).not.toBeNull()
    expect(screen.queryByRole("heading", { level: 1, name: "User Management" })).toBeNull()
    fireEvent.click(within(alert as HTMLElement).getByRole("button", { name: "Dismiss message" }))
    await waitFor(() => expect(screen.queryByText("You do not have permission to access this page")).toBeNull())
  })

  it("a permitted page renders (owner on /dashboard/users)", async () => {
    start({ path: "/dashboard/users", stored: { ...signedIn, "workspace-store": selected(1) } })
    expect(await screen.findByRole("heading", { level: 1, name: "User Management" })).toBeTruthy()
    expect(pathname()).toBe("/dashboard/users")
  })
})
