import { describe, expect, it } from "vitest"
import fc from "fast-check"
import { createActor, fromCallback } from "xstate"
import {
  ADMIN_REQUIREMENT,
  PERMISSIONS,
  USER_MANAGEMENT_PERMISSIONS,
  type PermissionName,
  type PermissionRequirement,
} from "../../src/contracts/permissions.ts"
import type { UserPermissionsResponse } from "../../src/contracts/workspaces.ts"
import type { NavigationRequest } from "../../src/machines/navigation.ts"
import {
  PERMISSION_DENIED_REDIRECT,
  decidePermissionGate,
  permissionGateMachine,
  permissionGateMachineWith,
  requiredPermissionsFor,
  type PermissionsQuery,
} from "../../src/machines/permission-gate.machine.ts"
import { createQueryCache, queryKeys } from "../../src/services/query-cache.ts"
import { createWorkspaceStore, memoryStorage, selectWorkspace } from "../../src/services/storage.ts"
import { coverTransitions, formatCoverage } from "../support/graph.ts"
import { deferred, flush, newClock } from "../services/support.ts"
import { apiError } from "./session.fixtures.ts"

const answer = (perms: ReadonlyArray<string>, isOwner = false, custom: ReadonlyArray<string> = []): UserPermissionsResponse =>
  ({
    is_owner: isOwner,
    roles: [{ id: 2, name: "Role", permissions: perms.map((name, i) => ({ id: i + 1, name })) }],
    custom_roles: custom.length === 0 ? [] : [{ id: 101, name: "Custom", is_custom: true, permissions: custom.map((name, i) => ({ id: 50 + i, name })) }],
  }) as unknown as UserPermissionsResponse

const loaded = (a: UserPermissionsResponse): PermissionsQuery => ({ status: "success", data: a, error: undefined, isFetching: false })

describe("route requirements (access §2)", () => {
  it.each([
    ["/dashboard/accounts/12", ["create_account", "read_only"]],
    ["/dashboard/scans", ["scan_service", "read_only"]],
    ["/dashboard/scans/3", ["scan_service", "read_only"]],
    ["/dashboard/scans/3/findings/4?x=1", ["scan_service", "read_only"]],
    ["/dashboard/users", [...USER_MANAGEMENT_PERMISSIONS]],
    ["/dashboard/storage", { all: [...PERMISSIONS] }],
    ["/dashboard/settings/account-groups", { all: [...PERMISSIONS] }],
    ["/dashboard", null],
    ["/dashboard/profile", null],
  ] as const)("%s needs any of %j", (path, expected) => {
    expect(requiredPermissionsFor(path)).toEqual(expected)
  })
})

describe("decidePermissionGate", () => {
  const permsArb = fc.subarray([...PERMISSIONS])
  const requiredArb = fc.subarray([...PERMISSIONS], { minLength: 1 })

  it("allowed exactly when one required permission is held through a built-in or custom role (property)", () => {
    fc.assert(
      fc.property(permsArb, permsArb, requiredArb, fc.boolean(), (builtIn, custom, required, upper) => {
        const shown = (xs: ReadonlyArray<string>) => (upper ? xs.map((x) => x.toUpperCase()) : xs)
        const d = decidePermissionGate({ required, permissions: loaded(answer(shown(builtIn), false, shown(custom))) })
        const held = new Set<string>([...builtIn, ...custom])
        const expected = required.some((p: PermissionName) => held.has(p))
        expect(d).toEqual(expected ? { kind: "render" } : { kind: "denied", redirect: PERMISSION_DENIED_REDIRECT })
      }),
    )
  })

  it("an admin page (issue 30) needs all 12 permissions, held through any roles, or the owner (property)", () => {
    fc.assert(
      fc.property(permsArb, permsArb, fc.boolean(), (builtIn, custom, owner) => {
        const d = decidePermissionGate({ required: ADMIN_REQUIREMENT, permissions: loaded(answer(builtIn, owner, custom)) })
        const held = new Set<string>([...builtIn, ...custom])
        const expected = owner || PERMISSIONS.every((p) => held.has(p))
        expect(d).toEqual(expected ? { kind: "render" } : { kind: "denied", redirect: PERMISSION_DENIED_REDIRECT })
      }),
    )
    const all = decidePermissionGate({ required: ADMIN_REQUIREMENT, permissions: loaded(answer([...PERMISSIONS].slice(0, 6), false, [...PERMISSIONS].slice(6))) })
    expect(all).toEqual({ kind: "render" })
  })

  it("the owner holds every permission", () => {
    fc.assert(
      fc.property(requiredArb, (required) => {
        expect(decidePermissionGate({ required, permissions: loaded(answer([], true)) })).toEqual({ kind: "render" })
      }),
    )
  })

  it("a denial redirects to /dashboard with the spec's message as an error", () => {
    expect(PERMISSION_DENIED_REDIRECT).toEqual({
      to: "/dashboard",
      replace: true,
      state: { message: "You do not have permission to access this page", error: true },
    })
  })

  it("no requirement renders at once; unknown permissions wait for the answer", () => {
    const pending: PermissionsQuery = { status: "pending", data: undefined, error: undefined, isFetching: true }
    expect(decidePermissionGate({ required: null, permissions: pending })).toEqual({ kind: "render" })
    expect(decidePermissionGate({ required: ["read_only"], permissions: pending })).toEqual({ kind: "loading" })
    const failed: PermissionsQuery = { status: "error", data: undefined, error: apiError("SERVER_ERROR", "boom", 500), isFetching: false }
    expect(decidePermissionGate({ required: ["read_only"], permissions: failed })).toEqual({ kind: "failed", message: "boom" })
  })
})

