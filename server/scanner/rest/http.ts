/**
 * A small JSON-over-HTTPS client for the GCP and Azure REST APIs (no cloud SDKs): bearer tokens per audience,
 * retries with backoff (429 and 5xx honour `Retry-After`), one token refresh on 401, a per-call timeout, abort
 * support, a call counter, and an origin allow-list so a token is never sent to a host the scan was not configured
 * for (an Azure `nextLink` or a GCP operation `selfLink` pointing elsewhere is refused, not followed). With a `gate`
 * (./principal-gate.ts), every attempt also waits for a slot of its API shared by every client of the same principal
 * in this process, and a 429 pauses that API for all of them until its Retry-After has passed.
 *
 * Errors are `RestError`s carrying the HTTP status, the provider's error code and reason and a classified `kind`
 * (the scanner's ErrorKind). Response bodies are decoded with an effect/Schema of the documented wire format; a body
 * that does not match is a `RestError` with code "InvalidResponse".
 */
import { Result, Schema } from "effect"
import type { ErrorKind } from "../check.ts"
import type { ApiGate } from "./principal-gate.ts"
import { abortReason, sleep } from "../pool.ts"

export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE"

export interface RestRequest {
  readonly method?: HttpMethod
  readonly url: string
  /** Token audience (GCP: the scope; Azure: the resource, e.g. https://management.azure.com). */
  readonly audience: string
  /** JSON body (objects are serialised). */
  readonly body?: unknown
  /** Operation name for statistics and errors, e.g. "storage.buckets.list". */
  readonly op: string
}

export interface RestResponse {
  readonly status: number
  readonly headers: Headers
  readonly body: unknown
}

export interface ProviderError {
  readonly code: string
  readonly message: string
  /** Machine-readable reason (GCP ErrorInfo.reason such as SERVICE_DISABLED, or the legacy errors[].reason). */
  readonly reason?: string
}

export class RestError extends Error {
  readonly status: number | undefined
  readonly code: string
  readonly reason: string | undefined
  readonly kind: ErrorKind
  readonly op: string
  constructor(input: { readonly status?: number; readonly code: string; readonly message: string; readonly reason?: string; readonly kind: ErrorKind; readonly op: string }) {
    super(input.message)
    this.name = "RestError"
    this.status = input.status
    this.code = input.code
    this.reason = input.reason
    this.kind = input.kind
    this.op = input.op
  }
}

/** Supplies bearer tokens; `invalidate` drops a cached token after the API answered 401. */
export interface TokenSource {
  token(audience: string, signal?: AbortSignal): Promise<string>
  invalidate(audience: string): void
}

export interface RestClientOptions {
  readonly tokens: TokenSource
  /** Origins (scheme://host[:port][/path-prefix]) the client may send tokens to. */
  readonly allowedBases: ReadonlyArray<string>
  /** Reads the provider's error body into code/message/reason. */
  readonly parseError: (status: number, body: unknown) => ProviderError
  /** Maps a failed response to a kind (default: 401/403 access_denied, 429 throttled, else error). */
  readonly classify?: (status: number, error: ProviderError) => ErrorKind
  /** Attempts per request (default 4). */
  readonly maxAttempts?: number
  /** Per-attempt timeout (default 30 s). */
  readonly timeoutMs?: number
  /** Longest wait between attempts, whatever Retry-After says (default 30 s). */
  readonly maxRetryDelayMs?: number
  /** First backoff delay without Retry-After (default 250 ms, doubled per attempt, with jitter). */
  readonly baseDelayMs?: number
  readonly signal?: AbortSignal
  readonly fetch?: typeof fetch
  readonly userAgent?: string
  /** The principal's gate: attempts in flight per API (the allowed base a URL is under) and throttling pauses. */
  readonly gate?: ApiGate
}

export interface RestStats {
  readonly total: number
  readonly byOperation: Readonly<Record<string, number>>
  readonly retries: number
}

