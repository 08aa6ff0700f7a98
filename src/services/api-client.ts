/**
 * The SPA's HTTP client (access spec §6, §7 "Behaviour of the shared client", §8 "Session refresh").
 *
 * - ofetch underneath; every call carries `Authorization: Bearer <access_token>` and `X-Workspace-ID` (the
 *   persisted selected workspace) when they exist, read from storage at call time so other tabs' changes apply.
 * - 30 s timeout per attempt; a timeout or a 5xx is retried after 1 s, 2 s, 4 s … up to the limit (3 in a
 *   production build, 2 otherwise). 501 Not Implemented is permanent and is not retried.
 * - a 401 outside login, sign-up and refresh-token triggers ONE refresh shared by every concurrent 401
 *   (single flight, serialised across tabs with a Web Lock when available), then the request is replayed
 *   once with the new token (a 401 whose body is `InvalidCredentials` / `EmailNotVerified` is an answer, not
 *   a stale token, and is not refreshed). The refresh itself is made without retry or refresh. It needs a stored refresh
 *   token ('No refresh token available') and an answer with both tokens ('Invalid token response from
 *   server'); a failed refresh clears the stored session and reports through `onRefreshFailed`.
 * - every success body is decoded with the endpoint's contract schema; every failure (no response,
 *   timeout, HTTP error, undecodable body) becomes an `ApiError` value `{ type, message, status?, data? }`
 *   with the catalogue's type and the spec's text for the endpoint's flow (`src/contracts/error-mapping.ts`).
 *
 * Everything the client touches — fetch, clock, storage, the build mode, the refresh trigger, the lock — is
 * injected through `createApiClient(deps)`; importing this module has no side effect.
 */
import { Schema } from "effect"
import { createFetch, type $Fetch } from "ofetch"
import { ApiClient as ApiClientConstants, retryDelayMs } from "../contracts/constants.ts"
import { isValidTokenResponse } from "../contracts/auth.ts"
import type { ErrorType } from "../contracts/errors.ts"
import { mapHttpError, noRefreshTokenError, type ErrorFlow, type ErrorHint, type HttpOutcome } from "../contracts/error-mapping.ts"
import { RefreshMessages, StatusMessages } from "../contracts/messages.ts"
import type { SessionStorage, TokenPair } from "./storage.ts"

// ---------------------------------------------------------------------------------------------------
// Clock

/** Time source and timers; xstate's `SimulatedClock` satisfies it, so tests share one simulated clock. */
export interface Clock {
  now(): number
  setTimeout(fn: () => void, ms: number): unknown
  clearTimeout(handle: unknown): void
}

export const systemClock = (): Clock => ({
  now: () => Date.now(),
  setTimeout: (fn, ms) => globalThis.setTimeout(fn, ms),
  clearTimeout: (handle) => globalThis.clearTimeout(handle as ReturnType<typeof globalThis.setTimeout>),
})

// ---------------------------------------------------------------------------------------------------
// Errors

/** A failed call, mapped to the catalogue: what machines keep in context and views show. */
export interface ApiError {
  readonly type: ErrorType
  readonly message: string
  /** The HTTP status, when the server answered. */
  readonly status?: number
  /** The decoded error body (e.g. `{ data: { error_type, email } }`, `retry_after_seconds`), when any. */
  readonly data?: unknown
  /** What the screen does next beyond the message (sign-up 409: resend hint or sign in). */
  readonly hint?: ErrorHint
}

export const isApiError = (u: unknown): u is ApiError =>
  typeof u === "object" &&
  u !== null &&
  typeof (u as { type?: unknown }).type === "string" &&
  typeof (u as { message?: unknown }).message === "string"

const apiError = (type: ErrorType, message: string, status?: number, data?: unknown, hint?: ErrorHint): ApiError => ({
  type,
  message,
  ...(status === undefined ? {} : { status }),
  ...(data === undefined || data === null ? {} : { data }),
  ...(hint === undefined ? {} : { hint }),
})

/** Maps any raw outcome of one endpoint call to the catalogue (the contract's pure mapping). */
export const toApiError = (outcome: HttpOutcome, flow: ErrorFlow): ApiError => {
  const mapped = mapHttpError(outcome, flow)
  return outcome.kind === "response"
    ? apiError(mapped.type, mapped.message, outcome.status, outcome.body, mapped.hint)
    : apiError(mapped.type, mapped.message, undefined, undefined, mapped.hint)
}

