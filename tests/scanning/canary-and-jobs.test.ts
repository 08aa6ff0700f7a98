/**
 * Secrets and the job layer, over real HTTP with the in-process worker and moto:
 * - the canary: a planted secret never appears in any response (except the audited reveal), log line or job payload,
 *   nor in clear anywhere in the database;
 * - an operation the account cannot call (AccessDenied) is recorded on the finding, and the scan still completes;
 * - one failing service does not fail the others (roll-up);
 * - the orphan sweeper fails work nobody will finish, with a reason, and is single-flight.
 */
import { randomBytes, randomUUID } from "node:crypto"
import { CreateAccessKeyCommand, CreateUserCommand, PutUserPolicyCommand } from "@aws-sdk/client-iam"
import { CreateBucketCommand } from "@aws-sdk/client-s3"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { openCredentials } from "../../server/accounts/credential-vault.ts"
import { inScope } from "../../server/auth/rls.ts"
import { Database } from "../../server/db/client.ts"
import { JobQueue } from "../../server/jobs/queue.ts"
import { makeAwsClients } from "../../server/scanner/aws/clients.ts"
import type { CheckResult } from "../../server/scanner/check.ts"
import { scanningJobs } from "../../server/scans/jobs.ts"
import { completeService, failService } from "../../server/scans/run-service.ts"
import { sweepOrphans } from "../../server/scans/sweeper.ts"
import { ScanningServerMessages } from "../../src/contracts/messages.ts"
import { withSql } from "../support/db.ts"
import { detailed, MOTO_KEYS, startScan, startScanEnv, type Member, type ScanEnv } from "./support.ts"

let env: ScanEnv
let owner: Member
const canary = `CANARY${randomBytes(16).toString("hex")}`
const canaryToken = `CANARYTOKEN${randomBytes(16).toString("hex")}`

beforeAll(async () => {
  env = await startScanEnv()
  owner = await env.workspace()
}, 120_000)
afterAll(async () => {
  await env?.stop()
})

/** Every row of every table outside the system schemas, as text. */
const dumpDatabase = () =>
  env.sql((q) =>
    Effect.gen(function* () {
      const tables = yield* q<{ schema: string; name: string }>`
        SELECT table_schema AS schema, table_name AS name FROM information_schema.tables
        WHERE table_type = 'BASE TABLE' AND table_schema NOT IN ('pg_catalog', 'information_schema')`
      const out: Array<string> = []
      for (const t of tables) {
        const rows = yield* q.unsafe<{ row: string }>(`SELECT t::text AS row FROM "${t.schema}"."${t.name}" t`)
        for (const r of rows) out.push(`${t.schema}.${t.name}: ${r.row}`)
      }
      return { tables: tables.length, rows: out }
    }),
  )

