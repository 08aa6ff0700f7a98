/**
 * Shared by the scan benchmarks (bench/scan.ts, bench/scan-breadth.ts): the traffic meter (a counting proxy in front
 * of moto, and a replayer, in a worker thread: ./traffic-worker.ts), a process's CPU time from /proc, and
 * `runScanBench`, which starts moto, the API with its worker in-process (tests/scanning/support.ts) behind the meter,
 * runs the benchmark and stops everything.
 */
import { execFileSync } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { availableParallelism, tmpdir } from "node:os"
import { join } from "node:path"
import { performance } from "node:perf_hooks"
import { Worker } from "node:worker_threads"
import { ListAnalyzersCommand } from "@aws-sdk/client-accessanalyzer"
import { GetAlternateContactCommand } from "@aws-sdk/client-account"
import { ListCertificatesCommand } from "@aws-sdk/client-acm"
import { GetRestApisCommand } from "@aws-sdk/client-api-gateway"
import { GetApisCommand } from "@aws-sdk/client-apigatewayv2"
import { ListWorkGroupsCommand } from "@aws-sdk/client-athena"
import { DescribeAutoScalingGroupsCommand } from "@aws-sdk/client-auto-scaling"
import { ListBackupVaultsCommand } from "@aws-sdk/client-backup"
import { ListStacksCommand } from "@aws-sdk/client-cloudformation"
import { ListDistributionsCommand } from "@aws-sdk/client-cloudfront"
import { DescribeTrailsCommand } from "@aws-sdk/client-cloudtrail"
import { DescribeAlarmsCommand } from "@aws-sdk/client-cloudwatch"
import { DescribeLogGroupsCommand } from "@aws-sdk/client-cloudwatch-logs"
import { ListProjectsCommand } from "@aws-sdk/client-codebuild"
import { ListUserPoolsCommand } from "@aws-sdk/client-cognito-identity-provider"
import { DescribeConfigurationRecordersCommand } from "@aws-sdk/client-config-service"
import { DescribeReplicationInstancesCommand } from "@aws-sdk/client-database-migration-service"
import { ListTablesCommand } from "@aws-sdk/client-dynamodb"
import { DescribeRegionsCommand, DescribeVpcsCommand } from "@aws-sdk/client-ec2"
import { DescribeRepositoriesCommand } from "@aws-sdk/client-ecr"
import { ListClustersCommand as ListEcsClustersCommand } from "@aws-sdk/client-ecs"
import { DescribeFileSystemsCommand } from "@aws-sdk/client-efs"
import { ListClustersCommand } from "@aws-sdk/client-eks"
import { DescribeCacheClustersCommand } from "@aws-sdk/client-elasticache"
import { DescribeLoadBalancersCommand as DescribeClassicLoadBalancersCommand } from "@aws-sdk/client-elastic-load-balancing"
import { DescribeLoadBalancersCommand } from "@aws-sdk/client-elastic-load-balancing-v2"
import { ListClustersCommand as ListEmrClustersCommand } from "@aws-sdk/client-emr"
import { ListEventBusesCommand } from "@aws-sdk/client-eventbridge"
import { ListDeliveryStreamsCommand } from "@aws-sdk/client-firehose"
import { GetDatabasesCommand } from "@aws-sdk/client-glue"
import { ListDetectorsCommand } from "@aws-sdk/client-guardduty"
import { ListUsersCommand } from "@aws-sdk/client-iam"
import { ListClustersV2Command } from "@aws-sdk/client-kafka"
import { ListStreamsCommand } from "@aws-sdk/client-kinesis"
import { ListKeysCommand } from "@aws-sdk/client-kms"
import { ListFunctionsCommand } from "@aws-sdk/client-lambda"
import { ListBrokersCommand } from "@aws-sdk/client-mq"
import { ListDomainNamesCommand } from "@aws-sdk/client-opensearch"
import { DescribeOrganizationCommand } from "@aws-sdk/client-organizations"
import { DescribeDBClustersCommand, DescribeDBInstancesCommand } from "@aws-sdk/client-rds"
import { DescribeClustersCommand } from "@aws-sdk/client-redshift"
import { ListHostedZonesCommand } from "@aws-sdk/client-route-53"
import { ListBucketsCommand } from "@aws-sdk/client-s3"
import { GetPublicAccessBlockCommand } from "@aws-sdk/client-s3-control"
import { ListNotebookInstancesCommand } from "@aws-sdk/client-sagemaker"
import { ListSecretsCommand } from "@aws-sdk/client-secrets-manager"
import { DescribeHubCommand } from "@aws-sdk/client-securityhub"
import { ListEmailIdentitiesCommand } from "@aws-sdk/client-sesv2"
import { ListStateMachinesCommand } from "@aws-sdk/client-sfn"
import { ListTopicsCommand } from "@aws-sdk/client-sns"
import { ListQueuesCommand } from "@aws-sdk/client-sqs"
import { DescribeParametersCommand } from "@aws-sdk/client-ssm"
import { GetCallerIdentityCommand } from "@aws-sdk/client-sts"
import { ListServersCommand } from "@aws-sdk/client-transfer"
import { ListWebACLsCommand } from "@aws-sdk/client-wafv2"
import { makeAwsClients, type AwsClients } from "../../server/scanner/aws/clients.ts"
import { scannerThreadCpuSeconds, scannerThreadUtilization } from "../../server/scanner/aws/scan-in-thread.ts"
import { MOTO_KEYS, startScan, startScanEnv, type Member, type ScanEnv } from "../../tests/scanning/support.ts"
import { makeTestDatabase } from "../../tests/support/db.ts"

