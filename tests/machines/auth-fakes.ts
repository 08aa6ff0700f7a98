/**
 * Fakes for the access screens' machines: controllable effect actors that record their calls, catalogue failures
 * produced by the real §8 mapping (so a fake 429 carries exactly what the API client would report), and sample
 * answers shaped by the contract.
 */
import { fromPromise, type PromiseActorLogic } from "xstate"
import { toApiError, type ApiError } from "../../src/services/api-client.ts"
import type { ErrorFlow } from "../../src/contracts/error-mapping.ts"
import type { LoginResponse, ResendVerificationResponse } from "../../src/contracts/auth.ts"
import type { UserId } from "../../src/contracts/ids.ts"

/** Lets every pending promise continuation run (one macrotask turn). */
export const flush = (): Promise<void> => new Promise((resolve) => setImmediate(resolve))

export interface Deferred<T> {
  readonly promise: Promise<T>
  resolve(value: T): void
  reject(error: unknown): void
}

export const deferred = <T>(): Deferred<T> => {
  let resolve!: (value: T) => void
  let reject!: (error: unknown) => void
  const promise = new Promise<T>((res, rej) => {
    resolve = res
    reject = rej
  })
  return { promise, resolve, reject }
}

/** An effect actor whose every call waits until the test settles it. */
export interface ControlledEffect<I, O> {
  readonly logic: PromiseActorLogic<O, I>
  /** Inputs of every call, in order. */
  readonly calls: I[]
  /** How many calls were aborted because their state was left. */
  readonly aborted: () => number
  resolve(value: O): Promise<void>
  reject(error: unknown): Promise<void>
}

export const controlled = <I, O>(): ControlledEffect<I, O> => {
  const calls: I[] = []
  const pending: Deferred<O>[] = []
  let aborted = 0
  const logic = fromPromise<O, I>(({ input, signal }) => {
    calls.push(input)
    const d = deferred<O>()
    pending.push(d)
    signal.addEventListener("abort", () => {
      aborted += 1
    })
    return d.promise
  })
  const settle = async (fn: (d: Deferred<O>) => void) => {
    const next = pending.shift()
    if (next === undefined) throw new Error("no pending call to settle")
    fn(next)
    await flush()
  }
  return {
    logic,
    calls,
    aborted: () => aborted,
    resolve: (value) => settle((d) => d.resolve(value)),
    reject: (error) => settle((d) => d.reject(error)),
  }
}

/** An effect actor answering each call with `answer(input)`. */
export const scripted = <I, O>(answer: (input: I) => O | Promise<O>): { logic: PromiseActorLogic<O, I>; calls: I[] } => {
  const calls: I[] = []
  return {
    calls,
    logic: fromPromise<O, I>(async ({ input }) => {
      calls.push(input)
      return answer(input)
    }),
  }
}

/** An effect actor that never settles (transition coverage sends the done/error events itself). */
export const never = <I, O>(): PromiseActorLogic<O, I> => fromPromise<O, I>(() => new Promise<O>(() => {}))

/** The failure the API client reports for `status` + `body` on an endpoint of `flow`. */
export const httpFailure = (flow: ErrorFlow, status: number, body: unknown = {}): ApiError =>
  toApiError({ kind: "response", status, body }, flow)

/** The failure the API client reports when the server could not be reached. */
export const networkFailure = (flow: ErrorFlow): ApiError => toApiError({ kind: "no-response" }, flow)

export const sampleUser = {
  id: 7 as UserId,
  email: "ada@example.com",
  email_verified: true,
  first_name: "Ada",
  last_name: "Lovelace",
  workspace_name: "Analytical Engines",
  roles: [],
  timezone: null,
} satisfies LoginResponse["data"]

export const sampleLoginResponse: LoginResponse = {
  access_token: "access-1",
  refresh_token: "refresh-1",
  data: sampleUser,
}

export const resendAnswer = (email: string, expiresInMinutes = 30): ResendVerificationResponse => ({
  ok: true,
  message: "Verification email sent",
  data: { email, expires_in_minutes: expiresInMinutes },
})

/** A 32+ character verification token. */
export const LONG_TOKEN = "a".repeat(40)
