/**
 * Composition of a process from its parts, shared by `server/main.ts` and the in-process test server
 * (tests/support/server.ts). Build order (and, reversed, shutdown order):
 *
 *   config → database (embedded PGlite or external) + SQL pool → migrations (applied or checked)
 *     → job queue (pg-boss) → worker loop (optional; an API-only process works the mail queue) → HTTP server (optional)
 *     → "ready"
 *
 * so on SIGTERM the HTTP server stops accepting and drains first, then the worker finishes its jobs,
 * then pg-boss, the SQL pool and finally PGlite are closed.
 */
import { Effect, Layer } from "effect"
import { HttpServer } from "effect/http"
import type { SqlClient } from "effect/sql"
import { ReadCache } from "./api/middleware/read-cache.ts"
import { IdentityLive } from "./auth/identity-layer.ts"
import { AppConfig, type AppConfigShape } from "./config.ts"
import { DbLive } from "./db/client.ts"
import { DbMaintenanceLive } from "./db/maintenance.ts"
import { requireMigrated, runMigrations } from "./db/migrate.ts"
import { httpServerLayer } from "./http/server.ts"
import { type AnyJob, JobQueue } from "./jobs/queue.ts"
import { jobs as registeredJobs } from "./jobs/registry.ts"
import { ApiWorkerLive, WorkerLive } from "./jobs/worker.ts"
import { PostureTickerLive } from "./scans/posture-ticker.ts"
import { logLine } from "./log.ts"

export interface AppOptions {
  /** "apply": run pending migrations; "check": refuse to start when some are pending. */
  readonly migrations: "apply" | "check"
  /** Run the worker loop in this process (also makes this process supervise pg-boss maintenance). */
  readonly worker: boolean
  /** Serve HTTP; `distDir` is the built SPA. */
  readonly http: { readonly distDir: string } | undefined
  /** Jobs to create queues for / work; defaults to server/jobs/registry.ts. */
  readonly jobs?: ReadonlyArray<AnyJob>
  /** Called once the HTTP server listens, with the bound port. */
  readonly onReady?: (port: number) => void
}

const formatApplied = (applied: ReadonlyArray<readonly [number, string]>) => applied.map(([id, name]) => `${String(id).padStart(4, "0")}_${name}`)

/** Migrations as a layer: nothing is built on top of it before it has finished. */
export const schemaLayer = (mode: AppOptions["migrations"]) =>
  Layer.effectDiscard<unknown, unknown, SqlClient.SqlClient>(
    mode === "apply"
      ? runMigrations.pipe(Effect.tap((applied) => Effect.sync(() => logLine("info", "migrations applied", { applied: formatApplied(applied) }))))
      : requireMigrated,
  )

export const appLayer = (config: AppConfigShape, options: AppOptions) => {
  const jobs = options.jobs ?? registeredJobs
  const base = DbLive.pipe(Layer.provideMerge(AppConfig.layerFrom(config)))
  const migrated = schemaLayer(options.migrations).pipe(Layer.provideMerge(base))
  const queue = JobQueue.layer({ jobs, supervise: options.worker }).pipe(Layer.provideMerge(migrated))
  // Worker processes also run the posture ticker (schedules, mute expiry, digests: server/scans/posture-ticker.ts) and
  // the database maintenance where no autovacuum runs (server/db/maintenance.ts).
  const workerLive = Layer.mergeAll(WorkerLive, PostureTickerLive, DbMaintenanceLive)
  if (options.http === undefined) return options.worker ? workerLive.pipe(Layer.provideMerge(queue)) : queue
  // A process serving the API without a worker loop still works the light jobs it creates itself (mail delivery).
  const services = (options.worker ? workerLive : ApiWorkerLive).pipe(Layer.provideMerge(queue))
  const http = httpServerLayer({
    port: config.port,
    host: config.host,
    distDir: options.http.distDir,
    security: { hsts: config.appOrigin.startsWith("https:"), trustProxy: config.trustProxy },
    ...(config.httpTimeouts !== undefined ? { timeouts: config.httpTimeouts } : {}),
  }).pipe(
    // Request-time services of the handlers (AuthConfig + Mailer for everything that authenticates; the read cache).
    Layer.provide(config.readCache === false ? IdentityLive : Layer.merge(IdentityLive, ReadCache.layer())),
    Layer.provideMerge(services),
  )
  const onReady = options.onReady
  return Layer.effectDiscard(
    Effect.gen(function* () {
      const server = yield* HttpServer.HttpServer
      const port = server.address._tag === "UnixPathAddress" ? config.port : server.address.port
      onReady?.(port)
    }),
  ).pipe(Layer.provideMerge(http))
}
