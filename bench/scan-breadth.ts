/**
 * Scan breadth (issue 16 "Performance"): one scan of an account with every service the scanner covers seeded, in
 * resources per second. A benchmark, not a timed test. bench/scan.ts measures depth (~1,000 resources in 10 older
 * services, calls made ÷ needed, wall ÷ floor); this one measures breadth.
 *
 * 1. Starts moto_server, the API with its job worker in-process (tests/scanning/support.ts), and the counting proxy
 *    between the scanner and moto (bench/support/traffic-meter.ts), like bench/scan.ts.
 * 2. Seeds moto, directly (not through the proxy), with BENCH_PER_SERVICE resources (default 20) of each kind in every
 *    scan service moto can emulate (bench/support/breadth-seed.ts), in one region; the services it cannot seed are
 *    listed with the reason.
 * 3. Adds the account, launches a scan of every service through the API and waits until it is completed. Prints the
 *    resources seeded per service, the scan's wall time, resources per second, checks run, results (pass / fail / not
 *    evaluated, from the API), API calls made (at the proxy) and per resource, the scanner process's CPU (the API, the
 *    worker and the proxy thread share the process) and moto's; a per-service table (BENCH_VERBOSE=1: the repeated
 *    calls too), then one JSON summary line.
 *
 *   npx node bench/scan-breadth.ts              # or `npm run bench:scan-breadth`; `npm run bench -- scan-breadth`
 *   BENCH_PER_SERVICE=5 npx node bench/scan-breadth.ts
 */
import { performance } from "node:perf_hooks"
import { loadavg } from "node:os"
import { awsServices } from "../server/scanner/aws/catalogue.ts"
import { addMotoAccount } from "../tests/scanning/support.ts"
import { seedBreadth, UNSEEDABLE } from "./support/breadth-seed.ts"
import { measuredScan, runScanBench, type ScanBench } from "./support/scan-bench.ts"

const PER_SERVICE = Math.max(1, Math.round(Number(process.env["BENCH_PER_SERVICE"] ?? 20)))
const REGION = "us-east-1"
const line = (label: string, value: string) => console.log(`  ${label.padEnd(46)}${value}`)
const load = () => loadavg().map((l) => l.toFixed(2)).join(" ")

interface ServiceRow {
  readonly key: string
  readonly status: string
  readonly resources_scanned: number
  readonly api_calls: number
  readonly findings_count: number
  readonly failed_findings: number
  readonly passed_findings: number
  readonly ms: number | null
}

