/**
 * The embedded database under concurrency: many pooled connections running statements and transactions
 * at once must each get their own results (pglite-socket's server mixes them up), a client that vanishes
 * inside a transaction must not leave the shared session stuck in it, and an extra connection over the
 * limit is refused with a Postgres error.
 */
import { connect } from "node:net"
import { Effect, Layer, Redacted } from "effect"
import { PgClient } from "@effect/sql-pg"
import { SqlClient } from "effect/sql"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type EmbeddedPostgres, startEmbeddedPostgres } from "../../server/db/client.ts"

let db: EmbeddedPostgres
beforeAll(async () => {
  db = await startEmbeddedPostgres({ dataDir: undefined, maxConnections: 12 })
})
afterAll(async () => {
  await db?.close()
})

const pool = (maxConnections: number) => PgClient.layer({ url: Redacted.make(db.url), maxConnections }) as Layer.Layer<SqlClient.SqlClient>
const run = <A, E>(effect: Effect.Effect<A, E, SqlClient.SqlClient>, maxConnections = 8) =>
  Effect.runPromise(effect.pipe(Effect.provide(pool(maxConnections))))

/** Speaks just enough of the protocol to open a session and send simple queries. */
const rawSession = async (port: number) => {
  const socket = connect(port, "127.0.0.1")
  let received = Buffer.alloc(0)
  socket.on("data", (d: Buffer) => (received = Buffer.concat([received, d])))
  await new Promise<void>((r) => socket.once("connect", () => r()))
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
    destroy: () => socket.destroy(),
    socket,
    received: () => received,
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