export interface TrafficReport {
  readonly total: number
  /** TCP connections the scanner opened to the meter. */
  readonly connections: number
  readonly peak: number
  readonly average: number
  readonly distinct: number
  readonly repeated: ReadonlyArray<string>
  readonly firstMs: number
  readonly lastMs: number
  readonly spanAverage: number
  readonly perSecond: ReadonlyArray<number>
}

export const startTrafficMeter = async () => {
  const worker = new Worker(new URL("./traffic-worker.ts", import.meta.url))
  let nextId = 0
  const pending = new Map<number, (value: any) => void>()
  worker.on("message", (m: { id: number }) => {
    pending.get(m.id)?.(m)
    pending.delete(m.id)
  })
  const ask = <T>(message: Record<string, unknown>): Promise<T> =>
    new Promise((resolve) => {
      const id = nextId++
      pending.set(id, resolve)
      worker.postMessage({ ...message, id })
    })
  const { port, tid } = await ask<{ port: number; tid: number | undefined }>({ type: "listen" })
  return {
    url: `http://127.0.0.1:${port}`,
    /** The meter thread's OS thread id (Linux), to keep its CPU out of the product's. */
    tid,
    setTarget: (p: number) => ask({ type: "target", port: p }),
    start: () => ask({ type: "start" }),
    stop: () => ask<TrafficReport>({ type: "stop" }),
    replay: (concurrency: number, options: { readonly viaMeter?: boolean } = {}) =>
      ask<{ ms: number }>({ type: "replay", concurrency, viaMeter: options.viaMeter === true }).then((r) => r.ms),
    close: async () => {
      await ask({ type: "close" })
      await worker.terminate()
    },
  }
}

/** CPU seconds (user + system) the process `pid` has used so far, from /proc (Linux); 0 elsewhere. */
export const processCpuSeconds = (pid: number | undefined): number => {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").replace(/^.*\) /s, "").split(" ")
    return (Number(fields[11]) + Number(fields[12])) / 100
  } catch {
    return 0
  }
}

/**
 * Milliseconds during which some runnable task of the machine waited for a CPU so far (Linux pressure stall
 * information, /proc/pressure/cpu "some total"); undefined where the kernel does not expose it. Over a window, its
 * share of the wall time says how often moto, the scanner or the meter stood in a run queue instead of running.
 */
export const cpuPressureMs = (): number | undefined => {
  try {
    const total = /some .*total=(\d+)/.exec(readFileSync("/proc/pressure/cpu", "utf8"))?.[1]
    return total === undefined ? undefined : Number(total) / 1000
  } catch {
    return undefined
  }
}

