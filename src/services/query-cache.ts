/**
 * Query cache (access spec §7 "Caching"): keyed queries with per-kind stale times, in-flight de-duplication,
 * query retries with backoff, garbage collection of unobserved entries, and `clear()` on logout.
 *
 * Policies (from `src/contracts/constants.ts`):
 * - permissions, workspaces, roles, users, team members: stale after 5 minutes; invitations after 30 s;
 *   timezones after 1 hour; the user query is fresh for 5 minutes; every entry is dropped 10 minutes after
 *   its last observer left.
 * - queries retry twice with 1 s, 2 s … (doubling, capped at 30 s); invitations never retry a 4xx and
 *   otherwise try up to 3 times; the user query is not retried (access §7); mutations are never retried.
 *
 * Consumers:
 * - machines: `cache.watch(key, fetcher, listener)` inside a `fromCallback` actor (returns the cleanup), or
 *   `cache.fetchQuery(key, fetcher, signal)` inside a `fromPromise` actor;
 * - React: `useSyncExternalStore((l) => cache.subscribe(key, l), () => cache.getState(key))`.
 *
 * Errors are kept as thrown (the API client throws `ApiError` values); retry decisions read `status`.
 * Timers come from the injected clock, so tests drive staleness, retries and GC with a simulated clock.
 */
import { Query, queryRetryDelayMs } from "../contracts/constants.ts"
import type { Clock } from "./api-client.ts"

/** The query kinds of the access area; the first element of every key. */
export const QUERY_KINDS = [
  "user",
  "workspaces",
  "workspace-info",
  "permissions",
  "roles",
  "users",
  "team-members",
  "invitations",
  "timezones",
] as const
export type QueryKind = (typeof QUERY_KINDS)[number]

export type QueryKeyPart = string | number | boolean | null
export type QueryKey = readonly [QueryKind, ...ReadonlyArray<QueryKeyPart>]

/**
 * Key builders. Workspace-scoped data carries the workspace id in its key, so switching workspaces never
 * shows another workspace's cached rows.
 */
export const queryKeys = {
  user: () => ["user"] as const,
  workspaces: () => ["workspaces"] as const,
  workspaceInfo: (workspaceId: number | null) => ["workspace-info", workspaceId] as const,
  permissions: (workspaceId: number | null) => ["permissions", workspaceId] as const,
  roles: (workspaceId: number | null) => ["roles", workspaceId] as const,
  users: (workspaceId: number | null) => ["users", workspaceId] as const,
  teamMembers: (workspaceId: number | null) => ["team-members", workspaceId] as const,
  invitations: (workspaceId: number | null) => ["invitations", workspaceId] as const,
  timezones: () => ["timezones"] as const,
} satisfies Record<string, (...args: never[]) => QueryKey>

export const hashQueryKey = (key: QueryKey): string => JSON.stringify(key)

/** `prefix` matches `key` when every element of the prefix equals the key's element at that position. */
export const keyStartsWith = (key: QueryKey, prefix: ReadonlyArray<QueryKeyPart>): boolean =>
  prefix.length <= key.length && prefix.every((part, i) => key[i] === part)

// ---------------------------------------------------------------------------------------------------
// Policies

export interface QueryPolicy {
  readonly staleTimeMs: number
  readonly gcTimeMs: number
  /** `failureCount` failures so far (≥ 1); true → try again after `retryDelayMs(failureCount - 1)`. */
  readonly shouldRetry: (failureCount: number, error: unknown) => boolean
  readonly retryDelayMs: (retryIndex: number) => number
}

/** HTTP status carried by an error value (`ApiError.status`), if any. */
export const statusOf = (error: unknown): number | undefined => {
  if (typeof error !== "object" || error === null || !("status" in error)) return undefined
  const status = (error as { readonly status: unknown }).status
  return typeof status === "number" ? status : undefined
}

const isClientError = (error: unknown): boolean => {
  const status = statusOf(error)
  return status !== undefined && status >= 400 && status < 500
}

/** Access §7: queries retry twice. */
const retryTwice = (failureCount: number): boolean => failureCount <= Query.retries
/** Access §7: the invitations query does not retry on 4xx and otherwise tries up to 3 times. */
const invitationsRetry = (failureCount: number, error: unknown): boolean =>
  !isClientError(error) && failureCount < Query.invitationsMaxTries
/** Access §7: the user query is not retried. */
const neverRetry = (): boolean => false

const policy = (staleTimeMs: number, shouldRetry: QueryPolicy["shouldRetry"]): QueryPolicy => ({
  staleTimeMs,
  gcTimeMs: Query.cacheTimeMs,
  shouldRetry,
  retryDelayMs: queryRetryDelayMs,
})

