/**
 * Fakes for the session and gate machine tests: real storage adapters over memory, a real query cache on a
 * simulated clock, a scripted API whose calls are recorded and answered by controllable promises, a
 * signal hub standing in for other tabs and the API client, and a navigation log.
 */
import { createActor, type SimulatedClock } from "xstate"
import type { User } from "../../src/contracts/auth.ts"
import type { Workspace } from "../../src/contracts/workspaces.ts"
import type { NavigationRequest } from "../../src/machines/navigation.ts"
import { sessionMachineWith, type SessionServices } from "../../src/machines/session.machine.ts"
import type { ApiError } from "../../src/services/api-client.ts"
import type { AuthApi } from "../../src/services/auth-api.ts"
import { createQueryCache } from "../../src/services/query-cache.ts"
import type { SessionSignal } from "../../src/services/session-signals.ts"
import {
  createPendingInvitationStorage,
  createSessionStorage,
  createWorkspaceStore,
  memoryStorage,
} from "../../src/services/storage.ts"
import { deferred, newClock, type Deferred } from "../services/support.ts"

export const user = (over: Partial<User> = {}): User =>
  ({
    id: 1,
    email: "ada@example.com",
    email_verified: true,
    first_name: "Ada",
    last_name: "Lovelace",
    workspace_name: "Acme",
    roles: [],
    timezone: null,
    ...over,
  }) as User

export const workspace = (id: number, name = `Workspace ${id}`): Workspace =>
  ({ workspace_id: id, workspace_name: name, is_owner: id === 1, role: null, member_count: 1, joined_at: "2025-01-01T00:00:00.000Z" }) as Workspace

export const apiError = (type: ApiError["type"], message: string, status?: number): ApiError => ({
  type,
  message,
  ...(status === undefined ? {} : { status }),
})

type ApiName = "userInfo" | "workspaces" | "switchWorkspace" | "logout"

/** Each API call waits on its own deferred; `answer(name)` settles the oldest pending call of that name. */
export const scriptedApi = () => {
  const calls: Array<{ readonly name: ApiName; readonly payload: unknown; readonly reply: Deferred<unknown> }> = []
  const call = (name: ApiName) => (payloadOrSignal?: unknown) => {
    const reply = deferred<unknown>()
    calls.push({ name, payload: payloadOrSignal instanceof AbortSignal ? undefined : payloadOrSignal, reply })
    return reply.promise as Promise<never>
  }
  const api = {
    userInfo: call("userInfo"),
    workspaces: call("workspaces"),
    switchWorkspace: call("switchWorkspace"),
    logout: call("logout"),
  } as unknown as Pick<AuthApi, ApiName>
  const pendingOf = (name: ApiName) => {
    const found = calls.find((c) => c.name === name && !(c as { settled?: boolean }).settled)
    if (found === undefined) throw new Error(`no pending ${name} call (calls: ${calls.map((c) => c.name).join(", ")})`)
    ;(found as { settled?: boolean }).settled = true
    return found
  }
  return {
    api,
    calls,
    names: () => calls.map((c) => c.name),
    resolve: (name: ApiName, value: unknown) => pendingOf(name).reply.resolve(value),
    reject: (name: ApiName, error: unknown) => pendingOf(name).reply.reject(error),
  }
}

export interface Harness {
  readonly clock: SimulatedClock
  readonly local: ReturnType<typeof memoryStorage>
  readonly sessionStore: ReturnType<typeof memoryStorage>
  readonly services: SessionServices
  readonly api: ReturnType<typeof scriptedApi>
  readonly navigations: NavigationRequest[]
  readonly emit: (signal: SessionSignal) => void
}

export const harness = (stored: Record<string, string> = {}, session: Record<string, string> = {}): Harness => {
  const clock = newClock()
  const local = memoryStorage(stored)
  const sessionStore = memoryStorage(session)
  const api = scriptedApi()
  const listeners = new Set<(s: SessionSignal) => void>()
  const services: SessionServices = {
    api: api.api,
    cache: createQueryCache({ clock }),
    session: createSessionStorage(local),
    pending: createPendingInvitationStorage(sessionStore),
    workspaceStore: createWorkspaceStore({ storage: local }),
    clock,
    signals: (l) => {
      listeners.add(l)
      return () => void listeners.delete(l)
    },
  }
  return {
    clock,
    local,
    sessionStore,
    services,
    api,
    navigations: [],
    emit: (s) => {
      for (const l of [...listeners]) l(s)
    },
  }
}

/** The session machine with the harness's services and a recording `navigate`. */
export const startSession = (h: Harness) => {
  const machine = sessionMachineWith(h.services).provide({ actions: { navigate: (_, request) => void h.navigations.push(request) } })
  const stored = h.services.session.read()
  return createActor(machine, { clock: h.clock, input: { stored } }).start()
}
