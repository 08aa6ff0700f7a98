/**
 * Reading an error body defensively (any JSON, or none): the server's message, `error_type`, `retry_after_seconds`.
 * No schema library here: the sign-in page reads `error_type` before the rest of the contracts have loaded.
 */

export const record = (u: unknown): Record<string, unknown> | undefined =>
  typeof u === "object" && u !== null && !Array.isArray(u) ? (u as Record<string, unknown>) : undefined

const nonEmpty = (u: unknown): string | undefined => (typeof u === "string" && u.trim() !== "" ? u : undefined)

/** The server's message, if the body carries one. */
export const serverMessage = (body: unknown): string | undefined => {
  const r = record(body)
  if (r === undefined) return undefined
  return nonEmpty(r["message"]) ?? nonEmpty(r["detail"]) ?? nonEmpty(r["error"])
}

/** `data.error_type` (or a top-level `error_type`). */
export const errorTypeField = (body: unknown): string | undefined => {
  const r = record(body)
  if (r === undefined) return undefined
  return nonEmpty(record(r["data"])?.["error_type"]) ?? nonEmpty(r["error_type"])
}

/** `retry_after_seconds` at the top level or under `data`. */
export const retryAfterSeconds = (body: unknown): number | undefined => {
  const r = record(body)
  const v = r?.["retry_after_seconds"] ?? record(r?.["data"])?.["retry_after_seconds"]
  return typeof v === "number" && Number.isFinite(v) ? v : undefined
}