export const QUERY_POLICIES: { readonly [K in QueryKind]: QueryPolicy } = {
  user: policy(Query.userFreshMs, neverRetry),
  workspaces: policy(Query.staleTimeMs, retryTwice),
  "workspace-info": policy(Query.staleTimeMs, retryTwice),
  permissions: policy(Query.staleTimeMs, retryTwice),
  roles: policy(Query.staleTimeMs, retryTwice),
  users: policy(Query.staleTimeMs, retryTwice),
  "team-members": policy(Query.staleTimeMs, retryTwice),
  invitations: policy(Query.invitationsStaleTimeMs, invitationsRetry),
  timezones: policy(Query.timezonesStaleTimeMs, retryTwice),
}

export const policyOf = (key: QueryKey): QueryPolicy => QUERY_POLICIES[key[0]]

// ---------------------------------------------------------------------------------------------------
// State

export type QueryStatus = "pending" | "success" | "error"

export interface QueryState<T = unknown> {
  readonly status: QueryStatus
  readonly data: T | undefined
  readonly error: unknown
  /** Clock time of the last successful fetch (0 = never). */
  readonly dataUpdatedAt: number
  readonly isFetching: boolean
  /** Failures of the current (or last) fetch, retries included. */
  readonly failureCount: number
  /** Set by `invalidate`; the next read refetches whatever the age. */
  readonly isInvalidated: boolean
}

export const initialQueryState: QueryState<never> = {
  status: "pending",
  data: undefined,
  error: undefined,
  dataUpdatedAt: 0,
  isFetching: false,
  failureCount: 0,
  isInvalidated: false,
}

/** A query is stale when it has no data, was invalidated, or its data is at least `staleTimeMs` old. */
export const isStale = (state: QueryState, staleTimeMs: number, nowMs: number): boolean =>
  state.status !== "success" || state.isInvalidated || nowMs - state.dataUpdatedAt >= staleTimeMs

export type Fetcher<T> = (signal: AbortSignal) => Promise<T>

/** Why a query's promise rejected when the cache itself cancelled it (logout, or no one waits any more). */
export class QueryCancelled extends Error {
  override readonly name = "QueryCancelled"
}

export interface QueryCache {
  /** Resolves with fresh cached data, or fetches (joining an in-flight fetch of the same key). */
  fetchQuery<T>(key: QueryKey, fetcher: Fetcher<T>, signal?: AbortSignal): Promise<T>
  /** Always fetches again (joins an in-flight fetch). */
  refetch<T>(key: QueryKey, fetcher: Fetcher<T>, signal?: AbortSignal): Promise<T>
  getState<T>(key: QueryKey): QueryState<T>
  /** Observe one key; while observed the entry is never garbage collected. */
  subscribe(key: QueryKey, listener: () => void): () => void
  /**
   * Observe a key and keep it loaded: fetches now when stale (and again after `invalidate`), reports every
   * state change. Returns the cleanup, ready to be returned from a `fromCallback` actor.
   */
  watch<T>(key: QueryKey, fetcher: Fetcher<T>, listener: (state: QueryState<T>) => void): () => void
  /** Optimistic updates; the updater receives undefined when nothing is cached. */
  setQueryData<T>(key: QueryKey, updater: (current: T | undefined) => T): void
  /** Marks matching entries stale and refetches those being watched. */
  invalidate(prefix: ReadonlyArray<QueryKeyPart>): void
  /** Runs a mutation exactly once (never retried), then invalidates the given prefixes on success. */
  mutate<T>(run: Fetcher<T>, options?: { readonly invalidates?: ReadonlyArray<ReadonlyArray<QueryKeyPart>>; readonly signal?: AbortSignal }): Promise<T>
  /** Logout: cancels every fetch and retry timer, drops every entry, notifies observers. */
  clear(): void
  /** Number of entries held (tests, diagnostics). */
  size(): number
}

interface Entry {
  state: QueryState
  readonly listeners: Set<() => void>
  /** The fetcher last used for this key, so `invalidate` can refetch watched entries. */
  fetcher: Fetcher<unknown> | undefined
  inFlight: { readonly promise: Promise<unknown>; readonly controller: AbortController } | undefined
  gcTimer: unknown
  watchers: number
  /** An invalidation arrived while fetching: the answer may predate it, so fetch once more. */
  refetchQueued: boolean
}

