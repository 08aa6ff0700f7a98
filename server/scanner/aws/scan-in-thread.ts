/**
 * `scanService` run in the process's scanner thread (./scan-thread.ts), for the job layer: the same input and result,
 * the same ScanSetupError, and an AbortSignal that aborts the scan's calls in the thread.
 *
 * One thread per process, started by the worker when it starts (`prewarmScannerThread`), else on the first scan. It does not keep the process alive while idle, and a thread that
 * dies (a crash, an out-of-memory) fails the scans it was running as "unreachable", which the job layer retries; the
 * next scan starts a new thread.
 */
import { readFileSync } from "node:fs"
import type { EventLoopUtilization } from "node:perf_hooks"
import { SHARE_ENV, Worker } from "node:worker_threads"
import type { ThreadError, ThreadRequest, ThreadScanInput } from "./scan-thread.ts"
import { ScanSetupError, type ScanServiceResult } from "./scan-service.ts"

interface Pending {
  readonly resolve: (result: ScanServiceResult) => void
  readonly reject: (error: Error) => void
}

let thread: Worker | undefined
/** The running thread's OS thread id, as it reported it at start (Linux). */
let threadTid: number | undefined
let nextId = 0
const pending = new Map<number, Pending>()

const toError = (failure: ThreadError): Error => {
  if (failure.reason !== undefined) return new ScanSetupError(failure.reason, failure.message)
  const error = new Error(failure.message)
  error.name = failure.name
  return error
}

const failAll = (error: Error) => {
  const all = [...pending.values()]
  pending.clear()
  for (const p of all) p.reject(error)
}

const start = (): Worker => {
  const worker = new Worker(new URL("./scan-thread.ts", import.meta.url), { env: SHARE_ENV, name: "aws-scanner" })
  worker.on("message", (m: { id: number; ok: true; result: ScanServiceResult } | { id: number; ok: false; error: ThreadError } | { tid: number | undefined }) => {
    if ("tid" in m) {
      if (thread === worker) threadTid = m.tid
      return
    }
    const p = pending.get(m.id)
    if (p === undefined) return
    pending.delete(m.id)
    if (pending.size === 0) worker.unref()
    if (m.ok) p.resolve(m.result)
    else p.reject(toError(m.error))
  })
  worker.on("error", (error) => {
    if (thread === worker) {
      thread = undefined
      threadTid = undefined
    }
    failAll(new ScanSetupError("unreachable", `The scanner thread failed: ${error.message}`))
  })
  worker.on("exit", (code) => {
    if (thread === worker) {
      thread = undefined
      threadTid = undefined
    }
    failAll(new ScanSetupError("unreachable", `The scanner thread stopped (exit code ${code})`))
  })
  worker.unref()
  return worker
}

/**
 * The scanner thread's event-loop utilisation since `previous` (Node's `Worker.performance`), or undefined while no
 * thread runs: how busy signing, sending and parsing keep it (the scan benchmark prints it).
 */
export function scannerThreadUtilization(previous?: EventLoopUtilization): EventLoopUtilization | undefined {
  return thread?.performance.eventLoopUtilization(previous)
}

/**
 * CPU seconds (user + system) the scanner thread has used so far, from /proc (Linux), or undefined while no thread runs
 * or elsewhere: what signing, sending, parsing and evaluating cost, whatever else the machine runs (the scan benchmark
 * prints it per scan).
 */
export function scannerThreadCpuSeconds(): number | undefined {
  if (thread === undefined || threadTid === undefined) return undefined
  try {
    const fields = readFileSync(`/proc/self/task/${threadTid}/stat`, "utf8").replace(/^.*\) /s, "").split(" ")
    return (Number(fields[11]) + Number(fields[12])) / 100
  } catch {
    return undefined
  }
}

/**
 * Starts the scanner thread now (loading the AWS SDK into it takes a second or two) so the first scan does not wait
 * for it. Idempotent; the idle thread does not keep the process alive.
 */
export function prewarmScannerThread(): void {
  thread ??= start()
}

/**
 * Scans one AWS service in the scanner thread. `shareKey` names the scan (its service jobs share one limiter of
 * `concurrency` slots and the account-wide reads).
 */
export function scanServiceInThread(
  input: ThreadScanInput & { readonly shareKey: string; readonly concurrency: number; readonly signal?: AbortSignal },
): Promise<ScanServiceResult> {
  const { shareKey, concurrency, signal, ...rest } = input
  if (signal?.aborted === true) return Promise.reject(signal.reason instanceof Error ? signal.reason : new Error("Scan aborted"))
  const worker = (thread ??= start())
  const id = nextId++
  return new Promise<ScanServiceResult>((resolve, reject) => {
    const onAbort = () => {
      const reason = signal?.reason instanceof Error ? signal.reason.message : "Scan aborted"
      worker.postMessage({ type: "abort", id, reason } satisfies ThreadRequest)
    }
    pending.set(id, {
      resolve: (r) => {
        signal?.removeEventListener("abort", onAbort)
        resolve(r)
      },
      reject: (e) => {
        signal?.removeEventListener("abort", onAbort)
        reject(e)
      },
    })
    signal?.addEventListener("abort", onAbort, { once: true })
    worker.ref()
    worker.postMessage({ type: "scan", id, shareKey, concurrency, input: rest } satisfies ThreadRequest)
  })
}

/** Stops the scanner thread (graceful shutdown, tests); running scans fail as "unreachable". */
export async function stopScannerThread(): Promise<void> {
  const worker = thread
  thread = undefined
  threadTid = undefined
  if (worker !== undefined) await worker.terminate()
}
