/**
 * The SPA's composition root for side effects: builds storage adapters, the workspace store, the query
 * cache, the API client and the typed access calls once, from what it is given. `main.tsx` calls
 * `createBrowserServices()`; tests call `createAppServices` with memory storage, a scripted fetch and a
 * simulated clock. Nothing happens at import time.
 *
 * Wiring decided here:
 * - `X-Workspace-ID` comes from the persisted selected workspace (`workspace-store`);
 * - the client's refresh outcome feeds the session signals (`tokens-changed` / `refresh-failed`), so the
 *   session machine sees this tab's refreshes and failures as it sees other tabs' storage events;
 * - the refresh is serialised across tabs with the Web Locks API when the browser has it.
 */
import { createApiClient, systemClock, webLockRunner, type ApiClient, type Clock, type LockRunner } from "./api-client.ts"
import { accessQueries, createAuthApi, type AccessQueries, type AuthApi } from "./auth-api.ts"
import { createQueryCache, type QueryCache } from "./query-cache.ts"
import { createSessionSignals, type SessionSignalSource } from "./session-signals.ts"
import {
  createPendingInvitationStorage,
  createSessionStorage,
  createWorkspaceStore,
  safeStorage,
  windowStorageChanges,
  type KeyValueStorage,
  type PendingInvitationStorage,
  type SessionStorage,
  type StorageChangeSource,
  type WorkspaceStore,
} from "./storage.ts"

export interface AppServices {
  readonly clock: Clock
  readonly session: SessionStorage
  readonly pending: PendingInvitationStorage
  readonly workspaceStore: WorkspaceStore
  readonly cache: QueryCache
  readonly client: ApiClient
  readonly api: AuthApi
  readonly queries: AccessQueries
  /** Session signals (other tabs + this tab's refresh outcome) for the session machine. */
  readonly signals: SessionSignalSource
  /** Stops following other tabs (tests, hot reload). */
  readonly dispose: () => void
}

export interface AppServicesOptions {
  readonly fetch: typeof globalThis.fetch
  readonly clock: Clock
  /** `import.meta.env.PROD` in the browser (3 retries) — injectable so tests choose. */
  readonly isProduction: boolean
  readonly local: KeyValueStorage
  readonly sessionStorage: KeyValueStorage
  readonly changes?: StorageChangeSource
  readonly withLock?: LockRunner
  readonly baseURL?: string
  readonly timeoutMs?: number
}

export const createAppServices = (options: AppServicesOptions): AppServices => {
  const { clock } = options
  const session = createSessionStorage(options.local)
  const pending = createPendingInvitationStorage(options.sessionStorage)
  const workspaceStore = createWorkspaceStore({
    storage: options.local,
    ...(options.changes === undefined ? {} : { changes: options.changes }),
  })
  const signals = createSessionSignals({ session, ...(options.changes === undefined ? {} : { changes: options.changes }) })
  const cache = createQueryCache({ clock })
  const client = createApiClient({
    fetch: options.fetch,
    clock,
    session,
    selectedWorkspaceId: () => workspaceStore.getSnapshot().selectedWorkspaceId,
    isProduction: options.isProduction,
    onTokensRefreshed: () => signals.emitTokensRefreshed(),
    onRefreshFailed: (error) => signals.emitRefreshFailed(error),
    ...(options.withLock === undefined ? {} : { withLock: options.withLock }),
    ...(options.baseURL === undefined ? {} : { baseURL: options.baseURL }),
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
  })
  const api = createAuthApi(client)
  return {
    clock,
    session,
    pending,
    workspaceStore,
    cache,
    client,
    api,
    queries: accessQueries(api),
    signals: signals.subscribe,
    dispose: () => workspaceStore.dispose(),
  }
}

/** Whether this is a production build (Vite replaces `import.meta.env.PROD` at build time). */
export const isProductionBuild = (): boolean => (import.meta as { readonly env?: { readonly PROD?: boolean } }).env?.PROD === true

/** The browser's services: localStorage/sessionStorage, `storage` events, Web Locks, real timers. */
export const createBrowserServices = (win: Window = window): AppServices => {
  let local: Storage | undefined
  try {
    local = win.localStorage
  } catch {
    local = undefined
  }
  const locks = (win.navigator as Navigator & { readonly locks?: LockManager }).locks
  return createAppServices({
    fetch: win.fetch.bind(win),
    clock: systemClock(),
    isProduction: isProductionBuild(),
    local: safeStorage(() => win.localStorage),
    sessionStorage: safeStorage(() => win.sessionStorage),
    changes: windowStorageChanges(win, local),
    ...(locks === undefined ? {} : { withLock: webLockRunner(locks) }),
  })
}
