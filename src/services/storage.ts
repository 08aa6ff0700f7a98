/**
 * Browser storage for the SPA (access spec §3, §4, §9).
 *
 * - `KeyValueStorage`: the subset of Web Storage we use, with a failure-proof browser adapter (storage can
 *   throw: disabled cookies, private mode, quota) and an in-memory one for tests.
 * - `createSessionStorage`: the session data kept in localStorage under `access_token`, `refresh_token`,
 *   `user_email`, `workspace_name`.
 * - `createPendingInvitationStorage`: the invitation carried from /login to /workspace-selection in
 *   sessionStorage under `pending_workspace_invitation` and `pending_workspace_id`.
 * - The persisted workspace state under `workspace-store` (`selectedWorkspaceId`, `lastAccessedWorkspaces`,
 *   `newlyAddedWorkspaces`): pure transition functions plus `createWorkspaceStore`, an external store
 *   (`subscribe` / `getSnapshot`, usable with `useSyncExternalStore` and from `fromCallback` actors) that
 *   follows changes made by other tabs through `storage` events.
 *
 * Nothing here touches `window` at import time: every adapter is built by a function from what it is given.
 */
import { Schema } from "effect"
import { StorageKeys, Workspaces } from "../contracts/constants.ts"
import { WorkspaceId } from "../contracts/ids.ts"
import { nonEmpty, readStoredSession, type StoredSession } from "./stored-session.ts"
import {
  WorkspaceStore as WorkspaceStoreSchema,
  emptyWorkspaceStore,
  isNewWorkspace,
  type WorkspaceStore as WorkspaceStoreState,
} from "../contracts/workspaces.ts"

// ---------------------------------------------------------------------------------------------------
// Key/value storage adapters

/** The part of the Web Storage interface the SPA relies on. */
export interface KeyValueStorage {
  getItem(key: string): string | null
  setItem(key: string, value: string): void
  removeItem(key: string): void
}

/** An in-memory storage (tests, and the fallback when the browser refuses storage). */
export const memoryStorage = (initial: Readonly<Record<string, string>> = {}): KeyValueStorage & {
  readonly entries: () => Record<string, string>
} => {
  const map = new Map<string, string>(Object.entries(initial))
  return {
    getItem: (key) => map.get(key) ?? null,
    setItem: (key, value) => void map.set(key, String(value)),
    removeItem: (key) => void map.delete(key),
    entries: () => Object.fromEntries(map),
  }
}

/**
 * Wraps a browser storage so that a throwing storage (access denied, quota exceeded) degrades to an
 * in-memory copy for this page instead of breaking sign-in. `resolve` is called lazily, once.
 */
export const safeStorage = (resolve: () => Storage | undefined): KeyValueStorage => {
  let target: KeyValueStorage | undefined
  const fallback = memoryStorage()
  const get = (): KeyValueStorage => {
    if (target !== undefined) return target
    try {
      const s = resolve()
      if (s === undefined) {
        target = fallback
      } else {
        const probe = "__storage_probe__"
        s.setItem(probe, probe)
        s.removeItem(probe)
        target = s
      }
    } catch {
      target = fallback
    }
    return target
  }
  return {
    getItem: (key) => {
      try {
        return get().getItem(key)
      } catch {
        return fallback.getItem(key)
      }
    },
    setItem: (key, value) => {
      try {
        get().setItem(key, value)
      } catch {
        fallback.setItem(key, value)
      }
    },
    removeItem: (key) => {
      try {
        get().removeItem(key)
      } catch {
        fallback.removeItem(key)
      }
    },
  }
}

// ---------------------------------------------------------------------------------------------------
// Cross-tab change notifications

/** A change made to localStorage by another tab (`key` is null when that tab cleared the storage). */
export interface StorageChange {
  readonly key: string | null
  readonly oldValue: string | null
  readonly newValue: string | null
}

export type StorageChangeListener = (change: StorageChange) => void
/** Subscribes to changes made by other tabs; returns the unsubscribe function. */
export type StorageChangeSource = (listener: StorageChangeListener) => () => void

/** Cross-tab changes from `storage` events of a window (only localStorage changes are reported). */
export const windowStorageChanges =
  (win: Pick<Window, "addEventListener" | "removeEventListener">, local?: Storage): StorageChangeSource =>
  (listener) => {
    const onStorage = (event: StorageEvent) => {
      if (local !== undefined && event.storageArea !== null && event.storageArea !== local) return
      listener({ key: event.key, oldValue: event.oldValue, newValue: event.newValue })
    }
    win.addEventListener("storage", onStorage)
    return () => win.removeEventListener("storage", onStorage)
  }

/**
 * A hub for tests and for same-page fan-out: `emit` plays the role of another tab writing to storage.
 */
