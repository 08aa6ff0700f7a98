import { describe, expect, it } from "vitest"
import fc from "fast-check"
import { Query, queryRetryDelayMs } from "../../src/contracts/constants.ts"
import {
  QUERY_POLICIES,
  QueryCancelled,
  createQueryCache,
  initialQueryState,
  isStale,
  keyStartsWith,
  queryKeys,
  type QueryKey,
  type QueryState,
} from "../../src/services/query-cache.ts"
import { advance, deferred, flush, newClock } from "./support.ts"

const SECOND = 1000
const MINUTE = 60 * SECOND

const apiErr = (status?: number) => ({ type: "SERVER_ERROR", message: "x", ...(status === undefined ? {} : { status }) })

/** A fetcher that records call times and answers from a script (value or error per call). */
const scripted = <T>(clock: { now(): number }, answers: ReadonlyArray<{ ok: T } | { err: unknown }>) => {
  const calls: number[] = []
  const fetcher = async () => {
    const answer = answers[Math.min(calls.length, answers.length - 1)]!
    calls.push(clock.now())
    if ("err" in answer) throw answer.err
    return answer.ok
  }
  return { fetcher, calls }
}

describe("stale times (access §7 Caching)", () => {
  const cases: Array<[string, QueryKey, number]> = [
    ["permissions", queryKeys.permissions(1), 5 * MINUTE],
    ["workspaces", queryKeys.workspaces(), 5 * MINUTE],
    ["roles", queryKeys.roles(1), 5 * MINUTE],
    ["users", queryKeys.users(1), 5 * MINUTE],
    ["team members", queryKeys.teamMembers(1), 5 * MINUTE],
    ["invitations", queryKeys.invitations(1), 30 * SECOND],
    ["timezones", queryKeys.timezones(), 60 * MINUTE],
    ["user (fresh)", queryKeys.user(), 5 * MINUTE],
  ]
  it.each(cases)("%s: while observed, served from cache until its stale time, refetched from then on", async (_name, key, staleMs) => {
    const clock = newClock()
    const cache = createQueryCache({ clock })
    cache.subscribe(key, () => {})
    const { fetcher, calls } = scripted(clock, [{ ok: "v1" }, { ok: "v2" }])
    expect(await cache.fetchQuery(key, fetcher)).toBe("v1")
    await advance(clock, staleMs - 1, staleMs)
    expect(await cache.fetchQuery(key, fetcher)).toBe("v1")
    expect(calls).toHaveLength(1)
    await advance(clock, 1)
    expect(await cache.fetchQuery(key, fetcher)).toBe("v2")
    expect(calls).toHaveLength(2)
  })

  it("isStale: no data, invalidated, or at least staleTime old (property)", () => {
    fc.assert(
      fc.property(
        fc.constantFrom<QueryState["status"]>("pending", "success", "error"),
        fc.boolean(),
        fc.integer({ min: 0, max: 10 ** 9 }),
        fc.integer({ min: 0, max: 10 ** 8 }),
        fc.integer({ min: 0, max: 10 ** 8 }),
        (status, invalidated, updatedAt, age, staleTime) => {
          const state: QueryState = { ...initialQueryState, status, isInvalidated: invalidated, dataUpdatedAt: updatedAt }
          const expected = status !== "success" || invalidated || age >= staleTime
          expect(isStale(state, staleTime, updatedAt + age)).toBe(expected)
        },
      ),
    )
  })

  it("unobserved data goes after 10 minutes even when its stale time is longer (timezones)", async () => {
    const clock = newClock()
    const cache = createQueryCache({ clock })
    const { fetcher, calls } = scripted(clock, [{ ok: "v1" }, { ok: "v2" }])
    await cache.fetchQuery(queryKeys.timezones(), fetcher)
    await advance(clock, 10 * MINUTE, MINUTE)
    expect(await cache.fetchQuery(queryKeys.timezones(), fetcher)).toBe("v2")
    expect(calls).toHaveLength(2)
  })

  it("every policy keeps unobserved data 10 minutes", () => {
    for (const p of Object.values(QUERY_POLICIES)) expect(p.gcTimeMs).toBe(10 * MINUTE)
  })
})