describe("the canary secret", () => {
  it("never leaves the vault: not in responses, logs, job payloads or the database in clear", async () => {
    const add = await env.call(owner, "POST", "/api/accounts", {
      cloud_provider_id: 1,
      account_name: "Canary",
      is_organization: false,
      credentials: { access_key: "AKIACANARYACCESSKEY1", secret_key: canary, session_token: canaryToken },
    })
    expect(add.status).toBe(200)
    const accountId = add.body.data.account.id
    const scan = await startScan(env, owner, accountId)
    const done = await env.waitForScan(owner, scan.id)
    expect(done.status).toBe("completed")

    // Read everything a user can read.
    const s3 = done.services.find((s: any) => s.service_name === "S3")
    for (const path of [
      "/api/cloud-providers",
      "/api/accounts?cloud_provider_id=1",
      `/api/accounts/${accountId}`,
      "/api/scans",
      `/api/scans/${scan.id}`,
      `/api/findings?scan_id=${scan.id}&page_size=100`,
      `/api/findings?scan_id=${scan.id}&service_id=${s3.service_id}`,
      `/api/scans/${scan.id}/export?format=csv`,
      `/api/scans/${scan.id}/export?format=json`,
      `/api/scans/${scan.id}/export?format=ocsf`,
    ]) {
      expect((await env.call(owner, "GET", path)).status, path).toBe(200)
    }
    const findings = (await env.call(owner, "GET", `/api/findings?scan_id=${scan.id}&page_size=1`)).body.data
    expect((await env.call(owner, "GET", `/api/findings/${findings[0].id}`)).status).toBe(200)

    expect(env.bodies.length).toBeGreaterThan(12)
    for (const body of env.bodies) {
      expect(body).not.toContain(canary)
      expect(body).not.toContain(canaryToken)
    }
    expect(env.logs.length).toBeGreaterThan(0)
    for (const line of env.logs) {
      expect(line).not.toContain(canary)
      expect(line).not.toContain(canaryToken)
    }
    const payloads = await env.sql((q) => q<{ data: string }>`SELECT data::text AS data FROM pgboss.job`)
    expect(payloads.length).toBeGreaterThanOrEqual(done.total_services)
    for (const p of payloads) {
      expect(p.data).not.toContain(canary)
      expect(p.data).not.toMatch(/secret|credential/i)
    }
    const dump = await dumpDatabase()
    expect(dump.tables).toBeGreaterThan(10)
    for (const row of dump.rows) {
      expect(row).not.toContain(canary)
      expect(row).not.toContain(canaryToken)
    }

    // It IS stored, sealed: the server's key opens it for this account only.
    const sealed = await env.sql((q) => q<{ credentials_sealed: string; workspace_id: number }>`
      SELECT credentials_sealed, workspace_id FROM accounts WHERE id = ${accountId}`)
    const opened = openCredentials(env.server.config.appSecretKey, sealed[0]!.credentials_sealed, { workspaceId: owner.workspaceId, accountId })
    expect(opened).toMatchObject({ secret_key: canary, session_token: canaryToken })
    expect(openCredentials(env.server.config.appSecretKey, sealed[0]!.credentials_sealed, { workspaceId: owner.workspaceId, accountId: accountId + 1 })).toBeUndefined()

    // The one intended way out: the permission-checked, audited reveal.
    const reveal = await env.call(owner, "POST", `/api/accounts/${accountId}/reveal-secret`)
    expect(reveal.body.data.secret_key).toBe(canary)
    for (const line of env.logs) expect(line).not.toContain(canary)
  }, 180_000)
})

describe("access denied inside a scan", () => {
  it("records the operation the account cannot call on the finding as not evaluated (never failed), and still completes the scan", async () => {
    const root = makeAwsClients({ credentials: { accessKeyId: MOTO_KEYS.access_key, secretAccessKey: MOTO_KEYS.secret_key }, endpoint: env.moto.endpoint, maxAttempts: 1 })
    const iam = root.get("iam", "us-east-1")
    await iam.send(new CreateUserCommand({ UserName: "limited-scanner" }))
    await iam.send(new PutUserPolicyCommand({
      UserName: "limited-scanner",
      PolicyName: "s3-only",
      PolicyDocument: JSON.stringify({
        Version: "2012-10-17",
        Statement: [{ Effect: "Allow", Action: ["sts:GetCallerIdentity", "s3:List*", "s3:Get*", "ec2:DescribeRegions"], Resource: "*" }],
      }),
    }))
    const key = (await iam.send(new CreateAccessKeyCommand({ UserName: "limited-scanner" }))).AccessKey!
    await root.get("s3", "us-east-1").send(new CreateBucketCommand({ Bucket: `limited-${Date.now()}` }))
    root.destroy()

    const other = await env.workspace()
    await env.moto.enforceAuth(true)
    try {
      const add = await env.call(other, "POST", "/api/accounts", {
        cloud_provider_id: 1,
        account_name: "Least privilege",
        is_organization: false,
        credentials: { access_key: key.AccessKeyId!, secret_key: key.SecretAccessKey! },
      })
      expect(add.status, add.text).toBe(200)
      const scan = await startScan(env, other, add.body.data.account.id)
      const done = await env.waitForScan(other, scan.id, 180_000)
      expect(done.status).toBe("completed")
      const iamService = done.services.find((s: any) => s.service_name === "IAM")
      expect(iamService.status).toBe("completed")
      const iamFindings = await Promise.all(
        (await env.call(other, "GET", `/api/findings?scan_id=${scan.id}&service_id=${iamService.service_id}&page_size=100`)).body.data
          .map((f: any) => detailed(env, other, f)),
      )
      const denied = iamFindings.flatMap((f: any) => f.details.filter((d: any) => /AccessDenied/.test(String(d.error_code))).map((d: any) => ({ f, d })))
      expect(denied.length).toBeGreaterThan(0)
      for (const { f, d } of denied) {
        // A check whose only problem is an unreadable input is not evaluated: spec status pass, outcome and reason apart.
        if (f.resources_failing === 0) {
          expect(f).toMatchObject({ status: "pass", outcome: "not_evaluated" })
          expect(f.not_evaluated_reason).toMatch(/^Not evaluated: iam:\w+ failed with AccessDenied \(access denied\)/)
        }
        expect(d.compliance).toBeUndefined()
        expect(d).toMatchObject({ operation: expect.stringMatching(/^iam:/), error_kind: "access_denied" })
        expect(d.reason).toMatch(/access denied/)
      }
      // Not-evaluated findings count neither as failed nor as passed.
      const outcomes = iamFindings.map((f: any) => f.outcome as string)
      const notEvaluated = outcomes.filter((o) => o === "not_evaluated").length
      expect(notEvaluated).toBeGreaterThan(0)
      expect(iamService.failed_findings).toBe(outcomes.filter((o) => o === "fail").length)
      expect(iamService.not_evaluated_findings).toBe(notEvaluated)
      expect(iamService.passed_findings).toBe(iamService.findings_count - iamService.failed_findings - notEvaluated)
      const listed = await env.call(other, "GET", `/api/findings?scan_id=${scan.id}&service_id=${iamService.service_id}&status=not_evaluated&page_size=100`)
      expect(listed.body.pagination.total).toBe(notEvaluated)
    } finally {
      await env.moto.enforceAuth(false)
    }
  }, 240_000)
})

