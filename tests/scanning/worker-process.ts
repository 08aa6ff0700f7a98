/**
 * Real `node server/main.ts worker` processes for the worker-kill tests (./worker-recovery.test.ts,
 * ./remediation-recovery.test.ts): each on the scan environment's database and moto, with its own data directory,
 * its output kept for assertions. `stopAll()` kills the survivors and removes their directories.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { Redacted } from "effect"
import { sleep, type ScanEnv } from "./support.ts"

const MAIN = resolve(import.meta.dirname, "../../server/main.ts")

export interface WorkerProcess {
  readonly child: ChildProcess
  /** Resolves once the worker logged "worker started"; throws if it exits or takes over 60 s. */
  readonly ready: () => Promise<void>
  readonly output: () => string
}

export const workerProcesses = () => {
  const children: Array<ChildProcess> = []
  const dirs: Array<string> = []
  const start = (env: ScanEnv, label: string, extraEnv: Readonly<Record<string, string>> = {}): WorkerProcess => {
    const dataDir = mkdtempSync(join(tmpdir(), `worker-${label}-`))
    dirs.push(dataDir)
    const child = spawn(process.execPath, [MAIN, "worker"], {
      env: {
        PATH: process.env["PATH"] ?? "",
        HOME: process.env["HOME"] ?? "/tmp",
        DATA_DIR: dataDir,
        DATABASE_URL: env.server.databaseUrl,
        APP_SECRET_KEY: Redacted.value(env.server.config.appSecretKey),
        AWS_ENDPOINT_URL: env.moto.endpoint,
        SCAN_REGIONS: "us-east-1",
        NODE_ENV: "test",
        LOG_LEVEL: "info",
        ...extraEnv,
      },
      stdio: ["ignore", "pipe", "pipe"],
    })
    let out = ""
    child.stdout!.on("data", (d: Buffer) => (out += d.toString()))
    child.stderr!.on("data", (d: Buffer) => (out += d.toString()))
    children.push(child)
    const ready = async () => {
      const deadline = Date.now() + 60_000
      while (!out.includes("\"worker started\"")) {
        if (child.exitCode !== null) throw new Error(`worker ${label} exited (${child.exitCode}): ${out.slice(-3000)}`)
        if (Date.now() > deadline) throw new Error(`worker ${label} not ready: ${out.slice(-3000)}`)
        await sleep(100)
      }
    }
    return { child, ready, output: () => out }
  }
  const stopAll = () => {
    for (const child of children) if (child.exitCode === null) child.kill("SIGKILL")
  }
  const removeDirs = () => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
  }
  return { start, stopAll, removeDirs }
}
