/**
 * Turns whatever escaped a route into a catalogue JSON error, so no request ends with an empty body, an
 * HTML page or a stack trace:
 *
 * - no route (RouteNotFound)                               → 404 `NotFound`
 * - request decoding failed (HttpApiSchemaError on params, query, headers or payload; malformed JSON;
 *   unparsable body)                                        → 400 `ValidationError` with the decode messages
 * - payload over a declared limit (HttpApiPayloadTooLarge)  → 413 `ValidationError`
 * - any other failure or defect (including response encoding failures) → 500 `ServerError` with a generic
 *   message; the cause goes to the log only.
 *
 * Typed errors declared on endpoints never get here: HttpApi encodes them itself.
 */
import { Cause, Effect, Schema } from "effect"
import * as SchemaIssue from "effect/SchemaIssue"
import { HttpServerError, HttpServerRespondable, HttpServerResponse } from "effect/http"
import { HttpApiError } from "effect/http-api"
import { NotFound, ServerError, ValidationError } from "../../src/contracts/errors.ts"

export const GENERIC_SERVER_ERROR_MESSAGE = "An unexpected error occurred. Please try again later."

/** Encodes a catalogue error with its own schema (the same JSON HttpApi would produce) and the given status. */
export const catalogueResponse = <S extends Schema.Top>(schema: S, error: S["Type"], status: number): HttpServerResponse.HttpServerResponse =>
  HttpServerResponse.jsonUnsafe(Schema.encodeUnknownSync(schema as unknown as Schema.Codec<unknown, unknown>)(error), { status })

export const notFoundResponse = (method: string, path: string): HttpServerResponse.HttpServerResponse =>
  catalogueResponse(NotFound, new NotFound({ message: `No API endpoint matches ${method} ${path}` }), 404)

export const serverErrorResponse = (): HttpServerResponse.HttpServerResponse =>
  catalogueResponse(ServerError, new ServerError({ message: GENERIC_SERVER_ERROR_MESSAGE }), 500)

export interface ValidationIssue {
  readonly path: string
  readonly message: string
}

export const validationResponse = (issues: ReadonlyArray<ValidationIssue>, status = 400): HttpServerResponse.HttpServerResponse => {
  const first = issues[0]
  const message = first === undefined
    ? "Invalid input. Please check your details and try again."
    : first.path === "" ? first.message : `${first.path}: ${first.message}`
  return catalogueResponse(ValidationError, new ValidationError({ message, errors: issues.map((i) => ({ path: i.path, message: i.message })) }), status)
}

const formatIssues = SchemaIssue.makeFormatterStandardSchemaV1()

const segment = (s: PropertyKey | { readonly key: PropertyKey }): string => {
  const key = typeof s === "object" && s !== null ? s.key : s
  return typeof key === "symbol" ? key.toString() : String(key)
}

/** Decode issues of a request slot; payload paths are bare field paths (`email`), others are prefixed (`query.page`). */
export const schemaErrorIssues = (error: HttpApiError.HttpApiSchemaError): ReadonlyArray<ValidationIssue> => {
  const slot = error.kind === "Payload" ? [] : [error.kind.toLowerCase()]
  const issues = formatIssues(error.cause.issue).issues.map((issue) => ({
    path: [...slot, ...(issue.path ?? []).map(segment)].join("."),
    message: issue.message,
  }))
  return issues.length > 0 ? issues : [{ path: slot.join("."), message: "Invalid input" }]
}

const isRequestSlot = (kind: HttpApiError.HttpApiSchemaError["kind"]) =>
  kind === "Params" || kind === "Query" || kind === "Headers" || kind === "Payload"

export type Classified =
  | { readonly _tag: "Response"; readonly response: HttpServerResponse.HttpServerResponse; readonly logAsError: boolean }
  | { readonly _tag: "Interrupted" }

/**
 * Chooses the response for a failed request. `logAsError` is true when the cause is a server fault whose
 * details must go to the log (never to the client).
 */
export const classifyCause = (cause: Cause.Cause<unknown>, method: string, path: string): Effect.Effect<Classified> =>
  Effect.gen(function* () {
    const errors: Array<unknown> = []
    for (const reason of cause.reasons) {
      if (reason._tag === "Fail") errors.push(reason.error)
      else if (reason._tag === "Die") errors.push(reason.defect)
    }
    if (errors.length === 0) return { _tag: "Interrupted" } as const
    const error = errors[0]
    if (HttpServerResponse.isHttpServerResponse(error)) return { _tag: "Response", response: error, logAsError: false } as const
    if (HttpServerError.isHttpServerError(error)) {
      if (error.reason._tag === "RouteNotFound") return { _tag: "Response", response: notFoundResponse(method, path), logAsError: false } as const
      if (error.reason._tag === "RequestParseError") {
        return { _tag: "Response", response: validationResponse([{ path: "", message: "The request body could not be read" }]), logAsError: false } as const
      }
      return { _tag: "Response", response: serverErrorResponse(), logAsError: true } as const
    }
    if (HttpApiError.HttpApiSchemaError.is(error)) {
      return isRequestSlot(error.kind)
        ? { _tag: "Response", response: validationResponse(schemaErrorIssues(error)), logAsError: false } as const
        : { _tag: "Response", response: serverErrorResponse(), logAsError: true } as const
    }
    if (HttpApiError.HttpApiPayloadTooLarge.is(error)) {
      return { _tag: "Response", response: validationResponse([{ path: "", message: error.message }], 413), logAsError: false } as const
    }
    if (HttpServerRespondable.isRespondable(error)) {
      const response = yield* HttpServerRespondable.toResponse(error)
      if (response.status < 500) {
        if (response.body._tag !== "Empty") return { _tag: "Response", response, logAsError: false } as const
        const message = response.status === 404 ? `No API endpoint matches ${method} ${path}` : "The request could not be processed"
        return {
          _tag: "Response",
          response: HttpServerResponse.jsonUnsafe({ _tag: "Error", message }, { status: response.status, headers: response.headers }),
          logAsError: false,
        } as const
      }
    }
    return { _tag: "Response", response: serverErrorResponse(), logAsError: true } as const
  })
