/**
 * API throughput under load (`npm run bench:api`): the product started as `node server/main.ts start --skip-build` in its
 * own process (embedded PGlite, then the PostgreSQL at TEST_DATABASE_URL when that answers), driven over loopback by
 * an autocannon-style closed loop: C keep-alive connections, each sending its next request as soon as the previous
 * answer arrived, for D seconds per endpoint:
 *
 *   GET /api/health, GET /api/team-members, GET /api/scans, GET /api/findings (one page), POST /api/login
 *
 * Prints per endpoint: requests/s, p50/p95/p99 latency, non-2xx answers by status, errors (sockets), and each
 * authenticated read's ratio to /api/health in the same run. Goal (issue 15): ratio >= 0.35, p95 <= 150 ms for the
 * reads at 200 connections, no 5xx, no socket errors. Login answers 429 with retry_after_seconds beyond the bounded
 * hashing queue; those are counted, not errors.
 *
 *   BENCH_CONNECTIONS=200 BENCH_SECONDS=30 npm run bench:api
 *   BENCH_BACKENDS=embedded npm run bench:api     # embedded only (or "postgres")
 *   BENCH_ENDPOINTS=health,team-members npm run bench:api   # a subset (matched against the endpoint names)
 *   BENCH_SERVER_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" npm run bench:api   # node flags for the product process
 *   READ_CACHE=0 npm run bench:api     # every read a full read (the validated read cache off): the cache-miss cost
 *
 * The reads repeat one URL, so with the read cache on (the default) they measure its validated hits; the answers
 * column counts them (hit×n miss×n, from the x-read-cache header).
 *
 * The product's CPU profile (--cpu-prof) is written when it exits after the run (SIGTERM, clean shutdown); with
 * BENCH_ENDPOINTS it covers the seed and the warm-up too, which are small next to the measured load.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import { mkdtempSync, rmSync } from "node:fs"
import { Agent, request } from "node:http"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { performance } from "node:perf_hooks"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { freePort } from "../tests/support/server.ts"
import { withSql } from "../tests/support/db.ts"
import { startMoto } from "../tests/support/moto.ts"

const CONNECTIONS = Number(process.env["BENCH_CONNECTIONS"] ?? 200)
const SECONDS = Number(process.env["BENCH_SECONDS"] ?? 30)
const BACKENDS = (process.env["BENCH_BACKENDS"] ?? "embedded,postgres").split(",").map((b) => b.trim())
const ENDPOINTS = process.env["BENCH_ENDPOINTS"]?.split(",").map((e) => e.trim()).filter((e) => e !== "")
const SERVER_ARGS = (process.env["BENCH_SERVER_ARGS"] ?? "").split(/\s+/).filter((a) => a !== "")
const PASSWORD = "Bench-pass-123"
const MAIN = resolve(import.meta.dirname, "../server/main.ts")

interface Target {
  readonly name: string
  readonly method: "GET" | "POST"
  readonly path: string
  readonly headers: Record<string, string>
  readonly body?: string
}

interface Result {
  readonly name: string
  readonly requests: number
  readonly rps: number
  readonly p50: number
  readonly p95: number
  readonly p99: number
  readonly statuses: Map<number, number>
  /** Answers by their x-read-cache header (hit / miss; none for uncached endpoints). */
  readonly cache: Map<string, number>
  readonly errors: number
}

const percentile = (sorted: Float64Array, p: number) =>
  sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!

/** C connections in a closed loop for `seconds`. */
const load = async (port: number, target: Target, connections: number, seconds: number): Promise<Result> => {
  const agent = new Agent({ keepAlive: true, maxSockets: connections, maxFreeSockets: connections })
  const latencies: Array<number> = []
  const statuses = new Map<number, number>()
  const cache = new Map<string, number>()
  let errors = 0
  const end = performance.now() + seconds * 1000
  const one = () =>
    new Promise<void>((done) => {
      const started = performance.now()
      const req = request(
        { host: "127.0.0.1", port, method: target.method, path: target.path, agent, headers: { ...target.headers, ...(target.body ? { "content-length": Buffer.byteLength(target.body) } : {}) } },
        (res) => {
          res.on("data", () => undefined)
          res.on("end", () => {
            latencies.push(performance.now() - started)
            statuses.set(res.statusCode ?? 0, (statuses.get(res.statusCode ?? 0) ?? 0) + 1)
            const cached = res.headers["x-read-cache"]
            if (typeof cached === "string") cache.set(cached, (cache.get(cached) ?? 0) + 1)
            done()
          })
          res.on("error", () => {
            errors++
            done()
          })
        },
      )
      req.on("error", () => {
        errors++
        done()
      })
      req.end(target.body)
    })
  const loop = async () => {
    while (performance.now() < end) await one()
  }
  const started = performance.now()
  await Promise.all(Array.from({ length: connections }, loop))
  const elapsed = (performance.now() - started) / 1000
  agent.destroy()
  const sorted = Float64Array.from(latencies).sort()
  return {
    name: target.name,
    requests: latencies.length,
    rps: latencies.length / elapsed,
    p50: percentile(sorted, 50),
    p95: percentile(sorted, 95),
    p99: percentile(sorted, 99),
    statuses,
    cache,
    errors,
  }
}

