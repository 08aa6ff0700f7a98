/**
 * Server configuration: read once at start-up from the environment (through effect `Config`, so tests can
 * swap the `ConfigProvider`), validated, and exposed as the `AppConfig` service.
 *
 * A missing or malformed variable fails with `ConfigInvalid`, whose message is ONE line naming the variable
 * (`PORT must be an integer 1-65535 (got "abc")`); `server/main.ts` prints it as `config error: <message>`
 * and exits 1. Values that may hold credentials (DATABASE_URL, APP_SECRET_KEY, SMTP_URL) are kept
 * `Redacted` and never echoed in error messages.
 *
 * HOST defaults to loopback (127.0.0.1): a fresh `npm start` is reachable from this machine only. The development
 * outbox (GET /api/dev/outbox, every mail with its links) is a sign-in bypass for whoever can read it, so it is on
 * only when NODE_ENV is not production and either the server listens on loopback (the default) or DEV_OUTBOX=1 says
 * so explicitly (loud warning at start-up); DEV_OUTBOX=0 turns it off everywhere.
 *
 * NODE_ENV=production requires SMTP_URL: without it every one-time link (verification, reset, invitation) would only be
 * written to the log, which is no place for sign-in secrets; in production no link is ever logged.
 *
 * HTTP_HEADERS_TIMEOUT_SECONDS (default 10) and HTTP_REQUEST_TIMEOUT_SECONDS (default 30) bound how long a client may
 * take to send its headers and its whole request, body included; a slower one is answered 408 and disconnected
 * (server/http/server.ts).
 *
 * APP_SECRET_KEY: optional in embedded mode (no DATABASE_URL), where a random key is generated once into
 * DATA_DIR/secret.key (mode 0600) and reused on every start; required when DATABASE_URL is set, because
 * several machines must share it.
 */
import { randomBytes } from "node:crypto"
import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs"
import { join, resolve } from "node:path"
import { Config, Context, Data, Effect, Layer, Option, Redacted } from "effect"

export type NodeEnv = "development" | "production" | "test"
export type LogLevelName = "debug" | "info" | "warn" | "error"

export interface AppConfigShape {
  readonly port: number
  readonly host: string
  /** Absolute path of DATA_DIR (embedded database, generated secret key, dev outbox). */
  readonly dataDir: string
  /** Unset: the embedded PGlite database under DATA_DIR/pgdata is used. */
  readonly databaseUrl: Redacted.Redacted<string> | undefined
  /** Origin used to build links in emails, without a trailing slash (e.g. `http://localhost:8080`). */
  readonly appOrigin: string
  readonly appSecretKey: Redacted.Redacted<string>
  readonly appSecretKeySource: "env" | "file" | "generated"
  readonly smtpUrl: Redacted.Redacted<string> | undefined
  readonly smtpFrom: string
  /** AWS_ENDPOINT_URL (standard variable, also honoured by the AWS SDK itself), e.g. a moto_server. */
  readonly awsEndpointUrl: string | undefined
  readonly nodeEnv: NodeEnv
  readonly logLevel: LogLevelName
  /** Whether GET /api/dev/outbox answers (see the module header); never in production. */
  readonly devOutbox: boolean
  /** DEV_OUTBOX=1 on a non-loopback HOST: start-up warns that anyone reaching the port can read every mail. */
  readonly devOutboxExposed: boolean
  /**
   * TRUST_PROXY: the number of reverse proxies in front of the API whose X-Forwarded-For entries are believed when
   * deriving the client address for rate limits (0, the default: the socket's peer address only).
   */
  readonly trustProxy: number
  /**
   * READ_CACHE: the validated read cache of workspace reads (server/api/middleware/read-cache.ts); on unless
   * READ_CACHE=0. Off, every read is a full read.
   */
  readonly readCache?: boolean
  /**
   * HTTP_HEADERS_TIMEOUT_SECONDS / HTTP_REQUEST_TIMEOUT_SECONDS: the longest a client may take to send its headers /
   * its whole request (body included) before the server answers 408 and closes the connection (defaults 10 and 30).
   */
  readonly httpTimeouts?: HttpTimeouts
  /**
   * DB_MAINTENANCE (`auto`, the default, or `off`) and DB_MAINTENANCE_SECONDS (default 60, autovacuum_naptime's default): whether worker processes
   * vacuum and analyze a database no autovacuum looks after (the embedded one, or a server with autovacuum off), and
   * how often (server/db/maintenance.ts).
   */
  readonly dbMaintenance?: DbMaintenanceConfig
}