export interface RestClient {
  send(request: RestRequest): Promise<RestResponse>
  /** Sends and decodes the body; a body that does not match the schema is a RestError "InvalidResponse". */
  json<S extends Schema.ConstraintDecoder<unknown>>(request: RestRequest, schema: S): Promise<S["Type"]>
  /** Whether a URL is under one of the configured bases (used before following links from responses). */
  isAllowed(url: string): boolean
  stats(): RestStats
}

const retryableStatus = (status: number) => status === 429 || status === 500 || status === 502 || status === 503 || status === 504

/** Retry-After in seconds or as an HTTP date; undefined when absent or unreadable. */
export function retryAfterMs(headers: Headers, now: number = Date.now()): number | undefined {
  const raw = headers.get("retry-after") ?? headers.get("x-ms-retry-after-ms")
  if (raw === null) return undefined
  if (headers.get("retry-after") === null) {
    const ms = Number(raw)
    return Number.isFinite(ms) && ms >= 0 ? ms : undefined
  }
  const seconds = Number(raw)
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000
  const date = Date.parse(raw)
  return Number.isNaN(date) ? undefined : Math.max(0, date - now)
}

const isAborted = (signal: AbortSignal | undefined): boolean => signal?.aborted === true

const defaultClassify = (status: number): ErrorKind =>
  status === 401 || status === 403 ? "access_denied" : status === 429 ? "throttled" : "error"

/** Normalises a base URL (no trailing slash) for prefix comparison. */
const normaliseBase = (base: string) => base.replace(/\/+$/, "")

export function isUnder(url: string, base: string): boolean {
  const b = normaliseBase(base)
  return url === b || url.startsWith(`${b}/`) || url.startsWith(`${b}?`)
}

async function readBody(response: Response): Promise<unknown> {
  const text = await response.text()
  if (text === "") return undefined
  try {
    return JSON.parse(text) as unknown
  } catch {
    return text
  }
}