describe("credentials that stopped working", () => {
  it("fails every service at once with the reason (no retries), and the scan with it", async () => {
    const other = await env.workspace()
    const add = await env.call(other, "POST", "/api/accounts", {
      cloud_provider_id: 1, account_name: "Rotated", is_organization: false, credentials: { access_key: "AKIAROTATEDKEY000001", secret_key: "old" },
    })
    expect(add.status).toBe(200)
    await env.moto.enforceAuth(true)
    try {
      const scan = await startScan(env, other, add.body.data.account.id)
      const done = await env.waitForScan(other, scan.id, 120_000)
      expect(done.status).toBe("failed")
      expect(done.completed_services).toBe(0)
      for (const s of done.services) expect(s.status).toBe("failed")
      const rows = await env.sql((q) => q<{ error: string; attempts: number }>`SELECT error, attempts FROM scan_services WHERE scan_id = ${scan.id}`)
      for (const r of rows) {
        expect(r.error).toMatch(/Could not verify the AWS credentials: InvalidClientTokenId/)
        expect(r.attempts).toBe(1)
      }
      const reason = await env.sql((q) => q<{ failure_reason: string }>`SELECT failure_reason FROM scans WHERE id = ${scan.id}`)
      expect(reason[0]!.failure_reason).toBe(ScanningServerMessages.everyServiceFailed)
    } finally {
      await env.moto.enforceAuth(false)
    }
  }, 150_000)
})

// ---------------------------------------------------------------------------------------------------------------
// Job-layer rules on fabricated scans (no worker involvement: the rows carry job ids the worker never sees).

const fabricateScan = async (services: ReadonlyArray<{ key: string; jobId: string | null }>) => {
  const accountId = (await env.call(owner, "GET", "/api/accounts?cloud_provider_id=1")).body.data.accounts[0].id
  return env.sql((q) =>
    Effect.gen(function* () {
      const scan = yield* q<{ id: number }>`
        INSERT INTO scans (workspace_id, account_id, cloud_provider_id, status, total_services, created_by)
        VALUES (${owner.workspaceId}, ${accountId}, 1, 'running', ${services.length}, ${owner.userId}) RETURNING id`
      const rows: Array<{ id: number; key: string }> = []
      for (const s of services) {
        const r = yield* q<{ id: number }>`
          INSERT INTO scan_services (workspace_id, scan_id, service_id, status, job_id, started_at, heartbeat_at)
          SELECT ${owner.workspaceId}, ${scan[0]!.id}, id, 'running', ${s.jobId}, now(), now() FROM cloud_services WHERE key = ${s.key}
          RETURNING id`
        rows.push({ id: r[0]!.id, key: s.key })
      }
      return { scanId: scan[0]!.id, services: rows }
    }),
  )
}

const check = (id: string, status: "pass" | "fail"): CheckResult => ({
  check_id: id,
  service: "s3",
  title: id,
  policy_check: id,
  description: id,
  severity: "high",
  cis: {},
  remediation: "fix it",
  status,
  field_labels: { resource_id: "Resource" },
  details: [{ resource_id: "r1", region: "us-east-1", compliant: status === "pass", reason: status }],
  errors: [],
})

