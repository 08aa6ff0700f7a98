/**
 * The CPU floor of one cloud API call (issue 31 "product CPU seconds per 1,000 resources"; `npm run bench:sdk-floor`).
 * A benchmark, not a timed test.
 *
 * What a scan costs the product's CPU has a floor no job, query or thread layout can go under: the official SDK's
 * own work per call (serialise, endpoint, sign, send, parse), times the calls the checks need per resource. This
 * measures that floor against moto_server (started here), with this process's CPU time (user + system, so the
 * kernel's share of each TCP connection counts):
 *
 * - `sdk_call_ms`: one call through the scanner's own client set (server/scanner/aws/clients.ts: the product's
 *   settings, retry, counting middleware), built and warmed, for three reads of different shapes (EC2 XML, IAM query
 *   XML, S3 REST XML). moto closes every connection (werkzeug answers "Connection: close"), so each call also
 *   opens a TCP connection, as it would not against AWS with keep-alive.
 * - `fresh_client_first_call_ms`: a new client set's first call (what every (service, region) of every member scan
 *   pays once): client construction, setting resolution, the first endpoint and signer work.
 * - `raw_signed_http_ms`: the same IAM read signed with the SDK's SigV4 signer and sent with node:http, without the
 *   SDK's middleware or XML parsing: the floor of any SigV4 client in Node.js on this machine and emulator.
 *
 * With BENCH_CALLS_PER_RESOURCE (default: the calls per resource scanned of the last bench:fleet run in
 * bench/results/fleet.json), it prints what the calls alone cost per 1,000 resources: the part of the issue's goal
 * (≤ 3 s) the SDK takes before the product does anything. Figures to stdout and bench/results/sdk-floor.json.
 *
 *   npm run bench:sdk-floor
 *   BENCH_N=2000 npm run bench:sdk-floor
 */
import { readFileSync, writeFileSync } from "node:fs"
import { request } from "node:http"
import { loadavg } from "node:os"
import { resolve } from "node:path"
import { DescribeSecurityGroupsCommand } from "@aws-sdk/client-ec2"
import { CreateUserCommand, ListUsersCommand } from "@aws-sdk/client-iam"
import { CreateBucketCommand, GetBucketVersioningCommand } from "@aws-sdk/client-s3"
import { Sha256 } from "@aws-crypto/sha256-js"
import { SignatureV4 } from "@smithy/signature-v4"
import { makeAwsClients } from "../server/scanner/aws/clients.ts"
import { MOTO_KEYS, startMoto } from "../tests/support/moto.ts"

const N = Number(process.env["BENCH_N"] ?? 600)
const RESULTS = resolve(import.meta.dirname, "results/sdk-floor.json")
const GOAL_PER_1000_S = 3

const cpuMs = () => {
  const u = process.cpuUsage()
  return (u.user + u.system) / 1000
}
/** CPU ms per run of `fn`, over `n` sequential runs after `warm` unmeasured ones. */
const perCall = async (n: number, warm: number, fn: () => Promise<unknown>) => {
  for (let i = 0; i < warm; i++) await fn()
  const t0 = cpuMs()
  for (let i = 0; i < n; i++) await fn()
  return +((cpuMs() - t0) / n).toFixed(3)
}

const callsPerResource = (): number | undefined => {
  const fromEnv = process.env["BENCH_CALLS_PER_RESOURCE"]
  if (fromEnv !== undefined) return Number(fromEnv)
  try {
    const fleet = JSON.parse(readFileSync(resolve(import.meta.dirname, "results/fleet.json"), "utf8")) as {
      rounds?: ReadonlyArray<{ fleet?: { api_calls?: number; resources_scanned?: number } }>
    }
    const round = fleet.rounds?.find((r) => (r.fleet?.resources_scanned ?? 0) > 0)?.fleet
    return round?.api_calls !== undefined && round.resources_scanned ? round.api_calls / round.resources_scanned : undefined
  } catch {
    return undefined
  }
}

