/**
 * Jobs: `JobQueue.send` → worker → handler round trip on PGlite and (when TEST_DATABASE_URL is set) on
 * PostgreSQL; payloads are validated on send and decoded for the handler; a failing handler is retried.
 */
import { randomBytes } from "node:crypto"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { ConfigProvider, Context, Effect, Exit, Layer, Schema, Scope } from "effect"
import { SqlClient } from "effect/sql"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { appLayer } from "../../server/app.ts"
import { loadAppConfig } from "../../server/config.ts"
import { defineJob, JobQueue } from "../../server/jobs/queue.ts"
import { loggerLayer } from "../../server/log.ts"
import { makeTestDatabase, type TestDatabase } from "../support/db.ts"

const kinds: ReadonlyArray<"pglite" | "postgres"> = process.env["TEST_DATABASE_URL"] ? ["pglite", "postgres"] : ["pglite"]

/** A deferred per key, resolved by the handlers below. */
const waiters = new Map<string, { promise: Promise<unknown>; resolve: (v: unknown) => void }>()
const waiter = (key: string) => {
  let entry = waiters.get(key)
  if (entry === undefined) {
    let resolve!: (v: unknown) => void
    const promise = new Promise<unknown>((r) => (resolve = r))
    entry = { promise, resolve }
    waiters.set(key, entry)
  }
  return entry
}
const within = <A>(promise: Promise<A>, ms: number, what: string) =>
  Promise.race([promise, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), ms))])

const attempts = new Map<string, number>()

/** Polled only every 5 minutes: it runs promptly only because the sending process wakes its idle workers after commit. */
const sleepyJob = defineJob(
  "platform.test-sleepy",
  Schema.Struct({ key: Schema.String }),
  (payload) => Effect.sync(() => waiter(payload.key).resolve(true)),
  { work: { pollingIntervalSeconds: 300 } },
)

/** Handlers of a burst wait until BURST of them run at once (each slot holds its job until then). */
const BURST = 6
const burstRunning = new Map<string, number>()
const burstJob = defineJob(
  "platform.test-burst",
  Schema.Struct({ key: Schema.String }),
  (payload) =>
    Effect.promise(async () => {
      const running = (burstRunning.get(payload.key) ?? 0) + 1
      burstRunning.set(payload.key, running)
      if (running === BURST) waiter(payload.key).resolve(true)
      await waiter(payload.key).promise
    }),
  { work: { localConcurrency: BURST, pollingIntervalSeconds: 300 } },
)

const echoJob = defineJob(
  "platform.test-echo",
  Schema.Struct({ key: Schema.String, at: Schema.Date, n: Schema.Int }),
  (payload, job) =>
    Effect.gen(function* () {
      // Handlers get the process's services: prove it with a query.
      const sql = yield* SqlClient.SqlClient
      const rows = yield* sql<{ two: number }>`SELECT 1 + 1 AS two`
      waiter(payload.key).resolve({ payload, two: rows[0]?.two, jobId: job.id })
    }),
  { work: { pollingIntervalSeconds: 0.5 } },
)

const flakyJob = defineJob(
  "platform.test-flaky",
  Schema.Struct({ key: Schema.String }),
  (payload) =>
    Effect.suspend(() => {
      const n = (attempts.get(payload.key) ?? 0) + 1
      attempts.set(payload.key, n)
      if (n === 1) return Effect.fail(new Error("first attempt fails"))
      waiter(payload.key).resolve(n)
      return Effect.void
    }),
  { queue: { retryLimit: 2, retryDelaySeconds: 0 }, work: { pollingIntervalSeconds: 0.5 } },
)

