/**
 * The validated read cache (issue 15 problem 8; docs/identity.md "The validated read cache").
 *
 * A workspace-scoped read that is asked again (a dashboard polling the scan list, the same findings page reopened)
 * is answered from the bytes of its last answer when one statement proves they are still what a full read would
 * give: `checkCachedRead` (server/auth/rls.ts) checks the session, the membership and that nothing in the workspace
 * changed since the snapshot the answer was read under (`workspace_changes`, migration 0014). That is one round trip
 * and no transaction, where a full read is four (BEGIN, scope + session + membership, the query, COMMIT) plus the
 * encoding of the answer.
 *
 * - Key: user, workspace (X-Workspace-ID or the token's) and the request's path and query. Another user never shares
 *   an entry, so what a role may see never leaks to another role; a change of the caller's role, permissions or
 *   membership is a write in the workspace and invalidates the entry.
 * - Only answers produced by a full read that passed every check are stored (200, and the scope statement's
 *   snapshot captured); errors are never cached.
 * - An entry lives at most `ttlMillis` (60 s) whatever the check says, and the cache is bounded in entries and bytes
 *   (oldest dropped first). Each process has its own; each app instance too (tests run many against many databases).
 * - Requests needing the same check share one statement, at most one in flight per check (`coalesced`); requests
 *   of a key with no valid entry wait for the one full read of that key under way (`inflight`).
 * - Every minute the process calls `prune_workspace_changes()` (migration 0014) so the change log stays short.
 *
 * The answer says which it was in `x-read-cache: hit | miss`. `READ_CACHE=0` disables the cache (every read is a
 * full read, without the header).
 */
import { Context, Effect, Layer, Option, Schedule, Schema } from "effect"
import { HttpServerResponse, type HttpServerRequest } from "effect/http"
import { SqlClient } from "effect/sql"
import { type CachedReadCheck, checkCachedRead, SnapshotCapture, standalone } from "../../auth/rls.ts"
import { logLine } from "../../log.ts"
import { verifyBearer } from "./authentication.ts"
import { requestedWorkspaceId } from "./workspace-scope.ts"

export interface ReadCacheOptions {
  readonly maxEntries: number
  readonly maxBytes: number
  readonly ttlMillis: number
}

export const DEFAULT_READ_CACHE: ReadCacheOptions = { maxEntries: 2_000, maxBytes: 64 * 1024 * 1024, ttlMillis: 60_000 }

interface Entry {
  readonly response: HttpServerResponse.HttpServerResponse
  readonly snapshot: string
  readonly bytes: number
  readonly expires: number
}

/** The requests of one check statement: settled with its answer (undefined if its sender ended without one). */
interface CheckBatch {
  readonly answer: Promise<CachedReadCheck | undefined>
}

/**
 * The check statements of one key: the one sent and not answered yet, and the batch not sent yet (which requests
 * join; it leaves `pending` when it is sent).
 */
interface CheckLane {
  inflight: Promise<unknown> | undefined
  pending: CheckBatch | undefined
}

export class ReadCacheStore {
  private readonly entries = new Map<string, Entry>()
  private bytes = 0
  /** Check statements by (user, session, workspace, snapshot): at most one sent and one waiting, which requests join. */
  readonly checks = new Map<string, CheckLane>()
  /** Full reads under way, by key: settled when the read ends, stored or not. */
  readonly inflight = new Map<string, Promise<void>>()

  readonly options: ReadCacheOptions

  constructor(options: ReadCacheOptions) {
    this.options = options
  }

  get(key: string, now: number): Entry | undefined {
    const entry = this.entries.get(key)
    if (entry !== undefined && entry.expires <= now) {
      this.delete(key)
      return undefined
    }
    return entry
  }

  set(key: string, entry: Entry): void {
    if (entry.bytes > this.options.maxBytes / 4) return
    this.delete(key)
    this.entries.set(key, entry)
    this.bytes += entry.bytes
    // Map order is insertion order: the first keys are the oldest.
    for (const [oldest] of this.entries) {
      if (this.entries.size <= this.options.maxEntries && this.bytes <= this.options.maxBytes) break
      this.delete(oldest)
    }
  }

  /** Drops `key` only while it still holds `entry` (a concurrent full read may have stored a newer one). */
  deleteIf(key: string, entry: Entry): void {
    if (this.entries.get(key) === entry) this.delete(key)
  }

  delete(key: string): void {
    const entry = this.entries.get(key)
    if (entry === undefined) return
    this.entries.delete(key)
    this.bytes -= entry.bytes
  }
}

export class ReadCache extends Context.Service<ReadCache, ReadCacheStore>()("cloud-audit/api/ReadCache") {
  /** A store for this app instance, and the minute prune of the change log while it lives. */
  static readonly layer = (options: ReadCacheOptions = DEFAULT_READ_CACHE) =>
    Layer.effect(
      ReadCache,
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        // In a transaction of its own, like every statement of the API (on PGlite it queues behind the process's gate).
        yield* standalone(sql`SELECT prune_workspace_changes()`).pipe(
          Effect.catchCause((cause) => Effect.sync(() => logLine("warn", "read cache: pruning the change log failed", { cause: String(cause) }))),
          Effect.repeat(Schedule.spaced("1 minute")),
          Effect.delay("1 minute"),
          Effect.forkScoped,
        )
        return new ReadCacheStore(options)
      }),
    )
}

const utf8 = new TextEncoder()

