/**
 * The workspace selection, invitation and shell effects built from the real SPA services (API client, query cache,
 * storage) against a scripted `fetch`: what reaches the wire, what lands in storage.
 */
import { describe, expect, it } from "vitest"
import { createActor, waitFor } from "xstate"
import { createAppServices } from "../../src/services/app-services.ts"
import { memoryStorage, parseWorkspaceState } from "../../src/services/storage.ts"
import { invitationEffectsFromServices } from "../../src/machines/invitation-effects.ts"
import { shellEffectsFromServices } from "../../src/machines/shell.machine.ts"
import {
  workspaceSelectionEffectsFromServices,
  workspaceSelectionImplementations,
  workspaceSelectionMachine,
} from "../../src/machines/workspace-selection.machine.ts"
import type { NavigateParams } from "../../src/machines/auth-effects.ts"
import type { SessionHandOff, ToastRequest } from "../../src/machines/screen-environment.ts"
import { json, newClock, scriptedFetch, type RecordedCall } from "../services/support.ts"

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
const workspaces = [
  { workspace_id: 1, workspace_name: "Acme Security", is_owner: true, role: null, member_count: 2, joined_at: "2025-01-01T00:00:00Z" },
  { workspace_id: 2, workspace_name: "Globex", is_owner: false, role: "Auditor", member_count: 5, joined_at: "2025-02-01T00:00:00Z" },
]

const route = (call: RecordedCall): Response => {
  const path = new URL(call.url, "http://app.test").pathname
  switch (`${call.method} ${path}`) {
    case "GET /api/workspaces":
      return json(200, { ok: true, data: workspaces })
    case "POST /api/user/switch-workspace":
      return json(200, { access_token: "access-ws2", refresh_token: "refresh-ws2", data: { workspace_id: 2, workspace_name: "Globex" } })
    case "GET /api/user-info":
      return json(200, { ok: true, data: user })
    case "POST /api/workspaces/accept-invitation":
      return json(200, { ok: true, message: "Invitation accepted", data: { workspace_id: 2, workspace_name: "Globex" } })
    case "GET /api/user/permissions":
      return json(200, {
        ok: true,
        is_owner: false,
        roles: [{ id: 3, name: "Auditor", permissions: [{ id: 12, name: "read_only" }] }],
        custom_roles: [{ id: 101, name: "Inviter", permissions: [{ id: 2, name: "create_user" }] }],
      })
    case "POST /api/invitations/accept":
      return json(200, { ok: true, message: "Invitation accepted", data: { workspace_id: 2, workspace_name: "Globex" } })
    default:
      return json(404, { _tag: "NotFound", message: `no route ${call.method} ${path}` })
  }
}

const setup = () => {
  const clock = newClock()
  const local = memoryStorage({ access_token: "access-1", refresh_token: "refresh-1" })
  const session = memoryStorage({ pending_workspace_invitation: "inv-token-1" })
  const wire = scriptedFetch(clock, route)
  const services = createAppServices({ fetch: wire.fetch, clock, isProduction: false, local, sessionStorage: session })
  return { clock, local, session, wire, services }
}

