/**
 * A bounded queue in front of sign-in, whose password hashing (argon2id) costs tens of milliseconds of a core on
 * purpose. At most `concurrency` sign-ins run at once and at most `maxWaiting` wait; beyond that the caller fails at
 * once with its own "saturated" error (sign-in: 429 with retry_after_seconds), before any database or hashing work, so
 * a burst of sign-ins keeps a bounded latency and cannot starve the requests already admitted (or anyone's reads).
 */
import { Effect, Semaphore } from "effect"

export interface HashingGate {
  readonly run: <A, E, R, E2>(effect: Effect.Effect<A, E, R>, saturated: (retryAfterSeconds: number) => E2) => Effect.Effect<A, E | E2, R>
  /** Sign-ins running or waiting now. */
  readonly load: () => number
}

export const HASHING_CONCURRENCY = 3
export const HASHING_MAX_WAITING = 12

export const makeHashingGate = (options: { readonly concurrency?: number; readonly maxWaiting?: number } = {}): HashingGate => {
  const concurrency = options.concurrency ?? HASHING_CONCURRENCY
  const maxWaiting = options.maxWaiting ?? HASHING_MAX_WAITING
  const semaphore = Semaphore.makeUnsafe(concurrency)
  let inside = 0
  return {
    load: () => inside,
    run: <A, E, R, E2>(effect: Effect.Effect<A, E, R>, saturated: (retryAfterSeconds: number) => E2) =>
      Effect.suspend((): Effect.Effect<A, E | E2, R> => {
        if (inside >= concurrency + maxWaiting) return Effect.fail(saturated(1))
        inside++
        return semaphore.withPermits(1)(effect).pipe(Effect.ensuring(Effect.sync(() => void inside--)))
      }),
  }
}
