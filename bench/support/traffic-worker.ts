/**
 * The scan benchmark's traffic meter, in its own thread so it does not compete with the scanner's event loop:
 * a counting HTTP proxy in front of moto (total requests, requests in flight, distinct requests by operation, region
 * and parameters) and a replayer that sends the distinct requests straight to moto at a given concurrency.
 *
 * Messages in: { type: "listen" } | { type: "target", port } | { type: "start" } | { type: "stop" } |
 * { type: "replay", concurrency, viaMeter? } | { type: "close" }; every message is answered with { id, ...result }
 * ("listen" with the port and this thread's OS thread id).
 */
import { createHash } from "node:crypto"
import { readlinkSync } from "node:fs"
import { Agent, createServer, request, type IncomingHttpHeaders } from "node:http"
import type { AddressInfo } from "node:net"
import { performance } from "node:perf_hooks"
import { parentPort } from "node:worker_threads"

interface Recorded {
  readonly method: string
  readonly path: string
  readonly headers: IncomingHttpHeaders
  readonly body: Buffer
}

/** This thread's OS thread id (Linux: /proc/thread-self is "<pid>/task/<tid>"), so its CPU can be told apart. */
const osThreadId = (): number | undefined => {
  try {
    return Number(readlinkSync("/proc/thread-self").split("/").pop())
  } catch {
    return undefined
  }
}

const regionOf = (headers: IncomingHttpHeaders): string =>
  /Credential=[^/]+\/\d+\/([^/]+)\//.exec(String(headers["authorization"] ?? ""))?.[1] ?? ""

let target = 0
let recording = false
let total = 0
let inflight = 0
let peak = 0
let area = 0
let last = performance.now()
let started = 0
/** When the first counted request arrived and the last one finished (performance.now()); 0 before any. */
let firstAt = 0
let lastDoneAt = 0
/** Requests answered in each second since `start` (the per-second rate, BENCH_VERBOSE). */
const perSecond: Array<number> = []
const distinct = new Map<string, Recorded>()
const repeats = new Map<string, number>()
const agent = new Agent({ keepAlive: true, maxSockets: 256 })
/** TCP connections the scanner opened to the meter while recording (a client that reuses its sockets opens few). */
let connections = 0

const tick = () => {
  const now = performance.now()
  if (recording) area += inflight * (now - last)
  last = now
}

const server = createServer((req, res) => {
  const chunks: Array<Buffer> = []
  req.on("data", (c: Buffer) => chunks.push(c))
  req.on("end", () => {
    const body = Buffer.concat(chunks)
    const counted = recording
    if (counted) {
      tick()
      if (total === 0) firstAt = last
      total++
      inflight++
      peak = Math.max(peak, inflight)
      const operation = String(req.headers["x-amz-target"] ?? /Action=([A-Za-z]+)/.exec(body.toString("latin1"))?.[1] ?? "")
      const signature = [req.method, req.url, operation, regionOf(req.headers), createHash("sha1").update(body).digest("hex")].join(" ")
      if (distinct.has(signature)) repeats.set(signature, (repeats.get(signature) ?? 1) + 1)
      else distinct.set(signature, { method: req.method ?? "GET", path: req.url ?? "/", headers: req.headers, body })
    }
    let finished = false
    const done = () => {
      if (counted && !finished) {
        finished = true
        tick()
        lastDoneAt = last
        const second = Math.floor((last - started) / 1000)
        perSecond[second] = (perSecond[second] ?? 0) + 1
        inflight--
      }
    }
    const up = request({ host: "127.0.0.1", port: target, method: req.method, path: req.url, headers: req.headers, agent }, (upRes) => {
      // Hop-by-hop headers stay on their hop (RFC 9110 §7.6.1): moto closes every connection after one answer
      // ("Connection: close"), which must not make the scanner reconnect to this proxy for every call as well; the
      // replay, straight to moto, pays one connection per request, and so does the scan through here (proxy → moto).
      const headers = { ...upRes.headers }
      delete headers["connection"]
      delete headers["keep-alive"]
      res.writeHead(upRes.statusCode ?? 502, headers)
      upRes.pipe(res)
      upRes.on("end", done)
      upRes.on("error", done)
    })
    up.on("error", (error) => {
      done()
      res.writeHead(502)
      res.end(String(error))
    })
    up.end(body)
  })
})

