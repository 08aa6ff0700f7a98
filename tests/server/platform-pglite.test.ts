/**
 * The embedded database under concurrency: many pooled connections running statements and transactions
 * at once must each get their own results (pglite-socket's server mixes them up), a client that vanishes
 * inside a transaction must not leave the shared session stuck in it, a client that keeps the session
 * idle inside a transaction (or in the middle of an extended-protocol exchange) while others wait is
 * terminated like PostgreSQL's idle_in_transaction_session_timeout does, /api/health answers 503 on time
 * when the database is stuck, and an extra connection over the limit is refused with a Postgres error.
 */
import { connect } from "node:net"
import { Effect, Layer, Redacted } from "effect"
import { PgClient } from "@effect/sql-pg"
import { SqlClient } from "effect/sql"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { HEALTH_DB_TIMEOUT } from "../../server/api/system.ts"
import { type EmbeddedPostgres, startEmbeddedPostgres } from "../../server/db/client.ts"
import { PlatformMessages } from "../../src/contracts/messages.ts"
import { startTestServer } from "../support/server.ts"

let db: EmbeddedPostgres
beforeAll(async () => {
  db = await startEmbeddedPostgres({ dataDir: undefined, maxConnections: 12 })
})
afterAll(async () => {
  await db?.close()
})

const pool = (maxConnections: number, url = db.url) => PgClient.layer({ url: Redacted.make(url), maxConnections }) as Layer.Layer<SqlClient.SqlClient>
const run = <A, E>(effect: Effect.Effect<A, E, SqlClient.SqlClient>, maxConnections = 8, url = db.url) =>
  Effect.runPromise(effect.pipe(Effect.provide(pool(maxConnections, url))))
const selectOne = Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ ok: number }>`SELECT 1 AS ok`)
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** Speaks just enough of the protocol to open a session and send simple queries (over TCP, or an in-process stream). */
const rawSession = async (port: number | "in-process") => {
  const socket = port === "in-process" ? db.connect() : connect(port, "127.0.0.1")
  let received = Buffer.alloc(0)
  socket.on("data", (d: Buffer) => (received = Buffer.concat([received, d])))
  if (port !== "in-process") await new Promise<void>((r) => socket.once("connect", () => r()))
  const waitReady = async () => {
    const start = Date.now()
    while (!received.includes(Buffer.from([0x5a, 0, 0, 0, 5]))) {
      if (Date.now() - start > 5000) throw new Error("no ReadyForQuery")
      await new Promise((r) => setTimeout(r, 10))
    }
    const out = received
    received = Buffer.alloc(0)
    return out
  }
  const closed = new Promise<void>((r) => socket.once("close", () => r()))
  const params = Buffer.from("user\0postgres\0database\0postgres\0\0", "utf8")
  const startup = Buffer.alloc(8)
  startup.writeInt32BE(8 + params.length, 0)
  startup.writeInt32BE(196608, 4)
  socket.write(Buffer.concat([startup, params]))
  await waitReady()
  return {
    query: async (text: string) => {
      const body = Buffer.from(`${text}\0`, "utf8")
      const header = Buffer.alloc(5)
      header[0] = 0x51
      header.writeInt32BE(body.length + 4, 1)
      socket.write(Buffer.concat([header, body]))
      return waitReady()
    },
    /** Sends one frontend message without waiting for an answer. */
    send: (type: string, body: Buffer) => {
      const header = Buffer.alloc(5)
      header[0] = type.charCodeAt(0)
      header.writeInt32BE(body.length + 4, 1)
      socket.write(Buffer.concat([header, body]))
    },
    destroy: () => socket.destroy(),
    socket,
    closed,
    received: () => received,
  }
}

/** Resolves to how long `promise` took, or rejects when it takes longer than `ms`. */
const within = async <A>(ms: number, promise: Promise<A>): Promise<{ value: A; ms: number }> => {
  const started = Date.now()
  let timer: NodeJS.Timeout | undefined
  try {
    const value = await Promise.race([
      promise,
      new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`still waiting after ${ms} ms`)), ms))),
    ])
    return { value, ms: Date.now() - started }
  } finally {
    clearTimeout(timer)
  }
}