describe("roll-up", () => {
  it("one failing service does not fail the others; completion is written once", async () => {
    const { scanId, services } = await fabricateScan([{ key: "s3", jobId: null }, { key: "iam", jobId: null }])
    const [s3, iam] = services
    const payload = (s: { id: number }) => ({ workspace_id: owner.workspaceId, scan_id: scanId, scan_service_id: s.id })
    const result = { findings: [check("fake_pass", "pass"), check("fake_fail", "fail")], resourcesScanned: 2, apiCalls: 3 }
    expect(await withSql(env.server.databaseUrl, completeService(payload(s3!), result))).toBe(true)
    expect(await withSql(env.server.databaseUrl, completeService(payload(s3!), result))).toBe(false)
    let mid = (await env.call(owner, "GET", `/api/scans/${scanId}`)).body.data
    expect(mid).toMatchObject({ status: "running", completed_services: 1, findings_count: 2, failed_findings: 1 })
    await withSql(env.server.databaseUrl, failService(payload(iam!), "IAM collector crashed"))
    mid = (await env.call(owner, "GET", `/api/scans/${scanId}`)).body.data
    expect(mid).toMatchObject({ status: "completed", total_services: 2, completed_services: 1, findings_count: 2, passed_findings: 1, failed_findings: 1 })
    expect(mid.services.map((s: any) => s.status)).toEqual(["completed", "failed"])
    expect(mid.scan_end).not.toBeNull()
    const error = await env.sql((q) => q<{ error: string }>`SELECT error FROM scan_services WHERE id = ${iam!.id}`)
    expect(error[0]!.error).toBe("IAM collector crashed")
  })
})

