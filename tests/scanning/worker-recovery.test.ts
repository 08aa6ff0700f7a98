/**
 * A worker process killed with SIGKILL in the middle of a scan (PostgreSQL, moto): the scan services it was running
 * are picked up again by another worker within a minute (job heartbeats, server/scans/jobs.ts) instead of sitting
 * 'running' for the job lease, and the scan completes within 90 s of the kill, every service completed.
 * The API runs in this process without a worker loop; the workers are real `node server/main.ts worker` processes.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { addMotoAccount, type Member, type ScanEnv, sleep, startScan, startScanEnv } from "./support.ts"
import { workerProcesses } from "./worker-process.ts"

const postgres = (process.env["TEST_DATABASE_URL"] ?? "").trim() !== ""

let env: ScanEnv
let owner: Member

const workers = workerProcesses()
const startWorker = (label: string) => workers.start(env, label, { SCAN_CONCURRENCY: "1" })

describe.skipIf(!postgres)("a worker killed mid-scan (PostgreSQL)", () => {
  beforeAll(async () => {
    env = await startScanEnv({ worker: false })
    owner = await env.workspace()
  }, 120_000)
  afterAll(async () => {
    workers.stopAll()
    await env?.stop()
    workers.removeDirs()
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
