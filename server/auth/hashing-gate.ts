/**
 * A bounded, fair queue in front of sign-in, whose password hashing (argon2id) costs tens of milliseconds of a core on
 * purpose. At most `concurrency` sign-ins run at once and at most `maxWaiting` wait; beyond that the caller fails at
 * once with its own "saturated" error (sign-in: 429 with retry_after_seconds), before any database or hashing work, so
 * a burst of sign-ins keeps a bounded latency and cannot starve the requests already admitted (or anyone's reads).
 *
 * Shares (issue 27, problem 2): the gate is shared by everyone, so without shares one client flooding it with its own
 * valid password held every place and the others got 429. Each sign-in names its client (the address the rate limits
 * use, TRUST_PROXY aware) and its account (the normalised email):
 * - one client holds at most `clientShare` places (running or waiting), one account at most `accountShare`; a request
 *   beyond its share is refused at once even when the gate has room, so the rest of the gate stays open to others.
 *   A client that holds no place yet is never refused for its account's share (only for a full gate): otherwise one
 *   client flooding someone else's account would keep its owner out, the targeted lock-out the shares are against;
 * - a freed slot goes to the waiting sign-in whose client has the fewest sign-ins running, then whose client was
 *   served longest ago (round robin between clients), then whose account has the fewest running, then the oldest: a
 *   newcomer waits behind at most the slots already running, never behind a flooder's queue.
 */
import { Effect } from "effect"

export interface GateKeys {
  /** The client address (server/api/middleware/authentication.ts `clientAddress`). */
  readonly client: string
  /** The account asked for (normalised email). */
  readonly account: string
}

export interface HashingGate {
  readonly run: <A, E, R, E2>(
    effect: Effect.Effect<A, E, R>,
    keys: GateKeys,
    saturated: (retryAfterSeconds: number) => E2,
  ) => Effect.Effect<A, E | E2, R>
  /** Sign-ins running or waiting now. */
  readonly load: () => number
}

export const HASHING_CONCURRENCY = 3
export const HASHING_MAX_WAITING = 12
/** Places (running + waiting) one client may hold: under a third of the gate, more than the slots. */
export const HASHING_CLIENT_SHARE = 4
/** Places one account may hold, whatever the clients. */
export const HASHING_ACCOUNT_SHARE = 4

interface Entry {
  readonly client: string
  readonly account: string
  readonly seq: number
  granted: boolean
  wake: (() => void) | undefined
}

const bump = (map: Map<string, number>, key: string, by: number) => {
  const next = (map.get(key) ?? 0) + by
  if (next <= 0) map.delete(key)
  else map.set(key, next)
}

export const makeHashingGate = (options: {
  readonly concurrency?: number
  readonly maxWaiting?: number
  readonly clientShare?: number
  readonly accountShare?: number
} = {}): HashingGate => {
  const concurrency = options.concurrency ?? HASHING_CONCURRENCY
  const capacity = concurrency + (options.maxWaiting ?? HASHING_MAX_WAITING)
  const clientShare = options.clientShare ?? HASHING_CLIENT_SHARE
  const accountShare = options.accountShare ?? HASHING_ACCOUNT_SHARE
  const heldByClient = new Map<string, number>()
  const heldByAccount = new Map<string, number>()
  const runningByClient = new Map<string, number>()
  const runningByAccount = new Map<string, number>()
  /** When each client with places in the gate was last given a slot (grant counter; absent: never). */
  const lastServed = new Map<string, number>()
  const waiting: Array<Entry> = []
  let inside = 0
  let running = 0
  let seq = 0
  let grants = 0

  /** Hands free slots to the fairest waiting entries. */
  const schedule = () => {
    while (running < concurrency && waiting.length > 0) {
      let best = 0
      for (let i = 1; i < waiting.length; i++) {
        const a = waiting[i]!
        const b = waiting[best]!
        const order = [
          (runningByClient.get(a.client) ?? 0) - (runningByClient.get(b.client) ?? 0),
          (lastServed.get(a.client) ?? -1) - (lastServed.get(b.client) ?? -1),
          (runningByAccount.get(a.account) ?? 0) - (runningByAccount.get(b.account) ?? 0),
          a.seq - b.seq,
        ].find((d) => d !== 0) ?? 0
        if (order < 0) best = i
      }
      const entry = waiting.splice(best, 1)[0]!
      entry.granted = true
      lastServed.set(entry.client, grants++)
      running++
      bump(runningByClient, entry.client, 1)
      bump(runningByAccount, entry.account, 1)
      entry.wake?.()
    }
  }

  /** Leaves the gate (done, failed, or interrupted while waiting or running). */
  const leave = (entry: Entry) => {
    inside--
    bump(heldByClient, entry.client, -1)
    bump(heldByAccount, entry.account, -1)
    if (!heldByClient.has(entry.client)) lastServed.delete(entry.client)
    if (entry.granted) {
      running--
      bump(runningByClient, entry.client, -1)
      bump(runningByAccount, entry.account, -1)
    } else {
      const at = waiting.indexOf(entry)
      if (at >= 0) waiting.splice(at, 1)
    }
    schedule()
  }

  return {
    load: () => inside,
    run: <A, E, R, E2>(effect: Effect.Effect<A, E, R>, keys: GateKeys, saturated: (retryAfterSeconds: number) => E2) =>
      Effect.uninterruptibleMask((restore) => Effect.suspend((): Effect.Effect<A, E | E2, R> => {
        if (
          inside >= capacity ||
          (heldByClient.get(keys.client) ?? 0) >= clientShare ||
          ((heldByAccount.get(keys.account) ?? 0) >= accountShare && heldByClient.has(keys.client))
        ) return Effect.fail(saturated(1))
        const entry: Entry = { client: keys.client, account: keys.account, seq: seq++, granted: false, wake: undefined }
        inside++
        bump(heldByClient, entry.client, 1)
        bump(heldByAccount, entry.account, 1)
        waiting.push(entry)
        schedule()
        const turn = Effect.callback<void>((resume) => {
          if (entry.granted) resume(Effect.void)
          else entry.wake = () => resume(Effect.void)
        })
        // Entered and left atomically: an interruption while waiting or running still leaves the gate.
        return restore(turn.pipe(Effect.andThen(effect))).pipe(Effect.ensuring(Effect.sync(() => leave(entry))))
      })),
  }
}
