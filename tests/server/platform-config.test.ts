/**
 * Configuration: defaults, one-line errors naming the variable, and the embedded-mode secret key file.
 */
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { ConfigProvider, Effect, Exit, Redacted } from "effect"
import { afterEach, describe, expect, it } from "vitest"
import { type AppConfigShape, type ConfigInvalid, formatConfigError, loadAppConfig } from "../../server/config.ts"

const dirs: Array<string> = []
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), "cfg-test-"))
  dirs.push(dir)
  return dir
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

const load = (env: Record<string, string>): Promise<Exit.Exit<AppConfigShape, ConfigInvalid>> =>
  Effect.runPromiseExit(loadAppConfig.pipe(Effect.provide(ConfigProvider.layer(ConfigProvider.fromEnv({ env })))))

const errorLine = async (env: Record<string, string>): Promise<string> => {
  const exit = await load({ DATA_DIR: tempDir(), ...env })
  if (Exit.isSuccess(exit)) throw new Error(`expected a config error for ${JSON.stringify(env)}`)
  const failure = exit.cause.reasons[0]
  if (failure?._tag !== "Fail") throw new Error("expected a typed failure")
  return formatConfigError(failure.error)
}

const ok = async (env: Record<string, string>) => {
  const exit = await load(env)
  if (Exit.isFailure(exit)) throw new Error(`unexpected config error: ${String(exit.cause)}`)
  return exit.value
}

const EXTERNAL = { DATABASE_URL: "postgres://app:s3cr3t-pw@db.internal:5432/app", APP_SECRET_KEY: "k".repeat(40) }

