/**
 * `node server/main.ts <command>` as a real process: config errors are one line + exit 1, the embedded
 * database persists across restarts (migrations applied once), SIGTERM shuts down cleanly with exit 0,
 * a second process cannot open the same embedded database, `migrate` prepares an external database and
 * `api` refuses an external database whose schema is behind.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { randomBytes } from "node:crypto"
import { afterAll, describe, expect, it } from "vitest"
import { makeTestDatabase } from "../support/db.ts"
import { freePort } from "../support/server.ts"

const MAIN = resolve(import.meta.dirname, "../../server/main.ts")

interface Run {
  readonly child: ChildProcess
  readonly stdout: () => string
  readonly stderr: () => string
  readonly exited: Promise<number | null>
  waitFor(pattern: RegExp, ms?: number): Promise<RegExpMatchArray>
}

const running: Array<Run> = []

const run = (args: ReadonlyArray<string>, env: Record<string, string>): Run => {
  const child = spawn(process.execPath, [MAIN, ...args], {
    env: { PATH: process.env["PATH"] ?? "", HOME: process.env["HOME"] ?? "/tmp", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  })
  let out = ""
  let err = ""
  child.stdout!.on("data", (d: Buffer) => (out += d.toString()))
  child.stderr!.on("data", (d: Buffer) => (err += d.toString()))
  const exited = new Promise<number | null>((r) => child.once("exit", (code) => r(code)))
  const r: Run = {
    child,
    stdout: () => out,
    stderr: () => err,
    exited,
    waitFor: (pattern, ms = 60_000) =>
      new Promise((resolvePromise, reject) => {
        const started = Date.now()
        const tick = () => {
          const match = out.match(pattern)
          if (match) return resolvePromise(match)
          if (child.exitCode !== null) return reject(new Error(`process exited (${child.exitCode}) before ${pattern}: ${err}\n${out}`))
          if (Date.now() - started > ms) return reject(new Error(`timed out waiting for ${pattern}: ${err}\n${out}`))
          setTimeout(tick, 50)
        }
        tick()
      }),
  }
  running.push(r)
  return r
}

const jsonLines = (text: string) =>
  text
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l) as Record<string, unknown>)

const dirs: Array<string> = []
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), "main-test-"))
  dirs.push(dir)
  return dir
}

afterAll(async () => {
  for (const r of running) if (r.child.exitCode === null) r.child.kill("SIGKILL")
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

describe("server/main.ts", () => {
  it("stops with one config error line and exit code 1", async () => {
    const bad = run(["api"], { PORT: "abc", DATA_DIR: tempDir() })
    expect(await bad.exited).toBe(1)
    expect(bad.stderr()).toBe('config error: PORT must be an integer 1-65535 (got "abc")\n')

    const noKey = run(["worker"], { DATABASE_URL: "postgres://app:pw@127.0.0.1:1/app", DATA_DIR: tempDir() })
    expect(await noKey.exited).toBe(1)
    expect(noKey.stderr()).toBe("config error: APP_SECRET_KEY is required when DATABASE_URL is set (every API and worker process must share it)\n")
  })

  it("rejects an unknown command with usage and exit code 2", async () => {
    const r = run(["serve"], {})
    expect(await r.exited).toBe(2)
    expect(r.stderr()).toContain("usage: node server/main.ts <start|api|worker|migrate>")
  })

  it("runs on the embedded database, persists it across restarts and shuts down cleanly on SIGTERM", async () => {
    const dataDir = tempDir()
    const port = await freePort()
    const env = { DATA_DIR: dataDir, PORT: String(port), HOST: "127.0.0.1" }

    const first = run(["api"], env)
    const [, url] = await first.waitFor(/Cloud Audit is running at (http:\/\/localhost:\d+)/)
    expect(url).toBe(`http://localhost:${port}`)
    const health = await fetch(`http://127.0.0.1:${port}/api/health`)
    expect(health.status).toBe(200)
    expect(existsSync(join(dataDir, "pgdata.lock"))).toBe(true)
    const key = readFileSync(join(dataDir, "secret.key"), "utf8")

    // A second process on the same data directory is refused with one clear line.
    const intruder = run(["worker"], { DATA_DIR: dataDir })
    expect(await intruder.exited).toBe(1)
    expect(intruder.stderr()).toMatch(/^start-up error: embedded database failed to start: the embedded database is in use by process \d+ .*\n$/)

    first.child.kill("SIGTERM")
    expect(await first.exited).toBe(0)
    const firstLogs = jsonLines(first.stdout())
    expect(firstLogs.find((l) => l["msg"] === "migrations applied")?.["applied"]).toEqual(expect.arrayContaining(["0001_platform"]))
    const shutdown = firstLogs.map((l) => l["msg"])
    expect(shutdown).toEqual(expect.arrayContaining(["shutting down", "http server stopping: finishing in-flight requests", "embedded database stopped", "stopped"]))
    expect(shutdown.indexOf("http server stopping: finishing in-flight requests")).toBeLessThan(shutdown.indexOf("embedded database stopped"))
    expect(existsSync(join(dataDir, "pgdata.lock"))).toBe(false)
    // No secret in any log line.
    expect(first.stdout()).not.toContain(key.trim())

    const second = run(["api"], env)
    await second.waitFor(/Cloud Audit is running at/)
    expect((await fetch(`http://127.0.0.1:${port}/api/health`)).status).toBe(200)
    second.child.kill("SIGINT")
    expect(await second.exited).toBe(0)
    expect(jsonLines(second.stdout()).find((l) => l["msg"] === "migrations applied")?.["applied"]).toEqual([])
    expect(readFileSync(join(dataDir, "secret.key"), "utf8")).toBe(key)
  }, 180_000)

  it.runIf(process.env["TEST_DATABASE_URL"])("migrate prepares an external database; api refuses one that is behind", async () => {
    const db = await makeTestDatabase({ kind: "postgres" })
    try {
      const env = { DATABASE_URL: db.url, APP_SECRET_KEY: randomBytes(32).toString("base64url"), DATA_DIR: tempDir(), PORT: String(await freePort()) }
      const behind = run(["api"], env)
      expect(await behind.exited).toBe(1)
      expect(behind.stderr()).toMatch(/^start-up error: database schema is not up to date \(pending: 0001_platform.*\); run "npm run migrate" first\n$/)

      const migrate = run(["migrate"], env)
      expect(await migrate.exited).toBe(0)
      expect(migrate.stdout()).toMatch(/applied \d+ migration\(s\)/)
      const again = run(["migrate"], env)
      expect(await again.exited).toBe(0)
      expect(again.stdout()).toContain("database is up to date")

      const api = run(["api"], env)
      await api.waitFor(/Cloud Audit is running at/)
      expect((await fetch(`http://127.0.0.1:${env.PORT}/api/health`)).status).toBe(200)
      api.child.kill("SIGTERM")
      expect(await api.exited).toBe(0)
    } finally {
      await db.close()
    }
  }, 180_000)
})