/** CPU seconds (user + system) thread `tid` of this process has used so far, from /proc (Linux); 0 elsewhere. */
export const threadCpuSeconds = (tid: number | undefined): number => {
  try {
    const fields = readFileSync(`/proc/self/task/${tid}/stat`, "utf8").replace(/^.*\) /s, "").split(" ")
    return (Number(fields[11]) + Number(fields[12])) / 100
  } catch {
    return 0
  }
}

/**
 * This process's CPU seconds split by thread: the main thread (API, job queue, embedded database), the scanner thread,
 * the meter's thread (not the product's) and the rest (garbage-collector and libuv pool threads, mostly the product's).
 */
const cpuByThread = (meterTid: number | undefined) => {
  const cpu = process.cpuUsage()
  const total = (cpu.user + cpu.system) / 1e6
  const main = threadCpuSeconds(process.pid)
  const scanner = scannerThreadCpuSeconds() ?? 0
  const meter = threadCpuSeconds(meterTid)
  return { total, main, scanner, meter, other: total - main - scanner - meter }
}
type CpuByThread = ReturnType<typeof cpuByThread>
const cpuSince = (a: CpuByThread, b: CpuByThread): CpuByThread => ({
  total: b.total - a.total, main: b.main - a.main, scanner: b.scanner - a.scanner, meter: b.meter - a.meter, other: b.other - a.other,
})

export type TrafficMeter = Awaited<ReturnType<typeof startTrafficMeter>>

export interface ScanBench {
  /** The counting proxy the scanner calls (AWS_ENDPOINT_URL), in front of moto. */
  readonly proxy: TrafficMeter
  readonly env: ScanEnv
  /** Clients straight to moto (seeding, not counted). */
  readonly aws: AwsClients
}

/**
 * BENCH_PIN=1: moto gets the machine's last CPU to itself and this process (the product and the meter) the others
 * (Linux `taskset`, every thread), as AWS runs on its own machines: the ratio then shows what the scanner leaves on
 * the table, not how much of moto's core the product's CPU took. On a 2-core machine the product has one core.
 */
const pinEmulator = (motoPid: number | undefined): void => {
  const cpus = availableParallelism()
  if (motoPid === undefined || cpus < 2) throw new Error("BENCH_PIN=1 needs moto's pid and at least 2 CPUs")
  execFileSync("taskset", ["-a", "-p", "-c", String(cpus - 1), String(motoPid)], { stdio: "ignore" })
  execFileSync("taskset", ["-a", "-p", "-c", `0-${cpus - 2}`, String(process.pid)], { stdio: "ignore" })
  console.log(`pinned: moto on cpu ${cpus - 1}, the product and the meter on cpu 0${cpus > 2 ? `-${cpus - 2}` : ""}`)
}

/** Runs `bench` with moto, the API, the worker and the meter started, stops them after; a failure sets exit code 1. */
export const runScanBench = async (bench: (b: ScanBench) => Promise<void>): Promise<void> => {
  try {
    const proxy = await startTrafficMeter()
    try {
      console.log("starting moto, the API and the worker…")
      // SCAN_CONCURRENCY set for the benchmark reaches the scanner (the in-process server reads its own environment).
      const concurrency = process.env["SCAN_CONCURRENCY"]
      // The embedded database keeps its files on disk, as `npm start` does (tests keep them in memory; BENCH_MEMORY_DB=1).
      const dataDir = mkdtempSync(join(tmpdir(), "scan-bench-"))
      try {
        const database = await makeTestDatabase(process.env["BENCH_MEMORY_DB"] === "1" ? {} : { pgliteDataDir: dataDir })
        const env = await startScanEnv({
          database,
          env: { AWS_ENDPOINT_URL: proxy.url, LOG_LEVEL: "warn", ...(concurrency === undefined ? {} : { SCAN_CONCURRENCY: concurrency }) },
        })
        const aws = makeAwsClients({ credentials: { accessKeyId: MOTO_KEYS.access_key, secretAccessKey: MOTO_KEYS.secret_key }, endpoint: env.moto.endpoint, maxAttempts: 3 })
        try {
          await proxy.setTarget(env.moto.port)
          if (process.env["BENCH_PIN"] === "1") pinEmulator(env.moto.pid)
          await bench({ proxy, env, aws })
        } finally {
          aws.destroy()
          await env.stop()
        }
      } finally {
        rmSync(dataDir, { recursive: true, force: true })
      }
    } finally {
      await proxy.close()
    }
  } catch (error) {
    console.error(error)
    process.exitCode = 1
  }
}

