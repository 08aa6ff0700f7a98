/**
 * The AWS scanner's thread (entry of the worker thread started by ./scan-in-thread.ts).
 *
 * Signing, sending and parsing thousands of SDK calls is CPU work. In the main thread it competes with the API, the
 * job queue and, in embedded mode, the database itself (PGlite runs on the main thread's event loop), and every
 * millisecond the loop is busy delays the next request to the cloud. Here it has a thread of its own; the scan shares
 * (./scan-share.ts: one limiter and one memo per scan) live in this thread too, so every AWS service job of the process
 * shares them.
 *
 * Messages in:  { type: "scan", id, shareKey, concurrency, input } | { type: "abort", id }
 * Messages out: { id, ok: true, result } | { id, ok: false, error: { name, message, reason? } } | { tid } (once, at
 * start: the thread's OS thread id on Linux, so its CPU time can be read from /proc; see scannerThreadCpuSeconds)
 */
import { readlinkSync } from "node:fs"
import { parentPort } from "node:worker_threads"
import { acquireScanShare } from "./scan-share.ts"
import { scanService, ScanSetupError, type ScanServiceInput } from "./scan-service.ts"

export type ThreadScanInput = Omit<ScanServiceInput, "signal" | "share" | "stub">

export type ThreadRequest =
  | { readonly type: "scan"; readonly id: number; readonly shareKey: string; readonly concurrency: number; readonly input: ThreadScanInput }
  | { readonly type: "abort"; readonly id: number; readonly reason: string }

export interface ThreadError {
  readonly name: string
  readonly message: string
  readonly reason?: ScanSetupError["reason"]
}

const port = parentPort
if (port === null) throw new Error("scan-thread.ts runs as a worker thread (see scan-in-thread.ts)")

const running = new Map<number, AbortController>()

/** This thread's OS thread id (Linux: /proc/thread-self is "<pid>/task/<tid>"), or undefined elsewhere. */
const osThreadId = (): number | undefined => {
  try {
    const tid = Number(readlinkSync("/proc/thread-self").split("/").pop())
    return Number.isInteger(tid) ? tid : undefined
  } catch {
    return undefined
  }
}
port.postMessage({ tid: osThreadId() })

port.on("message", (request: ThreadRequest) => {
  if (request.type === "abort") {
    const error = new Error(request.reason)
    error.name = "AbortError"
    running.get(request.id)?.abort(error)
    return
  }
  const controller = new AbortController()
  running.set(request.id, controller)
  const held = acquireScanShare(request.shareKey, request.concurrency)
  scanService({ ...request.input, concurrency: request.concurrency, share: held.share, signal: controller.signal })
    .then(
      (result) => port.postMessage({ id: request.id, ok: true, result }),
      (error: unknown) => {
        const failure: ThreadError =
          error instanceof ScanSetupError
            ? { name: error.name, message: error.message, reason: error.reason }
            : { name: error instanceof Error ? error.name : "Error", message: error instanceof Error ? error.message : String(error) }
        port.postMessage({ id: request.id, ok: false, error: failure })
      },
    )
    .finally(() => {
      running.delete(request.id)
      held.release()
    })
})