const main = async (bench: ScanBench) => {
  const { env, aws } = bench
  console.log(`seeding moto: ${PER_SERVICE} per service (${env.server.database.kind} database)…`)
  const s0 = performance.now()
  const { seeded, failed } = await seedBreadth(aws, REGION, PER_SERVICE)
  const seedMs = performance.now() - s0
  const perService: Record<string, number> = {}
  for (const { service, count } of Object.values(seeded)) perService[service] = (perService[service] ?? 0) + count
  const resources = Object.values(perService).reduce((a, b) => a + b, 0)
  const notSeeded: Record<string, string> = {}
  for (const s of awsServices) {
    if (perService[s.id] === undefined) notSeeded[s.id] = UNSEEDABLE[s.id] ?? failed[s.id] ?? "no seed written"
    else if (failed[s.id] !== undefined) notSeeded[s.id] = `partly seeded; ${failed[s.id]}`
  }

  const owner = await env.workspace()
  const account = await addMotoAccount(env, owner, "Breadth bench")
  const load0 = load()
  const { scan, done, wallMs, cpuMs, motoCpu, traffic } = await measuredScan(bench, owner, account.id)
  const load1 = load()
  const cpuS = cpuMs / 1000
  const wallS = wallMs / 1000

  const rows = await env.sql((q) =>
    q<ServiceRow>`
      SELECT cs.key, ss.status, ss.resources_scanned, ss.api_calls, ss.findings_count, ss.failed_findings, ss.passed_findings,
             (extract(epoch FROM ss.last_scanned_at - ss.started_at) * 1000)::int AS ms
      FROM scan_services ss JOIN cloud_services cs ON cs.id = ss.service_id
      WHERE ss.scan_id = ${scan.id} ORDER BY cs.key`)
  const scannedResources = rows.reduce((a, r) => a + r.resources_scanned, 0)

  console.log(`\nper service: seeded | scanner resources | API calls | checks (fail / not evaluated) | status | time`)
  for (const r of rows) {
    const seededHere = perService[r.key] ?? 0
    console.log(
      `  ${r.key.padEnd(16)} ${String(seededHere).padStart(5)} | ${String(r.resources_scanned).padStart(5)} | ${String(r.api_calls).padStart(5)} | ${String(r.findings_count).padStart(3)} (${String(r.failed_findings).padStart(2)} / ${String(r.findings_count - r.failed_findings - r.passed_findings).padStart(2)}) | ${r.status.padEnd(9)} | ${r.ms === null ? "-" : `${(r.ms / 1000).toFixed(2)} s`}`,
    )
  }
  console.log("\nnot seeded")
  for (const [service, reason] of Object.entries(notSeeded)) console.log(`  ${service.padEnd(16)} ${reason}`)
  if (process.env["BENCH_VERBOSE"] === "1") for (const r of traffic.repeated) console.log(`  ${r}`)

  console.log(`\nbreadth scan (${env.server.database.kind} database; ${REGION}; BENCH_PER_SERVICE=${PER_SERVICE})`)
  line("services seeded / scanned", `${Object.keys(perService).length} / ${done.total_services} (${done.completed_services} completed)`)
  line("resources seeded", `${resources} (in ${(seedMs / 1000).toFixed(1)} s)`)
  line("resources the scanner counted", `${scannedResources}`)
  line("scan wall time (launch → completed)", `${wallS.toFixed(2)} s`)
  line("resources per second (seeded ÷ wall)", `${(resources / wallS).toFixed(1)}`)
  line("checks run (findings)", `${done.findings_count}`)
  line("results: pass / fail / not evaluated / muted", `${done.passed_findings} / ${done.failed_findings} / ${done.not_evaluated_findings} / ${done.muted_findings}`)
  line("API calls made (proxy)", `${traffic.total} (${traffic.distinct} distinct; ${(traffic.total / Math.max(1, resources)).toFixed(2)} per resource)`)
  line("scanner process CPU (API + worker + proxy)", `${cpuS.toFixed(2)} s (${((cpuS / wallS) * 100).toFixed(0)}% of one core)`)
  line("emulator CPU", `${motoCpu.toFixed(2)} s (${((motoCpu / wallS) * 100).toFixed(0)}% of one core)`)
  line("scanner concurrency (avg / peak in flight)", `${traffic.average.toFixed(1)} / ${traffic.peak}`)
  line("load average (1/5/15 min) before | after", `${load0} | ${load1}`)
  if (done.status !== "completed") throw new Error(`scan ended ${done.status}`)
  console.log(
    `\n${JSON.stringify({
      bench: "scan-breadth",
      database: env.server.database.kind,
      per_service: PER_SERVICE,
      services_seeded: Object.keys(perService).length,
      services_scanned: done.total_services,
      services_completed: done.completed_services,
      resources,
      resources_scanned: scannedResources,
      wall_s: +wallS.toFixed(3),
      resources_per_s: +(resources / wallS).toFixed(1),
      checks: done.findings_count,
      pass: done.passed_findings,
      fail: done.failed_findings,
      not_evaluated: done.not_evaluated_findings,
      muted: done.muted_findings,
      calls_made: traffic.total,
      calls_distinct: traffic.distinct,
      calls_per_resource: +(traffic.total / Math.max(1, resources)).toFixed(3),
      scanner_cpu_s: +cpuS.toFixed(3),
      moto_cpu_s: +motoCpu.toFixed(3),
      load_before: load0,
      load_after: load1,
      seeded: perService,
      not_seeded: Object.keys(notSeeded),
    })}`,
  )
}

await runScanBench(main)