describe("retries (access §7)", () => {
  it("retry delay: 1 s doubling, capped at 30 s (property)", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 60 }), (i) => {
        expect(queryRetryDelayMs(i)).toBe(Math.min(30 * SECOND, SECOND * 2 ** i))
      }),
    )
    expect([0, 1, 2, 3, 4, 5, 6].map(queryRetryDelayMs)).toEqual([1000, 2000, 4000, 8000, 16000, 30000, 30000])
  })

  it("queries retry twice, after 1 s then 2 s, then fail with the last error", async () => {
    const clock = newClock()
    const t0 = clock.now()
    const cache = createQueryCache({ clock })
    const { fetcher, calls } = scripted(clock, [{ err: apiErr(500) }])
    const outcome = cache.fetchQuery(queryKeys.workspaces(), fetcher).then(
      () => "resolved",
      (e: unknown) => e,
    )
    await advance(clock, 10 * SECOND)
    expect(calls.map((t) => t - t0)).toEqual([0, 1000, 3000])
    expect(await outcome).toEqual(apiErr(500))
    const state = cache.getState(queryKeys.workspaces())
    expect(state.status).toBe("error")
    expect(state.failureCount).toBe(3)
  })

  it("a retry that succeeds resolves with its data", async () => {
    const clock = newClock()
    const cache = createQueryCache({ clock })
    const { fetcher, calls } = scripted(clock, [{ err: apiErr(503) }, { ok: ["w"] }])
    const p = cache.fetchQuery(queryKeys.roles(1), fetcher)
    await advance(clock, 1000)
    expect(await p).toEqual(["w"])
    expect(calls).toHaveLength(2)
  })

  it("invitations: never retried on 4xx", async () => {
    fc.assert(
      fc.property(fc.integer({ min: 400, max: 499 }), fc.integer({ min: 1, max: 5 }), (status, failures) => {
        expect(QUERY_POLICIES.invitations.shouldRetry(failures, apiErr(status))).toBe(false)
      }),
    )
    const clock = newClock()
    const cache = createQueryCache({ clock })
    const { fetcher, calls } = scripted(clock, [{ err: apiErr(403) }])
    const p = cache.fetchQuery(queryKeys.invitations(1), fetcher).catch((e: unknown) => e)
    await advance(clock, 60 * SECOND, 500)
    expect(calls).toHaveLength(1)
    expect(await p).toEqual(apiErr(403))
  })

  it("invitations: other failures are tried up to 3 times", async () => {
    const clock = newClock()
    const t0 = clock.now()
    const cache = createQueryCache({ clock })
    const { fetcher, calls } = scripted(clock, [{ err: apiErr(502) }, { err: { type: "NETWORK_ERROR", message: "n" } }, { err: apiErr(500) }])
    const p = cache.fetchQuery(queryKeys.invitations(1), fetcher).catch((e: unknown) => e)
    await advance(clock, 60 * SECOND, 500)
    expect(calls.map((t) => t - t0)).toEqual([0, 1000, 3000])
    expect(await p).toEqual(apiErr(500))
  })

  it("the user query is not retried", async () => {
    const clock = newClock()
    const cache = createQueryCache({ clock })
    const { fetcher, calls } = scripted(clock, [{ err: apiErr(500) }])
    const p = cache.fetchQuery(queryKeys.user(), fetcher).catch((e: unknown) => e)
    await advance(clock, 60 * SECOND, 500)
    expect(calls).toHaveLength(1)
    expect(await p).toEqual(apiErr(500))
  })

  it("default policy: retry while failures ≤ 2 (property)", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 10 }), fc.integer({ min: 400, max: 599 }), (failures, status) => {
        expect(QUERY_POLICIES["team-members"].shouldRetry(failures, apiErr(status))).toBe(failures <= Query.retries)
      }),
    )
  })

  it("mutations are never retried", async () => {
    const clock = newClock()
    const cache = createQueryCache({ clock })
    const { fetcher, calls } = scripted(clock, [{ err: apiErr(500) }])
    const p = cache.mutate(fetcher).catch((e: unknown) => e)
    await advance(clock, 60 * SECOND, 500)
    expect(calls).toHaveLength(1)
    expect(await p).toEqual(apiErr(500))
  })
})