/** Why a call was abandoned by its caller (the state that asked for it was left). */
export class RequestAborted extends Error {
  override readonly name = "AbortError"
}

// ---------------------------------------------------------------------------------------------------
// Endpoints

export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE"

/** One call of the contract: method, path, response schema and the error flow of its screen. */
export interface Endpoint<A> {
  readonly method: HttpMethod
  readonly path: string
  /** Decodes the success body; anything else fails with the flow's mapping. */
  readonly response: Schema.Decoder<A>
  /** Which §8 text family applies (defaults to the generic status mapping). */
  readonly flow?: ErrorFlow
  /** False for login, sign-up and refresh-token: their 401 is an answer, not an expired session. */
  readonly refreshOn401?: boolean
  /** False for the refresh call (access §7: made without the automatic retry). */
  readonly retry?: boolean
}

export interface RequestOptions {
  readonly body?: unknown
  readonly query?: Readonly<Record<string, string | number | boolean | undefined>>
  /** Abort when the caller no longer needs the answer (pass the actor's signal). */
  readonly signal?: AbortSignal
}

export const endpoint = <A>(e: Endpoint<A>): Endpoint<A> => e

/** Fills `:name` segments of a path, URL-encoding the values. */
export const pathWith = (path: string, params: Readonly<Record<string, string | number>>): string =>
  path.replace(/:([A-Za-z_]+)/g, (_, name: string) => {
    const v = params[name]
    if (v === undefined) throw new Error(`Missing path parameter ${name} for ${path}`)
    return encodeURIComponent(String(v))
  })

// ---------------------------------------------------------------------------------------------------
// Client

export const REFRESH_PATH = "/api/refresh-token"

/** Serialises work across tabs (Web Locks); `undefined` runs `fn` directly. */
export type LockRunner = <T>(name: string, fn: () => Promise<T>) => Promise<T>

/** Refreshes a token pair; must reject with an `ApiError` (the catalogue's refresh texts). */
export type RefreshTrigger = (refreshToken: string, signal: AbortSignal) => Promise<TokenPair>

export interface ApiClientDeps {
  /** Origin of the API; "" (default) = same origin as the SPA. */
  readonly baseURL?: string
  readonly fetch: typeof globalThis.fetch
  readonly clock: Clock
  /** Where the session tokens live (localStorage in the browser). */
  readonly session: SessionStorage
  /** The persisted selected workspace, read at each call. */
  readonly selectedWorkspaceId: () => number | null
  /** `import.meta.env.PROD` in the browser: decides the retry limit (3 vs 2). */
  readonly isProduction: boolean
  readonly timeoutMs?: number
  /** Replaces the built-in `POST /api/refresh-token` call (tests, or routing the refresh elsewhere). */
  readonly refreshTrigger?: RefreshTrigger
  /** Cross-tab lock for the refresh; default: none. Use `webLockRunner(navigator.locks)` in the browser. */
  readonly withLock?: LockRunner
  readonly onTokensRefreshed?: (tokens: TokenPair) => void
  /** Called once per failed refresh, after the stored session was cleared. */
  readonly onRefreshFailed?: (error: ApiError) => void
}

export interface ApiClient {
  /** Performs one endpoint call; resolves with the decoded body, rejects with an `ApiError` (or `RequestAborted`). */
  request<A>(endpoint: Endpoint<A>, options?: RequestOptions): Promise<A>
  /** The single-flight refresh (also used by the session machine to refresh proactively). */
  refreshSession(): Promise<TokenPair>
  /** The retry limit in effect (3 production, 2 otherwise). */
  readonly maxRetries: number
}

/** Retry limit of the shared client for a build (access §9). */
export const maxRetriesFor = (isProduction: boolean): number =>
  isProduction ? ApiClientConstants.maxRetriesProduction : ApiClientConstants.maxRetriesDefault

/** Timeout and 5xx answers are retried; 501 means "not there", retrying cannot help. */
export const isRetryable = (outcome: RawOutcome): boolean =>
  outcome.kind === "timeout" || (outcome.kind === "response" && outcome.status >= 500 && outcome.status !== 501)

