/**
 * Structured logs: one JSON object per line on stdout, for Effect logs (`Effect.log*` + `annotateLogs`)
 * and for code outside Effect (`logLine`). Fields: `time`, `level`, `msg`, then the annotations flattened.
 *
 * Invariant: secrets never reach the output. Any field whose name looks like a credential
 * (password, secret, token, authorization, cookie, key, ...) is replaced with "[redacted]", `Redacted`
 * values print as "<redacted>" (effect's own rendering), and URLs with credentials lose their password.
 */
import { Cause, Effect, Layer, Logger, References } from "effect"
import type { LogLevel } from "effect/LogLevel"
import type { LogLevelName } from "./config.ts"

const SECRET_FIELD = /pass(word)?|secret|token|authori[sz]ation|cookie|api[-_]?key|private[-_]?key|^key$|credential|session/i

const levelRank: Record<LogLevelName, number> = { debug: 10, info: 20, warn: 30, error: 40 }

const toEffectLevel: Record<LogLevelName, LogLevel> = { debug: "Debug", info: "Info", warn: "Warn", error: "Error" }

const fromEffectLevel = (level: LogLevel): LogLevelName => {
  switch (level) {
    case "Trace":
    case "Debug":
      return "debug"
    case "Info":
      return "info"
    case "Warn":
      return "warn"
    default:
      return "error"
  }
}

/** Removes the password of URLs such as postgres://user:pw@host/db inside free text. */
const scrubText = (text: string): string => text.replace(/(\b[a-z][a-z0-9+.-]*:\/\/[^:/?#\s@]+:)[^@\s/]+@/gi, "$1***@")

/** Deep copy with secret-looking fields redacted. */
export const redact = (value: unknown, depth = 0): unknown => {
  if (typeof value === "string") return scrubText(value)
  if (value === null || typeof value !== "object" || depth > 6) return value
  if (value instanceof Date) return value.toISOString()
  if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1))
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(value)) {
    out[k] = SECRET_FIELD.test(k) && v !== null && v !== undefined && v !== false ? "[redacted]" : redact(v, depth + 1)
  }
  return out
}

let minimumLevel: LogLevelName = "info"
let sink: (line: string) => void = (line) => {
  process.stdout.write(line + "\n")
}

/** Sets the level below which `logLine` drops messages (the Effect logger uses `References.MinimumLogLevel`). */
export const setLogLevel = (level: LogLevelName): void => {
  minimumLevel = level
}

/** Redirects log output (tests capture lines with this); returns a function restoring the previous sink. */
export const setLogSink = (next: (line: string) => void): (() => void) => {
  const previous = sink
  sink = next
  return () => {
    sink = previous
  }
}

const format = (level: LogLevelName, msg: string, fields: Record<string, unknown> | undefined, time: Date = new Date()): string => {
  const record: Record<string, unknown> = { time: time.toISOString(), level, msg: scrubText(msg) }
  if (fields !== undefined) {
    const clean = redact(fields) as Record<string, unknown>
    for (const [k, v] of Object.entries(clean)) {
      if (v !== undefined && !(k in record)) record[k] = v
    }
  }
  try {
    return JSON.stringify(record)
  } catch {
    return JSON.stringify({ time: record["time"], level, msg: record["msg"], note: "fields were not serialisable" })
  }
}

/** Writes one JSON log line immediately (for code outside Effect: start-up, shutdown, library callbacks). */
export const logLine = (level: LogLevelName, msg: string, fields?: Record<string, unknown>): void => {
  if (levelRank[level] < levelRank[minimumLevel]) return
  sink(format(level, msg, fields))
}

const messageText = (message: unknown): string => {
  const parts = Array.isArray(message) ? message : [message]
  return parts
    .map((p) => (typeof p === "string" ? p : p instanceof Error ? p.message : JSON.stringify(redact(p)) ?? String(p)))
    .join(" ")
}

/** The Effect logger: same JSON shape as `logLine`; log annotations become fields, a cause becomes `cause`. */
export const jsonLogger = Logger.make(({ cause, date, fiber, logLevel, message }) => {
  const fields: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(fiber.getRef(References.CurrentLogAnnotations))) fields[k] = v
  if (cause.reasons.length > 0) fields["cause"] = scrubText(Cause.pretty(cause))
  // One serialisation per line (the access log writes one per request).
  sink(format(fromEffectLevel(logLevel), messageText(message), fields, date))
})

/** Replaces Effect's default logger with `jsonLogger` and applies the minimum level. */
export const loggerLayer = (level: LogLevelName): Layer.Layer<never> =>
  Layer.mergeAll(
    Logger.layer([jsonLogger]),
    Layer.succeed(References.MinimumLogLevel, toEffectLevel[level]),
    Layer.effectDiscard(Effect.sync(() => setLogLevel(level))),
  )
