/**
 * The effects behind the User Management and Profile machines, on the real query cache with a simulated clock and a
 * scripted API: what is cached for how long, which mutation refreshes which list, and the watcher's event stream.
 */
import { describe, expect, it } from "vitest"
import { createActor, fromPromise, SimulatedClock } from "xstate"
import type { User } from "../../src/contracts/auth.ts"
import type { RoleId } from "../../src/contracts/ids.ts"
import type { TeamMember } from "../../src/contracts/team.ts"
import { createProfileEffects } from "../../src/machines/profile-effects.ts"
import { createTeamEffects, queryPhase, queryWatcher } from "../../src/machines/team-effects.ts"
import { membersEventOf, teamMembersMachine } from "../../src/machines/team-members.machine.ts"
import { accessQueries, type AuthApi } from "../../src/services/auth-api.ts"
import { createQueryCache } from "../../src/services/query-cache.ts"
import { flush, httpFailure } from "./auth-fakes.ts"
import { customRole, member, ownerInfo, sampleMembers, sampleRoles, sampleUser } from "./team-fakes.ts"

/** A scripted AuthApi: only the calls these screens make, each counted. */
const scriptedApi = () => {
  let members: ReadonlyArray<TeamMember> = sampleMembers
  const calls: string[] = []
  let failMembers = false
  const api = {
    teamMembers: async () => {
      calls.push("teamMembers")
      if (failMembers) throw httpFailure("team-load-members", 500)
      return { ok: true, data: members }
    },
    workspaceInfo: async () => {
      calls.push("workspaceInfo")
      return ownerInfo
    },
    roles: async () => {
      calls.push("roles")
      return { ok: true, data: { roles: [...sampleRoles, customRole], custom_roles: [customRole] } }
    },
    createUser: async () => {
      calls.push("createUser")
      const added = member(9, { email: "katherine@example.com" })
      members = [...members, added]
      return { ok: true, message: "Team member added successfully", data: added }
    },
    memberPasswordReset: async () => {
      calls.push("memberPasswordReset")
      return { ok: true, message: "sent" }
    },
    userInfo: async () => {
      calls.push("userInfo")
      return { ok: true, data: sampleUser }
    },
    updateProfile: async () => {
      calls.push("updateProfile")
      return { ok: true, message: "Profile updated successfully", data: { ...sampleUser, last_name: "King" } as User }
    },
  } as unknown as AuthApi
  return { api, calls, failMembersOnce: () => void (failMembers = true), recover: () => void (failMembers = false) }
}

const setup = () => {
  const clock = new SimulatedClock()
  const cache = createQueryCache({ clock })
  const scripted = scriptedApi()
  const workspace = { selectedWorkspaceId: 7 as number | null }
  const effects = createTeamEffects(
    { cache, api: scripted.api, queries: accessQueries(scripted.api), workspaceStore: { getSnapshot: () => workspace } },
    "https://app.example.com",
  )
  return { clock, cache, effects, workspace, ...scripted }
}

describe("queryPhase", () => {
  it("reads loaded data, a settled error, and everything else as loading", () => {
    const error = httpFailure("team-load-members", 500)
    expect(queryPhase({ status: "success", data: [1], error: undefined, isFetching: true }, false)).toEqual({ kind: "loaded", data: [1] })
    expect(queryPhase({ status: "error", data: undefined, error, isFetching: false }, false)).toEqual({ kind: "failed", error })
    expect(queryPhase({ status: "error", data: undefined, error, isFetching: true }, false)).toEqual({ kind: "loading" })
    // A stale error seen when watching starts is refetched at once: not a second failure.
    expect(queryPhase({ status: "error", data: undefined, error, isFetching: false }, true)).toEqual({ kind: "loading" })
    expect(queryPhase({ status: "pending", data: undefined, error: undefined, isFetching: false }, false)).toEqual({ kind: "loading" })
  })
})

describe("team effects on the query cache", () => {
  it("a member added through the effects refreshes the watched list in the machine", async () => {
    const { effects, calls } = setup()
    const machine = teamMembersMachine.provide({
      actors: {
        watchMembers: queryWatcher(effects.watchTeamMembers, membersEventOf),
        loadViewer: fromPromise(async () => ownerInfo),
      },
    })
    const team = createActor(machine).start()
    try {
      await flush()
      expect(team.getSnapshot().context.members.map((m) => m.id)).toEqual([1, 2, 3, 4])
      await effects.createUser({
        first_name: "Katherine",
        last_name: "Johnson",
        email: "katherine@example.com",
        password: "orbital8",
        role_id: 3 as RoleId,
        is_custom_role: false,
      })
      await flush()
      expect(team.getSnapshot().context.members.map((m) => m.id)).toEqual([1, 2, 3, 4, 9])
      expect(calls.filter((c) => c === "teamMembers")).toHaveLength(2)
    } finally {
      team.stop()
    }
  })

  it("the members list is cached for 5 minutes; the workspace id is part of the key", async () => {
    const { effects, calls, clock, workspace } = setup()
    const seen: unknown[] = []
    const stop = effects.watchTeamMembers((s) => seen.push(s.status))
    await flush()
    stop()
    const again = effects.watchTeamMembers(() => {})
    await flush()
    again()
    expect(calls.filter((c) => c === "teamMembers")).toHaveLength(1)
    clock.increment(5 * 60 * 1000)
    effects.watchTeamMembers(() => {})()
    await flush()
    expect(calls.filter((c) => c === "teamMembers")).toHaveLength(2)
    workspace.selectedWorkspaceId = 8
    effects.watchTeamMembers(() => {})()
    await flush()
    expect(calls.filter((c) => c === "teamMembers")).toHaveLength(3)
  })

  it("offers default roles only", async () => {
    const { effects } = setup()
    const roles = await effects.loadRoles(undefined)
    expect(roles.map((r) => r.name)).toEqual(["Admin", "Security Engineer", "Auditor", "Member Manager"])
  })

  it("a failed load (after the query's two retries) reports failed once; 'Try again' reports loading, then the rows", async () => {
    const { effects, failMembersOnce, recover, clock } = setup()
    failMembersOnce()
    const events: string[] = []
    const stop = (() => {
      let first = true
      let last = ""
      return effects.watchTeamMembers((s) => {
        const kind = queryPhase(s, first).kind
        first = false
        if (kind !== last) events.push(kind)
        last = kind
      })
    })()
    await flush()
    clock.increment(1000)
    await flush()
    clock.increment(2000)
    await flush()
    expect(events).toEqual(["loading", "failed"])
    recover()
    effects.refetchTeamMembers()
    await flush()
    stop()
    expect(events).toEqual(["loading", "failed", "loading", "loaded"])
  })
})

describe("profile effects on the query cache", () => {
  it("loads the user from the cache and writes the updated user back, telling the app", async () => {
    const clock = new SimulatedClock()
    const cache = createQueryCache({ clock })
    const { api, calls } = scriptedApi()
    const updated: User[] = []
    const effects = createProfileEffects({ cache, api, queries: accessQueries(api) }, { onUserUpdated: (u) => void updated.push(u) })
    expect((await effects.loadProfile(undefined)).last_name).toBe("Lovelace")
    await effects.updateProfile({ email: "ada@example.com", first_name: "Ada", last_name: "King" })
    expect(updated.map((u) => u.last_name)).toEqual(["King"])
    expect((await effects.loadProfile(undefined)).last_name).toBe("King")
    expect(calls).toEqual(["userInfo", "updateProfile"])
  })
})
