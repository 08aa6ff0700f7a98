/**
 * One heartbeat per scan per process (server/scans/scan-watch.ts): the service jobs of a scan share one statement
 * per interval, a job whose service the statement no longer answers as open is aborted, and the ticker stops once
 * the last job has left.
 */
import { Deferred, Effect, Fiber } from "effect"
import { describe, expect, it } from "vitest"
import { ScanWatch } from "../../server/scans/scan-watch.ts"

const run = <A, E>(effect: Effect.Effect<A, E>) => Effect.runPromise(effect)
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
/** Polls `cond` (timers are late on a loaded machine: no test here counts on how many intervals fit in a time). */
const until = async (cond: () => boolean) => {
  for (let i = 0; i < 500 && !cond(); i++) await sleep(10)
  expect(cond()).toBe(true)
}

describe("scan watch", () => {
  it("beats once per interval for all the jobs of a scan, aborts the closed ones and stops when the last leaves", async () => {
    const watch = new ScanWatch(20)
    const beats: Array<ReadonlyArray<number>> = []
    let open = new Set([1, 2, 3, 4, 5])
    const beat = (ids: ReadonlyArray<number>) => Effect.sync(() => {
      beats.push([...ids].sort())
      return ids.filter((id) => open.has(id))
    })
    const closed: Array<number> = []
    const gates = new Map<number, Deferred.Deferred<void>>()
    const fibers = await run(Effect.forEach([1, 2, 3, 4, 5], (id) =>
      Effect.gen(function* () {
        const gate = yield* Deferred.make<void>()
        gates.set(id, gate)
        return yield* Effect.forkDetach(Deferred.await(gate).pipe(watch.watch("w:1", id, { onClosed: () => closed.push(id) }, beat)))
      })))
    await until(() => beats.length >= 2)
    // Each beat carried every job: one statement per interval for the scan, never one per job.
    for (const ids of beats) expect(ids).toEqual([1, 2, 3, 4, 5])
    expect(watch.size).toBe(1)

    // The scan is canceled for services 4 and 5: their jobs are told once and leave the beat.
    open = new Set([1, 2, 3])
    await until(() => closed.length === 2)
    await until(() => beats.at(-1)?.length === 3)
    expect(closed.sort()).toEqual([4, 5])
    expect(beats.at(-1)).toEqual([1, 2, 3])

    // Jobs that end leave the group; the ticker stops after the group is empty.
    for (const [id, gate] of gates) await run(Deferred.succeed(gate, undefined))
    for (const fiber of fibers) await run(Fiber.join(fiber))
    await until(() => watch.size === 0)
    const count = beats.length
    await sleep(60)
    expect(beats.length).toBe(count)
    expect(closed.sort()).toEqual([4, 5])
  })

  it("keeps scans apart, and a failed beat aborts nothing", async () => {
    const watch = new ScanWatch(15)
    const seen: Array<string> = []
    const failing = (key: string) => (_ids: ReadonlyArray<number>) => Effect.suspend(() => {
      seen.push(key)
      return Effect.fail(new Error("database unavailable"))
    })
    const closed: Array<number> = []
    const a = Effect.runFork(Effect.sleep("60 millis").pipe(watch.watch("w:1", 1, { onClosed: () => closed.push(1) }, failing("a"))))
    const b = Effect.runFork(Effect.sleep("60 millis").pipe(watch.watch("w:2", 2, { onClosed: () => closed.push(2) }, failing("b"))))
    expect(watch.size).toBe(2)
    await run(Fiber.join(a))
    await run(Fiber.join(b))
    expect(new Set(seen)).toEqual(new Set(["a", "b"]))
    expect(closed).toEqual([])
    await until(() => watch.size === 0)
  })
})

describe("scan watch, a second attempt of a service", () => {
  it("stays watched when the first attempt of the same service ends after it joined", async () => {
    const watch = new ScanWatch(10)
    const beats: Array<ReadonlyArray<number>> = []
    const beat = (ids: ReadonlyArray<number>) => Effect.sync(() => {
      beats.push([...ids])
      return ids
    })
    const first = await run(Deferred.make<void>())
    const second = await run(Deferred.make<void>())
    const a = Effect.runFork(Deferred.await(first).pipe(watch.watch("w:1", 7, { onClosed: () => undefined }, beat)))
    const b = Effect.runFork(Deferred.await(second).pipe(watch.watch("w:1", 7, { onClosed: () => undefined }, beat)))
    await run(Deferred.succeed(first, undefined))
    await run(Fiber.join(a))
    const before = beats.length
    await until(() => beats.length >= before + 2)
    expect(beats.at(-1)).toEqual([7])
    await run(Deferred.succeed(second, undefined))
    await run(Fiber.join(b))
    await until(() => watch.size === 0)
  })
})
