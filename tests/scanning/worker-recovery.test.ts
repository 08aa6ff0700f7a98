/**
 * A worker process killed with SIGKILL in the middle of a scan (PostgreSQL, moto): the scan services it was running
 * are picked up again by another worker within a minute (job heartbeats, server/scans/jobs.ts) instead of sitting
 * 'running' for the 15-minute lease, and the scan completes within 90 s of the kill, every service completed.
 * The API runs in this process without a worker loop; the workers are real `node server/main.ts worker` processes.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { Redacted } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { addMotoAccount, type Member, type ScanEnv, sleep, startScan, startScanEnv } from "./support.ts"

const MAIN = resolve(import.meta.dirname, "../../server/main.ts")
const postgres = (process.env["TEST_DATABASE_URL"] ?? "").trim() !== ""

let env: ScanEnv
let owner: Member
const children: Array<ChildProcess> = []
const dirs: Array<string> = []

const startWorker = (label: string) => {
  const dataDir = mkdtempSync(join(tmpdir(), `worker-${label}-`))
  dirs.push(dataDir)
  const child = spawn(process.execPath, [MAIN, "worker"], {
    env: {
      PATH: process.env["PATH"] ?? "",
      HOME: process.env["HOME"] ?? "/tmp",
      DATA_DIR: dataDir,
      DATABASE_URL: env.server.databaseUrl,
      APP_SECRET_KEY: Redacted.value(env.server.config.appSecretKey),
      AWS_ENDPOINT_URL: env.moto.endpoint,
      SCAN_REGIONS: "us-east-1",
      // Slow enough that the scan is still going when the worker is killed.
      SCAN_CONCURRENCY: "1",
      NODE_ENV: "test",
      LOG_LEVEL: "info",
    },
    stdio: ["ignore", "pipe", "pipe"],
  })
  let out = ""
  child.stdout!.on("data", (d: Buffer) => (out += d.toString()))
  child.stderr!.on("data", (d: Buffer) => (out += d.toString()))
  children.push(child)
  const ready = async () => {
    const deadline = Date.now() + 60_000
    while (!out.includes("\"worker started\"")) {
      if (child.exitCode !== null) throw new Error(`worker ${label} exited (${child.exitCode}): ${out.slice(-3000)}`)
      if (Date.now() > deadline) throw new Error(`worker ${label} not ready: ${out.slice(-3000)}`)
      await sleep(100)
    }
  }
  return { child, ready, output: () => out }
}

describe.skipIf(!postgres)("a worker killed mid-scan (PostgreSQL)", () => {
  beforeAll(async () => {
    env = await startScanEnv({ worker: false })
    owner = await env.workspace()
  }, 120_000)
  afterAll(async () => {
    for (const child of children) if (child.exitCode === null) child.kill("SIGKILL")
    await env?.stop()
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
  })

  it("has its running scan services picked up again and the scan completes within 90 s of the kill", async () => {
    const account = await addMotoAccount(env, owner)
    const first = startWorker("a")
    await first.ready()
    const scan = await startScan(env, owner, account.id)

    // Wait until the worker is in the middle of the scan: services running, not all finished.
    let running: ReadonlyArray<{ id: number }> = []
    const deadline = Date.now() + 60_000
    while (running.length === 0) {
      running = await env.sql((sql) => sql<{ id: number }>`SELECT id FROM scan_services WHERE scan_id = ${scan.id} AND status = 'running'`)
      if (Date.now() > deadline) throw new Error(`no service of scan ${scan.id} started running: ${first.output().slice(-2000)}`)
      if (running.length === 0) await sleep(50)
    }
    first.child.kill("SIGKILL")
    const killedAt = Date.now()
    await new Promise((r) => first.child.once("exit", r))
    const orphaned = running.map((r) => r.id)

    const second = startWorker("b")
    await second.ready()
    const done = await env.waitForScan(owner, scan.id, 90_000)
    const recoveredInMs = Date.now() - killedAt
    expect(done.status, second.output().slice(-3000)).toBe("completed")
    expect(recoveredInMs).toBeLessThan(90_000)

    const services = await env.sql((sql) =>
      sql<{ id: number; status: string; attempts: number; error: string | null }>`
        SELECT id, status, attempts, error FROM scan_services WHERE scan_id = ${scan.id} ORDER BY id`)
    expect(services.filter((s) => s.status !== "completed"), JSON.stringify(services)).toEqual([])
    // The orphaned services ran again (a second attempt) rather than being failed or waiting for the lease.
    for (const id of orphaned) {
      const service = services.find((s) => s.id === id)!
      expect(service.attempts, `service ${id}`).toBeGreaterThanOrEqual(2)
    }
    console.info(`worker recovery: ${orphaned.length} orphaned service(s), scan completed ${Math.round(recoveredInMs / 100) / 10} s after SIGKILL`)
  }, 240_000)
})