export function makeRestClient(options: RestClientOptions): RestClient {
  const maxAttempts = Math.max(1, options.maxAttempts ?? 4)
  const timeoutMs = options.timeoutMs ?? 30_000
  const maxDelay = options.maxRetryDelayMs ?? 30_000
  const baseDelay = options.baseDelayMs ?? 250
  const doFetch = options.fetch ?? fetch
  const classify = options.classify ?? defaultClassify
  const bases = options.allowedBases.map(normaliseBase)
  const byOperation: Record<string, number> = {}
  let total = 0
  let retries = 0

  const isAllowed = (url: string) => bases.some((b) => isUnder(url, b))
  /** The API a URL belongs to: the longest configured base it is under. */
  const apiOf = (url: string) => bases.filter((b) => isUnder(url, b)).reduce((a, b) => (b.length > a.length ? b : a), "")
  const gate = options.gate

  const send = async (request: RestRequest): Promise<RestResponse> => {
    const op = request.op
    if (!isAllowed(request.url)) {
      throw new RestError({ code: "UntrustedUrl", message: `Refusing to send credentials to ${new URL(request.url).origin}, which is not a configured endpoint`, kind: "error", op })
    }
    let refreshed = false
    for (let attempt = 1; ; attempt++) {
      if (isAborted(options.signal)) throw abortReason(options.signal)
      const token = await options.tokens.token(request.audience, options.signal)
      total++
      byOperation[op] = (byOperation[op] ?? 0) + 1
      let response: Response
      let body: unknown
      // The attempt's timeout starts when it is sent, not while it waits for the gate.
      let timeout: AbortSignal | undefined
      try {
        const attemptOnce = async () => {
          timeout = AbortSignal.timeout(timeoutMs)
          const signal = options.signal === undefined ? timeout : AbortSignal.any([options.signal, timeout])
          const r = await doFetch(request.url, {
            method: request.method ?? "GET",
            headers: {
              authorization: `Bearer ${token}`,
              accept: "application/json",
              ...(request.body === undefined ? {} : { "content-type": "application/json" }),
              ...(options.userAgent === undefined ? {} : { "user-agent": options.userAgent }),
            },
            ...(request.body === undefined ? {} : { body: JSON.stringify(request.body) }),
            signal,
          })
          return { r, b: await readBody(r) }
        }
        const answered = gate === undefined ? await attemptOnce() : await gate.run(apiOf(request.url), attemptOnce, options.signal)
        response = answered.r
        body = answered.b
      } catch (error) {
        if (isAborted(options.signal)) throw abortReason(options.signal)
        const timedOut = timeout?.aborted === true
        if (attempt < maxAttempts) {
          retries++
          await sleep(backoff(attempt), options.signal)
          continue
        }
        throw new RestError({
          code: timedOut ? "Timeout" : "NetworkError",
          message: timedOut ? `No answer within ${timeoutMs} ms` : error instanceof Error ? (error.cause instanceof Error ? `${error.message}: ${error.cause.message}` : error.message) : String(error),
          kind: "error",
          op,
        })
      }
      if (response.ok) return { status: response.status, headers: response.headers, body }
      if (response.status === 401 && !refreshed) {
        // An expired or revoked token: fetch a new one once, then give up.
        refreshed = true
        options.tokens.invalidate(request.audience)
        continue
      }
      if (retryableStatus(response.status) && attempt < maxAttempts) {
        retries++
        const wait = Math.min(maxDelay, retryAfterMs(response.headers) ?? backoff(attempt))
        // Throttled: the quota is the principal's, so its other calls to this API wait too.
        if (response.status === 429) gate?.pause(apiOf(request.url), wait)
        await sleep(wait, options.signal)
        continue
      }
      const parsed = options.parseError(response.status, body)
      throw new RestError({
        status: response.status,
        code: parsed.code,
        message: parsed.message.length > 500 ? `${parsed.message.slice(0, 497)}...` : parsed.message,
        ...(parsed.reason === undefined ? {} : { reason: parsed.reason }),
        kind: classify(response.status, parsed),
        op,
      })
    }
  }

  const backoff = (attempt: number) => Math.min(maxDelay, baseDelay * 2 ** (attempt - 1) * (0.5 + Math.random() / 2))

  return {
    send,
    isAllowed,
    async json(request, schema) {
      const response = await send(request)
      const decoded = Schema.decodeUnknownResult(schema)(response.body ?? {})
      if (Result.isFailure(decoded)) {
        throw new RestError({ status: response.status, code: "InvalidResponse", message: `Unexpected response shape: ${decoded.failure.message}`, kind: "error", op: request.op })
      }
      return decoded.success
    },
    stats: () => ({ total, byOperation: { ...byOperation }, retries }),
  }
}

/** Posts an OAuth 2.0 form to a token endpoint (no bearer token) and returns status and body. */
export async function postForm(
  url: string,
  form: Readonly<Record<string, string>>,
  options: { readonly fetch?: typeof fetch; readonly signal?: AbortSignal; readonly timeoutMs?: number; readonly maxAttempts?: number },
): Promise<{ readonly status: number; readonly body: unknown; readonly headers: Headers }> {
  const doFetch = options.fetch ?? fetch
  const maxAttempts = Math.max(1, options.maxAttempts ?? 3)
  for (let attempt = 1; ; attempt++) {
    const timeout = AbortSignal.timeout(options.timeoutMs ?? 15_000)
    const signal = options.signal === undefined ? timeout : AbortSignal.any([options.signal, timeout])
    let response: Response
    try {
      response = await doFetch(url, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
        body: new URLSearchParams(form).toString(),
        signal,
      })
    } catch (error) {
      if (isAborted(options.signal)) throw abortReason(options.signal)
      if (attempt < maxAttempts) {
        await sleep(200 * attempt, options.signal)
        continue
      }
      throw new RestError({
        code: timeout.aborted ? "Timeout" : "NetworkError",
        message: `Token endpoint ${new URL(url).origin} did not answer: ${error instanceof Error ? error.message : String(error)}`,
        kind: "error",
        op: "oauth2.token",
      })
    }
    const body = await readBody(response)
    if (retryableStatus(response.status) && attempt < maxAttempts) {
      await sleep(Math.min(10_000, retryAfterMs(response.headers) ?? 200 * attempt), options.signal)
      continue
    }
    return { status: response.status, body, headers: response.headers }
  }
}
