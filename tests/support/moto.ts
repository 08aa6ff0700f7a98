/**
 * moto_server lifecycle for scanner tests: one emulator process per test file, on a free port, with the
 * start-up settings the scanner relies on (AWS-managed IAM policies loaded, no pre-seeded public AMIs/snapshots).
 * moto is single-threaded and slow (~100–160 req/s), so callers keep fixtures tiny and `reset()` between states.
 */
import { spawn, type ChildProcess } from "node:child_process"
import { createServer } from "node:net"

/** The (fake) access key every moto account accepts, in the shape of an account's credentials in the API. */
export const MOTO_KEYS = { access_key: "AKIAIOSFODNN7EXAMPLE", secret_key: "moto-secret-key" } as const

export interface Moto {
  readonly endpoint: string
  readonly port: number
  /** The emulator's process id (the benchmark reads its CPU time). */
  readonly pid: number | undefined
  /** Wipes every account's state (POST /moto-api/reset). */
  reset(): Promise<void>
  /** Switches IAM policy enforcement on (`true`) or off (POST /moto-api/reset-auth). */
  enforceAuth(on: boolean): Promise<void>
  stop(): Promise<void>
}

const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const srv = createServer()
    srv.unref()
    srv.on("error", reject)
    srv.listen(0, "127.0.0.1", () => {
      const address = srv.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      srv.close(() => resolve(port))
    })
  })

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

export async function startMoto(options: { readonly timeoutMs?: number } = {}): Promise<Moto> {
  const timeoutMs = options.timeoutMs ?? 30_000
  const bin = process.env["MOTO_SERVER_BIN"] ?? "moto_server"
  let lastError: unknown
  for (let attempt = 0; attempt < 3; attempt++) {
    const port = await freePort()
    const child = spawn(bin, ["-H", "127.0.0.1", "-p", String(port)], {
      env: {
        ...process.env,
        MOTO_IAM_LOAD_MANAGED_POLICIES: "true",
        MOTO_EC2_LOAD_DEFAULT_AMIS: "false",
        // The emulator must never inherit a real account's identity or region.
        AWS_ACCESS_KEY_ID: "testing",
        AWS_SECRET_ACCESS_KEY: "testing",
      },
      stdio: ["ignore", "ignore", "pipe"],
    })
    let stderr = ""
    child.stderr?.on("data", (chunk: Buffer) => {
      stderr = (stderr + chunk.toString("utf8")).slice(-4000)
    })
    const endpoint = `http://127.0.0.1:${port}`
    // If the test worker exits without running teardown (crash, SIGPIPE), do not leave the emulator behind.
    const onExit = () => {
      child.kill("SIGKILL")
    }
    process.once("exit", onExit)
    child.once("exit", () => process.removeListener("exit", onExit))
    try {
      await waitReady(endpoint, child, timeoutMs, () => stderr)
      return makeHandle(endpoint, port, child)
    } catch (error) {
      lastError = error
      await kill(child)
    }
  }
  throw lastError instanceof Error ? lastError : new Error(String(lastError))
}

async function waitReady(endpoint: string, child: ChildProcess, timeoutMs: number, stderr: () => string) {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`moto_server exited with ${child.exitCode}: ${stderr()}`)
    try {
      const res = await fetch(`${endpoint}/moto-api/data.json`)
      if (res.ok) {
        await res.arrayBuffer()
        return
      }
    } catch {
      // not listening yet
    }
    await sleep(100)
  }
  throw new Error(`moto_server did not become ready within ${timeoutMs} ms: ${stderr()}`)
}

function kill(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve()
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill("SIGKILL"), 3000)
    child.once("exit", () => {
      clearTimeout(timer)
      resolve()
    })
    child.kill("SIGTERM")
  })
}

function makeHandle(endpoint: string, port: number, child: ChildProcess): Moto {
  const post = async (path: string, body?: string) => {
    const res = await fetch(`${endpoint}${path}`, { method: "POST", ...(body === undefined ? {} : { body }) })
    await res.arrayBuffer()
    if (!res.ok) throw new Error(`moto ${path} answered ${res.status}`)
  }
  return {
    endpoint,
    port,
    pid: child.pid,
    reset: () => post("/moto-api/reset"),
    enforceAuth: (on) => post("/moto-api/reset-auth", on ? "0" : "inf"),
    stop: () => kill(child),
  }
}