const moto = await startMoto()
try {
  const endpoint = moto.endpoint
  const url = new URL(endpoint)
  const credentials = { accessKeyId: MOTO_KEYS.access_key, secretAccessKey: MOTO_KEYS.secret_key }
  const clients = makeAwsClients({ credentials, endpoint })
  const iam = clients.get("iam", "us-east-1")
  const ec2 = clients.get("ec2", "us-east-1")
  const s3 = clients.get("s3", "us-east-1")
  // A little state, so the reads parse something: 5 users, a bucket.
  for (let i = 0; i < 5; i++) await iam.send(new CreateUserCommand({ UserName: `floor-user-${i}` }))
  await s3.send(new CreateBucketCommand({ Bucket: "floor-bucket" }))

  const sdk = {
    ec2_describe_security_groups: await perCall(N, 50, () => ec2.send(new DescribeSecurityGroupsCommand({}))),
    iam_list_users: await perCall(N, 50, () => iam.send(new ListUsersCommand({}))),
    s3_get_bucket_versioning: await perCall(N, 50, () => s3.send(new GetBucketVersioningCommand({ Bucket: "floor-bucket" }))),
  }
  const fresh = await perCall(Math.max(100, N / 3), 20, async () => {
    const set = makeAwsClients({ credentials, endpoint })
    await set.get("ec2", "us-west-2").send(new DescribeSecurityGroupsCommand({}))
    set.destroy()
  })

  // The IAM read without the SDK's client: signed with its SigV4 signer, sent with node:http, the body read as text.
  const signer = new SignatureV4({ credentials, region: "us-east-1", service: "iam", sha256: Sha256 })
  const body = "Action=ListUsers&Version=2010-05-08"
  const raw = await perCall(N, 50, async () => {
    const signed = await signer.sign({
      method: "POST",
      protocol: "http:",
      hostname: url.hostname,
      port: Number(url.port),
      path: "/",
      query: {},
      headers: { host: url.host, "content-type": "application/x-www-form-urlencoded; charset=utf-8" },
      body,
    })
    await new Promise<void>((done, fail) => {
      const req = request({ host: url.hostname, port: url.port, method: "POST", path: "/", headers: signed.headers }, (res) => {
        const chunks: Array<Buffer> = []
        res.on("data", (c: Buffer) => chunks.push(c))
        res.on("end", () => {
          Buffer.concat(chunks).toString("utf8")
          done()
        })
      })
      req.on("error", fail)
      req.end(body)
    })
  })
  clients.destroy()

  const sdkMedian = Object.values(sdk).sort((a, b) => a - b)[1]!
  const perResource = callsPerResource()
  const floorPer1000 = perResource === undefined ? undefined : +((perResource * 1000 * sdkMedian) / 1000).toFixed(2)
  const result = {
    bench: "sdk-floor",
    calls_measured: N,
    sdk_call_ms: sdk,
    sdk_call_median_ms: sdkMedian,
    fresh_client_first_call_ms: fresh,
    raw_signed_http_ms: raw,
    calls_per_resource: perResource === undefined ? null : +perResource.toFixed(2),
    sdk_calls_cpu_per_1000_resources_s: floorPer1000 ?? null,
    goal_per_1000_resources_s: GOAL_PER_1000_S,
    load_1m: +loadavg()[0]!.toFixed(2),
    node: process.version,
    at: new Date().toISOString(),
  }
  console.log("SDK call floor (CPU ms per call, this process, against moto; each call opens a TCP connection)")
  for (const [name, ms] of Object.entries(sdk)) console.log(`  ${name.padEnd(40)}${ms.toFixed(3)} ms`)
  console.log(`  ${"fresh client set, first call".padEnd(40)}${fresh.toFixed(3)} ms`)
  console.log(`  ${"raw SigV4 + node:http (no SDK client)".padEnd(40)}${raw.toFixed(3)} ms`)
  if (floorPer1000 !== undefined) {
    console.log(`  ${`calls per resource (bench:fleet)`.padEnd(40)}${result.calls_per_resource}`)
    console.log(`  ${"SDK calls alone per 1,000 resources".padEnd(40)}${floorPer1000} s (goal for the whole product ≤ ${GOAL_PER_1000_S} s)`)
  }
  console.log(JSON.stringify(result))
  writeFileSync(RESULTS, `${JSON.stringify(result, null, 2)}\n`)
  console.log(`(written to ${RESULTS})`)
} finally {
  await moto.stop()
}