describe("row-level security (beneath the handlers' own checks)", () => {
  it("shows each workspace only its own scanning rows, nothing without a scope, and the sweeper scope only scans", async () => {
    const other = await env.workspace()
    const counts = (scope: { workspaceId?: number }, system = false) =>
      withSql(
        env.server.databaseUrl,
        inScope(scope)(
          Effect.gen(function* () {
            const sql = yield* SqlClient.SqlClient
            if (system) yield* sql`SELECT set_config('app.system_scope', 'scan-sweeper', true)`
            const n = (table: string) => sql.unsafe<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`).pipe(Effect.map((r) => r[0]!.n))
            return {
              accounts: yield* n("accounts"),
              scans: yield* n("scans"),
              services: yield* n("scan_services"),
              findings: yield* n("findings"),
              results: yield* n("results"),
              resources: yield* n("resources"),
            }
          }),
        ),
      )
    const mine = await counts({ workspaceId: owner.workspaceId })
    expect(mine.accounts).toBeGreaterThan(0)
    expect(mine.findings).toBeGreaterThan(0)
    expect(mine.results).toBeGreaterThan(0)
    expect(mine.resources).toBeGreaterThan(0)
    const none = { accounts: 0, scans: 0, services: 0, findings: 0, results: 0, resources: 0 }
    expect(await counts({ workspaceId: other.workspaceId })).toEqual(none)
    expect(await counts({})).toEqual(none)
    const sweeper = await counts({}, true)
    expect(sweeper.accounts).toBe(0)
    expect(sweeper.findings).toBe(0)
    expect(sweeper.results).toBe(0)
    expect(sweeper.resources).toBe(0)
    expect(sweeper.scans).toBeGreaterThanOrEqual(mine.scans)
    // Writing into another workspace is refused by the policy itself.
    const write = await withSql(
      env.server.databaseUrl,
      inScope({ workspaceId: other.workspaceId })(
        Effect.flatMap(SqlClient.SqlClient, (sql) => sql`UPDATE accounts SET account_name = 'hijacked' RETURNING id`),
      ),
    )
    expect(write).toEqual([])
    // Result rows and inventory of another workspace can be neither changed nor created.
    const foreign = await withSql(
      env.server.databaseUrl,
      inScope({ workspaceId: other.workspaceId })(
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          const updated = yield* sql`UPDATE results SET remediate = '{"status":"remediated"}'::jsonb RETURNING seq`
          const deleted = yield* sql`DELETE FROM resources RETURNING resource_uid`
          const inserted = yield* sql`
            INSERT INTO results (workspace_id, finding_id, seq, scan_id, resource_id, resource_uid, region, compliant)
            VALUES (${owner.workspaceId}, 1, 999999, 1, 'x', 'x', 'global', false) RETURNING seq`.pipe(
            Effect.map(() => "inserted"),
            Effect.catch(() => Effect.succeed("refused")),
          )
          return { updated, deleted, inserted }
        }),
      ),
    ).catch(() => ({ updated: [], deleted: [], inserted: "refused" }))
    expect(foreign).toEqual({ updated: [], deleted: [], inserted: "refused" })
    expect(await counts({ workspaceId: owner.workspaceId })).toEqual(mine)
  })
})

describe("region discovery", () => {
  it("shares the first service's discovered regions with the rest of the scan, unless discovery failed", async () => {
    const { scanId, services } = await fabricateScan([{ key: "s3", jobId: null }, { key: "iam", jobId: null }, { key: "kms", jobId: null }])
    const payload = (s: { id: number }) => ({ workspace_id: owner.workspaceId, scan_id: scanId, scan_service_id: s.id })
    const regions = () => env.sql((q) => q<{ regions: ReadonlyArray<string> | null }>`SELECT regions FROM scans WHERE id = ${scanId}`)
    const failedDiscovery = {
      findings: [], resourcesScanned: 0, apiCalls: 1, regions: ["us-east-1"],
      errors: [{ resourceType: "regions", region: "us-east-1", operation: "ec2:DescribeRegions", kind: "access_denied" as const, code: "AccessDenied", message: "no" }],
    }
    await withSql(env.server.databaseUrl, completeService(payload(services[0]!), failedDiscovery))
    expect((await regions())[0]!.regions).toBeNull()
    await withSql(env.server.databaseUrl, completeService(payload(services[1]!), { findings: [], resourcesScanned: 0, apiCalls: 1, regions: ["eu-west-1", "us-east-1"], errors: [] }))
    expect((await regions())[0]!.regions).toEqual(["eu-west-1", "us-east-1"])
    await withSql(env.server.databaseUrl, completeService(payload(services[2]!), { findings: [], resourcesScanned: 0, apiCalls: 1, regions: ["ap-south-1"], errors: [] }))
    expect((await regions())[0]!.regions).toEqual(["eu-west-1", "us-east-1"])
  })
})

describe("orphan sweeper", () => {
  const queueLayer = () =>
    Layer.mergeAll(
      JobQueue.layer({ jobs: [...scanningJobs], supervise: false }).pipe(Layer.provide(Database.layerUrl(env.server.databaseUrl))),
    )
  const sweep = (maxScanSeconds?: number) =>
    withSql(
      env.server.databaseUrl,
      sweepOrphans(maxScanSeconds === undefined ? {} : { maxScanSeconds }).pipe(Effect.provide(queueLayer())),
    )

  it("fails services whose job is gone, leaves live ones, then times out scans past the deadline", async () => {
    const { scanId, services } = await fabricateScan([{ key: "s3", jobId: randomUUID() }, { key: "iam", jobId: null }])
    const first = await sweep()
    expect(first.skipped).toBe(false)
    expect(first.failed).toEqual([{ scanServiceId: services[0]!.id, reason: ScanningServerMessages.workerLost }])
    let scan = (await env.call(owner, "GET", `/api/scans/${scanId}`)).body.data
    expect(scan.status).toBe("running")
    expect(scan.services.map((s: any) => s.status)).toEqual(["failed", "running"])

    const second = await sweep(0)
    expect(second.failed).toEqual([{ scanServiceId: services[1]!.id, reason: ScanningServerMessages.scanTimedOut }])
    scan = (await env.call(owner, "GET", `/api/scans/${scanId}`)).body.data
    expect(scan.status).toBe("failed")
    const reason = await env.sql((q) => q<{ failure_reason: string }>`SELECT failure_reason FROM scans WHERE id = ${scanId}`)
    expect(reason[0]!.failure_reason).toBe(ScanningServerMessages.everyServiceFailed)
    expect((await sweep()).examined).toBe(0)
  }, 60_000)

  // Needs two concurrent sessions: the embedded PGlite serialises sessions, so there the question cannot arise.
  it.runIf(Boolean(process.env["TEST_DATABASE_URL"]))("is single-flight: a sweep while another holds the lock does nothing", async () => {
    await fabricateScan([{ key: "s3", jobId: randomUUID() }])
    const report = await withSql(
      env.server.databaseUrl,
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        return yield* sql.withTransaction(
          Effect.gen(function* () {
            yield* sql`SELECT pg_advisory_xact_lock(hashtext('cloud-audit:scan-sweeper'))`
            return yield* Effect.promise(() => sweep())
          }),
        )
      }),
    )
    expect(report).toEqual({ skipped: true, examined: 0, failed: [] })
    expect((await sweep()).failed).toHaveLength(1)
  }, 60_000)
})