/**
 * One check statement for the requests that need the same one (same user, session, workspace and cached snapshot),
 * with at most one such statement in flight: a request joins the batch that has not been sent yet, or starts it; a
 * batch is sent when the turn of the event loop it started in has ended and the key's previous statement has been
 * answered. Under load, batches grow with the statement's round trip (as group commit does) instead of one statement
 * per turn. Every joined request arrived before its statement was sent, so the statement's snapshot is newer than
 * each of their arrivals: what it proves holds for each of them as if it had sent its own. If the request that sends
 * the batch ends without an answer (interrupted, failed), the others check on their own.
 */
export const coalesced = <R>(store: ReadCacheStore, key: string, check: Effect.Effect<CachedReadCheck, never, R>) =>
  Effect.gen(function* () {
    let lane = store.checks.get(key)
    if (lane === undefined) store.checks.set(key, (lane = { inflight: undefined, pending: undefined }))
    const open = lane.pending
    if (open !== undefined) {
      const answer = yield* Effect.promise(() => open.answer)
      return answer ?? (yield* check)
    }
    const owned = lane
    let settle!: (answer: CachedReadCheck | undefined) => void
    const batch: CheckBatch = { answer: new Promise((resolve) => (settle = resolve)) }
    owned.pending = batch
    const previous = owned.inflight
    const finish = () => {
      if (owned.pending === batch) owned.pending = undefined
      settle(undefined)
      if (owned.inflight === batch.answer) owned.inflight = undefined
      if (owned.inflight === undefined && owned.pending === undefined && store.checks.get(key) === owned) store.checks.delete(key)
    }
    return yield* Effect.gen(function* () {
      yield* Effect.promise(() => new Promise<void>((resolve) => setImmediate(resolve)))
      if (previous !== undefined) yield* Effect.promise(() => previous)
      // Sent: later requests start the next batch.
      owned.pending = undefined
      owned.inflight = batch.answer
      const answer = yield* check
      settle(answer)
      return answer
    }).pipe(Effect.onExit(() => Effect.sync(finish)))
  })

/** Says whether an answer came from the cache (`hit`) or from a full read (`miss`), as HTTP caches do. */
export const CACHE_HEADER = "x-read-cache"

/**
 * A workspace-scoped read through the cache: `read` is the handler's full read (it runs `inWorkspace`, which checks
 * everything and captures its snapshot); `success` is the endpoint's success schema, used to encode the answer
 * exactly as HttpApi would (200, application/json). Without a ReadCache in context it is `read` itself.
 */
export const cachedRead = <S extends Schema.Top, E, R>(
  request: HttpServerRequest.HttpServerRequest,
  success: S,
  read: Effect.Effect<S["Type"], E, R>,
): Effect.Effect<S["Type"] | HttpServerResponse.HttpServerResponse, E, R | SqlClient.SqlClient | S["EncodingServices"]> =>
  Effect.gen(function* () {
    const cache = yield* Effect.serviceOption(ReadCache)
    if (Option.isNone(cache)) return yield* read
    const store = cache.value
    // Who and where; when the token or the workspace header is not usable, the full read answers the error.
    const who = yield* Effect.option(Effect.flatMap(verifyBearer(request), (caller) =>
      Effect.map(requestedWorkspaceId(request, caller), (workspaceId) => ({ caller, workspaceId }))))
    if (Option.isNone(who)) return yield* read
    const { caller, workspaceId } = who.value
    const key = `${caller.userId}:${workspaceId}:${request.url}`
    // The entry there now; then, after waiting once for a full read of the same key under way, the one it stored; a
    // newer entry stored while a check ran is checked in turn. Bounded: after a few rounds, a full read of its own.
    let waited = false
    for (let round = 0; round < 4; round++) {
      const entry = store.get(key, Date.now())
      if (entry !== undefined) {
        const check = yield* coalesced(
          store,
          `${caller.userId}:${caller.sessionId}:${workspaceId}:${entry.snapshot}`,
          checkCachedRead({ workspaceId, userId: caller.userId }, caller.sessionId, entry.snapshot).pipe(Effect.orDie),
        )
        if (check.alive && check.member && check.unchanged) {
          return HttpServerResponse.setHeader(entry.response, CACHE_HEADER, "hit")
        }
        store.deleteIf(key, entry)
        // A full read that ended while this check ran stored a newer answer: check that one instead of reading again.
        if (store.get(key, Date.now()) !== undefined) continue
      }
      const pending = store.inflight.get(key)
      if (pending === undefined || waited) break
      // Requests that find no (or a stale) entry while a full read of their key runs wait for it, then check what it
      // stored like any entry: one full read per key at a time instead of one per waiting connection.
      waited = true
      yield* Effect.promise(() => pending)
    }
    let release!: () => void
    const flight = new Promise<void>((resolve) => (release = resolve))
    store.inflight.set(key, flight)
    const done = Effect.sync(() => {
      if (store.inflight.get(key) === flight) store.inflight.delete(key)
      release()
    })
    const response = yield* Effect.gen(function* () {
      const capture = { snapshot: undefined as string | undefined }
      const value = yield* Effect.provideService(read, SnapshotCapture, capture)
      const encoded = yield* Schema.encodeUnknownEffect(success)(value).pipe(Effect.orDie)
      const body = utf8.encode(JSON.stringify(encoded))
      const response = HttpServerResponse.uint8Array(body, { status: 200, contentType: "application/json" })
      if (capture.snapshot !== undefined) {
        store.set(key, { response, snapshot: capture.snapshot, bytes: body.byteLength, expires: Date.now() + store.options.ttlMillis })
      }
      return response
    }).pipe(Effect.onExit(() => done))
    return HttpServerResponse.setHeader(response, CACHE_HEADER, "miss")
  })
