/**
 * ARM and Graph error bodies → code/kind. Both use {"error":{"code":"AuthorizationFailed","message":"…"}}.
 * AuthorizationFailed / Authorization_RequestDenied / InvalidAuthenticationToken are access_denied, 429 and
 * TooManyRequests are throttled. An unregistered resource provider (MissingSubscriptionRegistration) is
 * "unsupported": the subscription cannot hold resources of that provider, which list collectors treat as empty.
 */
import { Result, Schema } from "effect"
import type { ErrorKind } from "../check.ts"
import type { ProviderError } from "../rest/http.ts"

const AzureErrorBody = Schema.Struct({
  error: Schema.Struct({ code: Schema.optionalKey(Schema.String), message: Schema.optionalKey(Schema.String) }),
})

export function parseAzureError(status: number, body: unknown): ProviderError {
  const r = Schema.decodeUnknownResult(AzureErrorBody)(body)
  if (Result.isFailure(r)) return { code: `HTTP${status}`, message: typeof body === "string" && body !== "" ? body.slice(0, 300) : `HTTP ${status}` }
  return { code: r.success.error.code ?? `HTTP${status}`, message: r.success.error.message ?? `HTTP ${status}` }
}

const denied = new Set(["AuthorizationFailed", "Authorization_RequestDenied", "InvalidAuthenticationToken", "AuthenticationFailed", "LinkedAuthorizationFailed", "Forbidden"])
const unregistered = new Set(["MissingSubscriptionRegistration", "SubscriptionNotRegistered", "NoRegisteredProviderFound"])

export function classifyAzureError(status: number, error: ProviderError): ErrorKind {
  if (unregistered.has(error.code)) return "unsupported"
  if (status === 429 || error.code === "TooManyRequests" || error.code === "ResourceCollectionRequestsThrottled") return "throttled"
  if (status === 401 || status === 403 || denied.has(error.code)) return "access_denied"
  return "error"
}

export const isUnregisteredProvider = (e: { readonly code: string }) => unregistered.has(e.code)