/** What one attempt produced before mapping. */
export type RawOutcome =
  | { readonly kind: "success"; readonly status: number; readonly body: unknown }
  | { readonly kind: "response"; readonly status: number; readonly body: unknown }
  | { readonly kind: "timeout" }
  | { readonly kind: "network"; readonly cause: unknown }

const toHttpOutcome = (raw: Exclude<RawOutcome, { kind: "success" }>): HttpOutcome =>
  raw.kind === "response" ? { kind: "response", status: raw.status, body: raw.body } : { kind: "no-response" }

const TIMEOUT = Symbol("timeout")

/**
 * A 401 that answers the request itself (wrong current password, unverified email) rather than saying the
 * access token is stale: refreshing would rotate tokens for nothing, so it is reported as it is.
 */
const isCredentialAnswer = (body: unknown): boolean => {
  const tag = typeof body === "object" && body !== null ? (body as { readonly _tag?: unknown })._tag : undefined
  return tag === "InvalidCredentials" || tag === "EmailNotVerified"
}

/** The Web Locks adapter: one refresh at a time across every tab of this origin. */
export const webLockRunner =
  (locks: Pick<LockManager, "request">): LockRunner =>
  (name, fn) =>
    locks.request(name, { mode: "exclusive" }, fn) as Promise<Awaited<ReturnType<typeof fn>>>

const REFRESH_LOCK = "cloud-audit:token-refresh"