describe.each(kinds)("jobs on %s", (kind) => {
  let db: TestDatabase
  let scope: Scope.Closeable
  let context: Context.Context<JobQueue | SqlClient.SqlClient>
  let dataDir: string

  beforeAll(async () => {
    db = await makeTestDatabase({ kind })
    dataDir = mkdtempSync(join(tmpdir(), "jobs-test-"))
    const env = { DATABASE_URL: db.url, APP_SECRET_KEY: randomBytes(32).toString("base64url"), DATA_DIR: dataDir, LOG_LEVEL: "warn", NODE_ENV: "test" }
    const config = await Effect.runPromise(loadAppConfig.pipe(Effect.provide(ConfigProvider.layer(ConfigProvider.fromEnv({ env })))))
    scope = Scope.makeUnsafe()
    const layer = appLayer(config, { migrations: "apply", worker: true, http: undefined, jobs: [echoJob, flakyJob, sleepyJob, burstJob] }).pipe(
      Layer.provide(loggerLayer("warn")),
    )
    context = (await Effect.runPromise(Layer.buildWithScope(layer, scope))) as Context.Context<JobQueue | SqlClient.SqlClient>
  })

  afterAll(async () => {
    if (scope !== undefined) await Effect.runPromise(Scope.close(scope, Exit.void))
    await db?.close()
    rmSync(dataDir, { recursive: true, force: true })
  })

  const queue = () => Context.get(context, JobQueue)
  /** Runs with the app's services (JobQueue, SqlClient). */
  const exec = <A, E>(effect: Effect.Effect<A, E, JobQueue | SqlClient.SqlClient>) => Effect.runPromise(Effect.provide(effect, context))
  const execExit = <A, E>(effect: Effect.Effect<A, E, JobQueue | SqlClient.SqlClient>) => Effect.runPromiseExit(Effect.provide(effect, context))

  it("delivers a sent job to its handler with the decoded payload", async () => {
    const key = `echo-${kind}-${randomBytes(4).toString("hex")}`
    const at = new Date("2026-01-02T03:04:05.000Z")
    const id = await exec(queue().send(echoJob, { key, at, n: 7 }))
    expect(id).toMatch(/^[0-9a-f-]{36}$/)
    const result = (await within(waiter(key).promise, 20_000, "the echo job")) as { payload: { at: Date; n: number }; two: number; jobId: string }
    expect(result.payload.at).toBeInstanceOf(Date)
    expect(result.payload.at.toISOString()).toBe(at.toISOString())
    expect(result.payload.n).toBe(7)
    expect(result.two).toBe(2)
    expect(result.jobId).toBe(id)
  })

  it("wakes this process's workers after the commit instead of waiting for their next poll", async () => {
    // The worker made its first (empty) fetch at start; its next poll is minutes away.
    await new Promise((r) => setTimeout(r, 1_000))
    const inTransaction = `sleepy-tx-${kind}-${randomBytes(4).toString("hex")}`
    const direct = `sleepy-${kind}-${randomBytes(4).toString("hex")}`
    await exec(
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        yield* sql.withTransaction(queue().send(sleepyJob, { key: inTransaction }))
      }),
    )
    expect(await within(waiter(inTransaction).promise, 20_000, "the job sent in a transaction")).toBe(true)
    await exec(queue().send(sleepyJob, { key: direct }))
    expect(await within(waiter(direct).promise, 20_000, "the job sent outside a transaction")).toBe(true)
  })

  it("takes up a burst sent by another process with every slot, one woken worker waking the next", async () => {
    // Jobs inserted without this process's `send` (so nobody is woken after the commit, as when another process sends
    // them); then one worker is woken, as its poll would. The others poll only every 5 or 40 minutes: the burst runs
    // at once only because each worker that gets a job wakes an idle sibling.
    await new Promise((r) => setTimeout(r, 1_000))
    const key = `burst-${kind}-${randomBytes(4).toString("hex")}`
    const boss = queue().boss
    for (let i = 0; i < BURST; i++) await boss.send(burstJob.name, { payload: { key } })
    const workers = boss.getWipData().filter((w) => w.name === burstJob.name)
    expect(workers).toHaveLength(BURST)
    boss.notifyWorker(workers[0]!.id)
    expect(await within(waiter(key).promise, 20_000, `${BURST} burst jobs running at once`)).toBe(true)
  })

  it("rejects an invalid payload on send", async () => {
    const exit = await execExit(queue().send(echoJob, { key: "x", at: new Date(), n: 1.5 }))
    expect(Exit.isFailure(exit)).toBe(true)
    expect(String(exit)).toContain("JobPayloadInvalid")
  })

  it("retries a failing handler", async () => {
    const key = `flaky-${kind}-${randomBytes(4).toString("hex")}`
    await exec(queue().send(flakyJob, { key }))
    expect(await within(waiter(key).promise, 30_000, "the retried job")).toBe(2)
  })

  it("enqueues inside the caller's transaction: delivered after commit, never after rollback", async () => {
    const committed = `tx-commit-${kind}-${randomBytes(4).toString("hex")}`
    const rolledBack = `tx-rollback-${kind}-${randomBytes(4).toString("hex")}`
    await exec(
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        yield* sql.withTransaction(
          Effect.gen(function* () {
            yield* sql`SELECT 1`
            yield* queue().send(echoJob, { key: committed, at: new Date(), n: 1 })
            yield* sql`SELECT 2`
          }),
        )
      }),
    )
    const exit = await execExit(
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        yield* sql.withTransaction(Effect.andThen(queue().send(echoJob, { key: rolledBack, at: new Date(), n: 2 }), Effect.fail("abort")))
      }),
    )
    expect(Exit.isFailure(exit)).toBe(true)
    const delivered = (await within(waiter(committed).promise, 20_000, "the committed job")) as { payload: { n: number } }
    expect(delivered.payload.n).toBe(1)
    const jobs = await exec(
      Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ n: number }>`SELECT count(*)::int AS n FROM pgboss.job WHERE data->'payload'->>'key' = ${rolledBack}`),
    )
    expect(jobs[0]?.n).toBe(0)
  })
})