/**
 * Launches a scan of the account through the API and waits until it ends (30 min at most), with the proxy counting
 * its traffic: the scan as GET /api/scans/{id} answers it, its wall time, this process's CPU (the API, the worker, the
 * scanner thread and the proxy thread), the same split by thread (`threads`, CPU seconds), the event-loop utilisation of the main thread (API, jobs, embedded database)
 * and of the scanner thread, moto's CPU seconds and the proxy's report.
 */
export const measuredScan = async ({ proxy, env }: ScanBench, owner: Member, accountId: number) => {
  await proxy.start()
  const threads0 = cpuByThread(proxy.tid)
  const cpu0 = process.cpuUsage()
  const elu0 = performance.eventLoopUtilization()
  const threadElu0 = scannerThreadUtilization()
  const motoCpu0 = processCpuSeconds(env.moto.pid)
  const pressure0 = cpuPressureMs()
  const t0 = performance.now()
  const scan = await startScan(env, owner, accountId)
  const done = await env.waitForScan(owner, scan.id, 30 * 60_000)
  const wallMs = performance.now() - t0
  const cpu = process.cpuUsage(cpu0)
  const threads = cpuSince(threads0, cpuByThread(proxy.tid))
  const elu = performance.eventLoopUtilization(elu0)
  const threadElu = threadElu0 === undefined ? undefined : scannerThreadUtilization(threadElu0)
  const motoCpu = processCpuSeconds(env.moto.pid) - motoCpu0
  const pressure1 = cpuPressureMs()
  const pressureMs = pressure0 === undefined || pressure1 === undefined ? undefined : pressure1 - pressure0
  const traffic = await proxy.stop()
  return { scan, done, wallMs, cpuMs: (cpu.user + cpu.system) / 1000, threads, elu, threadElu, motoCpu, pressureMs, traffic }
}

/**
 * moto builds each service's Python modules on the first request to that service, and each account's backend of a
 * service in a region on the first request there, holding the interpreter lock (about 2 s for EC2), so a fresh
 * emulator answers everybody slowly: a cost of the emulator that real AWS does not have and that the floor (replayed
 * later on a warm emulator) does not include (the "emulator CPU: scan | replay" line shows it). One cheap list read per
 * service the scanner reads (every client of server/scanner/aws/clients.ts), in the scanned account and region,
 * straight to moto (not counted), pays it before the first scan. Reads do not change what the scan sees. Returns the
 * milliseconds it took.
 */