const linkSignal = (outer: AbortSignal | undefined, inner: AbortController): (() => void) => {
  if (outer === undefined) return () => {}
  if (outer.aborted) {
    inner.abort(outer.reason)
    return () => {}
  }
  const onAbort = () => inner.abort(outer.reason)
  outer.addEventListener("abort", onAbort, { once: true })
  return () => outer.removeEventListener("abort", onAbort)
}

/** Resolves after `ms` on the injected clock; rejects when `signal` aborts first. */
export const sleep = (clock: Clock, ms: number, signal: AbortSignal): Promise<void> =>
  new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason)
    const onAbort = () => {
      clock.clearTimeout(handle)
      reject(signal.reason)
    }
    const handle = clock.setTimeout(() => {
      signal.removeEventListener("abort", onAbort)
      resolve()
    }, ms)
    signal.addEventListener("abort", onAbort, { once: true })
  })

export interface QueryCacheOptions {
  readonly clock: Clock
  /** Override policies (tests); defaults to `QUERY_POLICIES`. */
  readonly policies?: Partial<{ readonly [K in QueryKind]: QueryPolicy }>
}

export const createQueryCache = ({ clock, policies = {} }: QueryCacheOptions): QueryCache => {
  const entries = new Map<string, Entry>()
  const policyFor = (key: QueryKey): QueryPolicy => policies[key[0]] ?? QUERY_POLICIES[key[0]]

  const entryOf = (key: QueryKey): Entry => {
    const hash = hashQueryKey(key)
    let entry = entries.get(hash)
    if (entry === undefined) {
      entry = {
        state: initialQueryState,
        listeners: new Set(),
        fetcher: undefined,
        inFlight: undefined,
        gcTimer: undefined,
        watchers: 0,
        refetchQueued: false,
      }
      entries.set(hash, entry)
    }
    return entry
  }

  const setState = (entry: Entry, patch: Partial<QueryState>) => {
    entry.state = { ...entry.state, ...patch }
    for (const l of [...entry.listeners]) l()
  }

  const cancelGc = (entry: Entry) => {
    if (entry.gcTimer !== undefined) {
      clock.clearTimeout(entry.gcTimer)
      entry.gcTimer = undefined
    }
  }

  /** Unobserved entries are dropped `gcTimeMs` after they became unobserved (and idle). */
  const scheduleGc = (key: QueryKey, entry: Entry) => {
    cancelGc(entry)
    if (entry.listeners.size > 0 || entry.inFlight !== undefined) return
    entry.gcTimer = clock.setTimeout(() => {
      entry.gcTimer = undefined
      const hash = hashQueryKey(key)
      if (entries.get(hash) === entry && entry.listeners.size === 0 && entry.inFlight === undefined) {
        entries.delete(hash)
      }
    }, policyFor(key).gcTimeMs)
  }

  const refetchIfQueued = (key: QueryKey, entry: Entry) => {
    if (!entry.refetchQueued) return
    entry.refetchQueued = false
    if (entry.watchers > 0 && entry.fetcher !== undefined) startFetch(key, entry, entry.fetcher).catch(() => {})
  }

  const startFetch = (key: QueryKey, entry: Entry, fetcher: Fetcher<unknown>): Promise<unknown> => {
    if (entry.inFlight !== undefined) return entry.inFlight.promise
    cancelGc(entry)
    entry.fetcher = fetcher
    const controller = new AbortController()
    const policy = policyFor(key)
    const run = async (): Promise<unknown> => {
      let failures = 0
      for (;;) {
        try {
          const data = await fetcher(controller.signal)
          if (controller.signal.aborted) throw controller.signal.reason
          return data
        } catch (error) {
          if (controller.signal.aborted) throw controller.signal.reason
          failures += 1
          setState(entry, { failureCount: failures })
          if (!policy.shouldRetry(failures, error)) throw error
          await sleep(clock, policy.retryDelayMs(failures - 1), controller.signal)
        }
      }
    }
    setState(entry, { isFetching: true, failureCount: 0 })
    const promise = run().then(
      (data) => {
        if (entry.inFlight?.controller === controller) entry.inFlight = undefined
        setState(entry, {
          status: "success",
          data,
          error: undefined,
          dataUpdatedAt: clock.now(),
          isFetching: false,
          isInvalidated: entry.refetchQueued,
        })
        refetchIfQueued(key, entry)
        scheduleGc(key, entry)
        return data
      },
      (error: unknown) => {
        if (entry.inFlight?.controller === controller) entry.inFlight = undefined
        // A cancelled fetch keeps the previous data/status: it did not fail, nobody wants it any more.
        if (controller.signal.aborted) setState(entry, { isFetching: false })
        else setState(entry, { status: "error", error, isFetching: false })
        refetchIfQueued(key, entry)
        scheduleGc(key, entry)
        throw error
      },
    )
    entry.inFlight = { promise, controller }
    return promise
  }

  /** Waits for the shared fetch, but lets one caller stop waiting (its signal) without cancelling the rest. */
  const join = <T>(promise: Promise<unknown>, signal: AbortSignal | undefined): Promise<T> => {
    if (signal === undefined) return promise as Promise<T>
    const waiter = new AbortController()
    const unlink = linkSignal(signal, waiter)
    return new Promise<T>((resolve, reject) => {
      const onAbort = () => reject(waiter.signal.reason)
      if (waiter.signal.aborted) return onAbort()
      waiter.signal.addEventListener("abort", onAbort, { once: true })
      promise.then(
        (v) => {
          unlink()
          resolve(v as T)
        },
        (e: unknown) => {
          unlink()
          reject(e)
        },
      )
    })
  }

  const fetchQuery = <T>(key: QueryKey, fetcher: Fetcher<T>, signal?: AbortSignal): Promise<T> => {
    const entry = entryOf(key)
    if (!isStale(entry.state, policyFor(key).staleTimeMs, clock.now()) && entry.inFlight === undefined) {
      if (entry.listeners.size === 0) scheduleGc(key, entry)
      return Promise.resolve(entry.state.data as T)
    }
    return join<T>(startFetch(key, entry, fetcher), signal)
  }

  const refetch = <T>(key: QueryKey, fetcher: Fetcher<T>, signal?: AbortSignal): Promise<T> =>
    join<T>(startFetch(key, entryOf(key), fetcher), signal)

  const swallow = () => {}

  /** Marks matching entries stale; watched ones refetch now, or right after a fetch already under way. */
  const invalidateMatching = (prefix: ReadonlyArray<QueryKeyPart>) => {
    for (const [hash, entry] of [...entries]) {
      const key = JSON.parse(hash) as QueryKey
      if (!keyStartsWith(key, prefix)) continue
      setState(entry, { isInvalidated: true })
      if (entry.watchers <= 0 || entry.fetcher === undefined) continue
      if (entry.inFlight !== undefined) entry.refetchQueued = true
      else startFetch(key, entry, entry.fetcher).catch(swallow)
    }
  }

  const subscribe = (key: QueryKey, listener: () => void): (() => void) => {
    const entry = entryOf(key)
    entry.listeners.add(listener)
    cancelGc(entry)
    return () => {
      entry.listeners.delete(listener)
      if (entries.get(hashQueryKey(key)) === entry) scheduleGc(key, entry)
    }
  }

  return {
    fetchQuery,
    refetch,
    getState: <T>(key: QueryKey) => (entries.get(hashQueryKey(key))?.state ?? initialQueryState) as QueryState<T>,
    subscribe,
    watch: <T>(key: QueryKey, fetcher: Fetcher<T>, listener: (state: QueryState<T>) => void) => {
      const entry = entryOf(key)
      const unsubscribe = subscribe(key, () => listener(entry.state as QueryState<T>))
      entry.watchers += 1
      entry.fetcher = fetcher as Fetcher<unknown>
      listener(entry.state as QueryState<T>)
      if (isStale(entry.state, policyFor(key).staleTimeMs, clock.now())) fetchQuery(key, fetcher).catch(swallow)
      return () => {
        entry.watchers -= 1
        unsubscribe()
      }
    },
    setQueryData: <T>(key: QueryKey, updater: (current: T | undefined) => T) => {
      const entry = entryOf(key)
      setState(entry, {
        status: "success",
        data: updater(entry.state.data as T | undefined),
        error: undefined,
        dataUpdatedAt: clock.now(),
      })
      if (entry.listeners.size === 0) scheduleGc(key, entry)
    },
    invalidate: invalidateMatching,
    mutate: async (run, options = {}) => {
      const controller = new AbortController()
      const unlink = linkSignal(options.signal, controller)
      try {
        const result = await run(controller.signal)
        for (const prefix of options.invalidates ?? []) invalidateMatching(prefix)
        return result
      } finally {
        unlink()
      }
    },
    clear: () => {
      // Observed entries stay (reset) so their subscriptions keep working for the next session.
      for (const [hash, entry] of [...entries]) {
        cancelGc(entry)
        entry.inFlight?.controller.abort(new QueryCancelled("Query cache cleared"))
        entry.inFlight = undefined
        entry.refetchQueued = false
        entry.state = initialQueryState
        if (entry.listeners.size === 0) entries.delete(hash)
        for (const l of [...entry.listeners]) l()
      }
    },
    size: () => entries.size,
  }
}