describe("embedded database bridge", () => {
  it("keeps results of concurrent statements and transactions apart", async () => {
    const mismatches = await run(
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        yield* sql`CREATE TABLE bridge_items (id int PRIMARY KEY, v text NOT NULL)`
        const outcomes = yield* Effect.all(
          Array.from({ length: 300 }, (_, i) => {
            const check = (rows: ReadonlyArray<{ i: number }>) => rows.length > 0 && rows.every((r) => Number(r.i) === i)
            if (i % 3 === 0) return Effect.map(sql<{ i: number }>`SELECT ${i}::int AS i, repeat('x', ${i % 40}) AS pad`, check)
            if (i % 3 === 1) {
              return Effect.map(
                sql.withTransaction(
                  Effect.andThen(
                    sql`INSERT INTO bridge_items ${sql.insert({ id: i, v: String(i) })}`,
                    sql<{ i: number }>`SELECT v::int AS i FROM bridge_items WHERE id = ${i}`,
                  ),
                ),
                check,
              )
            }
            return Effect.map(sql<{ i: number }>`SELECT ${i}::int AS i FROM generate_series(1, 3)`, check)
          }),
          { concurrency: "unbounded" },
        )
        return outcomes.filter((ok) => !ok).length
      }),
    )
    expect(mismatches).toBe(0)
    const count = await run(Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ n: number }>`SELECT count(*)::int AS n FROM bridge_items`))
    expect(count[0]?.n).toBe(100)
  })

  it("rolls back the open transaction of a client that disconnects, and serves the others", async () => {
    await run(Effect.flatMap(SqlClient.SqlClient, (sql) => sql`CREATE TABLE IF NOT EXISTS abandoned (id int PRIMARY KEY)`))
    const raw = await rawSession(db.port)
    await raw.query("BEGIN; INSERT INTO abandoned VALUES (1)")
    // While the raw client holds its transaction, others wait; once it vanishes they proceed.
    const pending = run(Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ n: number }>`SELECT count(*)::int AS n FROM abandoned`), 1)
    await new Promise((r) => setTimeout(r, 200))
    raw.destroy()
    const rows = await pending
    expect(rows[0]?.n).toBe(0)
    const status = await run(Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ ok: number }>`SELECT 1 AS ok`), 1)
    expect(status[0]?.ok).toBe(1)
  })

  it("serves in-process connections (no socket) by the same rules, next to socket ones", async () => {
    const inProcess = PgClient.layer({ url: Redacted.make(db.url), stream: () => db.connect(), maxConnections: 4 }) as Layer.Layer<SqlClient.SqlClient>
    await run(Effect.flatMap(SqlClient.SqlClient, (sql) => sql`CREATE TABLE in_process_items (id int PRIMARY KEY, v text NOT NULL)`))
    const workload = (offset: number) =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const outcomes = yield* Effect.all(
          Array.from({ length: 60 }, (_, k) => {
            const i = offset + k
            const check = (rows: ReadonlyArray<{ i: number }>) => rows.length === 1 && Number(rows[0]!.i) === i
            return k % 2 === 0
              ? Effect.map(sql<{ i: number }>`SELECT ${i}::int AS i`, check)
              : Effect.map(
                sql.withTransaction(Effect.andThen(
                  sql`INSERT INTO in_process_items ${sql.insert({ id: i, v: String(i) })}`,
                  sql<{ i: number }>`SELECT v::int AS i FROM in_process_items WHERE id = ${i}`,
                )),
                check,
              )
          }),
          { concurrency: "unbounded" },
        )
        return outcomes.filter((ok) => !ok).length
      })
    const [viaStream, viaSocket] = await Promise.all([
      Effect.runPromise(workload(0).pipe(Effect.provide(inProcess))),
      run(workload(1000), 4),
    ])
    expect([viaStream, viaSocket]).toEqual([0, 0])
    const count = await run(Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ n: number }>`SELECT count(*)::int AS n FROM in_process_items`))
    expect(count[0]?.n).toBe(60)

    // An in-process client that goes away inside a transaction is rolled back, and the others go on.
    const raw = await rawSession("in-process")
    await raw.query("BEGIN; INSERT INTO in_process_items VALUES (5000, 'abandoned')")
    const pending = run(Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ n: number }>`SELECT count(*)::int AS n FROM in_process_items WHERE id = 5000`), 1)
    await sleep(100)
    raw.destroy()
    await raw.closed
    expect((await pending)[0]?.n).toBe(0)
  })

  it("refuses connections over the limit with a Postgres error", async () => {
    const sessions = await Promise.all(Array.from({ length: 12 }, () => rawSession(db.port)))
    try {
      const extra = connect(db.port, "127.0.0.1")
      const answer = await new Promise<string>((resolve) => {
        let data = ""
        extra.on("data", (d: Buffer) => (data += d.toString("latin1")))
        extra.on("close", () => resolve(data))
      })
      expect(answer.startsWith("E")).toBe(true)
      expect(answer).toContain("too many connections")
    } finally {
      for (const s of sessions) s.destroy()
    }
  })
})