describe("permission gate machine on the services", () => {
  const setup = (required: PermissionRequirement | null, workspaceId = 4) => {
    const clock = newClock()
    const local = memoryStorage()
    const workspaceStore = createWorkspaceStore({ storage: local })
    workspaceStore.update((s) => selectWorkspace(s, workspaceId, 0))
    const replies = new Map<number | null, ReturnType<typeof deferred<UserPermissionsResponse>>>()
    const asked: Array<number | null> = []
    const queries = {
      permissions: (id: number | null) => ({
        key: queryKeys.permissions(id),
        fetch: () => {
          asked.push(id)
          const d = deferred<UserPermissionsResponse>()
          replies.set(id, d)
          return d.promise
        },
      }),
    }
    const cache = createQueryCache({ clock })
    const navigations: NavigationRequest[] = []
    const machine = permissionGateMachineWith({ cache, queries, workspaceStore }).provide({
      actions: { navigate: (_, r) => void navigations.push(r) },
    })
    const actor = createActor(machine, { clock, input: { required } }).start()
    return { actor, navigations, replies, asked, workspaceStore, cache }
  }

  it("a member without the permission is sent to /dashboard with the error message", async () => {
    const t = setup(requiredPermissionsFor("/dashboard/users"))
    try {
      expect(t.actor.getSnapshot().value).toBe("loading")
      t.replies.get(4)!.resolve(answer(["scan_service", "read_only"]))
      await flush()
      expect(t.actor.getSnapshot().value).toBe("denied")
      expect(t.navigations).toEqual([PERMISSION_DENIED_REDIRECT])
    } finally {
      t.actor.stop()
    }
  })

  it("a member with one of the permissions sees the page", async () => {
    const t = setup(requiredPermissionsFor("/dashboard/scans/2"))
    try {
      t.replies.get(4)!.resolve(answer(["read_only"]))
      await flush()
      expect(t.actor.getSnapshot().value).toBe("allowed")
      expect(t.navigations).toEqual([])
    } finally {
      t.actor.stop()
    }
  })

  it("a page without requirement renders without waiting", () => {
    const t = setup(null)
    try {
      expect(t.actor.getSnapshot().value).toBe("allowed")
    } finally {
      t.actor.stop()
    }
  })

  it("follows the selected workspace: switching asks for that workspace's permissions", async () => {
    const t = setup(["create_account", "read_only"])
    try {
      t.replies.get(4)!.resolve(answer(["read_only"]))
      await flush()
      expect(t.actor.getSnapshot().value).toBe("allowed")
      t.workspaceStore.update((s) => selectWorkspace(s, 5, 0))
      await flush()
      expect(t.asked).toEqual([4, 5])
      t.replies.get(5)!.resolve(answer(["scan_service"]))
      await flush()
      expect(t.actor.getSnapshot().value).toBe("denied")
    } finally {
      t.actor.stop()
    }
  })

  it("a failed load can be retried", async () => {
    const t = setup(["read_only"])
    try {
      t.actor.send({ type: "gate.permissionsChanged", state: { status: "error", data: undefined, error: apiError("NETWORK_ERROR", "offline"), isFetching: false } })
      expect(t.actor.getSnapshot().value).toBe("failed")
      t.actor.send({ type: "gate.retryRequested" })
      expect(t.actor.getSnapshot().value).toBe("loading")
    } finally {
      t.actor.stop()
    }
  })

  it("transition coverage: every (state, event) edge driven", async () => {
    const quiet = permissionGateMachine.provide({ actors: { watchPermissions: fromCallback(() => () => {}) } })
    const coverage = await coverTransitions(quiet, {
      input: { required: ["read_only"] },
      events: [
        { type: "gate.permissionsChanged", state: loaded(answer(["read_only"])) },
        { type: "gate.permissionsChanged", state: loaded(answer(["scan_service"])) },
        { type: "gate.permissionsChanged", state: { status: "error", data: undefined, error: apiError("SERVER_ERROR", "x", 500), isFetching: false } },
        { type: "gate.permissionsChanged", state: { status: "pending", data: undefined, error: undefined, isFetching: true } },
        { type: "gate.requirementChanged", required: null },
        { type: "gate.requirementChanged", required: ["scan_service"] },
        { type: "gate.retryRequested" },
      ],
    })
    console.info(formatCoverage("permissionGate", coverage))
    expect(coverage.missing).toEqual([])
    expect(coverage.driven).toBe(coverage.total)
  })
})