describe("sharing, observation and lifetime", () => {
  it("concurrent reads of one key share one fetch", async () => {
    const clock = newClock()
    const cache = createQueryCache({ clock })
    const gate = deferred<string>()
    let calls = 0
    const fetcher = () => {
      calls += 1
      return gate.promise
    }
    const reads = Promise.all([1, 2, 3, 4, 5].map(() => cache.fetchQuery(queryKeys.teamMembers(1), fetcher)))
    gate.resolve("rows")
    expect(await reads).toEqual(["rows", "rows", "rows", "rows", "rows"])
    expect(calls).toBe(1)
  })

  it("keys are per workspace: one workspace's data is never served for another", async () => {
    const clock = newClock()
    const cache = createQueryCache({ clock })
    await cache.fetchQuery(queryKeys.teamMembers(1), async () => "ws1")
    expect(await cache.fetchQuery(queryKeys.teamMembers(2), async () => "ws2")).toBe("ws2")
  })

  it("one caller giving up does not cancel the shared fetch", async () => {
    const clock = newClock()
    const cache = createQueryCache({ clock })
    const gate = deferred<string>()
    const leaving = new AbortController()
    const a = cache.fetchQuery(queryKeys.roles(1), () => gate.promise, leaving.signal).catch((e: unknown) => `aborted:${String(e)}`)
    const b = cache.fetchQuery(queryKeys.roles(1), () => gate.promise)
    leaving.abort("left")
    gate.resolve("roles")
    expect(await a).toBe("aborted:left")
    expect(await b).toBe("roles")
  })

  it("unobserved entries are dropped 10 minutes after last use; observed ones stay", async () => {
    const clock = newClock()
    const cache = createQueryCache({ clock })
    await cache.fetchQuery(queryKeys.timezones(), async () => ["UTC"])
    const unsubscribe = cache.subscribe(queryKeys.roles(1), () => {})
    await cache.fetchQuery(queryKeys.roles(1), async () => ["Admin"])
    expect(cache.size()).toBe(2)
    await advance(clock, 10 * MINUTE - 1, 60 * SECOND)
    expect(cache.size()).toBe(2)
    await advance(clock, 1)
    expect(cache.size()).toBe(1)
    expect(cache.getState(queryKeys.roles(1)).data).toEqual(["Admin"])
    unsubscribe()
    await advance(clock, 10 * MINUTE, 60 * SECOND)
    expect(cache.size()).toBe(0)
  })

  it("watch loads a stale key, reports each state, and refetches on invalidate", async () => {
    const clock = newClock()
    const cache = createQueryCache({ clock })
    const { fetcher, calls } = scripted(clock, [{ ok: 1 }, { ok: 2 }])
    const seen: Array<[string, boolean, unknown]> = []
    const stop = cache.watch<number>(queryKeys.invitations(1), fetcher, (s) => seen.push([s.status, s.isFetching, s.data]))
    await flush()
    expect(seen[0]).toEqual(["pending", false, undefined])
    expect(seen.at(-1)).toEqual(["success", false, 1])
    cache.invalidate(["invitations"])
    await flush()
    expect(calls).toHaveLength(2)
    expect(seen.at(-1)).toEqual(["success", false, 2])
    stop()
  })

  it("an invalidation during a fetch fetches once more afterwards", async () => {
    const clock = newClock()
    const cache = createQueryCache({ clock })
    const first = deferred<string>()
    let n = 0
    const stop = cache.watch<string>(queryKeys.teamMembers(1), () => (++n === 1 ? first.promise : Promise.resolve("after")), () => {})
    cache.invalidate(["team-members"])
    first.resolve("before")
    await flush()
    expect(n).toBe(2)
    expect(cache.getState(queryKeys.teamMembers(1)).data).toBe("after")
    stop()
  })

  it("a successful mutation invalidates and refetches watched queries", async () => {
    const clock = newClock()
    const cache = createQueryCache({ clock })
    const { fetcher, calls } = scripted(clock, [{ ok: ["a"] }, { ok: ["a", "b"] }])
    const stop = cache.watch(queryKeys.teamMembers(1), fetcher, () => {})
    await flush()
    await cache.mutate(async () => "created", { invalidates: [["team-members", 1]] })
    await flush()
    expect(calls).toHaveLength(2)
    expect(cache.getState(queryKeys.teamMembers(1)).data).toEqual(["a", "b"])
    stop()
  })

  it("setQueryData supports optimistic updates", () => {
    const clock = newClock()
    const cache = createQueryCache({ clock })
    cache.setQueryData<number[]>(queryKeys.teamMembers(1), () => [1, 2, 3])
    cache.setQueryData<number[]>(queryKeys.teamMembers(1), (rows) => (rows ?? []).filter((r) => r !== 2))
    expect(cache.getState(queryKeys.teamMembers(1)).data).toEqual([1, 3])
  })

  it("clear (logout) cancels fetches and retry timers, drops data, and notifies observers", async () => {
    const clock = newClock()
    const cache = createQueryCache({ clock })
    await cache.fetchQuery(queryKeys.roles(1), async () => ["Admin"])
    const { fetcher, calls } = scripted(clock, [{ err: apiErr(500) }])
    const failing = cache.fetchQuery(queryKeys.workspaces(), fetcher).catch((e: unknown) => e)
    let notified = 0
    cache.subscribe(queryKeys.roles(1), () => (notified += 1))
    await flush()
    cache.clear()
    expect(await failing).toBeInstanceOf(QueryCancelled)
    await advance(clock, 10 * SECOND, 500)
    expect(calls).toHaveLength(1)
    expect(notified).toBe(1)
    expect(cache.getState(queryKeys.roles(1))).toEqual(initialQueryState)
    expect(cache.getState(queryKeys.workspaces())).toEqual(initialQueryState)
  })

  it("getState is a stable snapshot for useSyncExternalStore: same object until something changes", async () => {
    const clock = newClock()
    const cache = createQueryCache({ clock })
    const key = queryKeys.roles(1)
    expect(cache.getState(key)).toBe(cache.getState(key))
    let changes = 0
    const unsubscribe = cache.subscribe(key, () => (changes += 1))
    const before = cache.getState(key)
    await cache.fetchQuery(key, async () => ["Admin"])
    const after = cache.getState(key)
    expect(after).not.toBe(before)
    expect(cache.getState(key)).toBe(after)
    expect(changes).toBeGreaterThan(0)
    unsubscribe()
  })

  it("keyStartsWith matches element-wise prefixes (property)", () => {
    const part = fc.oneof(fc.string(), fc.integer(), fc.constant(null))
    fc.assert(
      fc.property(fc.array(part, { maxLength: 3 }), fc.array(part, { maxLength: 3 }), (a, b) => {
        const key = ["roles", ...a, ...b] as unknown as QueryKey
        expect(keyStartsWith(key, ["roles", ...a])).toBe(true)
        expect(keyStartsWith(key, ["timezones"])).toBe(false)
      }),
    )
  })
})