export const storageChangeHub = (): { readonly source: StorageChangeSource; readonly emit: StorageChangeListener } => {
  const listeners = new Set<StorageChangeListener>()
  return {
    source: (listener) => {
      listeners.add(listener)
      return () => void listeners.delete(listener)
    },
    emit: (change) => {
      for (const l of [...listeners]) l(change)
    },
  }
}

// ---------------------------------------------------------------------------------------------------
// Session data (localStorage: access_token, refresh_token, user_email, workspace_name)

export type { StoredSession } from "./stored-session.ts"

export interface TokenPair {
  readonly accessToken: string
  readonly refreshToken: string
}

export interface SessionStorage {
  read(): StoredSession
  writeTokens(tokens: TokenPair): void
  writeUserEmail(email: string | null): void
  writeWorkspaceName(name: string | null): void
  /** Removes the four session keys (logout, failed refresh). */
  clear(): void
}

/** The four localStorage keys of the session data (access §3). */
const SESSION_KEYS = [
  StorageKeys.accessToken,
  StorageKeys.refreshToken,
  StorageKeys.userEmail,
  StorageKeys.workspaceName,
] as const

export const createSessionStorage = (local: KeyValueStorage): SessionStorage => {
  const setOrRemove = (key: string, value: string | null) => {
    if (value === null || value === "") local.removeItem(key)
    else local.setItem(key, value)
  }
  return {
    read: () => readStoredSession(local),
    writeTokens: ({ accessToken, refreshToken }) => {
      setOrRemove(StorageKeys.accessToken, accessToken)
      setOrRemove(StorageKeys.refreshToken, refreshToken)
    },
    writeUserEmail: (email) => setOrRemove(StorageKeys.userEmail, email),
    writeWorkspaceName: (name) => setOrRemove(StorageKeys.workspaceName, name),
    clear: () => {
      for (const key of SESSION_KEYS) local.removeItem(key)
    },
  }
}

// ---------------------------------------------------------------------------------------------------
// Pending invitation (sessionStorage: pending_workspace_invitation, pending_workspace_id)

export interface PendingInvitation {
  readonly token: string
  readonly workspaceId: WorkspaceId | null
}

export interface PendingInvitationStorage {
  read(): PendingInvitation | null
  write(pending: PendingInvitation): void
  clear(): void
}

const decodeWorkspaceId = Schema.decodeUnknownOption(WorkspaceId)

/** Parses a stored or query-string workspace id ("12" → 12); anything but a positive integer is null. */
export const parseWorkspaceId = (raw: string | number | null | undefined): WorkspaceId | null => {
  if (raw === null || raw === undefined || raw === "") return null
  const n = typeof raw === "number" ? raw : /^\d+$/.test(raw.trim()) ? Number(raw.trim()) : Number.NaN
  const decoded = decodeWorkspaceId(n)
  return decoded._tag === "Some" ? decoded.value : null
}

export const createPendingInvitationStorage = (session: KeyValueStorage): PendingInvitationStorage => ({
  read: () => {
    const token = nonEmpty(session.getItem(StorageKeys.pendingWorkspaceInvitation))
    if (token === null) return null
    return { token, workspaceId: parseWorkspaceId(session.getItem(StorageKeys.pendingWorkspaceId)) }
  },
  write: ({ token, workspaceId }) => {
    session.setItem(StorageKeys.pendingWorkspaceInvitation, token)
    if (workspaceId === null) session.removeItem(StorageKeys.pendingWorkspaceId)
    else session.setItem(StorageKeys.pendingWorkspaceId, String(workspaceId))
  },
  clear: () => {
    session.removeItem(StorageKeys.pendingWorkspaceInvitation)
    session.removeItem(StorageKeys.pendingWorkspaceId)
  },
})

// ---------------------------------------------------------------------------------------------------
// Persisted workspace state (`workspace-store`)

/** The persisted shape is the contract's `WorkspaceStore` (access §3); this module adds its transitions. */
export type WorkspaceState = WorkspaceStoreState

/**
 * The stored envelope: `{ state, version }`, the layout of the persisted-store convention the key name comes
 * from, so a value written by an earlier build of the SPA is still understood.
 */
const WorkspaceStoreEnvelope = Schema.Struct({ state: WorkspaceStoreSchema, version: Schema.optionalKey(Schema.Number) })
const decodeEnvelope = Schema.decodeUnknownOption(Schema.fromJsonString(WorkspaceStoreEnvelope))

export const WORKSPACE_STORE_VERSION = 0

export const emptyWorkspaceState: WorkspaceState = emptyWorkspaceStore

/** Reads the persisted state; a missing or malformed value yields the empty state (never throws). */
export const parseWorkspaceState = (raw: string | null): WorkspaceState => {
  if (raw === null) return emptyWorkspaceState
  const decoded = decodeEnvelope(raw)
  return decoded._tag === "Some" ? decoded.value.state : emptyWorkspaceState
}

