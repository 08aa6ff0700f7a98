/**
 * An organisation scanned as a fleet against one account holding the same resources (issue 31 benchmark:
 * `npm run bench:fleet`). A benchmark, not a timed test.
 *
 * 1. Starts moto_server, a fresh PostgreSQL database (TEST_DATABASE_URL, else postgres://postgres@127.0.0.1:5432/postgres;
 *    dropped after) and the API in this process without its job worker (tests/scanning/support.ts); jobs run in
 *    `node server/main.ts worker` processes started per round, as production scales out.
 * 2. Builds an AWS Organization on moto of MEMBERS (100) member accounts, each given the member role and about 30
 *    resources (8 S3 buckets, 8 security groups of which every third is open to SSH, 6 IAM users, 4 IAM roles, 4 SQS
 *    queues), seeded through each member's assumed-role credentials, members in parallel; and the same resources
 *    × MEMBERS in the management account, which is scanned as one ordinary account in a workspace of its own (and
 *    excluded from the organisation, so the fleet holds the members only).
 * 3. Onboards the organisation in one call (POST /api/accounts with is_organization; the member cap `--cap` set in the
 *    same payload, as PUT /api/organizations/{id}/selection would) and times it.
 * 4. For each worker count (`--workers 1,2`): starts the worker processes, scans the single account (POST /api/scans,
 *    until completed) and then the organisation (POST /api/scans with its account id, until the fleet scan is no longer
 *    running), and stops the workers. Wall time of each, their ratio (goal ≤ 1.5), failed members (0 expected), member
 *    scans in flight (time-weighted average and peak, from the member scans' start and end), the idle gap between one
 *    member's end and the next member's start, and the product's CPU: this process (the API; no scanner runs here)
 *    plus the worker processes (/proc, every thread), per 1,000 resources seeded (goal ≤ 3 s). PostgreSQL's CPU for
 *    this database (its backends, /proc) and moto's are printed beside, not counted.
 *    A warm-up round (the largest worker count) runs first unless `--no-warmup`: moto builds each account's backend of
 *    a service on its first request there, a cost of the emulator (not of AWS) a first fleet scan pays 100 times over;
 *    the warm-up's figures are printed as "cold".
 * 5. `--reads`: then runs the fleet read benchmarks bench/fleet-dashboard.ts (dashboard, compliance) and
 *    bench/fleet-findings.ts (cross-account findings) when present, each in its own process with its own seed
 *    (500 members × 30 scans), their output printed and their last JSON line kept.
 *
 * Figures go to stdout (a table and one JSON line) and bench/results/fleet.json.
 *
 *   npm run bench:fleet                              # 100 members, 1 and 2 workers, cap 10
 *   npm run bench:fleet -- --members 10 --workers 2 --no-warmup     # a quick run
 *   npm run bench:fleet -- --cap 20 --reads
 *   npm run bench:fleet -- --keep-alive      # workers to moto through a keep-alive proxy, as AWS keeps connections
 *                                            # alive (moto closes each one)
 */