export interface DbMaintenanceConfig {
  readonly setting: "auto" | "off"
  readonly intervalSeconds: number
}

export const DEFAULT_DB_MAINTENANCE_SECONDS = 60

export interface HttpTimeouts {
  readonly headersSeconds: number
  readonly requestSeconds: number
}

export const DEFAULT_HTTP_TIMEOUTS: HttpTimeouts = { headersSeconds: 10, requestSeconds: 30 }

export class AppConfig extends Context.Service<AppConfig, AppConfigShape>()("app/server/AppConfig") {
  /** Reads and validates the configuration from the current `ConfigProvider` (the environment by default). */
  static readonly layer: Layer.Layer<AppConfig, ConfigInvalid> = Layer.effect(AppConfig, Effect.suspend(() => loadAppConfig))
  /** A fixed configuration (tests, or a caller that already loaded it). */
  static readonly layerFrom = (config: AppConfigShape): Layer.Layer<AppConfig> => Layer.succeed(AppConfig, config)
}

/** One clear line naming the offending variable. */
export class ConfigInvalid extends Data.TaggedError("ConfigInvalid")<{
  readonly variable: string
  readonly message: string
}> {}

export const formatConfigError = (error: ConfigInvalid): string => `config error: ${error.message}`

export const DEFAULT_PORT = 8080
export const DEFAULT_HOST = "127.0.0.1"
export const DEFAULT_DATA_DIR = ".data"
export const DEFAULT_SMTP_FROM = "Cloud Audit <no-reply@localhost>"
export const SECRET_KEY_FILE = "secret.key"
/** Minimum length of APP_SECRET_KEY; the generated key is 32 random bytes, base64url (43 characters). */
export const MIN_SECRET_KEY_LENGTH = 32

const invalid = (variable: string, message: string) => new ConfigInvalid({ variable, message })

/** Reads a variable as a string; unset or blank counts as absent. Read errors become `ConfigInvalid`. */
const raw = (name: string): Effect.Effect<string | undefined, ConfigInvalid> =>
  Config.option(Config.String(name)).pipe(
    Effect.map((value) => Option.getOrUndefined(Option.filter(value, (v) => v.trim() !== ""))),
    Effect.mapError(() => invalid(name, `${name} could not be read`)),
  )

const quote = (value: string) => JSON.stringify(value.length > 80 ? `${value.slice(0, 77)}...` : value)

const parsePort = (value: string | undefined): Effect.Effect<number, ConfigInvalid> => {
  if (value === undefined) return Effect.succeed(DEFAULT_PORT)
  const n = Number(value.trim())
  // PORT=0 is accepted: it asks the OS for a free port (used by tests).
  return /^\d+$/.test(value.trim()) && Number.isInteger(n) && n >= 0 && n <= 65535
    ? Effect.succeed(n)
    : Effect.fail(invalid("PORT", `PORT must be an integer 1-65535 (got ${quote(value)})`))
}

const parseHost = (value: string | undefined): Effect.Effect<string, ConfigInvalid> => {
  if (value === undefined) return Effect.succeed(DEFAULT_HOST)
  const host = value.trim()
  return /^[A-Za-z0-9.:\-[\]%]+$/.test(host)
    ? Effect.succeed(host)
    : Effect.fail(invalid("HOST", `HOST must be a host name or IP address such as 0.0.0.0 (got ${quote(value)})`))
}

/** Whether `host` only accepts connections from this machine. */
export const isLoopbackHost = (host: string): boolean => {
  const h = host.toLowerCase().replace(/^\[|\]$/g, "")
  return h === "localhost" || h === "::1" || /^127(?:\.\d{1,3}){3}$/.test(h)
}

const parseDevOutbox = (value: string | undefined): Effect.Effect<"auto" | "on" | "off", ConfigInvalid> => {
  if (value === undefined) return Effect.succeed("auto")
  const v = value.trim().toLowerCase()
  if (v === "1" || v === "true") return Effect.succeed("on")
  if (v === "0" || v === "false") return Effect.succeed("off")
  return Effect.fail(invalid("DEV_OUTBOX", `DEV_OUTBOX must be 1 or 0 (got ${quote(value)})`))
}