export const createApiClient = (deps: ApiClientDeps): ApiClient => {
  const { clock, session } = deps
  const timeoutMs = deps.timeoutMs ?? ApiClientConstants.timeoutMs
  const maxRetries = maxRetriesFor(deps.isProduction)
  const $fetch: $Fetch = createFetch({ fetch: deps.fetch })
  const withLock: LockRunner = deps.withLock ?? ((_name, fn) => fn())

  const headersFor = (accessToken: string | null): Record<string, string> => {
    const headers: Record<string, string> = { accept: "application/json" }
    if (accessToken !== null) headers["authorization"] = `Bearer ${accessToken}`
    const workspaceId = deps.selectedWorkspaceId()
    if (workspaceId !== null) headers["x-workspace-id"] = String(workspaceId)
    return headers
  }

  /** One HTTP attempt bounded by the timeout (on the injected clock). Caller aborts reject with RequestAborted. */
  const attemptOnce = async (
    method: HttpMethod,
    path: string,
    options: RequestOptions,
    accessToken: string | null,
  ): Promise<RawOutcome> => {
    const controller = new AbortController()
    const onCallerAbort = () => controller.abort(new RequestAborted("Request aborted"))
    if (options.signal?.aborted) throw new RequestAborted("Request aborted")
    options.signal?.addEventListener("abort", onCallerAbort, { once: true })
    const timer = clock.setTimeout(() => controller.abort(TIMEOUT), timeoutMs)
    try {
      const response = await $fetch.raw(path, {
        method,
        ...(deps.baseURL === undefined || deps.baseURL === "" ? {} : { baseURL: deps.baseURL }),
        headers: headersFor(accessToken),
        ...(options.body === undefined ? {} : { body: options.body as Record<string, unknown> }),
        ...(options.query === undefined ? {} : { query: options.query }),
        signal: controller.signal,
        retry: false,
        ignoreResponseError: true,
      })
      const body: unknown = response._data
      return response.status >= 200 && response.status < 300
        ? { kind: "success", status: response.status, body }
        : { kind: "response", status: response.status, body: body ?? null }
    } catch (cause) {
      if (controller.signal.aborted && controller.signal.reason === TIMEOUT) return { kind: "timeout" }
      if (options.signal?.aborted) throw new RequestAborted("Request aborted")
      return { kind: "network", cause }
    } finally {
      clock.clearTimeout(timer)
      options.signal?.removeEventListener("abort", onCallerAbort)
    }
  }

  const wait = (ms: number, signal: AbortSignal | undefined): Promise<void> =>
    new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(new RequestAborted("Request aborted"))
      const onAbort = () => {
        clock.clearTimeout(handle)
        reject(new RequestAborted("Request aborted"))
      }
      const handle = clock.setTimeout(() => {
        signal?.removeEventListener("abort", onAbort)
        resolve()
      }, ms)
      signal?.addEventListener("abort", onAbort, { once: true })
    })

  /** Attempts with the retry policy: 1 s, 2 s, 4 s … after a timeout or a 5xx, at most `maxRetries` times. */
  const attemptWithRetry = async (
    e: Endpoint<unknown>,
    path: string,
    options: RequestOptions,
    accessToken: string | null,
  ): Promise<RawOutcome> => {
    const limit = e.retry === false ? 0 : maxRetries
    for (let retry = 0; ; retry += 1) {
      const outcome = await attemptOnce(e.method, path, options, accessToken)
      if (retry >= limit || !isRetryable(outcome)) return outcome
      await wait(retryDelayMs(retry), options.signal)
    }
  }

  const decode = <A>(e: Endpoint<A>, status: number, body: unknown): A => {
    const result = Schema.decodeUnknownExit(e.response)(body)
    if (result._tag === "Success") return result.value
    // The server answered 2xx with a body the contract does not describe: never let it through.
    throw apiError("UNKNOWN_ERROR", StatusMessages.unexpected, status, body)
  }

  // ---- refresh (single flight) --------------------------------------------------------------------

  /** The built-in trigger: `POST /api/refresh-token` without retry or refresh; both tokens required. */
  const defaultRefreshTrigger: RefreshTrigger = async (refreshToken, signal) => {
    const outcome = await attemptOnce("POST", REFRESH_PATH, { body: { refresh_token: refreshToken }, signal }, null)
    if (outcome.kind !== "success") throw toApiError(toHttpOutcome(outcome), "refresh")
    if (!isValidTokenResponse(outcome.body)) {
      throw apiError("REFRESH_FAILED", RefreshMessages.invalidTokenResponse, outcome.status, outcome.body)
    }
    return { accessToken: outcome.body.access_token, refreshToken: outcome.body.refresh_token }
  }
  const refreshTrigger = deps.refreshTrigger ?? defaultRefreshTrigger

  let inFlight: Promise<TokenPair> | undefined

  /**
   * `failedToken` is the access token the 401 answered. If storage already holds a different one (another
   * request's refresh finished, or another tab refreshed), that pair is used without a new refresh: with
   * rotating refresh tokens a second refresh would present a used token and revoke the whole family.
   */
  const refreshOnce = (failedToken: string | null): Promise<TokenPair> => {
    inFlight ??= withLock(REFRESH_LOCK, async () => {
      const stored = session.read()
      if (stored.accessToken !== null && stored.refreshToken !== null && stored.accessToken !== failedToken) {
        return { accessToken: stored.accessToken, refreshToken: stored.refreshToken }
      }
      if (stored.refreshToken === null) throw apiError(noRefreshTokenError.type, noRefreshTokenError.message)
      const tokens = await refreshTrigger(stored.refreshToken, new AbortController().signal)
      if (!isValidTokenResponse({ access_token: tokens.accessToken, refresh_token: tokens.refreshToken })) {
        throw apiError("REFRESH_FAILED", RefreshMessages.invalidTokenResponse)
      }
      session.writeTokens(tokens)
      deps.onTokensRefreshed?.(tokens)
      return tokens
    })
      .catch((cause: unknown) => {
        const error = isApiError(cause) ? cause : apiError("REFRESH_FAILED", RefreshMessages.tokenRefreshFailed)
        session.clear()
        deps.onRefreshFailed?.(error)
        throw error
      })
      .finally(() => {
        inFlight = undefined
      })
    return inFlight
  }

  // ---- request ------------------------------------------------------------------------------------

  const request = async <A>(e: Endpoint<A>, options: RequestOptions = {}): Promise<A> => {
    const flow: ErrorFlow = e.flow ?? "generic"
    const send = async (replay: boolean): Promise<A> => {
      const accessToken = session.read().accessToken
      const outcome = await attemptWithRetry(e as Endpoint<unknown>, e.path, options, accessToken)
      if (outcome.kind === "success") return decode(e, outcome.status, outcome.body)
      if (outcome.kind === "response" && outcome.status === 401 && e.refreshOn401 !== false && !replay && !isCredentialAnswer(outcome.body)) {
        await refreshOnce(accessToken)
        if (options.signal?.aborted) throw new RequestAborted("Request aborted")
        return send(true)
      }
      throw toApiError(toHttpOutcome(outcome), flow)
    }
    return send(false)
  }

  return { request, refreshSession: () => refreshOnce(session.read().accessToken), maxRetries }
}