import { type ChildProcess, spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { loadavg, tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { performance } from "node:perf_hooks"
import { parseArgs } from "node:util"
import { AuthorizeSecurityGroupIngressCommand, CreateSecurityGroupCommand } from "@aws-sdk/client-ec2"
import { CreateRoleCommand, CreateUserCommand } from "@aws-sdk/client-iam"
import { CreateAccountCommand, CreateOrganizationCommand, ListRootsCommand } from "@aws-sdk/client-organizations"
import { CreateBucketCommand } from "@aws-sdk/client-s3"
import { CreateQueueCommand } from "@aws-sdk/client-sqs"
import { DEFAULT_MEMBER_ROLE_NAME } from "../src/contracts/organizations.ts"
import { BuiltInRoleIds } from "../src/contracts/permissions.ts"
import { type AwsClients, makeAwsClients } from "../server/scanner/aws/clients.ts"
import { mapConcurrent } from "../server/scanner/pool.ts"
import { makeTestDatabase } from "../tests/support/db.ts"
import { addMotoAccount, MOTO_KEYS, type Member, type ScanEnv, sleep, startScan, startScanEnv } from "../tests/scanning/support.ts"
import { cpuPressureMs, processCpuSeconds, startTrafficMeter, threadCpuSeconds } from "./support/scan-bench.ts"

const { values: args } = parseArgs({
  options: {
    members: { type: "string", default: "100" },
    workers: { type: "string", default: "1,2" },
    cap: { type: "string", default: "10" },
    "no-warmup": { type: "boolean", default: false },
    reads: { type: "boolean", default: false },
    "keep-alive": { type: "boolean", default: false },
    "no-vacuum": { type: "boolean", default: false },
  },
})
const MEMBERS = Number(args.members)
const WORKERS = args.workers.split(",").map(Number).filter((n) => n > 0)
const CAP = Number(args.cap)
const REGION = "us-east-1"
const MAIN = resolve(import.meta.dirname, "../server/main.ts")
const RESULTS = resolve(import.meta.dirname, "results/fleet.json")
const TARGET_RATIO = 1.5
const TARGET_CPU_PER_1000 = 3
process.env["TEST_DATABASE_URL"] ||= "postgres://postgres@127.0.0.1:5432/postgres"

const seconds = (ms: number) => +(ms / 1000).toFixed(2)
const line = (label: string, value: string) => console.log(`  ${label.padEnd(56)}${value}`)

// ---------------------------------------------------------------------------------------------------------------
// Seeding: the same 30 resources per member, and MEMBERS times them in the single account.

/** One member's share of resources; `tag` keeps names (S3 buckets are global) apart. */
const seedShare = async (aws: AwsClients, tag: string): Promise<number> => {
  const s3 = aws.get("s3", REGION)
  const ec2 = aws.get("ec2", REGION)
  const iam = aws.get("iam", REGION)
  const sqs = aws.get("sqs", REGION)
  const creates: Array<() => Promise<unknown>> = [
    ...Array.from({ length: 8 }, (_, i) => () => s3.send(new CreateBucketCommand({ Bucket: `fleet-${tag}-bucket-${i}` }))),
    ...Array.from({ length: 8 }, (_, i) => async () => {
      const sg = await ec2.send(new CreateSecurityGroupCommand({ GroupName: `fleet-${tag}-sg-${i}`, Description: "bench" }))
      if (i % 3 === 0) {
        await ec2.send(new AuthorizeSecurityGroupIngressCommand({
          GroupId: sg.GroupId!,
          IpPermissions: [{ IpProtocol: "tcp", FromPort: 22, ToPort: 22, IpRanges: [{ CidrIp: "0.0.0.0/0" }] }],
        }))
      }
    }),
    ...Array.from({ length: 6 }, (_, i) => () => iam.send(new CreateUserCommand({ UserName: `fleet-${tag}-user-${i}` }))),
    ...Array.from({ length: 4 }, (_, i) => () =>
      iam.send(new CreateRoleCommand({
        RoleName: `fleet-${tag}-role-${i}`,
        AssumeRolePolicyDocument: JSON.stringify({ Version: "2012-10-17", Statement: [{ Effect: "Allow", Principal: { Service: "ec2.amazonaws.com" }, Action: "sts:AssumeRole" }] }),
      }))),
    ...Array.from({ length: 4 }, (_, i) => () => sqs.send(new CreateQueueCommand({ QueueName: `fleet-${tag}-queue-${i}` }))),
  ]
  await mapConcurrent(creates, 4, (create) => create())
  return creates.length
}

const awsAt = (endpoint: string, roleArn?: string) =>
  makeAwsClients({
    credentials: { accessKeyId: MOTO_KEYS.access_key, secretAccessKey: MOTO_KEYS.secret_key, ...(roleArn === undefined ? {} : { roleArn }) },
    endpoint,
    maxAttempts: 3,
  })

/** The organisation on moto: MEMBERS members, each with the member role and its share of resources. */
const buildOrganization = async (endpoint: string) => {
  const aws = awsAt(endpoint)
  try {
    const orgs = aws.get("organizations", REGION)
    const org = await orgs.send(new CreateOrganizationCommand({ FeatureSet: "ALL" }))
    await orgs.send(new ListRootsCommand({}))
    const tag = Date.now().toString(36)
    const ids = await mapConcurrent(Array.from({ length: MEMBERS }, (_, i) => i), 8, async (i) => {
      const created = await orgs.send(new CreateAccountCommand({ AccountName: `member-${String(i).padStart(3, "0")}`, Email: `member-${tag}-${i}@example.com` }))
      return created.CreateAccountStatus!.AccountId!
    })
    const perMember = await mapConcurrent(ids, 8, async (id, i) => {
      // moto answers AssumeRole into any account: the member's own credentials, as an administrator would seed it.
      const member = awsAt(endpoint, `arn:aws:iam::${id}:role/setup`)
      try {
        await member.get("iam", REGION).send(new CreateRoleCommand({
          RoleName: DEFAULT_MEMBER_ROLE_NAME,
          AssumeRolePolicyDocument: JSON.stringify({ Version: "2012-10-17", Statement: [] }),
        }))
        return await seedShare(member, `${tag}-m${i}`)
      } finally {
        member.destroy()
      }
    })
    return { managementId: org.Organization!.MasterAccountId!, memberIds: ids, resources: perMember.reduce((a, b) => a + b, 0), tag }
  } finally {
    aws.destroy()
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Worker processes and CPU

interface Workers {
  readonly pids: ReadonlyArray<number>
  stop(): Promise<void>
}

/** `count` × `node server/main.ts worker` on the API's database and secret, ready (their "worker started" logged). */
const startWorkers = async (env: ScanEnv, secret: string, count: number, endpoint: string): Promise<Workers> => {
  const dir = mkdtempSync(join(tmpdir(), "bench-fleet-"))
  const children: Array<{ child: ChildProcess; log: string }> = []
  const workerEnv = {
    PATH: process.env["PATH"] ?? "",
    HOME: process.env["HOME"] ?? "/tmp",
    DATA_DIR: dir,
    DATABASE_URL: env.server.databaseUrl,
    APP_SECRET_KEY: secret,
    AWS_ENDPOINT_URL: endpoint,
    SCAN_REGIONS: process.env["SCAN_REGIONS"] ?? REGION,
    NODE_ENV: "test",
    LOG_LEVEL: "info",
    ...(process.env["SCAN_CONCURRENCY"] === undefined ? {} : { SCAN_CONCURRENCY: process.env["SCAN_CONCURRENCY"] }),
  }
  // Migrations added since the API started (a long run) would stop the workers: `migrate` first, as production does.
  const migrate = spawn(process.execPath, [MAIN, "migrate"], { env: workerEnv, stdio: "ignore" })
  const migrated = await new Promise<number | null>((r) => migrate.once("exit", r))
  if (migrated !== 0) throw new Error(`migrate exited ${migrated}`)
  for (let i = 0; i < count; i++) {
    const log = join(dir, `worker-${i}.log`)
    const fd = openSync(log, "w")
    // BENCH_CPU_PROF=<dir>: each worker writes a V8 CPU profile there when it stops (node --cpu-prof).
    const prof = process.env["BENCH_CPU_PROF"]
    const child = spawn(process.execPath, [...(prof ? ["--cpu-prof", `--cpu-prof-dir=${resolve(prof)}`] : []), MAIN, "worker"], {
      env: workerEnv,
      stdio: ["ignore", fd, fd],
    })
    closeSync(fd)
    children.push({ child, log })
  }
  const deadline = Date.now() + 120_000
  for (const { child, log } of children) {
    while (!readFileSync(log, "utf8").includes("worker started")) {
      if (child.exitCode !== null) throw new Error(`worker exited (${child.exitCode}): ${readFileSync(log, "utf8").slice(-2000)}`)
      if (Date.now() > deadline) throw new Error(`worker not ready: ${readFileSync(log, "utf8").slice(-2000)}`)
      await sleep(200)
    }
  }
  return {
    pids: children.map((c) => c.child.pid!),
    stop: async () => {
      for (const { child } of children) child.kill("SIGTERM")
      await Promise.all(children.map(({ child }) => new Promise((r) => (child.exitCode !== null ? r(undefined) : child.once("exit", r)))))
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

/** CPU seconds of the PostgreSQL backends serving database `name` (their process titles name it), from /proc. */
const postgresCpuSeconds = (name: string): number => {
  let total = 0
  for (const pid of readdirSync("/proc")) {
    if (!/^\d+$/.test(pid)) continue
    try {
      const title = readFileSync(`/proc/${pid}/cmdline`, "utf8")
      if (title.startsWith("postgres: ") && title.includes(` ${name} `)) total += processCpuSeconds(Number(pid))
    } catch {
      // gone
    }
  }
  return total
}

/** What psql prints for `args` on the test server (TEST_DATABASE_URL's host; `-d name` picks a database). */
const psqlOut = (args: ReadonlyArray<string>): Promise<string> =>
  new Promise((done, fail) => {
    const url = new URL(process.env["TEST_DATABASE_URL"]!)
    const child = spawn("psql", ["-h", url.hostname, "-p", url.port || "5432", "-U", decodeURIComponent(url.username) || "postgres", ...args], {
      stdio: ["ignore", "pipe", "inherit"],
      env: { ...process.env, ...(url.password === "" ? {} : { PGPASSWORD: decodeURIComponent(url.password) }) },
    })
    let out = ""
    child.stdout.on("data", (c: Buffer) => (out += c.toString()))
    child.once("exit", (code) => (code === 0 ? done(out) : fail(new Error(`psql ${args.join(" ")} exited ${code}`))))
  })

/** The keep-alive meter's thread in this process (not the product's CPU), when the workers send through it. */
let meterTid: number | undefined

const cpuSnapshot = (env: ScanEnv, workers: Workers, dbName: string) => {
  const own = process.cpuUsage()
  return {
    api: (own.user + own.system) / 1e6 - (meterTid === undefined ? 0 : threadCpuSeconds(meterTid)),
    workers: workers.pids.reduce((sum, pid) => sum + processCpuSeconds(pid), 0),
    postgres: postgresCpuSeconds(dbName),
    moto: processCpuSeconds(env.moto.pid),
    pressure: cpuPressureMs(),
    load: +loadavg()[0]!.toFixed(2),
    at: performance.now(),
  }
}
type CpuSnapshot = ReturnType<typeof cpuSnapshot>

const cpuBetween = (a: CpuSnapshot, b: CpuSnapshot, resources: number) => {
  const product = b.api - a.api + (b.workers - a.workers)
  return {
    wall_s: seconds(b.at - a.at),
    api_cpu_s: +(b.api - a.api).toFixed(2),
    workers_cpu_s: +(b.workers - a.workers).toFixed(2),
    product_cpu_s: +product.toFixed(2),
    product_cpu_per_1000_s: +((product * 1000) / resources).toFixed(2),
    postgres_cpu_s: +(b.postgres - a.postgres).toFixed(2),
    moto_cpu_s: +(b.moto - a.moto).toFixed(2),
    cpu_wait_share: a.pressure === undefined || b.pressure === undefined ? null : +((b.pressure - a.pressure) / (b.at - a.at)).toFixed(2),
    // The machine's load (1-minute average, as `uptime` prints it) when the measure started and ended: other work on
    // a shared machine moves every figure.
    load_1m: [a.load, b.load],
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Scans

/**
 * An administrator of the owner's workspace with a token minted at most REFRESH_MS ago: access tokens last 15 minutes
 * and a round of 100 members on a busy machine lasts longer (its calls answered 401 "session has expired").
 */
const REFRESH_MS = 5 * 60_000
const callerOf = (env: ScanEnv, owner: Member) => {
  let current = owner
  // The owner's own token was minted when the run began (seeding a large organisation on a loaded machine can take
  // longer than the token lives): the first call mints a fresh administrator too.
  let minted = Number.NEGATIVE_INFINITY
  return async (): Promise<Member> => {
    if (Date.now() - minted > REFRESH_MS) {
      current = await env.member(owner, BuiltInRoleIds.Admin)
      minted = Date.now()
    }
    return current
  }
}

const singleScan = async (env: ScanEnv, owner: Member, accountId: number, workers: Workers, dbName: string, resources: number) => {
  const before = cpuSnapshot(env, workers, dbName)
  const caller = callerOf(env, owner)
  const scan = await startScan(env, await caller(), accountId)
  let done: any
  for (const deadline = Date.now() + 60 * 60_000; ;) {
    const res = await env.call(await caller(), "GET", `/api/scans/${scan.id}`)
    if (res.status !== 200) throw new Error(`GET /api/scans/${scan.id} answered ${res.status}: ${res.text}`)
    done = res.body.data
    if (done.status === "completed" || done.status === "failed") break
    if (Date.now() > deadline) throw new Error(`scan ${scan.id} still ${done.status}`)
    await sleep(500)
  }
  const cpu = cpuBetween(before, cpuSnapshot(env, workers, dbName), resources)
  if (done.status !== "completed") throw new Error(`single-account scan ended ${done.status}: ${done.failure_reason ?? ""}`)
  const [row] = await env.sql((q) =>
    q<{ resources: number; calls: number }>`SELECT coalesce(sum(resources_scanned), 0)::int AS resources, coalesce(sum(api_calls), 0)::int AS calls
      FROM scan_services WHERE scan_id = ${scan.id}`)
  return { ...cpu, resources_scanned: row!.resources, api_calls: row!.calls, findings: done.findings_count as number }
}

const fleetScan = async (env: ScanEnv, owner: Member, orgAccountId: number, workers: Workers, dbName: string, resources: number) => {
  const before = cpuSnapshot(env, workers, dbName)
  const caller = callerOf(env, owner)
  const started = await env.call(await caller(), "POST", "/api/scans", { user_id: owner.userId, account_id: orgAccountId, cloud_provider_id: 1, cloud_provider_name: "aws" })
  if (started.status !== 200) throw new Error(`POST /api/scans (organisation) answered ${started.status}: ${started.text}`)
  const fleetId = started.body.data.fleet_scan_id as number
  let fleet: any
  const samples: Array<{ scans: number; jobs: number }> = []
  const deadline = Date.now() + 2 * 60 * 60_000
  for (;;) {
    const res = await env.call(await caller(), "GET", `/api/fleet-scans/${fleetId}`)
    if (res.status !== 200) throw new Error(`GET /api/fleet-scans/${fleetId} answered ${res.status}: ${res.text}`)
    fleet = res.body.data
    if (fleet.status !== "running" && fleet.status !== "pending") break
    if (Date.now() > deadline) throw new Error(`fleet scan ${fleetId} still ${fleet.status}`)
    // What runs, not what was started: member scans with a service job running, and those jobs.
    const [active] = await env.sql((q) =>
      q<{ scans: number; jobs: number }>`
        SELECT count(DISTINCT ss.scan_id)::int AS scans, count(*)::int AS jobs
        FROM scan_services ss JOIN scans s ON s.id = ss.scan_id WHERE s.fleet_scan_id = ${fleetId} AND ss.status = 'running'`)
    samples.push(active!)
    await sleep(500)
  }
  const cpu = cpuBetween(before, cpuSnapshot(env, workers, dbName), resources)
  // Member scans over the fleet scan's life: how many ran at once, and how long a free slot stayed free.
  const members = await env.sql((q) =>
    q<{ start_ms: number; end_ms: number; resources: number; calls: number; findings: number }>`
      SELECT (extract(epoch FROM s.scan_start - f.started_at) * 1000)::float8 AS start_ms,
             (extract(epoch FROM coalesce(s.scan_end, now()) - f.started_at) * 1000)::float8 AS end_ms,
             (SELECT coalesce(sum(ss.resources_scanned), 0) FROM scan_services ss WHERE ss.scan_id = s.id)::int AS resources,
             (SELECT coalesce(sum(ss.api_calls), 0) FROM scan_services ss WHERE ss.scan_id = s.id)::int AS calls, s.findings_count AS findings
      FROM fleet_scans f JOIN scans s ON s.fleet_scan_id = f.id WHERE f.id = ${fleetId} ORDER BY s.scan_start`)
  const [span] = await env.sql((q) =>
    q<{ ms: number }>`SELECT (extract(epoch FROM coalesce(finished_at, now()) - started_at) * 1000)::float8 AS ms FROM fleet_scans WHERE id = ${fleetId}`)
  const events = members.flatMap((m) => [[m.start_ms, 1], [m.end_ms, -1]] as const).sort((a, b) => a[0] - b[0] || a[1] - b[1])
  let inFlight = 0
  let peak = 0
  for (const [, d] of events) peak = Math.max(peak, (inFlight += d))
  const busyMs = members.reduce((sum, m) => sum + (m.end_ms - m.start_ms), 0)
  const durations = members.map((m) => m.end_ms - m.start_ms).sort((a, b) => a - b)
  // The gap a member waited after a slot freed: each start after the first CAP ones, against the latest end before it.
  const ends = members.map((m) => m.end_ms).sort((a, b) => a - b)
  const gaps = members.slice(CAP).map((m) => {
    const freed = ends.filter((e) => e <= m.start_ms).at(-1)
    return freed === undefined ? 0 : m.start_ms - freed
  }).sort((a, b) => a - b)
  return {
    ...cpu,
    status: fleet.status as string,
    fleet_span_s: seconds(span!.ms),
    members_completed: fleet.members_completed as number,
    members_failed: fleet.members_failed as number,
    failed_reasons: (fleet.members as Array<any>).filter((m) => m.state === "failed").slice(0, 5).map((m) => `${m.cloud_account_id}: ${m.reason}`),
    resources_scanned: members.reduce((sum, m) => sum + m.resources, 0),
    api_calls: members.reduce((sum, m) => sum + m.calls, 0),
    findings: members.reduce((sum, m) => sum + m.findings, 0),
    member_scans_in_flight_avg: +(busyMs / span!.ms).toFixed(2),
    member_scans_in_flight_peak: peak,
    member_scans_running_jobs_avg: +(samples.reduce((a, x) => a + x.scans, 0) / Math.max(1, samples.length)).toFixed(2),
    member_scans_running_jobs_peak: Math.max(0, ...samples.map((x) => x.scans)),
    service_jobs_running_avg: +(samples.reduce((a, x) => a + x.jobs, 0) / Math.max(1, samples.length)).toFixed(1),
    member_scan_p50_s: seconds(durations[Math.floor((durations.length - 1) / 2)] ?? 0),
    member_scan_max_s: seconds(durations.at(-1) ?? 0),
    slot_idle_gap_median_s: seconds(gaps[Math.floor((gaps.length - 1) / 2)] ?? 0),
    first_member_start_s: seconds(members[0]?.start_ms ?? 0),
  }
}

// ---------------------------------------------------------------------------------------------------------------

const main = async () => {
  const secret = randomBytes(32).toString("base64url")
  const made = await makeTestDatabase({ kind: "postgres" })
  // BENCH_KEEP=1 keeps the database (its URL is printed) for reading after the run (EXPLAIN, pg_stat_user_tables).
  const database = process.env["BENCH_KEEP"] === "1" ? { ...made, close: async () => console.log(`kept ${made.url}`) } : made
  const dbName = new URL(database.url).pathname.slice(1)
  // BENCH_PG_LOG=1: the server logs every statement of this database with its duration (its log, e.g.
  // /var/log/postgresql/*.log; bench/support/pg-log-summary.ts sums them by statement), for sessions opened from now on.
  if (process.env["BENCH_PG_LOG"] === "1") {
    const admin = spawn("psql", [process.env["TEST_DATABASE_URL"]!, "-c", `ALTER DATABASE "${dbName}" SET log_min_duration_statement = 0`], { stdio: "ignore" })
    await new Promise((r) => admin.once("exit", r))
  }
  const env = await startScanEnv({ database, worker: false, env: { APP_SECRET_KEY: secret, LOG_LEVEL: "warn" } })
  // `--keep-alive`: the workers send to moto through a keep-alive proxy (bench/support/traffic-worker.ts, as bench:scan
  // does): moto answers every call with "Connection: close" where AWS keeps connections alive. Without it (the default)
  // each call opens a TCP connection to moto.
  const meter = args["keep-alive"] ? await startTrafficMeter() : undefined
  if (meter !== undefined) {
    await meter.setTarget(Number(new URL(env.moto.endpoint).port))
    meterTid = meter.tid
  }
  try {
    console.log(`fleet benchmark: ${MEMBERS} members, workers ${WORKERS.join(" and ")}, member cap ${CAP}, PostgreSQL database ${dbName}`)
    let t = performance.now()
    const org = await buildOrganization(env.moto.endpoint)
    const buildMs = performance.now() - t
    t = performance.now()
    const management = awsAt(env.moto.endpoint)
    let singleResources = 0
    try {
      singleResources = (await mapConcurrent(Array.from({ length: MEMBERS }, (_, i) => i), 8, (i) => seedShare(management, `${org.tag}-s${i}`))).reduce((a, b) => a + b, 0)
    } finally {
      management.destroy()
    }
    const singleSeedMs = performance.now() - t
    console.log(`  seeded ${MEMBERS} members (${org.resources} resources, member roles) in ${seconds(buildMs)} s; the single account (${singleResources}) in ${seconds(singleSeedMs)} s`)

    const owner = await env.workspace("Fleet bench")
    t = performance.now()
    const onboard = await env.call(owner, "POST", "/api/accounts", {
      cloud_provider_id: 1, account_name: "Bench organisation", is_organization: true, credentials: MOTO_KEYS,
      organization: { exclude_accounts: [org.managementId], member_concurrency: CAP },
    })
    const onboardMs = performance.now() - t
    const onboardLoad = +loadavg()[0]!.toFixed(2)
    if (onboard.status !== 200) throw new Error(`onboarding answered ${onboard.status}: ${onboard.text}`)
    const orgAccountId = onboard.body.data.account.id as number
    const included = onboard.body.data.organization.members_included as number
    const unreachable = onboard.body.data.sync.changes.unreachable.length as number
    if (included !== MEMBERS || unreachable !== 0) throw new Error(`onboarded ${included} members (${unreachable} unreachable), expected ${MEMBERS}`)
    const solo = await env.workspace("Single bench")
    const single = await addMotoAccount(env, solo, "Single account")

    const rounds: Array<{ workers: number; cold: boolean; single: Awaited<ReturnType<typeof singleScan>>; fleet: Awaited<ReturnType<typeof fleetScan>> }> = []
    const plan = [...(args["no-warmup"] ? [] : [{ workers: Math.max(...WORKERS), cold: true }]), ...WORKERS.map((w) => ({ workers: w, cold: false }))]
    // A server with autovacuum off (this project's CI machine sets `autovacuum = off`) never reclaims the dead rows each
    // round's jobs leave (pg-boss's job table, scans, scan_services): PostgreSQL's CPU per fleet scan then grows round
    // over round (55 -> 117 -> 212 s over three rounds of 100 members), a cost no production server (autovacuum on by
    // default) pays. Before each round a VACUUM ANALYZE does what autovacuum would have; `--no-vacuum` leaves it out.
    const autovacuum = (await psqlOut(["-Atc", "SHOW autovacuum"])).trim()
    for (const round of plan) {
      if (autovacuum === "off" && !args["no-vacuum"]) {
        const t0 = performance.now()
        await psqlOut(["-d", dbName, "-c", "VACUUM (ANALYZE)"])
        console.log(`\n(autovacuum is off on this server: VACUUM ANALYZE before the round, ${seconds(performance.now() - t0)} s)`)
      }
      const workers = await startWorkers(env, secret, round.workers, meter?.url ?? env.moto.endpoint)
      try {
        console.log(`\n${round.cold ? "warm-up (cold emulator)" : "measured"} round, ${round.workers} worker process${round.workers === 1 ? "" : "es"}`)
        const s = await singleScan(env, solo, single.id, workers, dbName, singleResources)
        line("single account: wall", `${s.wall_s} s (product CPU ${s.product_cpu_s} s)`)
        const f = await fleetScan(env, owner, orgAccountId, workers, dbName, org.resources)
        line("fleet: wall", `${f.wall_s} s (product CPU ${f.product_cpu_s} s, ${f.members_failed} failed)`)
        rounds.push({ workers: round.workers, cold: round.cold, single: s, fleet: f })
      } finally {
        await workers.stop()
      }
    }

    console.log(`\nfleet benchmark (${MEMBERS} members × 30 resources = ${org.resources}; single account ${singleResources}; member cap ${CAP}; PostgreSQL)`)
    line("organisation built on moto (members, roles, resources)", `${seconds(buildMs)} s`)
    line("onboarding (POST /api/accounts, is_organization)", `${seconds(onboardMs)} s (${included} members, ${unreachable} unreachable; load ${onboardLoad})`)
    for (const r of rounds) {
      const label = `${r.workers} worker${r.workers === 1 ? "" : "s"}${r.cold ? ", cold emulator" : ""}`
      console.log(`\n  ${label}`)
      line("fleet scan wall (POST → fleet completed)", `${r.fleet.wall_s} s (${r.fleet.status}; ${r.fleet.members_completed} completed, ${r.fleet.members_failed} failed; load ${r.fleet.load_1m.join(" → ")})`)
      line("single account wall (same resources)", `${r.single.wall_s} s (load ${r.single.load_1m.join(" → ")})`)
      line("ratio fleet / single", `${(r.fleet.wall_s / r.single.wall_s).toFixed(2)}  (goal ≤ ${TARGET_RATIO})`)
      line("product CPU per 1,000 resources: fleet | single", `${r.fleet.product_cpu_per_1000_s} s | ${r.single.product_cpu_per_1000_s} s  (goal ≤ ${TARGET_CPU_PER_1000} s)`)
      line("  product CPU (API | workers): fleet", `${r.fleet.product_cpu_s} s (${r.fleet.api_cpu_s} | ${r.fleet.workers_cpu_s})`)
      line("  product CPU (API | workers): single", `${r.single.product_cpu_s} s (${r.single.api_cpu_s} | ${r.single.workers_cpu_s})`)
      line("PostgreSQL CPU: fleet | single", `${r.fleet.postgres_cpu_s} s | ${r.single.postgres_cpu_s} s`)
      line("moto CPU: fleet | single", `${r.fleet.moto_cpu_s} s | ${r.single.moto_cpu_s} s`)
      line("resources scanned (engine): fleet | single", `${r.fleet.resources_scanned} | ${r.single.resources_scanned}`)
      line("cloud API calls (engine): fleet | single", `${r.fleet.api_calls} | ${r.single.api_calls}`)
      line("findings written: fleet | single", `${r.fleet.findings} | ${r.single.findings}`)
      line("member scans in flight (avg / peak; cap)", `${r.fleet.member_scans_in_flight_avg} / ${r.fleet.member_scans_in_flight_peak}; ${CAP}`)
      line("member scans with a service job running (avg / peak)", `${r.fleet.member_scans_running_jobs_avg} / ${r.fleet.member_scans_running_jobs_peak} (service jobs running: avg ${r.fleet.service_jobs_running_avg})`)
      line("member scan p50 / max; first member starts after", `${r.fleet.member_scan_p50_s} s / ${r.fleet.member_scan_max_s} s; ${r.fleet.first_member_start_s} s`)
      line("slot freed → next member started (median)", `${r.fleet.slot_idle_gap_median_s} s`)
      if (r.fleet.cpu_wait_share !== null) line("some task waiting for a CPU: fleet | single", `${Math.round(r.fleet.cpu_wait_share * 100)}% | ${Math.round((r.single.cpu_wait_share ?? 0) * 100)}% of the time`)
      for (const reason of r.fleet.failed_reasons) line("  failed member", reason)
    }

    // The read benchmarks seed their own 500 × 30 organisation: each runs as its own process, printed as it goes; the
    // last JSON line it prints (if any) is kept with this run's figures.
    const reads: Record<string, unknown> = {}
    if (args.reads) {
      for (const name of ["fleet-dashboard", "fleet-findings"]) {
        const file = resolve(import.meta.dirname, `${name}.ts`)
        if (!existsSync(file)) continue
        console.log(`\nbench/${name}.ts`)
        reads[name] = await new Promise((done) => {
          const child = spawn(process.execPath, [file], { stdio: ["ignore", "pipe", "inherit"], env: process.env })
          let out = ""
          child.stdout!.on("data", (d: Buffer) => {
            process.stdout.write(d)
            out += d.toString()
          })
          child.once("exit", (code) => {
            const json = out.split("\n").reverse().find((l) => l.startsWith("{"))
            let figures: unknown = null
            try {
              figures = json === undefined ? null : JSON.parse(json)
            } catch {
              // not JSON after all
            }
            done({ exit_code: code, figures })
          })
        })
      }
    }

    const result = {
      bench: "fleet",
      database: "postgres",
      members: MEMBERS,
      member_cap: CAP,
      resources: org.resources,
      single_resources: singleResources,
      organization_build_s: seconds(buildMs),
      onboarding_s: seconds(onboardMs),
      onboarding_load_1m: onboardLoad,
      rounds: rounds.map((r) => ({ ...r, ratio: +(r.fleet.wall_s / r.single.wall_s).toFixed(3) })),
      ...(args.reads ? { reads } : {}),
      keep_alive: meter !== undefined,
      at: new Date().toISOString(),
    }
    mkdirSync(resolve(RESULTS, ".."), { recursive: true })
    writeFileSync(RESULTS, `${JSON.stringify(result, null, 2)}\n`)
    console.log(`\n${JSON.stringify(result)}\n(written to ${RESULTS})`)
    const failed = rounds.filter((r) => r.fleet.members_failed > 0 || r.fleet.status !== "completed")
    if (failed.length > 0) process.exitCode = 1
  } finally {
    await meter?.close()
    await env.stop()
  }
}

try {
  await main()
} catch (error) {
  console.error(error)
  process.exitCode = 1
}