const parseOnOff = (name: string, value: string | undefined, fallback: boolean): Effect.Effect<boolean, ConfigInvalid> => {
  if (value === undefined || value.trim() === "") return Effect.succeed(fallback)
  const v = value.trim().toLowerCase()
  if (v === "1" || v === "true" || v === "on") return Effect.succeed(true)
  if (v === "0" || v === "false" || v === "off") return Effect.succeed(false)
  return Effect.fail(invalid(name, `${name} must be 1 or 0 (got ${quote(value)})`))
}

const parseTrustProxy = (value: string | undefined): Effect.Effect<number, ConfigInvalid> => {
  if (value === undefined) return Effect.succeed(0)
  const v = value.trim().toLowerCase()
  if (v === "false") return Effect.succeed(0)
  if (v === "true") return Effect.succeed(1)
  return /^\d{1,2}$/.test(v)
    ? Effect.succeed(Number(v))
    : Effect.fail(invalid("TRUST_PROXY", `TRUST_PROXY must be the number of trusted reverse proxies (0-99), true or false (got ${quote(value)})`))
}

const parseSeconds = (name: string, value: string | undefined, fallback: number, max: number): Effect.Effect<number, ConfigInvalid> => {
  if (value === undefined) return Effect.succeed(fallback)
  const v = value.trim()
  return /^\d{1,4}$/.test(v) && Number(v) >= 1 && Number(v) <= max
    ? Effect.succeed(Number(v))
    : Effect.fail(invalid(name, `${name} must be a number of seconds 1-${max} (got ${quote(value)})`))
}

const parseUrl = (value: string): URL | undefined => {
  try {
    return new URL(value)
  } catch {
    return undefined
  }
}

const parseDatabaseUrl = (value: string | undefined) => {
  if (value === undefined) return Effect.succeed(undefined)
  const url = parseUrl(value.trim())
  // The value is never echoed: it usually carries a password.
  return url !== undefined && (url.protocol === "postgres:" || url.protocol === "postgresql:") && url.hostname !== ""
    ? Effect.succeed(Redacted.make(value.trim()))
    : Effect.fail(invalid("DATABASE_URL", "DATABASE_URL must be a postgres:// or postgresql:// URL with a host (value not shown)"))
}

const parseOrigin = (value: string | undefined, port: number): Effect.Effect<string, ConfigInvalid> => {
  if (value === undefined) return Effect.succeed(`http://localhost:${port === 0 ? DEFAULT_PORT : port}`)
  const url = parseUrl(value.trim())
  if (url === undefined || (url.protocol !== "http:" && url.protocol !== "https:") || url.pathname.replace(/\/+$/, "") !== "" || url.search !== "" || url.hash !== "" || url.username !== "") {
    return Effect.fail(invalid("APP_ORIGIN", `APP_ORIGIN must be an http(s) origin such as https://audit.example.com (got ${quote(value)})`))
  }
  return Effect.succeed(url.origin)
}

const parseSmtpUrl = (value: string | undefined) => {
  if (value === undefined) return Effect.succeed(undefined)
  const url = parseUrl(value.trim())
  return url !== undefined && (url.protocol === "smtp:" || url.protocol === "smtps:") && url.hostname !== ""
    ? Effect.succeed(Redacted.make(value.trim()))
    : Effect.fail(invalid("SMTP_URL", "SMTP_URL must be an smtp:// or smtps:// URL with a host (value not shown)"))
}

const parseSmtpFrom = (value: string | undefined): Effect.Effect<string, ConfigInvalid> => {
  if (value === undefined) return Effect.succeed(DEFAULT_SMTP_FROM)
  const from = value.trim()
  // Either `name@host` or `Display Name <name@host>`.
  return /^(?:[^<>@\s]+@[^<>@\s]+|[^<>]*<[^<>@\s]+@[^<>@\s]+>)$/.test(from)
    ? Effect.succeed(from)
    : Effect.fail(invalid("SMTP_FROM", `SMTP_FROM must be an address such as "Cloud Audit <no-reply@example.com>" (got ${quote(value)})`))
}