const startProduct = async (env: Record<string, string>) => {
  const port = await freePort()
  const dataDir = mkdtempSync(join(tmpdir(), "bench-api-"))
  const child: ChildProcess = spawn(process.execPath, [...SERVER_ARGS, MAIN, "start", "--skip-build"], {
    env: {
      PATH: process.env["PATH"] ?? "",
      HOME: process.env["HOME"] ?? "/tmp",
      PORT: String(port),
      DATA_DIR: dataDir,
      NODE_ENV: "development",
      LOG_LEVEL: "error",
      ...env,
    },
    stdio: ["ignore", "ignore", "pipe"],
  })
  let stderr = ""
  child.stderr!.on("data", (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)))
  const deadline = Date.now() + 120_000
  for (;;) {
    if (child.exitCode !== null) throw new Error(`product exited (${child.exitCode}): ${stderr}`)
    try {
      if ((await fetch(`http://127.0.0.1:${port}/api/health`)).ok) break
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`product not ready: ${stderr}`)
    await new Promise((r) => setTimeout(r, 250))
  }
  const stop = async () => {
    child.kill("SIGTERM")
    await new Promise((r) => (child.exitCode !== null ? r(undefined) : child.once("exit", r)))
    rmSync(dataDir, { recursive: true, force: true })
  }
  return { port, stop, stderr: () => stderr }
}

