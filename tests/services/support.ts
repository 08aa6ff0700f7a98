/**
 * Test helpers for the SPA services: a simulated clock that also lets pending promise chains run, a
 * controllable promise, and a scripted `fetch`.
 */
import { SimulatedClock } from "xstate"

/** Lets every pending promise continuation run (a real macrotask turn). */
export const flush = (): Promise<void> => new Promise((resolve) => setImmediate(resolve))

/**
 * Advances a SimulatedClock by `ms`, in steps of `stepMs`, letting promise chains settle between steps, so
 * timers scheduled by code that awaited something still fire at their simulated time.
 */
export const advance = async (clock: SimulatedClock, ms: number, stepMs = 50): Promise<void> => {
  await flush()
  let left = ms
  while (left > 0) {
    const step = Math.min(stepMs, left)
    clock.increment(step)
    left -= step
    await flush()
  }
}

export const newClock = (startMs = Date.parse("2025-03-01T12:00:00.000Z")): SimulatedClock => {
  const clock = new SimulatedClock()
  clock.set(startMs)
  return clock
}

export interface Deferred<T> {
  readonly promise: Promise<T>
  resolve(value: T): void
  reject(error: unknown): void
}

export const deferred = <T>(): Deferred<T> => {
  let resolve!: (value: T) => void
  let reject!: (error: unknown) => void
  const promise = new Promise<T>((res, rej) => {
    resolve = res
    reject = rej
  })
  return { promise, resolve, reject }
}

export const json = (status: number, body: unknown, headers: Record<string, string> = {}): Response =>
  new Response(body === undefined ? null : JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json", ...headers },
  })

export interface RecordedCall {
  readonly method: string
  readonly url: string
  readonly headers: Record<string, string>
  readonly body: unknown
  readonly at: number
}

export type FetchHandler = (call: RecordedCall, signal: AbortSignal | undefined) => Response | Promise<Response>

/**
 * A `fetch` that records each call (with the simulated time it was made) and answers with `handler`.
 * A handler may return a promise that never settles: the request then ends only through its abort signal.
 */
export const scriptedFetch = (clock: { now(): number }, handler: FetchHandler) => {
  const calls: RecordedCall[] = []
  const fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url
    const headers: Record<string, string> = {}
    new Headers(init?.headers).forEach((v, k) => (headers[k] = v))
    const rawBody = init?.body
    const body = typeof rawBody === "string" && rawBody !== "" ? (JSON.parse(rawBody) as unknown) : undefined
    const call: RecordedCall = { method: init?.method ?? "GET", url, headers, body, at: clock.now() }
    calls.push(call)
    const signal = init?.signal ?? undefined
    const answer = Promise.resolve(handler(call, signal))
    if (signal === undefined) return answer
    return new Promise<Response>((resolve, reject) => {
      if (signal.aborted) return reject(signal.reason)
      signal.addEventListener("abort", () => reject(signal.reason), { once: true })
      answer.then(resolve, reject)
    })
  }) as typeof globalThis.fetch
  return { fetch, calls }
}

/** A promise that never settles (a server that never answers). */
export const never = <T>(): Promise<T> => new Promise<T>(() => {})