export const serializeWorkspaceState = (state: WorkspaceState): string =>
  JSON.stringify({ state, version: WORKSPACE_STORE_VERSION })

const iso = (nowMs: number): string => new Date(nowMs).toISOString()

const without = (map: Readonly<Record<string, string>>, id: number): Record<string, string> => {
  const { [String(id)]: _removed, ...rest } = map
  return rest
}

/** Marks `id` as accessed now (workspace selection, auto-selection at sign-in). */
export const markLastAccessed = (state: WorkspaceState, id: number, nowMs: number): WorkspaceState => ({
  ...state,
  lastAccessedWorkspaces: { ...state.lastAccessedWorkspaces, [String(id)]: iso(nowMs) },
})

/** Access §4: selecting marks the workspace selected and last accessed, and clears its 'New' badge. */
export const selectWorkspace = (state: WorkspaceState, id: number, nowMs: number): WorkspaceState => ({
  ...markLastAccessed(state, id, nowMs),
  selectedWorkspaceId: id,
  newlyAddedWorkspaces: without(state.newlyAddedWorkspaces, id),
})

/** Access §4: accepting a workspace invitation marks the workspace as new. */
export const markNewlyAdded = (state: WorkspaceState, id: number, nowMs: number): WorkspaceState => ({
  ...state,
  newlyAddedWorkspaces: { ...state.newlyAddedWorkspaces, [String(id)]: iso(nowMs) },
})

/** Access §4/§9: a badge counts as new for 7 days after it was marked (the contract's rule). */
export const isNewlyAdded = (state: WorkspaceState, id: number, nowMs: number): boolean => isNewWorkspace(state, id, nowMs)

/** Drops badges older than 7 days so the stored map does not grow without bound. */
export const pruneExpiredBadges = (state: WorkspaceState, nowMs: number): WorkspaceState => {
  const kept = Object.entries(state.newlyAddedWorkspaces).filter(([id]) =>
    isNewWorkspace(state, Number(id), nowMs),
  )
  return kept.length === Object.keys(state.newlyAddedWorkspaces).length
    ? state
    : { ...state, newlyAddedWorkspaces: Object.fromEntries(kept) }
}

/** Logout and failed refresh: the selection goes; the per-workspace history stays on this device. */
export const clearWorkspaceData = (state: WorkspaceState): WorkspaceState =>
  state.selectedWorkspaceId === null ? state : { ...state, selectedWorkspaceId: null }

/**
 * Workspace gate: if the selected workspace is no longer in the user's list, the workspace data is
 * cleared; otherwise the state is returned unchanged (same reference).
 */
export const reconcileWithWorkspaces = (
  state: WorkspaceState,
  available: ReadonlyArray<number>,
): WorkspaceState =>
  state.selectedWorkspaceId !== null && !available.includes(state.selectedWorkspaceId)
    ? clearWorkspaceData(state)
    : state

export interface WorkspaceStore {
  /** The current state; the same object until it changes (safe for `useSyncExternalStore`). */
  getSnapshot(): WorkspaceState
  /** Called after every change, local or from another tab. Returns the unsubscribe function. */
  subscribe(listener: () => void): () => void
  /** Applies a pure transition (e.g. `s => selectWorkspace(s, id, now)`) and persists the result. */
  update(transition: (state: WorkspaceState) => WorkspaceState): WorkspaceState
  /** Stops following other tabs. */
  dispose(): void
}

export interface WorkspaceStoreOptions {
  readonly storage: KeyValueStorage
  /** Changes from other tabs; omit to ignore them. */
  readonly changes?: StorageChangeSource
}

export const createWorkspaceStore = ({ storage, changes }: WorkspaceStoreOptions): WorkspaceStore => {
  let state = parseWorkspaceState(storage.getItem(StorageKeys.workspaceStore))
  const listeners = new Set<() => void>()
  const notify = () => {
    for (const l of [...listeners]) l()
  }
  const unfollow =
    changes?.((change) => {
      if (change.key !== null && change.key !== StorageKeys.workspaceStore) return
      const next = parseWorkspaceState(change.key === null ? null : change.newValue)
      if (serializeWorkspaceState(next) === serializeWorkspaceState(state)) return
      state = next
      notify()
    }) ?? (() => {})
  return {
    getSnapshot: () => state,
    subscribe: (listener) => {
      listeners.add(listener)
      return () => void listeners.delete(listener)
    },
    update: (transition) => {
      const next = transition(state)
      if (next === state) return state
      state = next
      storage.setItem(StorageKeys.workspaceStore, serializeWorkspaceState(next))
      notify()
      return state
    },
    dispose: unfollow,
  }
}
