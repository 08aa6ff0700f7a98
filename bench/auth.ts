/**
 * Sign-in and token-refresh latency: an in-process API (tests/support/server.ts) on embedded PGlite (or the PostgreSQL
 * at TEST_DATABASE_URL), with the production argon2id parameters (NODE_ENV=development), measured over real HTTP:
 * 200 sequential + 50 concurrent logins, 200 sequential + 50 concurrent refreshes. Prints a table (ms). Sign-ins the
 * hashing gate refuses by design (429: one client and one account hold at most a share of it, answered after 1 s) are
 * counted in their own column, not as failures, and left out of the latencies, which are those of the answered ones.
 *
 *   npx node bench/auth.ts            # or through `npm run bench`
 */
import { performance } from "node:perf_hooks"
import { startTestServer } from "../tests/support/server.ts"

const SEQUENTIAL = Number(process.env["BENCH_SEQUENTIAL"] ?? 200)
const CONCURRENT = Number(process.env["BENCH_CONCURRENT"] ?? 50)
const PASSWORD = "Bench-pass-123"

interface Row {
  readonly name: string
  readonly samples: ReadonlyArray<number>
  readonly failures: number
  /** 429 answers (refused by design), left out of `samples`. */
  readonly refused?: number
}

const percentile = (sorted: ReadonlyArray<number>, p: number): number =>
  sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!

const fmt = (n: number) => n.toFixed(1).padStart(8)

const printTable = (rows: ReadonlyArray<Row>) => {
  console.log(`\n${"operation".padEnd(28)}${"n".padStart(6)}${"fail".padStart(6)}${"429".padStart(6)}${"p50".padStart(8)}${"p95".padStart(8)}${"p99".padStart(8)}${"mean".padStart(8)}${"max".padStart(8)}`)
  for (const r of rows) {
    const s = [...r.samples].sort((a, b) => a - b)
    const mean = s.reduce((a, b) => a + b, 0) / Math.max(1, s.length)
    console.log(`${r.name.padEnd(28)}${String(s.length).padStart(6)}${String(r.failures).padStart(6)}${String(r.refused ?? 0).padStart(6)}${fmt(percentile(s, 50))}${fmt(percentile(s, 95))}${fmt(percentile(s, 99))}${fmt(mean)}${fmt(s.at(-1) ?? Number.NaN)}`)
  }
  console.log("(milliseconds, measured at the HTTP client)\n")
}

const main = async () => {
  // The bench measures latency, not the limits: successful sign-ins of its one account from its one client are not
  // capped (docs/identity.md, "Sign-in fairness and lock-out"). The hashing gate's shares stay as in production.
  const unlimited = { limit: 1_000_000, windowSeconds: 60 }
  const server = await startTestServer({
    env: { NODE_ENV: "development", LOG_LEVEL: "error" },
    auth: { loginSuccessPerAccount: unlimited, loginSuccessPerAddress: unlimited },
  })
  const base = server.baseUrl
  const post = async (path: string, body: unknown) => {
    const started = performance.now()
    const res = await fetch(`${base}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) })
    const json = (await res.json()) as Record<string, unknown>
    return { status: res.status, json, ms: performance.now() - started }
  }
  try {
    // One verified user (verification link taken from the development outbox).
    const email = `bench-${Date.now()}@example.com`
    const signup = await post("/api/signup", { first_name: "Bench", last_name: "Mark", email, password: PASSWORD, workspace_name: `bench-${Date.now()}` })
    if (signup.status !== 200) throw new Error(`signup failed: ${JSON.stringify(signup.json)}`)
    let link: string | undefined
    for (let i = 0; i < 200 && link === undefined; i++) {
      const outbox = (await (await fetch(`${base}/api/dev/outbox?to=${encodeURIComponent(email)}`)).json()) as { data: Array<{ links: Array<string> }> }
      link = outbox.data[0]?.links[0]
      if (link === undefined) await new Promise((r) => setTimeout(r, 25))
    }
    if (link === undefined) throw new Error("no verification mail in the outbox")
    const verified = await fetch(`${base}/api/verify-email${new URL(link).search}`)
    if (verified.status !== 200) throw new Error(`verification failed: ${verified.status}`)

    const rows: Array<Row> = []
    const login = () => post("/api/login", { email, password: PASSWORD })

    // Warm-up (JIT, prepared statements).
    for (let i = 0; i < 5; i++) await login()

    let failures = 0
    const seqLogin: Array<number> = []
    const sessions: Array<string> = []
    for (let i = 0; i < SEQUENTIAL; i++) {
      const r = await login()
      if (r.status === 200) sessions.push(String(r.json["refresh_token"]))
      else failures++
      seqLogin.push(r.ms)
    }
    rows.push({ name: `login sequential`, samples: seqLogin, failures })

    const conc = await Promise.all(Array.from({ length: CONCURRENT }, () => login()))
    rows.push({
      name: `login ${CONCURRENT} concurrent`,
      samples: conc.filter((r) => r.status === 200).map((r) => r.ms),
      failures: conc.filter((r) => r.status !== 200 && r.status !== 429).length,
      refused: conc.filter((r) => r.status === 429).length,
    })

    failures = 0
    const seqRefresh: Array<number> = []
    let token = sessions[0]!
    for (let i = 0; i < SEQUENTIAL; i++) {
      const r = await post("/api/refresh-token", { refresh_token: token })
      if (r.status === 200) token = String(r.json["refresh_token"])
      else failures++
      seqRefresh.push(r.ms)
    }
    rows.push({ name: "refresh sequential (chain)", samples: seqRefresh, failures })

    const concRefresh = await Promise.all(sessions.slice(1, 1 + CONCURRENT).map((t) => post("/api/refresh-token", { refresh_token: t })))
    rows.push({ name: `refresh ${CONCURRENT} concurrent`, samples: concRefresh.map((r) => r.ms), failures: concRefresh.filter((r) => r.status !== 200).length })

    console.log(`auth latency on ${server.database.kind} (argon2id m=32768 t=3 p=1)`)
    printTable(rows)
    const all = rows.flatMap((r) => (r.failures > 0 ? [`${r.name}: ${r.failures} failures`] : []))
    if (all.length > 0) {
      console.error(all.join("\n"))
      process.exitCode = 1
    }
  } finally {
    await server.stop()
  }
}

await main()
