/**
 * Classifies what an AWS SDK call threw into a CollectionError kind. Emulators answer unimplemented operations
 * with an HTML page (HTTP 500/404), which the SDK surfaces as an XML/JSON parse error; that is "unsupported",
 * not a crash.
 */
import type { ErrorKind } from "../check.ts"

export interface ClassifiedError {
  readonly kind: ErrorKind
  readonly code: string
  readonly message: string
  readonly httpStatus?: number
}

const accessDeniedCodes = new Set([
  "AccessDenied",
  "AccessDeniedException",
  "UnauthorizedOperation",
  "UnauthorizedAccess",
  "AuthorizationError",
  "AuthorizationErrorException",
  "AuthFailure",
  "Forbidden",
  "UnrecognizedClientException",
  "InvalidClientTokenId",
  "SignatureDoesNotMatch",
  "InvalidAccessKeyId",
  "ExpiredToken",
  "ExpiredTokenException",
])

const throttlingCodes = new Set([
  "Throttling",
  "ThrottlingException",
  "ThrottledException",
  "RequestThrottledException",
  "TooManyRequestsException",
  "RequestLimitExceeded",
  "SlowDown",
  "ProvisionedThroughputExceededException",
  "RequestThrottled",
  "BandwidthLimitExceeded",
  "LimitExceededException",
])

const regionDisabledCodes = new Set(["OptInRequired", "InvalidClientTokenId.Region", "UnrecognizedClientException.Region"])

interface SdkErrorLike {
  readonly name?: unknown
  readonly Code?: unknown
  readonly code?: unknown
  readonly message?: unknown
  readonly $metadata?: { readonly httpStatusCode?: unknown }
  readonly $response?: { readonly statusCode?: unknown }
}

export function errorCode(error: unknown): string | undefined {
  if (typeof error !== "object" || error === null) return undefined
  const e = error as SdkErrorLike
  for (const c of [e.Code, e.code, e.name]) if (typeof c === "string" && c.length > 0) return c
  return undefined
}

export function httpStatus(error: unknown): number | undefined {
  if (typeof error !== "object" || error === null) return undefined
  const e = error as SdkErrorLike
  const s = e.$metadata?.httpStatusCode ?? e.$response?.statusCode
  return typeof s === "number" ? s : undefined
}

const looksLikeNonAwsBody = (message: string) =>
  /XML parse error|Unexpected token '<'|<!doctype|<html|is not valid JSON|Deserialization error|char '<'/i.test(message)

export function classifyAwsError(error: unknown): ClassifiedError {
  const status = httpStatus(error)
  const rawMessage = error instanceof Error ? error.message : typeof error === "string" ? error : JSON.stringify(error)
  const message = rawMessage.length > 500 ? `${rawMessage.slice(0, 497)}...` : rawMessage
  const code = errorCode(error) ?? "UnknownError"
  const withStatus = (c: ClassifiedError): ClassifiedError => (status === undefined ? c : { ...c, httpStatus: status })

  if (code === "SyntaxError" || looksLikeNonAwsBody(rawMessage) || code === "UnknownOperationException" || code === "NotImplemented") {
    return withStatus({
      kind: "unsupported",
      code: "NotImplemented",
      message: `The endpoint does not implement this operation${status === undefined ? "" : ` (HTTP ${status})`}`,
    })
  }
  if (regionDisabledCodes.has(code)) return withStatus({ kind: "region_disabled", code, message })
  if (accessDeniedCodes.has(code) || status === 403) return withStatus({ kind: "access_denied", code, message })
  if (throttlingCodes.has(code) || status === 429) return withStatus({ kind: "throttled", code, message })
  return withStatus({ kind: "error", code, message })
}