const parseAwsEndpoint = (value: string | undefined) => {
  if (value === undefined) return Effect.succeed(undefined)
  const url = parseUrl(value.trim())
  return url !== undefined && (url.protocol === "http:" || url.protocol === "https:")
    ? Effect.succeed(value.trim().replace(/\/+$/, ""))
    : Effect.fail(invalid("AWS_ENDPOINT_URL", `AWS_ENDPOINT_URL must be an http(s) URL such as http://127.0.0.1:5000 (got ${quote(value)})`))
}

const parseOneOf = <const A extends string>(name: string, value: string | undefined, allowed: ReadonlyArray<A>, fallback: A): Effect.Effect<A, ConfigInvalid> => {
  if (value === undefined) return Effect.succeed(fallback)
  const normalized = value.trim().toLowerCase()
  const match = allowed.find((a) => a === normalized)
  return match !== undefined
    ? Effect.succeed(match)
    : Effect.fail(invalid(name, `${name} must be one of ${allowed.join(", ")} (got ${quote(value)})`))
}

const validSecret = (key: string) => key.length >= MIN_SECRET_KEY_LENGTH && !/\s/.test(key)

/**
 * The embedded-mode key: DATA_DIR/secret.key, created once with 0600 permissions. `wx` makes two
 * processes racing on the first start agree on one key (the loser reads the winner's file).
 */
const embeddedSecretKey = (dataDir: string): Effect.Effect<{ key: string; source: "file" | "generated" }, ConfigInvalid> =>
  Effect.try({
    try: () => {
      mkdirSync(dataDir, { recursive: true })
      const file = join(dataDir, SECRET_KEY_FILE)
      let source: "file" | "generated" = "file"
      try {
        writeFileSync(file, randomBytes(32).toString("base64url") + "\n", { mode: 0o600, flag: "wx" })
        source = "generated"
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error
      }
      if ((statSync(file).mode & 0o077) !== 0) chmodSync(file, 0o600)
      return { key: readFileSync(file, "utf8").trim(), source }
    },
    catch: (error) =>
      invalid("APP_SECRET_KEY", `APP_SECRET_KEY is unset and ${join(dataDir, SECRET_KEY_FILE)} could not be created or read (${(error as Error).message})`),
  }).pipe(
    Effect.filterOrFail(
      ({ key }) => validSecret(key),
      () => invalid("APP_SECRET_KEY", `${join(dataDir, SECRET_KEY_FILE)} is malformed: it must hold one key of at least ${MIN_SECRET_KEY_LENGTH} characters (delete it to generate a new one)`),
    ),
  )

/**
 * Loads and validates every setting. Creates DATA_DIR (and, in embedded mode without APP_SECRET_KEY,
 * DATA_DIR/secret.key) as a side effect.
 */