describe("workspace selection on the real services", () => {
  it("accepts the invitation, loads, switches: tokens, selection, badge and name land in storage; later calls carry X-Workspace-ID", async () => {
    const { local, session, wire, services } = setup()
    const navigations: NavigateParams[] = []
    const toasts: ToastRequest[] = []
    let userRefreshed = 0
    const effects = workspaceSelectionEffectsFromServices(services, { signOut: () => {}, userRefreshed: () => void (userRefreshed += 1) })
    const actor = createActor(
      workspaceSelectionMachine.provide(
        workspaceSelectionImplementations(effects, { navigate: (p) => void navigations.push(p), notify: (t) => void toasts.push(t) }),
      ),
      { input: { invitationToken: "inv-token-1", store: effects.readWorkspaceStore(), now: effects.now } },
    ).start()
    try {
      await waitFor(actor, (s) => s.matches({ active: "ready" }))
      expect(toasts).toEqual([{ kind: "success", message: "You've been added to Globex", durationMs: 5000 }])
      expect(session.getItem("pending_workspace_invitation")).toBeNull()
      expect(parseWorkspaceState(local.getItem("workspace-store")).newlyAddedWorkspaces).toHaveProperty("2")

      actor.send({ type: "workspace.selected", workspaceId: 2 })
      await waitFor(actor, (s) => s.status === "done")
      expect(navigations).toEqual([{ to: "/dashboard" }])
      expect(local.getItem("access_token")).toBe("access-ws2")
      expect(local.getItem("refresh_token")).toBe("refresh-ws2")
      expect(local.getItem("workspace_name")).toBe("Globex")
      const stored = parseWorkspaceState(local.getItem("workspace-store"))
      expect(stored.selectedWorkspaceId).toBe(2)
      expect(stored.lastAccessedWorkspaces).toHaveProperty("2")
      expect(stored.newlyAddedWorkspaces).toEqual({})
      expect(userRefreshed).toBe(1)

      const calls = wire.calls.map((c) => `${c.method} ${new URL(c.url, "http://app.test").pathname}`)
      expect(calls).toEqual([
        "POST /api/workspaces/accept-invitation",
        "GET /api/workspaces",
        "POST /api/user/switch-workspace",
        "GET /api/user-info",
      ])
      expect(wire.calls[0]?.body).toEqual({ invitation_token: "inv-token-1" })
      expect(wire.calls[2]?.body).toEqual({ workspace_id: 2 })
      // The user refresh after the switch already uses the new token and workspace.
      expect(wire.calls[3]?.headers["authorization"]).toBe("Bearer access-ws2")
      expect(wire.calls[3]?.headers["x-workspace-id"]).toBe("2")
    } finally {
      actor.stop()
      services.dispose()
    }
  })
})

describe("shell facts on the real services", () => {
  it("composes email, selected workspace, role names, union of permissions and workspace count", async () => {
    const { services } = setup()
    services.workspaceStore.update((s) => ({ ...s, selectedWorkspaceId: 2 }))
    const effects = shellEffectsFromServices(services, { signOut: () => {} })
    try {
      expect(await effects.loadShell()).toEqual({
        email: "ada@example.com",
        firstName: "Ada",
        lastName: "Lovelace",
        workspaceName: "Globex",
        isOwner: false,
        roleNames: ["Auditor", "Inviter"],
        permissions: ["create_user", "read_only"],
        workspaceCount: 2,
      })
    } finally {
      services.dispose()
    }
  })

  it("reports a change of the workspace store or of a watched query", async () => {
    const { services } = setup()
    const effects = shellEffectsFromServices(services, { signOut: () => {} })
    let changes = 0
    const stop = effects.watchShellData(() => void (changes += 1))
    try {
      services.workspaceStore.update((s) => ({ ...s, selectedWorkspaceId: 1 }))
      expect(changes).toBe(1)
      const q = services.queries.user()
      await services.cache.refetch(q.key, q.fetch)
      expect(changes).toBeGreaterThan(1)
      stop()
      const before = changes
      services.workspaceStore.update((s) => ({ ...s, selectedWorkspaceId: 2 }))
      expect(changes).toBe(before)
    } finally {
      services.dispose()
    }
  })
})

describe("invitation effects on the real services", () => {
  it("accepting drops the cached workspace list; tokens go to the session hook", async () => {
    const { services } = setup()
    const handOffs: SessionHandOff[] = []
    const effects = invitationEffectsFromServices(services, { startSession: async (h) => void handOffs.push(h) })
    try {
      const q = services.queries.workspaces()
      await services.cache.fetchQuery(q.key, q.fetch)
      expect(services.cache.getState(q.key).status).toBe("success")
      await effects.acceptInvitation({ invitation_token: "tok", timezone: "UTC" })
      expect(services.cache.getState(q.key).isInvalidated).toBe(true)
      await effects.startSession({ accessToken: "a", refreshToken: "r" })
      expect(handOffs).toEqual([{ accessToken: "a", refreshToken: "r" }])
    } finally {
      services.dispose()
    }
  })
})