/** Sends the distinct reads at `concurrency`, straight to moto, or through this meter's own proxy (`viaMeter`). */
const replay = async (concurrency: number, viaMeter = false) => {
  const reads = [...distinct.values()]
  const port = viaMeter ? (server.address() as AddressInfo).port : target
  const replayAgent = new Agent({ keepAlive: true, maxSockets: concurrency })
  const one = (r: Recorded) =>
    new Promise<void>((resolve, reject) => {
      const req = request({ host: "127.0.0.1", port, method: r.method, path: r.path, headers: r.headers, agent: replayAgent }, (res) => {
        res.resume()
        res.on("end", () => resolve())
        res.on("error", reject)
      })
      req.on("error", reject)
      req.end(r.body)
    })
  let next = 0
  const t0 = performance.now()
  await Promise.all(
    Array.from({ length: Math.min(concurrency, reads.length) }, async () => {
      while (next < reads.length) await one(reads[next++]!)
    }),
  )
  const ms = performance.now() - t0
  replayAgent.destroy()
  return ms
}

server.on("connection", () => {
  if (recording) connections++
})

parentPort!.on("message", async (message: { id: number; type: string; port?: number; concurrency?: number; viaMeter?: boolean }) => {
  const reply = (result: Record<string, unknown>) => parentPort!.postMessage({ id: message.id, ...result })
  switch (message.type) {
    case "listen":
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
      return reply({ port: (server.address() as AddressInfo).port, tid: osThreadId() })
    case "target":
      target = message.port ?? 0
      return reply({})
    case "start":
      total = 0
      connections = 0
      peak = 0
      area = 0
      distinct.clear()
      repeats.clear()
      last = performance.now()
      started = last
      firstAt = 0
      lastDoneAt = 0
      perSecond.length = 0
      recording = true
      return reply({})
    case "stop": {
      tick()
      recording = false
      const elapsed = performance.now() - started
      // Extra calls (beyond the first of each distinct read), grouped by operation: REST paths with their resource
      // names folded, so 120 repeated GetBucketLocation calls show as one line.
      const extra = new Map<string, number>()
      for (const [sig, n] of repeats) {
        const [method, url, operation] = sig.split(" ")
        const op = operation !== undefined && operation !== "" ? `${method} ${operation}` : `${method} ${(url ?? "").replace(/\/[^/?]+/g, "/*")}`
        extra.set(op, (extra.get(op) ?? 0) + n - 1)
      }
      const top = [...extra.entries()].sort((a, b) => b[1] - a[1]).slice(0, 12).map(([op, n]) => `+${n} ${op.slice(0, 110)}`)
      const span = firstAt > 0 ? lastDoneAt - firstAt : 0
      return reply({
        total, connections, peak, average: elapsed > 0 ? area / elapsed : 0, distinct: distinct.size, repeated: top,
        // From the first request to the last answer, and the average in flight over that span only.
        firstMs: firstAt > 0 ? firstAt - started : 0, lastMs: lastDoneAt > 0 ? lastDoneAt - started : 0,
        spanAverage: span > 0 ? area / span : 0,
        perSecond: Array.from(perSecond, (n) => n ?? 0),
      })
    }
    case "replay":
      return reply({ ms: await replay(Math.max(1, message.concurrency ?? 1), message.viaMeter === true) })
    case "close":
      await new Promise<void>((resolve) => server.close(() => resolve()))
      agent.destroy()
      return reply({})
  }
})
