/**
 * The sign-in gate's shares and fair pick (server/auth/hashing-gate.ts, issue 27 problem 2), driven directly with
 * sign-ins that hold their slot until the test lets them go: a client or an account beyond its share is refused while
 * others are admitted; a freed slot goes to the least-served client, not to the flooder's older waiter; a sign-in
 * interrupted while waiting or running leaves the gate.
 */
import { Deferred, Effect, Fiber } from "effect"
import { describe, expect, it } from "vitest"
import { makeHashingGate } from "../../server/auth/hashing-gate.ts"

const refused = (retryAfter: number) => ({ refused: retryAfter })

/** Starts a sign-in that records its start and holds its slot until `release` is completed. */
const hold = (gate: ReturnType<typeof makeHashingGate>, client: string, account: string, started: Array<string>, label: string) =>
  Effect.gen(function* () {
    const release = yield* Deferred.make<void>()
    const fiber = yield* Effect.forkChild(gate.run(
      Effect.sync(() => void started.push(label)).pipe(Effect.andThen(Deferred.await(release)), Effect.as(label)),
      { client, account },
      refused,
    ))
    yield* Effect.yieldNow
    return { release: Deferred.succeed(release, undefined), fiber }
  })

describe("the hashing gate", () => {
  it("refuses a client beyond its share while another client is admitted", () =>
    Effect.runPromise(Effect.gen(function* () {
      const gate = makeHashingGate({ concurrency: 2, maxWaiting: 10, clientShare: 3, accountShare: 10 })
      const started: Array<string> = []
      for (let i = 0; i < 3; i++) yield* hold(gate, "flooder", `f${i}`, started, `f${i}`)
      expect(gate.load()).toBe(3)
      const over = yield* Fiber.join(yield* Effect.forkChild(gate.run(Effect.succeed("x"), { client: "flooder", account: "f9" }, refused).pipe(Effect.flip)))
      expect(over).toEqual({ refused: 1 })
      yield* hold(gate, "other", "o", started, "o")
      expect(gate.load()).toBe(4)
    })))

  it("refuses an account beyond its share to clients already inside, never to a client holding no place", () =>
    Effect.runPromise(Effect.gen(function* () {
      const gate = makeHashingGate({ concurrency: 2, maxWaiting: 10, clientShare: 10, accountShare: 2 })
      const started: Array<string> = []
      const attempt = (client: string, account: string) =>
        gate.run(Effect.succeed("ran"), { client, account }, refused).pipe(
          Effect.timeoutOption("50 millis"),
          Effect.match({ onFailure: (e) => e, onSuccess: (o) => (o._tag === "None" ? "waiting" : "ran") }),
        )
      yield* hold(gate, "attacker", "victim", started, "a")
      yield* hold(gate, "attacker", "victim", started, "b")
      // The attacker is over the victim account's share.
      expect(yield* attempt("attacker", "victim")).toEqual({ refused: 1 })
      // The owner's client holds nothing: admitted (it waits for a slot, both being held) rather than refused.
      const owner = yield* hold(gate, "owner", "victim", started, "owner")
      expect(gate.load()).toBe(3)
      // Once inside, the owner's client is bound by the share like anyone.
      expect(yield* attempt("owner", "victim")).toEqual({ refused: 1 })
      yield* owner.release
    })))

  it("gives a freed slot to the least-served client, not to the flooder's older waiter", () =>
    Effect.runPromise(Effect.gen(function* () {
      const gate = makeHashingGate({ concurrency: 1, maxWaiting: 10, clientShare: 4, accountShare: 10 })
      const started: Array<string> = []
      const f0 = yield* hold(gate, "flooder", "f", started, "f0")
      const f1 = yield* hold(gate, "flooder", "f", started, "f1")
      yield* hold(gate, "flooder", "f", started, "f2")
      const o = yield* hold(gate, "other", "o", started, "o")
      expect(started).toEqual(["f0"])
      yield* f0.release
      yield* Fiber.join(f0.fiber)
      yield* Effect.yieldNow
      expect(started).toEqual(["f0", "o"])
      yield* o.release
      yield* Fiber.join(o.fiber)
      yield* Effect.yieldNow
      expect(started).toEqual(["f0", "o", "f1"])
      yield* f1.release
    })))

  it("lets go of the place of a sign-in interrupted while waiting or running", () =>
    Effect.runPromise(Effect.gen(function* () {
      const gate = makeHashingGate({ concurrency: 1, maxWaiting: 1, clientShare: 4, accountShare: 4 })
      const started: Array<string> = []
      const running = yield* hold(gate, "a", "a", started, "running")
      const waiting = yield* hold(gate, "b", "b", started, "waiting")
      expect(gate.load()).toBe(2)
      yield* Fiber.interrupt(waiting.fiber)
      expect(gate.load()).toBe(1)
      yield* Fiber.interrupt(running.fiber)
      expect(gate.load()).toBe(0)
      const next = yield* hold(gate, "c", "c", started, "next")
      expect(started).toEqual(["running", "next"])
      yield* next.release
      expect(yield* Fiber.join(next.fiber)).toBe("next")
      expect(gate.load()).toBe(0)
    })))
})
