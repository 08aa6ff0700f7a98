/**
 * `node server/main.ts start` (API + worker + embedded PGlite in one process, fresh DATA_DIR) seen the way the e2e
 * global setup and load balancers see it: a client polling /api/health from the first moment must only ever get
 * "connection refused" (not listening yet) or an answer, never a request that is accepted and then left unanswered,
 * and once ready it keeps answering 200 while the worker polls and pg-boss runs its maintenance.
 *
 * Regression: the HTTP server used to listen before its request handler was attached; a request parsed in between
 * was dropped by Node and hung forever, so the e2e setup (which polls every 250 ms) waited until its hook timeout in
 * most runs although the product had logged "ready".
 */
import { type ChildProcess, spawn } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { setTimeout as sleep } from "node:timers/promises"
import { afterAll, describe, expect, it } from "vitest"
import { makeNodeServer } from "../../server/http/server.ts"
import { freePort } from "../support/server.ts"

const MAIN = resolve(import.meta.dirname, "../../server/main.ts")
const PROBE_TIMEOUT_MS = 4_000
const START_DEADLINE_MS = 90_000

type Probe = "refused" | "timeout" | number

const probe = async (url: string): Promise<Probe> => {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) })
    await res.arrayBuffer()
    return res.status
  } catch (error) {
    return (error as Error).name === "TimeoutError" ? "timeout" : "refused"
  }
}

const children: Array<ChildProcess> = []
const dirs: Array<string> = []
afterAll(() => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL")
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

describe("embedded product start-up", () => {
  it("never leaves a health check unanswered while it starts, and stays healthy once ready", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "pglite-startup-"))
    dirs.push(dataDir)
    const port = await freePort()
    const url = `http://127.0.0.1:${port}/api/health`
    const child = spawn(process.execPath, [MAIN, "start", "--skip-build"], {
      env: { PATH: process.env["PATH"] ?? "", HOME: process.env["HOME"] ?? "/tmp", DATA_DIR: dataDir, PORT: String(port), HOST: "127.0.0.1", LOG_LEVEL: "warn" },
      stdio: ["ignore", "pipe", "pipe"],
    })
    children.push(child)
    let output = ""
    child.stdout!.on("data", (d: Buffer) => (output += d.toString()))
    child.stderr!.on("data", (d: Buffer) => (output += d.toString()))

    const seen: Array<Probe> = []
    const deadline = Date.now() + START_DEADLINE_MS
    // Several pollers with short pauses, so that some request lands in any window between "listening" and "serving".
    const pollers = Array.from({ length: 3 }, async () => {
      for (;;) {
        const outcome = await probe(url)
        seen.push(outcome)
        if (outcome === 200 || child.exitCode !== null || Date.now() > deadline) return
        await sleep(5)
      }
    })
    await Promise.all(pollers)
    expect(child.exitCode, output).toBeNull()
    expect(seen.filter((o) => o !== "refused"), output.slice(-2000)).not.toContain("timeout")
    expect(seen).toContain(200)

    // Ready: keeps answering while the worker polls its queues (pg-boss on the same embedded database).
    for (let round = 0; round < 5; round++) {
      const statuses = await Promise.all(Array.from({ length: 8 }, () => probe(url)))
      expect(statuses, output.slice(-2000)).toEqual(Array.from({ length: 8 }, () => 200))
      await sleep(300)
    }

    const exited = new Promise<number | null>((r) => child.once("exit", (code) => r(code)))
    child.kill("SIGTERM")
    expect(await exited).toBe(0)
  }, 150_000)
})

describe("HTTP server between listen and serve", () => {
  it("answers a request that arrived before the request handler was attached", async () => {
    const server = makeNodeServer()
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()))
    try {
      const address = server.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      const early = probe(`http://127.0.0.1:${port}/api/health`)
      await sleep(300) // the request is parsed meanwhile; plain Node would drop it
      server.on("request", (_req, res) => res.end("late handler"))
      expect(await early).toBe(200)
      expect(await probe(`http://127.0.0.1:${port}/again`)).toBe(200)
    } finally {
      server.closeAllConnections()
      await new Promise((r) => server.close(r))
    }
  })
})