export const loadAppConfig: Effect.Effect<AppConfigShape, ConfigInvalid> = Effect.gen(function* () {
  const port = yield* parsePort(yield* raw("PORT"))
  const host = yield* parseHost(yield* raw("HOST"))
  const dataDir = resolve((yield* raw("DATA_DIR")) ?? DEFAULT_DATA_DIR)
  const databaseUrl = yield* parseDatabaseUrl(yield* raw("DATABASE_URL"))
  const appOrigin = yield* parseOrigin(yield* raw("APP_ORIGIN"), port)
  const secretFromEnv = yield* raw("APP_SECRET_KEY")
  const smtpUrl = yield* parseSmtpUrl(yield* raw("SMTP_URL"))
  const smtpFrom = yield* parseSmtpFrom(yield* raw("SMTP_FROM"))
  const awsEndpointUrl = yield* parseAwsEndpoint(yield* raw("AWS_ENDPOINT_URL"))
  const nodeEnv = yield* parseOneOf("NODE_ENV", yield* raw("NODE_ENV"), ["development", "production", "test"], "development")
  const logLevel = yield* parseOneOf("LOG_LEVEL", yield* raw("LOG_LEVEL"), ["debug", "info", "warn", "error"], "info")
  const outboxSetting = yield* parseDevOutbox(yield* raw("DEV_OUTBOX"))
  const trustProxy = yield* parseTrustProxy(yield* raw("TRUST_PROXY"))
  const readCache = yield* parseOnOff("READ_CACHE", yield* raw("READ_CACHE"), true)
  const requestSeconds = yield* parseSeconds("HTTP_REQUEST_TIMEOUT_SECONDS", yield* raw("HTTP_REQUEST_TIMEOUT_SECONDS"), DEFAULT_HTTP_TIMEOUTS.requestSeconds, 3600)
  const headersSeconds = yield* parseSeconds("HTTP_HEADERS_TIMEOUT_SECONDS", yield* raw("HTTP_HEADERS_TIMEOUT_SECONDS"), Math.min(DEFAULT_HTTP_TIMEOUTS.headersSeconds, requestSeconds), requestSeconds)
  const dbMaintenance: DbMaintenanceConfig = {
    setting: yield* parseOneOf("DB_MAINTENANCE", yield* raw("DB_MAINTENANCE"), ["auto", "off"], "auto"),
    intervalSeconds: yield* parseSeconds("DB_MAINTENANCE_SECONDS", yield* raw("DB_MAINTENANCE_SECONDS"), DEFAULT_DB_MAINTENANCE_SECONDS, 3600),
  }
  if (nodeEnv === "production" && smtpUrl === undefined) {
    return yield* invalid("SMTP_URL", "SMTP_URL is required when NODE_ENV=production (one-time links must be mailed, never only logged)")
  }
  const devOutbox = nodeEnv !== "production" && (outboxSetting === "on" || (outboxSetting === "auto" && isLoopbackHost(host)))
  const devOutboxExposed = devOutbox && !isLoopbackHost(host)

  let appSecretKey: Redacted.Redacted<string>
  let appSecretKeySource: AppConfigShape["appSecretKeySource"]
  if (secretFromEnv !== undefined) {
    if (!validSecret(secretFromEnv.trim())) {
      return yield* invalid("APP_SECRET_KEY", `APP_SECRET_KEY must be at least ${MIN_SECRET_KEY_LENGTH} characters without spaces (value not shown)`)
    }
    appSecretKey = Redacted.make(secretFromEnv.trim())
    appSecretKeySource = "env"
  } else if (databaseUrl !== undefined) {
    return yield* invalid("APP_SECRET_KEY", "APP_SECRET_KEY is required when DATABASE_URL is set (every API and worker process must share it)")
  } else {
    const { key, source } = yield* embeddedSecretKey(dataDir)
    appSecretKey = Redacted.make(key)
    appSecretKeySource = source
  }
  if (databaseUrl === undefined) {
    yield* Effect.try({
      try: () => mkdirSync(dataDir, { recursive: true }),
      catch: (error) => invalid("DATA_DIR", `DATA_DIR ${quote(dataDir)} could not be created (${(error as Error).message})`),
    })
  }

  return {
    port, host, dataDir, databaseUrl, appOrigin, appSecretKey, appSecretKeySource,
    smtpUrl, smtpFrom, awsEndpointUrl, nodeEnv, logLevel, devOutbox, devOutboxExposed, trustProxy, readCache,
    httpTimeouts: { headersSeconds, requestSeconds }, dbMaintenance,
  } satisfies AppConfigShape
})

/** A loggable view of the configuration: secrets are reduced to whether they are set. */
export const describeConfig = (config: AppConfigShape): Record<string, unknown> => ({
  port: config.port,
  host: config.host,
  data_dir: config.dataDir,
  database: config.databaseUrl === undefined ? "embedded" : "external",
  app_origin: config.appOrigin,
  encryption_key_from: config.appSecretKeySource,
  smtp: config.smtpUrl === undefined ? "log only" : "smtp",
  smtp_from: config.smtpFrom,
  aws_endpoint_url: config.awsEndpointUrl ?? null,
  node_env: config.nodeEnv,
  log_level: config.logLevel,
  dev_outbox: config.devOutbox,
  trust_proxy: config.trustProxy,
  read_cache: config.readCache !== false,
  http_timeouts: config.httpTimeouts ?? DEFAULT_HTTP_TIMEOUTS,
  db_maintenance: config.dbMaintenance ?? { setting: "auto", intervalSeconds: DEFAULT_DB_MAINTENANCE_SECONDS },
})