describe("embedded database bridge: an idle owner cannot stall everyone", () => {
  const IDLE_LIMIT_MS = 600
  let idle: EmbeddedPostgres
  beforeAll(async () => {
    idle = await startEmbeddedPostgres({ dataDir: undefined, idleInTransactionTimeoutMs: IDLE_LIMIT_MS })
    await run(Effect.flatMap(SqlClient.SqlClient, (sql) => sql`CREATE TABLE held (id int PRIMARY KEY)`), 1, idle.url)
  })
  afterAll(async () => {
    await idle?.close()
  })

  it("terminates a client idle in a transaction once another connection has waited the limit, and rolls it back", async () => {
    const raw = await rawSession(idle.port)
    await raw.query("BEGIN; INSERT INTO held VALUES (1)")
    // Before the fix this waited forever: the idle transaction kept the only backend session.
    const { value, ms } = await within(IDLE_LIMIT_MS + 5_000, run(Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ n: number }>`SELECT count(*)::int AS n FROM held`), 1, idle.url))
    expect(value[0]?.n).toBe(0)
    expect(ms).toBeGreaterThanOrEqual(IDLE_LIMIT_MS - 50)
    await within(3_000, raw.closed)
    const answer = raw.received().toString("latin1")
    expect(answer.startsWith("E")).toBe(true)
    expect(answer).toContain("C25P03\0")
    expect(answer).toContain("idle-in-transaction timeout")
  })

  it("terminates a client that stops in the middle of an extended-protocol exchange (Parse, no Sync)", async () => {
    const raw = await rawSession(idle.port)
    raw.send("P", Buffer.from("\0SELECT 42\0\0\0", "utf8"))
    await sleep(50)
    const { value } = await within(IDLE_LIMIT_MS + 5_000, run(selectOne, 1, idle.url))
    expect(value[0]?.ok).toBe(1)
    await within(3_000, raw.closed)
  })

  it("leaves an idle transaction alone while nobody waits, and never cuts a statement that is running", async () => {
    const raw = await rawSession(idle.port)
    await raw.query("BEGIN")
    await sleep(IDLE_LIMIT_MS * 2)
    await raw.query("INSERT INTO held VALUES (2)")
    await raw.query("COMMIT")
    // A statement that runs longer than the limit while another connection waits.
    const long = raw.query("SELECT pg_sleep(1.5)")
    await sleep(50)
    const { value } = await within(10_000, run(selectOne, 1, idle.url))
    expect(value[0]?.ok).toBe(1)
    expect((await long).toString("latin1")).not.toContain("25P03")
    const rows = await run(Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ id: number }>`SELECT id FROM held`), 1, idle.url)
    expect(rows.map((r) => r.id)).toEqual([2])
    raw.destroy()
  })
})

describe("/api/health on a stuck embedded database", () => {
  it("answers 503 within its own deadline instead of waiting for the database, and 200 again once it is free", async () => {
    // No idle limit here: the database stays stuck for as long as the test wants.
    const stuck = await startEmbeddedPostgres({ dataDir: undefined, idleInTransactionTimeoutMs: 0 })
    const server = await startTestServer({ database: { url: stuck.url, kind: "pglite", close: () => stuck.close() } })
    try {
      expect((await fetch(`${server.baseUrl}/api/health`)).status).toBe(200)
      const raw = await rawSession(stuck.port)
      await raw.query("BEGIN")
      const deadlineMs = Number.parseFloat(HEALTH_DB_TIMEOUT) * 1000
      const { value: res, ms } = await within(deadlineMs + 10_000, fetch(`${server.baseUrl}/api/health`))
      expect(res.status).toBe(503)
      expect(await res.json()).toEqual({ _tag: "ServiceUnavailable", message: PlatformMessages.databaseUnavailable })
      // The driver needs up to 5 s more to drain an interrupted query; the answer must not wait for it.
      expect(ms).toBeLessThan(deadlineMs + 1_500)
      await raw.query("ROLLBACK")
      raw.destroy()
      let status = 0
      for (let attempt = 0; attempt < 40 && status !== 200; attempt++) {
        status = (await fetch(`${server.baseUrl}/api/health`)).status
        if (status !== 200) await sleep(250)
      }
      expect(status).toBe(200)
    } finally {
      await server.stop()
      await stuck.close()
    }
  })
})