export const warmEmulator = async (endpoint: string, region = "us-east-1"): Promise<number> => {
  const t = performance.now()
  const aws = makeAwsClients({ credentials: { accessKeyId: MOTO_KEYS.access_key, secretAccessKey: MOTO_KEYS.secret_key }, endpoint, maxAttempts: 1 })
  const reads: ReadonlyArray<() => Promise<unknown>> = [
    () => aws.get("sts", region).send(new GetCallerIdentityCommand({})),
    () => aws.get("ec2", region).send(new DescribeRegionsCommand({})),
    () => aws.get("ec2", region).send(new DescribeVpcsCommand({})),
    () => aws.get("s3", region).send(new ListBucketsCommand({})),
    () => aws.get("s3control", region).send(new GetPublicAccessBlockCommand({ AccountId: "123456789012" })),
    () => aws.get("iam", region).send(new ListUsersCommand({})),
    () => aws.get("kms", region).send(new ListKeysCommand({})),
    () => aws.get("sqs", region).send(new ListQueuesCommand({})),
    () => aws.get("sns", region).send(new ListTopicsCommand({})),
    () => aws.get("dynamodb", region).send(new ListTablesCommand({})),
    () => aws.get("secretsmanager", region).send(new ListSecretsCommand({})),
    () => aws.get("ecr", region).send(new DescribeRepositoriesCommand({})),
    () => aws.get("logs", region).send(new DescribeLogGroupsCommand({})),
    () => aws.get("cloudwatch", region).send(new DescribeAlarmsCommand({})),
    () => aws.get("cloudtrail", region).send(new DescribeTrailsCommand({})),
    () => aws.get("config", region).send(new DescribeConfigurationRecordersCommand({})),
    () => aws.get("rds", region).send(new DescribeDBInstancesCommand({})),
    () => aws.get("rds", region).send(new DescribeDBClustersCommand({})),
    () => aws.get("lambda", region).send(new ListFunctionsCommand({})),
    () => aws.get("elbv2", region).send(new DescribeLoadBalancersCommand({})),
    () => aws.get("elb", region).send(new DescribeClassicLoadBalancersCommand({})),
    () => aws.get("eks", region).send(new ListClustersCommand({})),
    () => aws.get("efs", region).send(new DescribeFileSystemsCommand({})),
    () => aws.get("guardduty", region).send(new ListDetectorsCommand({})),
    () => aws.get("securityhub", region).send(new DescribeHubCommand({})),
    () => aws.get("account", region).send(new GetAlternateContactCommand({ AlternateContactType: "SECURITY" })),
    () => aws.get("accessanalyzer", region).send(new ListAnalyzersCommand({})),
    () => aws.get("elasticache", region).send(new DescribeCacheClustersCommand({})),
    () => aws.get("redshift", region).send(new DescribeClustersCommand({})),
    () => aws.get("opensearch", region).send(new ListDomainNamesCommand({})),
    () => aws.get("cloudfront", region).send(new ListDistributionsCommand({})),
    () => aws.get("apigateway", region).send(new GetRestApisCommand({})),
    () => aws.get("apigatewayv2", region).send(new GetApisCommand({})),
    () => aws.get("autoscaling", region).send(new DescribeAutoScalingGroupsCommand({})),
    () => aws.get("ecs", region).send(new ListEcsClustersCommand({})),
    () => aws.get("kinesis", region).send(new ListStreamsCommand({})),
    () => aws.get("firehose", region).send(new ListDeliveryStreamsCommand({})),
    () => aws.get("sfn", region).send(new ListStateMachinesCommand({})),
    () => aws.get("glue", region).send(new GetDatabasesCommand({})),
    () => aws.get("athena", region).send(new ListWorkGroupsCommand({})),
    () => aws.get("route53", region).send(new ListHostedZonesCommand({})),
    () => aws.get("acm", region).send(new ListCertificatesCommand({})),
    () => aws.get("backup", region).send(new ListBackupVaultsCommand({})),
    () => aws.get("ssm", region).send(new DescribeParametersCommand({})),
    () => aws.get("codebuild", region).send(new ListProjectsCommand({})),
    () => aws.get("cloudformation", region).send(new ListStacksCommand({})),
    () => aws.get("cognito", region).send(new ListUserPoolsCommand({ MaxResults: 10 })),
    () => aws.get("sagemaker", region).send(new ListNotebookInstancesCommand({})),
    () => aws.get("emr", region).send(new ListEmrClustersCommand({})),
    () => aws.get("wafv2", region).send(new ListWebACLsCommand({ Scope: "REGIONAL" })),
    () => aws.get("organizations", region).send(new DescribeOrganizationCommand({})),
    () => aws.get("eventbridge", region).send(new ListEventBusesCommand({})),
    () => aws.get("kafka", region).send(new ListClustersV2Command({})),
    () => aws.get("mq", region).send(new ListBrokersCommand({})),
    () => aws.get("transfer", region).send(new ListServersCommand({})),
    () => aws.get("sesv2", region).send(new ListEmailIdentitiesCommand({})),
    () => aws.get("dms", region).send(new DescribeReplicationInstancesCommand({})),
  ]
  try {
    // One at a time: moto builds them under one interpreter lock anyway. Refusals (no hub, no contact, no
    // organization) are answers too.
    for (const read of reads) await read().catch(() => undefined)
  } finally {
    aws.destroy()
  }
  return performance.now() - t
}
