/**
 * Google API error bodies → code/reason/kind. The JSON error format is
 *   {"error":{"code":403,"message":"…","status":"PERMISSION_DENIED",
 *             "errors":[{"reason":"accessNotConfigured","domain":"usageLimits"}],
 *             "details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"SERVICE_DISABLED","metadata":{…}}]}}
 * A disabled API (ErrorInfo SERVICE_DISABLED or legacy accessNotConfigured) is kind "unsupported" with code
 * SERVICE_DISABLED; a missing permission is "access_denied"; quota and rate limits are "throttled".
 */
import { Result, Schema } from "effect"
import type { ErrorKind } from "../check.ts"
import type { ProviderError } from "../rest/http.ts"

const GoogleErrorBody = Schema.Struct({
  error: Schema.Struct({
    code: Schema.optionalKey(Schema.Number),
    message: Schema.optionalKey(Schema.String),
    status: Schema.optionalKey(Schema.String),
    errors: Schema.optionalKey(Schema.Array(Schema.Struct({ reason: Schema.optionalKey(Schema.String), message: Schema.optionalKey(Schema.String), domain: Schema.optionalKey(Schema.String) }))),
    details: Schema.optionalKey(
      Schema.Array(
        Schema.Struct({
          "@type": Schema.optionalKey(Schema.String),
          reason: Schema.optionalKey(Schema.String),
          metadata: Schema.optionalKey(Schema.Record(Schema.String, Schema.String)),
        }),
      ),
    ),
  }),
})

const disabledReasons = new Set(["SERVICE_DISABLED", "accessNotConfigured", "API_DISABLED"])

export function parseGoogleError(status: number, body: unknown): ProviderError {
  const r = Schema.decodeUnknownResult(GoogleErrorBody)(body)
  if (Result.isFailure(r)) {
    return { code: `HTTP${status}`, message: typeof body === "string" && body !== "" ? body.slice(0, 300) : `HTTP ${status}` }
  }
  const e = r.success.error
  const info = (e.details ?? []).find((d) => d["@type"]?.endsWith("google.rpc.ErrorInfo") === true && d.reason !== undefined)
  const legacy = (e.errors ?? []).find((x) => x.reason !== undefined)?.reason
  const reason = info?.reason ?? legacy
  const disabled = reason !== undefined && disabledReasons.has(reason)
  const service = info?.metadata?.["service"]
  return {
    code: disabled ? "SERVICE_DISABLED" : (e.status ?? legacy ?? `HTTP${status}`),
    message: disabled && service !== undefined ? `The ${service} API is disabled for this project: ${e.message ?? ""}`.trim() : (e.message ?? `HTTP ${status}`),
    ...(reason === undefined ? {} : { reason }),
  }
}

export function classifyGoogleError(status: number, error: ProviderError): ErrorKind {
  if (error.code === "SERVICE_DISABLED") return "unsupported"
  if (status === 429 || error.code === "RESOURCE_EXHAUSTED" || error.reason === "rateLimitExceeded" || error.reason === "RATE_LIMIT_EXCEEDED") return "throttled"
  if (status === 401 || status === 403) return "access_denied"
  return "error"
}
