/**
 * Shared by the scan benchmarks (bench/scan.ts, bench/scan-breadth.ts): the traffic meter (a counting proxy in front
 * of moto, and a replayer, in a worker thread: ./traffic-worker.ts), a process's CPU time from /proc, and
 * `runScanBench`, which starts moto, the API with its worker in-process (tests/scanning/support.ts) behind the meter,
 * runs the benchmark and stops everything.
 */
import { readFileSync } from "node:fs"
import { performance } from "node:perf_hooks"
import { Worker } from "node:worker_threads"
import { makeAwsClients, type AwsClients } from "../../server/scanner/aws/clients.ts"
import { MOTO_KEYS, startScan, startScanEnv, type Member, type ScanEnv } from "../../tests/scanning/support.ts"

export interface TrafficReport {
  readonly total: number
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
  const { port } = await ask<{ port: number }>({ type: "listen" })
  return {
    url: `http://127.0.0.1:${port}`,
    setTarget: (p: number) => ask({ type: "target", port: p }),
    start: () => ask({ type: "start" }),
    stop: () => ask<TrafficReport>({ type: "stop" }),
    replay: (concurrency: number) => ask<{ ms: number }>({ type: "replay", concurrency }).then((r) => r.ms),
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

export type TrafficMeter = Awaited<ReturnType<typeof startTrafficMeter>>

export interface ScanBench {
  /** The counting proxy the scanner calls (AWS_ENDPOINT_URL), in front of moto. */
  readonly proxy: TrafficMeter
  readonly env: ScanEnv
  /** Clients straight to moto (seeding, not counted). */
  readonly aws: AwsClients
}

/** Runs `bench` with moto, the API, the worker and the meter started, stops them after; a failure sets exit code 1. */
export const runScanBench = async (bench: (b: ScanBench) => Promise<void>): Promise<void> => {
  try {
    const proxy = await startTrafficMeter()
    try {
      console.log("starting moto, the API and the worker…")
      const env = await startScanEnv({ env: { AWS_ENDPOINT_URL: proxy.url, LOG_LEVEL: "warn" } })
      await proxy.setTarget(env.moto.port)
      const aws = makeAwsClients({ credentials: { accessKeyId: MOTO_KEYS.access_key, secretAccessKey: MOTO_KEYS.secret_key }, endpoint: env.moto.endpoint, maxAttempts: 3 })
      try {
        await bench({ proxy, env, aws })
      } finally {
        aws.destroy()
        await env.stop()
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
 * its traffic: the scan as GET /api/scans/{id} answers it, its wall time, this process's CPU (the API, the worker and
 * the proxy thread) and event-loop utilisation, moto's CPU seconds and the proxy's report.
 */
export const measuredScan = async ({ proxy, env }: ScanBench, owner: Member, accountId: number) => {
  await proxy.start()
  const cpu0 = process.cpuUsage()
  const elu0 = performance.eventLoopUtilization()
  const motoCpu0 = processCpuSeconds(env.moto.pid)
  const t0 = performance.now()
  const scan = await startScan(env, owner, accountId)
  const done = await env.waitForScan(owner, scan.id, 30 * 60_000)
  const wallMs = performance.now() - t0
  const cpu = process.cpuUsage(cpu0)
  const elu = performance.eventLoopUtilization(elu0)
  const motoCpu = processCpuSeconds(env.moto.pid) - motoCpu0
  const traffic = await proxy.stop()
  return { scan, done, wallMs, cpuMs: (cpu.user + cpu.system) / 1000, elu, motoCpu, traffic }
}