describe("configuration", () => {
  it("applies the documented defaults in embedded mode", async () => {
    const dataDir = tempDir()
    const config = await ok({ DATA_DIR: dataDir })
    expect(config).toMatchObject({
      port: 8080,
      host: "127.0.0.1",
      dataDir,
      databaseUrl: undefined,
      appOrigin: "http://localhost:8080",
      smtpUrl: undefined,
      smtpFrom: "Cloud Audit <no-reply@localhost>",
      awsEndpointUrl: undefined,
      nodeEnv: "development",
      logLevel: "info",
      devOutbox: true,
      trustProxy: 0,
    })
  })

  it("opens the development outbox only on loopback, or with an explicit DEV_OUTBOX=1, never in production", async () => {
    const outbox = async (env: Record<string, string>) => {
      const c = await ok({ DATA_DIR: tempDir(), ...env })
      return [c.devOutbox, c.devOutboxExposed]
    }
    expect(await outbox({})).toEqual([true, false])
    expect(await outbox({ HOST: "::1" })).toEqual([true, false])
    expect(await outbox({ HOST: "localhost" })).toEqual([true, false])
    // Reachable from the network: the outbox would hand out every reset link.
    expect(await outbox({ HOST: "0.0.0.0" })).toEqual([false, false])
    expect(await outbox({ HOST: "::" })).toEqual([false, false])
    expect(await outbox({ HOST: "192.168.1.20" })).toEqual([false, false])
    expect(await outbox({ HOST: "0.0.0.0", DEV_OUTBOX: "1" })).toEqual([true, true])
    expect(await outbox({ DEV_OUTBOX: "0" })).toEqual([false, false])
    expect(await outbox({ NODE_ENV: "production", SMTP_URL: "smtp://mail.example.com:25" })).toEqual([false, false])
    expect(await outbox({ NODE_ENV: "production", SMTP_URL: "smtp://mail.example.com:25", HOST: "0.0.0.0", DEV_OUTBOX: "1" })).toEqual([false, false])
  })

  it("starts in production with SMTP_URL, and bounds slow clients by default (10 s headers, 30 s request)", async () => {
    const config = await ok({ DATA_DIR: tempDir(), NODE_ENV: "production", SMTP_URL: "smtp://mail.example.com:25" })
    expect(config.nodeEnv).toBe("production")
    expect(config.httpTimeouts).toEqual({ headersSeconds: 10, requestSeconds: 30 })
    const tuned = await ok({ DATA_DIR: tempDir(), HTTP_HEADERS_TIMEOUT_SECONDS: "2", HTTP_REQUEST_TIMEOUT_SECONDS: "5" })
    expect(tuned.httpTimeouts).toEqual({ headersSeconds: 2, requestSeconds: 5 })
    expect((await ok({ DATA_DIR: tempDir(), HTTP_REQUEST_TIMEOUT_SECONDS: "4" })).httpTimeouts).toEqual({ headersSeconds: 4, requestSeconds: 4 })
  })

  it("reads TRUST_PROXY as a number of proxies, off by default", async () => {
    expect((await ok({ DATA_DIR: tempDir(), TRUST_PROXY: "1" })).trustProxy).toBe(1)
    expect((await ok({ DATA_DIR: tempDir(), TRUST_PROXY: "true" })).trustProxy).toBe(1)
    expect((await ok({ DATA_DIR: tempDir(), TRUST_PROXY: "2" })).trustProxy).toBe(2)
    expect((await ok({ DATA_DIR: tempDir(), TRUST_PROXY: "false" })).trustProxy).toBe(0)
  })

  it("maintains the database every minute, as autovacuum_naptime, unless DB_MAINTENANCE=off", async () => {
    expect((await ok({ DATA_DIR: tempDir() })).dbMaintenance).toEqual({ setting: "auto", intervalSeconds: 60 })
    expect((await ok({ DATA_DIR: tempDir(), DB_MAINTENANCE: "off", DB_MAINTENANCE_SECONDS: "300" })).dbMaintenance).toEqual({ setting: "off", intervalSeconds: 300 })
  })

  it("derives APP_ORIGIN from PORT and normalises a given origin", async () => {
    expect((await ok({ DATA_DIR: tempDir(), PORT: "9001" })).appOrigin).toBe("http://localhost:9001")
    expect((await ok({ DATA_DIR: tempDir(), APP_ORIGIN: "https://audit.example.com/" })).appOrigin).toBe("https://audit.example.com")
  })

  it("generates the secret key once into DATA_DIR/secret.key (0600) and reuses it", async () => {
    const dataDir = tempDir()
    const first = await ok({ DATA_DIR: dataDir })
    const file = join(dataDir, "secret.key")
    expect(first.appSecretKeySource).toBe("generated")
    expect(statSync(file).mode & 0o777).toBe(0o600)
    expect(readFileSync(file, "utf8").trim()).toBe(Redacted.value(first.appSecretKey))
    expect(Redacted.value(first.appSecretKey).length).toBeGreaterThanOrEqual(32)
    const second = await ok({ DATA_DIR: dataDir })
    expect(second.appSecretKeySource).toBe("file")
    expect(Redacted.value(second.appSecretKey)).toBe(Redacted.value(first.appSecretKey))
  })

  it("uses DATABASE_URL and APP_SECRET_KEY from the environment without writing a key file", async () => {
    const dataDir = tempDir()
    const config = await ok({ DATA_DIR: dataDir, ...EXTERNAL })
    expect(Redacted.value(config.databaseUrl!)).toBe(EXTERNAL.DATABASE_URL)
    expect(config.appSecretKeySource).toBe("env")
    expect(() => statSync(join(dataDir, "secret.key"))).toThrow()
    // Secrets never show in their string form.
    expect(String(config.databaseUrl)).not.toContain("s3cr3t")
    expect(JSON.stringify(config)).not.toContain("s3cr3t")
  })

  it.each([
    [{ PORT: "abc" }, 'config error: PORT must be an integer 1-65535 (got "abc")'],
    [{ PORT: "70000" }, 'config error: PORT must be an integer 1-65535 (got "70000")'],
    [{ PORT: "80.5" }, 'config error: PORT must be an integer 1-65535 (got "80.5")'],
    [{ HOST: "bad host" }, 'config error: HOST must be a host name or IP address such as 0.0.0.0 (got "bad host")'],
    [{ APP_ORIGIN: "localhost:8080" }, 'config error: APP_ORIGIN must be an http(s) origin such as https://audit.example.com (got "localhost:8080")'],
    [{ APP_ORIGIN: "https://x.example.com/app" }, 'config error: APP_ORIGIN must be an http(s) origin such as https://audit.example.com (got "https://x.example.com/app")'],
    [{ NODE_ENV: "prod" }, 'config error: NODE_ENV must be one of development, production, test (got "prod")'],
    [{ LOG_LEVEL: "verbose" }, 'config error: LOG_LEVEL must be one of debug, info, warn, error (got "verbose")'],
    [{ SMTP_FROM: "nobody" }, 'config error: SMTP_FROM must be an address such as "Cloud Audit <no-reply@example.com>" (got "nobody")'],
    [{ AWS_ENDPOINT_URL: "moto:5000" }, 'config error: AWS_ENDPOINT_URL must be an http(s) URL such as http://127.0.0.1:5000 (got "moto:5000")'],
    [{ SMTP_URL: "http://mail:25" }, "config error: SMTP_URL must be an smtp:// or smtps:// URL with a host (value not shown)"],
    [{ DATABASE_URL: "mysql://root:hunter2@db/app" }, "config error: DATABASE_URL must be a postgres:// or postgresql:// URL with a host (value not shown)"],
    [{ DATABASE_URL: "postgres://app:pw@db/app" }, "config error: APP_SECRET_KEY is required when DATABASE_URL is set (every API and worker process must share it)"],
    [{ DEV_OUTBOX: "yes" }, 'config error: DEV_OUTBOX must be 1 or 0 (got "yes")'],
    [{ TRUST_PROXY: "all" }, 'config error: TRUST_PROXY must be the number of trusted reverse proxies (0-99), true or false (got "all")'],
    [{ APP_SECRET_KEY: "short" }, `config error: APP_SECRET_KEY must be at least 32 characters without spaces (value not shown)`],
    // Production mails every one-time link; it never starts logging them instead (issue 27).
    [{ NODE_ENV: "production" }, "config error: SMTP_URL is required when NODE_ENV=production (one-time links must be mailed, never only logged)"],
    [{ NODE_ENV: "production", ...EXTERNAL }, "config error: SMTP_URL is required when NODE_ENV=production (one-time links must be mailed, never only logged)"],
    [{ HTTP_REQUEST_TIMEOUT_SECONDS: "0" }, 'config error: HTTP_REQUEST_TIMEOUT_SECONDS must be a number of seconds 1-3600 (got "0")'],
    [{ HTTP_REQUEST_TIMEOUT_SECONDS: "soon" }, 'config error: HTTP_REQUEST_TIMEOUT_SECONDS must be a number of seconds 1-3600 (got "soon")'],
    [{ HTTP_HEADERS_TIMEOUT_SECONDS: "60", HTTP_REQUEST_TIMEOUT_SECONDS: "30" }, 'config error: HTTP_HEADERS_TIMEOUT_SECONDS must be a number of seconds 1-30 (got "60")'],
    [{ DB_MAINTENANCE: "never" }, 'config error: DB_MAINTENANCE must be one of auto, off (got "never")'],
    [{ DB_MAINTENANCE_SECONDS: "0" }, 'config error: DB_MAINTENANCE_SECONDS must be a number of seconds 1-3600 (got "0")'],
  ])("rejects %j with one line naming the variable", async (env, expected) => {
    const line = await errorLine(env)
    expect(line).toBe(expected)
    expect(line).not.toContain("\n")
    expect(line).not.toContain("hunter2")
  })

  it("refuses a malformed DATA_DIR/secret.key instead of silently replacing it", async () => {
    const dataDir = tempDir()
    writeFileSync(join(dataDir, "secret.key"), "too-short\n", { mode: 0o600 })
    const exit = await load({ DATA_DIR: dataDir })
    expect(Exit.isFailure(exit)).toBe(true)
    if (Exit.isFailure(exit)) {
      const reason = exit.cause.reasons[0]
      expect(reason?._tag === "Fail" ? reason.error.variable : undefined).toBe("APP_SECRET_KEY")
      expect(reason?._tag === "Fail" ? reason.error.message : "").toContain("secret.key is malformed")
    }
  })
})
