/**
 * The whole API, in-process, on 127.0.0.1 and a free port, against a fresh test database (see ./db.ts),
 * with migrations applied: integration tests call it over real HTTP.
 *
 *   const server = await startTestServer({ env: { SMTP_URL: smtp.url } })
 *   const res = await fetch(`${server.baseUrl}/api/health`)
 *   await server.stop()
 *
 * Options: `env` adds/overrides configuration variables (same names as production: SMTP_URL,
 * AWS_ENDPOINT_URL, APP_ORIGIN, LOG_LEVEL, ...); `worker: true` also runs the job worker loop;
 * `distDir` serves a built SPA (default: an empty temp dir); `database` reuses a database you made
 * with `makeTestDatabase()` (then `stop()` leaves it open; you close it).
 * APP_ORIGIN defaults to the server's own base URL, so links in captured emails point at it.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { randomBytes } from "node:crypto"
import { ConfigProvider, Effect, Exit, Layer, Scope } from "effect"
import { appLayer } from "../../server/app.ts"
import { type AuthSettings, AuthSettingsOverrides } from "../../server/auth/auth-config.ts"
import { type AppConfigShape, loadAppConfig } from "../../server/config.ts"
import type { AnyJob } from "../../server/jobs/queue.ts"
import { loggerLayer } from "../../server/log.ts"
import { makeTestDatabase, type TestDatabase } from "./db.ts"

export interface TestServerOptions {
  readonly env?: Readonly<Record<string, string | undefined>>
  readonly worker?: boolean
  readonly distDir?: string
  readonly database?: TestDatabase
  /** Jobs to register instead of server/jobs/registry.ts. */
  readonly jobs?: ReadonlyArray<AnyJob>
  /** Identity settings merged over the defaults (rate limits for a benchmark, say): `AuthSettingsOverrides`. */
  readonly auth?: Partial<AuthSettings>
}

export interface TestServer {
  /** e.g. http://127.0.0.1:41234 (no trailing slash). */
  readonly baseUrl: string
  readonly databaseUrl: string
  readonly database: TestDatabase
  readonly config: AppConfigShape
  stop(): Promise<void>
}

/** A port that was free a moment ago (the server binds it right after; collisions are very unlikely). */
export const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const probe = createServer()
    probe.once("error", reject)
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      probe.close(() => resolve(port))
    })
  })

export const startTestServer = async (options: TestServerOptions = {}): Promise<TestServer> => {
  const database = options.database ?? (await makeTestDatabase())
  const dataDir = mkdtempSync(join(tmpdir(), "cloud-audit-test-"))
  const distDir = options.distDir ?? dataDir
  const cleanup = async () => {
    if (options.database === undefined) await database.close()
    rmSync(dataDir, { recursive: true, force: true })
  }
  try {
    const port = await freePort()
    const env: Record<string, string> = {
      PORT: String(port),
      HOST: "127.0.0.1",
      DATA_DIR: dataDir,
      DATABASE_URL: database.url,
      APP_SECRET_KEY: randomBytes(32).toString("base64url"),
      APP_ORIGIN: `http://127.0.0.1:${port}`,
      NODE_ENV: "test",
      LOG_LEVEL: "warn",
    }
    for (const [k, v] of Object.entries(options.env ?? {})) {
      if (v === undefined) delete env[k]
      else env[k] = v
    }
    const config = await Effect.runPromise(loadAppConfig.pipe(Effect.provide(ConfigProvider.layer(ConfigProvider.fromEnv({ env })))))
    const layer = appLayer(config, {
      migrations: "apply",
      worker: options.worker === true,
      http: { distDir },
      ...(options.jobs !== undefined ? { jobs: options.jobs } : {}),
    }).pipe(
      Layer.provide(loggerLayer(config.logLevel)),
      Layer.provide(Layer.succeed(AuthSettingsOverrides, options.auth ?? {})),
    )
    const scope = Scope.makeUnsafe()
    const built = await Effect.runPromiseExit(Layer.buildWithScope(layer, scope))
    if (Exit.isFailure(built)) {
      await Effect.runPromise(Scope.close(scope, Exit.void))
      throw new Error(`test server failed to start: ${String(built.cause)}`)
    }
    let stopped: Promise<void> | undefined
    return {
      baseUrl: `http://127.0.0.1:${config.port}`,
      databaseUrl: database.url,
      database,
      config,
      stop: () =>
        (stopped ??= Effect.runPromise(Scope.close(scope, Exit.void)).then(cleanup)),
    }
  } catch (error) {
    await cleanup()
    throw error
  }
}
