/**
 * Turns whatever escaped a route into a catalogue JSON error, so no request ends with an empty body, an
 * HTML page or a stack trace:
 *
 * - no route (RouteNotFound)                               → 404 `NotFound`
 * - request decoding failed (HttpApiSchemaError on params, query, headers or payload; malformed JSON;
 *   unparsable body)                                        → 400 `ValidationError` with the decode messages
 * - body over MAX_BODY_SIZE or a declared limit             → 413 `ValidationError`
 * - any other failure or defect (including response encoding failures) → 500 `ServerError` with a generic
 *   message; the cause goes to the log only.
 *
 * Typed errors declared on endpoints never get here: HttpApi encodes them itself.
 */
import { Cause, Effect, Schema } from "effect"
import { HttpServerError, HttpServerRespondable, HttpServerResponse } from "effect/http"
import { HttpApiError } from "effect/http-api"
import { NotFound, ServerError, ValidationError } from "../../src/contracts/errors.ts"
import { noEndpointMessage, PlatformMessages, StatusMessages } from "../../src/contracts/messages.ts"
import { validationErrorFromIssue } from "../../src/contracts/validation.ts"

/** Encodes a catalogue error with its own schema (the same JSON HttpApi would produce) and the given status. */
export const catalogueResponse = <S extends Schema.Top>(schema: S, error: S["Type"], status: number): HttpServerResponse.HttpServerResponse =>
  HttpServerResponse.jsonUnsafe(Schema.encodeUnknownSync(schema as unknown as Schema.Codec<unknown, unknown>)(error), { status })

export const notFoundResponse = (method: string, path: string): HttpServerResponse.HttpServerResponse =>
  catalogueResponse(NotFound, new NotFound({ message: noEndpointMessage(method, path) }), 404)

export const serverErrorResponse = (): HttpServerResponse.HttpServerResponse =>
  catalogueResponse(ServerError, new ServerError({ message: PlatformMessages.serverError }), 500)

export interface ValidationIssue {
  readonly path: string
  readonly message: string
}

/** A 400 (or `status`) `ValidationError`: `message` is the first problem's text, `errors` lists them all. */
export const validationResponse = (issues: ReadonlyArray<ValidationIssue>, status = 400): HttpServerResponse.HttpServerResponse =>
  catalogueResponse(
    ValidationError,
    new ValidationError({ message: issues[0]?.message ?? StatusMessages.badRequest, errors: issues.map((i) => ({ path: i.path, message: i.message })) }),
    status,
  )

/**
 * The catalogue 400 for a request that failed decoding (via the contract's `validationErrorFromIssue`, so
 * the spec's rule messages come through). Body fields keep bare paths (`email`); other request parts are
 * prefixed with their slot (`query.page`, `params.id`, `headers.x-workspace-id`).
 */
export const validationErrorOf = (error: HttpApiError.HttpApiSchemaError): ValidationError => {
  const base = validationErrorFromIssue(error.cause.issue)
  if (error.kind === "Payload") return base
  const slot = error.kind.toLowerCase()
  return new ValidationError({
    message: base.message,
    errors: (base.errors ?? []).map((e) => ({ path: e.path === "" ? slot : `${slot}.${e.path}`, message: e.message })),
  })
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
    const reason = HttpServerError.isHttpServerError(error) ? error.reason : error
    if (reason instanceof HttpServerError.RouteNotFound) {
      return { _tag: "Response", response: notFoundResponse(method, path), logAsError: false } as const
    }
    if (reason instanceof HttpServerError.RequestParseError) {
      return reason.reason === "BodyTooLarge"
        ? { _tag: "Response", response: validationResponse([{ path: "", message: PlatformMessages.bodyTooLarge }], 413), logAsError: false } as const
        : { _tag: "Response", response: validationResponse([{ path: "", message: PlatformMessages.bodyUnreadable }]), logAsError: false } as const
    }
    if (HttpServerError.isHttpServerError(error)) return { _tag: "Response", response: serverErrorResponse(), logAsError: true } as const
    if (HttpApiError.HttpApiSchemaError.is(error)) {
      return isRequestSlot(error.kind)
        ? { _tag: "Response", response: catalogueResponse(ValidationError, validationErrorOf(error), 400), logAsError: false } as const
        : { _tag: "Response", response: serverErrorResponse(), logAsError: true } as const
    }
    if (HttpApiError.HttpApiPayloadTooLarge.is(error)) {
      return { _tag: "Response", response: validationResponse([{ path: "", message: error.message }], 413), logAsError: false } as const
    }
    if (HttpServerRespondable.isRespondable(error)) {
      const response = yield* HttpServerRespondable.toResponse(error)
      if (response.status < 500) {
        if (response.body._tag !== "Empty") return { _tag: "Response", response, logAsError: false } as const
        const message = response.status === 404 ? noEndpointMessage(method, path) : PlatformMessages.requestNotProcessed
        return {
          _tag: "Response",
          response: HttpServerResponse.jsonUnsafe({ _tag: "Error", message }, { status: response.status, headers: response.headers }),
          logAsError: false,
        } as const
      }
    }
    return { _tag: "Response", response: serverErrorResponse(), logAsError: true } as const
  })
