import { AsyncResource } from "node:async_hooks"

/**
 * A counting semaphore bounding the number of in-flight cloud API calls of one scan. The emulator and real
 * APIs both degrade under bursts (moto saturates at ~8 concurrent calls; AWS throttles per account), so every
 * collector call goes through one limiter per scan.
 */
export interface Limiter {
  run<A>(task: () => Promise<A>): Promise<A>
  readonly active: () => number
}

export function makeLimiter(concurrency: number): Limiter {
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new RangeError(`concurrency must be a positive integer, got ${concurrency}`)
  let active = 0
  const waiting: Array<() => void> = []
  const release = () => {
    active--
    const next = waiting.shift()
    if (next !== undefined) next()
  }
  return {
    active: () => active,
    run: <A>(task: () => Promise<A>) =>
      new Promise<A>((resolve, reject) => {
        const start = () => {
          active++
          task().then(
            (value) => {
              release()
              resolve(value)
            },
            (error: unknown) => {
              release()
              reject(error)
            },
          )
        }
        // A waiting task starts when another one ends, in the caller's async context (not the finishing task's), so
        // what the caller's context carries (its job's call counts, clients.ts `countCalls`) stays its own.
        if (active < concurrency) start()
        else waiting.push(AsyncResource.bind(start))
      }),
  }
}

/** Maps over items with at most `concurrency` callbacks running at once, keeping the input order. */
export async function mapConcurrent<T, R>(
  items: ReadonlyArray<T>,
  concurrency: number,
  fn: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length)
  let next = 0
  const worker = async () => {
    while (next < items.length) {
      const index = next++
      results[index] = await fn(items[index] as T, index)
    }
  }
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker))
  return results
}

/** The error a scan's aborted signal carries (its reason, or "Scan aborted"). */
export const abortReason = (signal: AbortSignal | undefined): Error =>
  signal?.reason instanceof Error ? signal.reason : new Error("Scan aborted")

/** Waits `ms`, or rejects with the signal's reason once it aborts (the REST client's retries, the principal gate's pauses). */
export const sleep = (ms: number, signal: AbortSignal | undefined) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted === true) return reject(abortReason(signal))
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort)
      resolve()
    }, ms)
    const onAbort = () => {
      clearTimeout(timer)
      reject(abortReason(signal))
    }
    signal?.addEventListener("abort", onAbort, { once: true })
  })
