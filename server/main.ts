/**
 * Process entry: `node server/main.ts <command>`.
 *
 *   start    all-in-one: build the SPA if needed, embedded or external database, migrations, API + SPA,
 *            one worker loop; prints the URL once ready. `--skip-build` serves whatever dist/ holds.
 *   api      the HTTP API (+ SPA from dist/) only. Scale-out: many behind a load balancer.
 *   worker   the job worker loop only. Scale-out: as many as needed.
 *   migrate  applies database migrations and installs/upgrades the job queue schema, then exits.
 *
 * `api` and `worker` apply migrations themselves only with the embedded database; with DATABASE_URL they
 * refuse to start on a schema that is behind (migrations run once, as the owner role, via `migrate`).
 *
 * Exit codes: 0 after a clean run or a SIGTERM/SIGINT shutdown, 1 on a configuration or start-up error
 * (one line on stderr naming the problem), 2 on a usage error.
 */
import { resolve } from "node:path"
import { Cause, Effect, Exit, Layer } from "effect"
import { NodeRuntime } from "@effect/platform-node"
import { appLayer } from "./app.ts"
import { AppConfig, type AppConfigShape, describeConfig, formatConfigError, loadAppConfig } from "./config.ts"
import { DbLive, effectiveDatabaseUrl } from "./db/client.ts"
import { runMigrations } from "./db/migrate.ts"
import { ensureSpaBuilt } from "./http/spa-build.ts"
import { startBoss } from "./jobs/queue.ts"
import { jobs } from "./jobs/registry.ts"
import { loggerLayer, logLine, setLogLevel } from "./log.ts"

const ROOT = resolve(import.meta.dirname, "..")
const DIST_DIR = resolve(ROOT, "dist")
const COMMANDS = ["start", "api", "worker", "migrate"] as const
type Command = (typeof COMMANDS)[number]

const usage = `usage: node server/main.ts <${COMMANDS.join("|")}> [--skip-build]`

/** A start-up failure as one line (the full cause goes to the log). */
const failureLine = (cause: Cause.Cause<unknown>): string => {
  const error = Cause.squash(cause)
  const message = (error as { message?: unknown })?.message
  return typeof message === "string" && message !== "" ? message.split("\n")[0]! : String(error)
}

const displayUrl = (config: AppConfigShape, port: number) => {
  const local = ["0.0.0.0", "::", "127.0.0.1", "localhost", "::1"].includes(config.host)
  return `http://${local ? "localhost" : config.host.includes(":") ? `[${config.host}]` : config.host}:${port}`
}

const migrateProgram = (config: AppConfigShape) =>
  Effect.gen(function* () {
    const applied = yield* runMigrations
    logLine("info", "migrations applied", { applied: applied.map(([id, name]) => `${String(id).padStart(4, "0")}_${name}`) })
    const url = yield* effectiveDatabaseUrl
    yield* Effect.tryPromise({
      try: async () => {
        const boss = await startBoss(url, { poolSize: 2, supervise: false, jobs })
        await boss.stop({ graceful: false, close: true })
      },
      catch: (cause) => new Error(`job queue schema install failed: ${(cause as Error).message ?? String(cause)}`),
    })
    logLine("info", "job queue schema up to date")
    process.stdout.write(applied.length === 0 ? "database is up to date\n" : `applied ${applied.length} migration(s)\n`)
  }).pipe(Effect.provide(DbLive.pipe(Layer.provideMerge(AppConfig.layerFrom(config)))))

const main = async () => {
  const args = process.argv.slice(2)
  const command = args[0] as Command | undefined
  if (command === undefined || !COMMANDS.includes(command)) {
    process.stderr.write(`${usage}\n`)
    process.exit(2)
  }
  const skipBuild = args.includes("--skip-build")

  const loaded = await Effect.runPromiseExit(loadAppConfig)
  if (Exit.isFailure(loaded)) {
    const error = Cause.squash(loaded.cause) as { _tag?: string }
    process.stderr.write(`${error._tag === "ConfigInvalid" ? formatConfigError(error as never) : `config error: ${failureLine(loaded.cause)}`}\n`)
    process.exit(1)
  }
  const config = loaded.value
  setLogLevel(config.logLevel)
  logLine("info", "starting", { command, pid: process.pid, node: process.version, ...describeConfig(config) })
  if (command !== "worker" && command !== "migrate" && config.devOutbox) {
    if (config.devOutboxExposed) {
      logLine("warn", `DEV_OUTBOX=1 on HOST=${config.host}: ANYONE WHO CAN REACH THIS PORT CAN READ EVERY MAIL (sign-up, reset and invitation links) at /api/dev/outbox. Use it on a trusted network only.`)
    } else {
      logLine("info", "development outbox on: mails are readable at /api/dev/outbox from this machine only (HOST is loopback)")
    }
  }

  if (command === "start" && !skipBuild) {
    try {
      await ensureSpaBuilt(ROOT, (msg, fields) => logLine("info", msg, fields))
    } catch (error) {
      process.stderr.write(`start-up error: ${(error as Error).message}\n`)
      process.exit(1)
    }
  }

  let signalled = false
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    process.once(signal, () => {
      signalled = true
      logLine("info", "shutting down", { signal })
      // Last resort if a resource refuses to close.
      setTimeout(() => {
        logLine("error", "shutdown timed out; exiting")
        process.exit(1)
      }, 30_000).unref()
    })
  }

  const onReady = (port: number) => {
    const url = displayUrl(config, port)
    logLine("info", "ready", { command, url })
    process.stdout.write(`\nCloud Audit is running at ${url}\n\n`)
  }
  const program: Effect.Effect<unknown, unknown> =
    command === "migrate"
      ? migrateProgram(config)
      : Layer.launch(
          appLayer(config, {
            // With an external database, api/worker only check: migrations run once, as the owner role (`migrate`).
            migrations: command === "start" || config.databaseUrl === undefined ? "apply" : "check",
            worker: command !== "api",
            http: command === "worker" ? undefined : { distDir: DIST_DIR },
            onReady: command === "worker" ? () => undefined : onReady,
          }),
        ).pipe(Effect.andThen(Effect.void))

  NodeRuntime.runMain(
    program.pipe(
      Effect.tapCause((cause) =>
        Cause.hasInterruptsOnly(cause)
          ? Effect.void
          : Effect.sync(() => {
              logLine("error", "fatal error", { cause: Cause.pretty(cause) })
              process.stderr.write(`${command === "migrate" ? "migrate" : "start-up"} error: ${failureLine(cause)}\n`)
            }),
      ),
      Effect.provide(loggerLayer(config.logLevel)),
    ),
    {
      disableErrorReporting: true,
      teardown: (exit, onExit) => {
        const clean = Exit.isSuccess(exit) || Cause.hasInterruptsOnly(exit.cause)
        if (clean) logLine("info", signalled ? "stopped" : "done", { command })
        onExit(clean ? 0 : 1)
      },
    },
  )
}

await main()