const json = async (port: number, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
  const res = await fetch(`http://127.0.0.1:${port}${path}`, {
    method,
    headers: { ...(body === undefined ? {} : { "content-type": "application/json" }), ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  })
  return { status: res.status, body: (await res.json().catch(() => undefined)) as any }
}

/** A verified user (link from the development outbox: the product listens on loopback) signed in, with a workspace. */
const seed = async (port: number) => {
  const email = `bench-${Date.now()}@example.com`
  const signup = await json(port, "POST", "/api/signup", { first_name: "Bench", last_name: "Mark", email, password: PASSWORD, workspace_name: `bench-${Date.now()}` })
  if (signup.status !== 200) throw new Error(`signup failed: ${JSON.stringify(signup.body)}`)
  let link: string | undefined
  for (let i = 0; i < 400 && link === undefined; i++) {
    link = (await json(port, "GET", `/api/dev/outbox?to=${encodeURIComponent(email)}`)).body?.data?.[0]?.links?.[0]
    if (link === undefined) await new Promise((r) => setTimeout(r, 25))
  }
  if (link === undefined) throw new Error("no verification mail in the development outbox")
  await json(port, "GET", `/api/verify-email${new URL(link).search}`)
  const login = await json(port, "POST", "/api/login", { email, password: PASSWORD })
  if (login.status !== 200) throw new Error(`login failed: ${JSON.stringify(login.body)}`)
  const token = login.body.access_token as string
  const workspaces = await json(port, "GET", "/api/workspaces", undefined, { authorization: `Bearer ${token}` })
  const workspaceId = workspaces.body.data[0].workspace_id as number
  // One scan of an (empty) moto account, so the scan list and the findings page have rows.
  const auth = { authorization: `Bearer ${token}`, "x-workspace-id": String(workspaceId) }
  const account = await json(port, "POST", "/api/accounts", {
    cloud_provider_id: 1, account_name: "Bench", is_organization: false,
    credentials: { access_key: "AKIAIOSFODNN7EXAMPLE", secret_key: "moto-secret-key" },
  }, auth)
  if (account.status !== 200) throw new Error(`account failed: ${JSON.stringify(account.body)}`)
  const scan = await json(port, "POST", "/api/scans", {
    user_id: login.body.data.id, account_id: account.body.data.account.id, cloud_provider_id: 1, cloud_provider_name: "aws",
  }, auth)
  if (scan.status !== 200) throw new Error(`scan failed: ${JSON.stringify(scan.body)}`)
  const scanId = scan.body.data.id as number
  for (let i = 0; ; i++) {
    const status = (await json(port, "GET", `/api/scans/${scanId}`, undefined, auth)).body?.data?.status
    if (status === "completed" || status === "failed") break
    if (i > 600) throw new Error("the seed scan did not finish in 5 minutes")
    await new Promise((r) => setTimeout(r, 500))
  }
  return { email, token, workspaceId, scanId }
}

const fmt = (n: number, w = 9) => (Number.isFinite(n) ? n.toFixed(1) : "-").padStart(w)

const runBackend = async (label: string, env: Record<string, string>, awsEndpoint: string) => {
  const product = await startProduct({
    ...env, AWS_ENDPOINT_URL: awsEndpoint, SCAN_REGIONS: "us-east-1",
    ...(process.env["READ_CACHE"] === undefined ? {} : { READ_CACHE: process.env["READ_CACHE"] }),
  })
  try {
    const user = await seed(product.port)
    const auth = { authorization: `Bearer ${user.token}`, "x-workspace-id": String(user.workspaceId) }
    const targets: Array<Target> = [
      { name: "GET /api/health", method: "GET", path: "/api/health", headers: {} },
      { name: "GET /api/team-members", method: "GET", path: "/api/team-members", headers: auth },
      { name: "GET /api/scans", method: "GET", path: "/api/scans", headers: auth },
      { name: "GET /api/findings (page)", method: "GET", path: `/api/findings?scan_id=${user.scanId}&page=1&page_size=25`, headers: auth },
      {
        name: "POST /api/login",
        method: "POST",
        path: "/api/login",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ email: user.email, password: PASSWORD }),
      },
    ]
    // Health always runs: it is what the reads' ratios are relative to.
    const chosen = targets.filter((t, i) => i === 0 || ENDPOINTS === undefined || ENDPOINTS.some((e) => t.name.includes(e)))
    // Warm-up: a couple of seconds of each read at low concurrency (JIT, pools, plans).
    for (const t of chosen.filter((t) => t.method === "GET")) await load(product.port, t, 8, 2)
    const results: Array<Result> = []
    for (const t of chosen) results.push(await load(product.port, t, CONNECTIONS, SECONDS))
    const health = results[0]!.rps
    console.log(`\n${label}: ${CONNECTIONS} connections, ${SECONDS} s per endpoint`)
    console.log(`${"endpoint".padEnd(26)}${"req/s".padStart(9)}${"p50".padStart(9)}${"p95".padStart(9)}${"p99".padStart(9)}${"ratio".padStart(8)}  answers`)
    for (const r of results) {
      const answers = [...r.statuses].sort(([a], [b]) => a - b).map(([s, n]) => `${s}×${n}`).join(" ") +
        [...r.cache].sort().map(([k, n]) => ` ${k}×${n}`).join("")
      const ratio = r.name.startsWith("GET /api/health") || r.name.startsWith("POST") ? "" : (r.rps / health).toFixed(2)
      console.log(`${r.name.padEnd(26)}${fmt(r.rps)}${fmt(r.p50)}${fmt(r.p95)}${fmt(r.p99)}${ratio.padStart(8)}  ${answers}${r.errors > 0 ? ` socket-errors×${r.errors}` : ""}`)
    }
    const fiveXx = results.reduce((n, r) => n + [...r.statuses].filter(([s]) => s >= 500).reduce((a, [, c]) => a + c, 0), 0)
    const errors = results.reduce((n, r) => n + r.errors, 0)
    console.log(`(latencies in ms at the client; ratio = req/s relative to /api/health in this run; 5xx: ${fiveXx}, socket errors: ${errors})`)
    return fiveXx + errors
  } finally {
    await product.stop()
  }
}

const postgresReachable = async (url: string) => {
  try {
    await withSql(url, Effect.flatMap(SqlClient.SqlClient, (sql) => sql`SELECT 1`))
    return true
  } catch {
    return false
  }
}

const main = async () => {
  let bad = 0
  const moto = await startMoto()
  try {
    bad += await runAll(moto.endpoint)
  } finally {
    await moto.stop()
  }
  process.exitCode = bad > 0 ? 1 : 0
}

const runAll = async (aws: string) => {
  let bad = 0
  if (BACKENDS.includes("embedded")) bad += await runBackend("embedded PGlite", {}, aws)
  const admin = process.env["TEST_DATABASE_URL"] ?? "postgres://postgres@127.0.0.1:5432/postgres"
  if (BACKENDS.includes("postgres")) {
    if (!(await postgresReachable(admin))) {
      console.log(`\nPostgreSQL: skipped (${admin.replace(/\/\/[^@]*@/, "//…@")} does not answer; set TEST_DATABASE_URL)`)
    } else {
      const name = `bench_${Date.now().toString(36)}_${randomBytes(3).toString("hex")}`
      await withSql(admin, Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(`CREATE DATABASE "${name}"`)))
      const url = new URL(admin)
      url.pathname = `/${name}`
      try {
        bad += await runBackend("PostgreSQL", { DATABASE_URL: url.toString(), APP_SECRET_KEY: randomBytes(32).toString("base64url") }, aws)
      } finally {
        await withSql(admin, Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`))).catch(() => undefined)
      }
    }
  }
  return bad
}

await main()
