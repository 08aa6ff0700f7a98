/**
 * The read cache's check batching (server/api/middleware/read-cache.ts `coalesced`): at most one check statement in
 * flight per key, the requests arriving meanwhile share the next one, and none of them is answered by a statement
 * sent before it arrived. The last test checks both over random interleavings of arrivals, turns and answers (fast-check).
 */
import { Effect } from "effect"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { coalesced, DEFAULT_READ_CACHE, ReadCacheStore } from "../../server/api/middleware/read-cache.ts"
import type { CachedReadCheck } from "../../server/auth/rls.ts"

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve))

/** A check that records when it was sent and answers when `release` is called. */
const recordingCheck = () => {
  const sends: Array<number> = []
  const releases: Array<() => void> = []
  let clock = 0
  const tick = () => ++clock
  const check = Effect.promise(() => {
    sends.push(tick())
    return new Promise<CachedReadCheck>((resolve) => releases.push(() => resolve({ alive: true, member: true, unchanged: true })))
  })
  return { sends, releases, tick, check }
}

describe("read cache check batching", () => {
  it("sends one statement per key at a time; requests arriving while it runs share the next, sent after they arrived", async () => {
    const store = new ReadCacheStore(DEFAULT_READ_CACHE)
    const { sends, releases, tick, check } = recordingCheck()
    const arrivals: Array<{ at: number; answer: Promise<CachedReadCheck> }> = []
    const arrive = () => {
      const at = tick()
      arrivals.push({ at, answer: Effect.runPromise(coalesced(store, "k", check)) })
    }
    // Ten in one turn: one statement.
    for (let i = 0; i < 10; i++) arrive()
    await nextTurn()
    await nextTurn()
    expect(sends).toHaveLength(1)
    // Twenty more over five turns while the first statement runs: they wait, none is sent.
    for (let turn = 0; turn < 5; turn++) {
      for (let i = 0; i < 4; i++) arrive()
      await nextTurn()
    }
    expect(sends).toHaveLength(1)
    releases[0]!()
    await Promise.all(arrivals.slice(0, 10).map((a) => a.answer))
    await nextTurn()
    await nextTurn()
    expect(sends).toHaveLength(2)
    releases[1]!()
    const answers = await Promise.all(arrivals.map((a) => a.answer))
    expect(answers.every((a) => a.alive && a.member && a.unchanged)).toBe(true)
    // Each request arrived before the statement that answered it was sent.
    for (const [i, a] of arrivals.entries()) expect(a.at).toBeLessThan(sends[i < 10 ? 0 : 1]!)
    expect(store.checks.size).toBe(0)
  })

  it("keys do not wait for each other", async () => {
    const store = new ReadCacheStore(DEFAULT_READ_CACHE)
    const { sends, releases, check } = recordingCheck()
    const a = Effect.runPromise(coalesced(store, "a", check))
    const b = Effect.runPromise(coalesced(store, "b", check))
    await nextTurn()
    await nextTurn()
    expect(sends).toHaveLength(2)
    for (const release of releases) release()
    await Promise.all([a, b])
    expect(store.checks.size).toBe(0)
  })

  it("when the request that sends a batch is interrupted, the others check on their own", async () => {
    const store = new ReadCacheStore(DEFAULT_READ_CACHE)
    const { sends, releases, check } = recordingCheck()
    const controller = new AbortController()
    const first = Effect.runPromise(coalesced(store, "k", check), { signal: controller.signal }).catch(() => "interrupted")
    const second = Effect.runPromise(coalesced(store, "k", check))
    await nextTurn()
    await nextTurn()
    expect(sends).toHaveLength(1)
    controller.abort()
    expect(await first).toBe("interrupted")
    await nextTurn()
    await nextTurn()
    expect(sends).toHaveLength(2)
    releases[1]!()
    expect((await second).alive).toBe(true)
    releases[0]!()
    await nextTurn()
    expect(store.checks.size).toBe(0)
  })
})

describe("read cache check batching, any interleaving (property)", () => {
  it("never more than one statement in flight per key, and every request is answered by a statement sent after it arrived", async () => {
    const step = fc.oneof(
      fc.record({ kind: fc.constant("arrive" as const), key: fc.constantFrom("a", "b") }),
      fc.record({ kind: fc.constant("turn" as const) }),
      fc.record({ kind: fc.constant("answer" as const), key: fc.constantFrom("a", "b") }),
    )
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 60 }), async (steps) => {
        const store = new ReadCacheStore(DEFAULT_READ_CACHE)
        let clock = 0
        const inFlight = new Map<string, Array<{ sentAt: number; release: () => void }>>([["a", []], ["b", []]])
        let maxInFlight = 0
        const checkFor = (key: string) =>
          Effect.promise(() => {
            const sentAt = ++clock
            return new Promise<CachedReadCheck>((resolve) => {
              const list = inFlight.get(key)!
              const entry = {
                sentAt,
                release: () => {
                  list.splice(list.indexOf(entry), 1)
                  resolve({ alive: true, member: true, unchanged: true, sentAt } as CachedReadCheck)
                },
              }
              list.push(entry)
              maxInFlight = Math.max(maxInFlight, list.length)
            })
          })
        const requests: Array<{ arrivedAt: number; answer: Promise<CachedReadCheck> }> = []
        for (const s of steps) {
          if (s.kind === "arrive") requests.push({ arrivedAt: ++clock, answer: Effect.runPromise(coalesced(store, s.key, checkFor(s.key))) })
          else if (s.kind === "turn") await nextTurn()
          else inFlight.get(s.key)![0]?.release()
        }
        // Drain: answer whatever is sent until every request has its answer.
        let settled = false
        void Promise.all(requests.map((r) => r.answer)).then(() => (settled = true))
        for (let i = 0; i < 200 && !settled; i++) {
          await nextTurn()
          for (const list of inFlight.values()) list[0]?.release()
        }
        expect(settled).toBe(true)
        expect(maxInFlight).toBeLessThanOrEqual(1)
        for (const r of requests) expect((await r.answer as CachedReadCheck & { sentAt: number }).sentAt).toBeGreaterThan(r.arrivedAt)
        expect(store.checks.size).toBe(0)
      }),
      { numRuns: 200 },
    )
  })
})
