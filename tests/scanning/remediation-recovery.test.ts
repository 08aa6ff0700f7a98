/**
 * A worker process killed with SIGKILL in the middle of a remediation (PostgreSQL, moto): the remediation leaves
 * 'running' and completes within 90 s of the kill (the `findings.remediate` job's heartbeat, server/scans/jobs.ts: the
 * dead attempt is failed by the next supervising pass and retried by another worker), and it was never run by two
 * workers at once (the killed attempt never finished; one fix, one 'remediation.succeeded' audit entry).
 * The fixer is held while 'running' by the test-only knob REMEDIATION_TEST_DELAY_MS (server/scans/remediation.ts,
 * honoured only with NODE_ENV=test). The API runs in this process without a worker loop; the workers are real
 * `node server/main.ts worker` processes, as in ./worker-recovery.test.ts.
 */
import { CreateBucketCommand, GetBucketVersioningCommand } from "@aws-sdk/client-s3"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeAwsClients } from "../../server/scanner/aws/clients.ts"
import { addMotoAccount, detailed, type Member, MOTO_KEYS, type ScanEnv, sleep, startScanEnv, uniq } from "./support.ts"
import { workerProcesses } from "./worker-process.ts"

const postgres = (process.env["TEST_DATABASE_URL"] ?? "").trim() !== ""
const CHECK = "s3_bucket_versioning_enabled"
/** Long enough that the first attempt is surely mid-run when killed; the retried attempt waits it out too. */
const HOLD_MS = 8_000

let env: ScanEnv
let owner: Member

const workers = workerProcesses()
const startWorker = (label: string) => workers.start(env, label, { REMEDIATION_TEST_DELAY_MS: String(HOLD_MS) })

/** The worker's JSON log lines with this message. */
const logged = (output: string, msg: string): Array<Record<string, unknown>> =>
  output.split("\n").flatMap((line) => {
    try {
      const parsed = JSON.parse(line) as Record<string, unknown>
      return parsed["msg"] === msg || parsed["message"] === msg ? [parsed] : []
    } catch {
      return []
    }
  })

describe.skipIf(!postgres)("a worker killed mid-remediation (PostgreSQL)", () => {
  const bucket = uniq("rr-plain")

  beforeAll(async () => {
    env = await startScanEnv({ worker: false })
    owner = await env.workspace()
    const aws = makeAwsClients({ credentials: { accessKeyId: MOTO_KEYS.access_key, secretAccessKey: MOTO_KEYS.secret_key }, endpoint: env.moto.endpoint, maxAttempts: 1 })
    try {
      await aws.get("s3", "us-east-1").send(new CreateBucketCommand({ Bucket: bucket }))
    } finally {
      aws.destroy()
    }
  }, 120_000)
  afterAll(async () => {
    workers.stopAll()
    await env?.stop()
    workers.removeDirs()
  })

  it("has its running remediation picked up again, run once at a time, and finished within 90 s of the kill", async () => {
    const account = await addMotoAccount(env, owner)
    const first = startWorker("a")
    await first.ready()
    const started = await env.call(owner, "POST", "/api/scans", {
      user_id: owner.userId, account_id: account.id, cloud_provider_id: 1, cloud_provider_name: "aws", services: ["s3"],
    })
    expect(started.status, started.text).toBe(200)
    const scan = await env.waitForScan(owner, started.body.data.id, 120_000)
    expect(scan.status).toBe("completed")

    const list = await env.call(owner, "GET", `/api/findings?scan_id=${scan.id}&status=fail&page_size=100`)
    const finding = await detailed(env, owner, list.body.data.find((f: any) => f.check_id === CHECK))
    const row = finding.details.find((d: any) => d.resource_id === bucket)
    expect(row?.compliance).toBe(false)

    const requested = await env.call(owner, "POST", `/api/findings/${finding.id}/remediate`, { details: row })
    expect(requested.status, requested.text).toBe(200)
    const remediation = (await env.sql((sql) =>
      sql<{ id: number }>`SELECT id FROM remediations WHERE finding_id = ${finding.id} ORDER BY id DESC LIMIT 1`))[0]!

    // Wait until the first worker has claimed it ('running', its fixer held by the knob), then kill it.
    const deadline = Date.now() + 60_000
    while (logged(first.output(), "remediation started").length === 0) {
      if (Date.now() > deadline) throw new Error(`remediation ${remediation.id} did not start: ${first.output().slice(-2000)}`)
      await sleep(50)
    }
    const status = async () =>
      (await env.sql((sql) => sql<{ status: string }>`SELECT status FROM remediations WHERE id = ${remediation.id}`))[0]!.status
    expect(await status()).toBe("running")
    first.child.kill("SIGKILL")
    const killedAt = Date.now()
    await new Promise((r) => (first.child.exitCode !== null || first.child.signalCode !== null ? r(undefined) : first.child.once("exit", r)))

    const second = startWorker("b")
    await second.ready()
    let final = await status()
    while (final === "pending" || final === "running") {
      if (Date.now() - killedAt > 90_000) throw new Error(`remediation ${remediation.id} still ${final} 90 s after the kill: ${second.output().slice(-3000)}`)
      await sleep(250)
      final = await status()
    }
    const recoveredInMs = Date.now() - killedAt
    expect(final, second.output().slice(-3000)).toBe("remediated")
    expect(recoveredInMs).toBeLessThan(90_000)

    // Run once at a time: the killed attempt never finished; the retry started after the kill and finished once.
    expect(logged(first.output(), "remediation finished")).toEqual([])
    const retried = logged(second.output(), "remediation started")
    expect(retried).toHaveLength(1)
    expect(retried[0]!["attempt"]).toBe(2)
    // Picked up again within a minute of the kill (not after the job's 5-minute lease).
    const retriedAt = Date.parse(String(retried[0]!["time"]))
    expect(retriedAt).toBeGreaterThan(killedAt)
    expect(retriedAt - killedAt).toBeLessThan(60_000)
    expect(logged(second.output(), "remediation finished")).toHaveLength(1)
    const audit = await env.sql((sql) =>
      sql<{ action: string }>`SELECT action FROM audit_log WHERE action LIKE 'remediation.%' AND target_id = ${String(finding.id)} ORDER BY id`)
    expect(audit.map((a) => a.action)).toEqual(["remediation.requested", "remediation.succeeded"])

    const after = await detailed(env, owner, finding)
    expect(after.details.find((d: any) => d.resource_id === bucket).remediate.status).toBe("remediated")
    const aws = makeAwsClients({ credentials: { accessKeyId: MOTO_KEYS.access_key, secretAccessKey: MOTO_KEYS.secret_key }, endpoint: env.moto.endpoint, maxAttempts: 1 })
    try {
      expect((await aws.get("s3", "us-east-1").send(new GetBucketVersioningCommand({ Bucket: bucket }))).Status).toBe("Enabled")
    } finally {
      aws.destroy()
    }
    console.info(`remediation recovery: retried ${Math.round((retriedAt - killedAt) / 100) / 10} s and remediated ${Math.round(recoveredInMs / 100) / 10} s after SIGKILL`)
  }, 300_000)
})
