/**
 * Shapes shared by every area: the spec's response wrappers (`ok`, `status_code`, `message`, `data`,
 * `pagination`), timestamps, and the scan/service run status with its "unknown → failed" rule
 * (scanning §4).
 */
import { Schema } from "effect"

/** ISO-8601 timestamp as sent on the wire (kept a string so responses round-trip byte for byte). */
export const Timestamp = Schema.String.annotate({ description: "ISO-8601 date-time", format: "date-time" })
export type Timestamp = typeof Timestamp.Type

export const NullableTimestamp = Schema.NullOr(Timestamp)

/**
 * A secret that arrives as a plain JSON string and is held as `Redacted<string>` on the server (logs and
 * inspection show `<redacted>`). Wire payloads stay plain strings — the SPA sends plain JSON — so the
 * contract's request schemas use `Schema.String`; server code decodes with these server-side schemas.
 * Encoding back to JSON is refused, so a secret cannot slip into a response.
 */
export const SecretString = Schema.RedactedFromValue(Schema.String, { disallowEncode: true })
export type SecretString = typeof SecretString.Type

/** Non-negative integer counter (findings counts, totals). */
export const Count = Schema.Int.check(Schema.isGreaterThanOrEqualTo(0))

/** Scanning §3 pagination: page, total_pages, total (+ page_size, which we also echo). */
export const Pagination = Schema.Struct({
  page: Schema.Int.check(Schema.isGreaterThanOrEqualTo(1)),
  total_pages: Count,
  total: Count,
  page_size: Schema.optionalKey(Schema.Int.check(Schema.isGreaterThanOrEqualTo(1))),
})
export type Pagination = typeof Pagination.Type

/** `{ ok, message }`: the answer of calls whose result the spec does not read beyond success. */
export const OkMessage = Schema.Struct({
  ok: Schema.Boolean,
  message: Schema.String,
})
export type OkMessage = typeof OkMessage.Type

/** `{ ok?, status_code?, message?, data }` wrapper. */
export const withData = <S extends Schema.Top>(data: S) =>
  Schema.Struct({
    ok: Schema.optionalKey(Schema.Boolean),
    status_code: Schema.optionalKey(Schema.Int),
    message: Schema.optionalKey(Schema.String),
    data,
  })

/** `{ data: [...], pagination }` wrapper of the paginated lists (scans, findings). */
export const paginated = <S extends Schema.Top>(item: S) =>
  Schema.Struct({
    ok: Schema.optionalKey(Schema.Boolean),
    data: Schema.Array(item),
    pagination: Pagination,
  })

// ---------------------------------------------------------------------------------------------------
// Run status (scans and per-service rows), scanning §4.

export const RUN_STATUSES = ["pending", "running", "completed", "failed"] as const
export const RunStatus = Schema.Literals(RUN_STATUSES)
export type RunStatus = typeof RunStatus.Type

/** Scanning §4: an unknown status value is treated as failed. */
export const toRunStatus = (value: unknown): RunStatus =>
  typeof value === "string" && (RUN_STATUSES as ReadonlyArray<string>).includes(value) ? (value as RunStatus) : "failed"

/** On the account page, anything other than completed or failed shows as in progress. */
export const isInProgress = (status: unknown): boolean => {
  const s = toRunStatus(status)
  return s === "pending" || s === "running"
}

/** Findings can be viewed or exported only when the scan/service is completed. */
export const canViewFindings = (status: unknown): boolean => status === "completed"
