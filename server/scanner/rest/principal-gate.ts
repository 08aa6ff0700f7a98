/**
 * One limit per principal and cloud API in this process (issue 31, "a concurrency cap per organisation and per cloud
 * API"): the member scans of a GCP organisation all sign in as the organisation's service account, and those of an
 * Azure management group as its app registration, so their API quotas are one principal's, whatever the number of
 * members scanned at once. Each scan keeps its own limiter (rest/context.ts, `concurrency`); every HTTP attempt of
 * every scan of the principal also goes through the gate of its API (the configured base the URL is under, e.g.
 * `https://storage.googleapis.com`), which
 *
 * - holds at most `limit` attempts in flight, across every scan of the principal in this process;
 * - after a throttled answer (429: GCP RESOURCE_EXHAUSTED / rateLimitExceeded, Azure's 429) holds every attempt to that
 *   API until the answer's `Retry-After` (or the backoff delay) has passed, so the principal's other scans wait out the
 *   quota window too instead of spending it on more 429s (the throttled call itself retries as before, rest/http.ts).
 *
 * Gates live as long as the process (one small entry per principal, API and limit). Worker processes each have their
 * own: the fleet-wide bound is `limit` × worker processes (docs/organizations.md).
 */
import { makeLimiter, sleep, type Limiter } from "../pool.ts"

export interface ApiGate {
  /** Runs one attempt once a slot of the API is free and no throttling pause of the API is in force. */
  run<A>(api: string, task: () => Promise<A>, signal?: AbortSignal): Promise<A>
  /** Holds every attempt to the API for `ms` from now (a longer pause already in force is kept). */
  pause(api: string, ms: number): void
  /** Attempts in flight to the API (tests, logs). */
  active(api: string): number
}

interface Entry {
  readonly limiter: Limiter
  resumeAt: number
}

const entries = new Map<string, Entry>()

/**
 * The gate of a principal (a GCP service account's client_email, an Azure tenant and client id: any string naming who
 * signs the calls, never a secret) with `limit` attempts in flight per API.
 */
export function principalGate(principal: string, limit: number): ApiGate {
  if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`limit must be a positive integer, got ${limit}`)
  const entry = (api: string): Entry => {
    const key = `${principal}\u0000${api}\u0000${limit}`
    let e = entries.get(key)
    if (e === undefined) {
      e = { limiter: makeLimiter(limit), resumeAt: 0 }
      entries.set(key, e)
    }
    return e
  }
  return {
    run: (api, task, signal) => {
      const e = entry(api)
      return e.limiter.run(async () => {
        // A pause may have begun while this attempt waited for its slot: wait it out holding the slot (every other
        // attempt to the API waits anyway).
        for (let left = e.resumeAt - Date.now(); left > 0; left = e.resumeAt - Date.now()) await sleep(left, signal)
        return task()
      })
    },
    pause: (api, ms) => {
      const e = entry(api)
      e.resumeAt = Math.max(e.resumeAt, Date.now() + Math.max(0, ms))
    },
    active: (api) => entry(api).limiter.active(),
  }
}
