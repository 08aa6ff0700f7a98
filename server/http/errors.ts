/**
 * Turns whatever escaped a route into a catalogue JSON error, so no request ends with an empty body, an
 * HTML page or a stack trace:
 *
 * - no route (RouteNotFound)                               → 404 `NotFound`
 * - request decoding failed (HttpApiSchemaError on params, query, headers or payload; malformed JSON;
 *   unparsable body)                                        → 400 `ValidationError` with the decode messages
 * - body over MAX_BODY_SIZE or a declared limit             → 413 `ValidationError`
 * - a NUL character that reached PostgreSQL (which refuses it in text and JSON) → 400 `ValidationError`
 * - any other failure or defect (including response encoding failures) → 500 `ServerError` with a generic
 *   message; the cause goes to the log only.
 *
 * `toCatalogueBody` does the same for error responses that were produced as responses (HttpApi's text/plain 415
 * for a non-JSON content type, empty bodies), and `clientErrorResponse` for the requests Node cannot parse at all
 * (oversized headers or URL → 431, malformed request line or header → 400, headers or body not received in time → 408),
 * which never reach a route.
 *
 * Typed errors declared on endpoints never get here: HttpApi encodes them itself.
 */
import { Cause, Effect, Schema } from "effect"
import { HttpServerError, HttpServerRespondable, HttpServerResponse } from "effect/http"
import { HttpApiError } from "effect/http-api"
import { NotFound, ServerError, ServiceUnavailable, ValidationError } from "../../src/contracts/errors.ts"
import { noEndpointMessage, PlatformMessages, StatusMessages } from "../../src/contracts/messages.ts"
import { validationErrorFromIssue } from "../../src/contracts/validation.ts"

/** Encodes a catalogue error with its own schema (the same JSON HttpApi would produce) and the given status. */
export const catalogueResponse = <S extends Schema.Top>(schema: S, error: S["Type"], status: number): HttpServerResponse.HttpServerResponse =>
  HttpServerResponse.jsonUnsafe(Schema.encodeUnknownSync(schema as unknown as Schema.Codec<unknown, unknown>)(error), { status })

export const notFoundResponse = (method: string, path: string): HttpServerResponse.HttpServerResponse =>
  catalogueResponse(NotFound, new NotFound({ message: noEndpointMessage(method, path) }), 404)

export const serverErrorResponse = (): HttpServerResponse.HttpServerResponse =>
  catalogueResponse(ServerError, new ServerError({ message: PlatformMessages.serverError }), 500)

export const invalidCharacterResponse = (): HttpServerResponse.HttpServerResponse =>
  validationResponse([{ path: "", message: PlatformMessages.invalidCharacter }])

/**
 * PostgreSQL's refusal of a NUL character (22021 character_not_in_repertoire in text, 22P05 untranslatable_character
 * in JSON), wherever it sits in the error's cause chain.
 */
export const isNulRejection = (error: unknown): boolean => {
  let current: unknown = error
  for (let depth = 0; depth < 8 && current !== null && typeof current === "object"; depth++) {
    const e = current as { code?: unknown; message?: unknown; reason?: unknown; cause?: unknown }
    if (e.code === "22021" || e.code === "22P05") return true
    if (typeof e.message === "string" && /0x00|\\u0000 cannot be converted/.test(e.message)) return true
    current = e.reason !== undefined && e.reason !== current ? e.reason : e.cause
  }
  return false
}

/** The catalogue body of an error status whose body is missing or not JSON. */
export const catalogueBodyFor = (status: number, method: string, path: string): unknown => {
  const encode = <S extends Schema.Top>(schema: S, error: S["Type"]) =>
    Schema.encodeUnknownSync(schema as unknown as Schema.Codec<unknown, unknown>)(error)
  const invalid = (message: string) => encode(ValidationError, new ValidationError({ message, errors: [{ path: "", message }] }))
  if (status === 404 || status === 405) return encode(NotFound, new NotFound({ message: noEndpointMessage(method, path) }))
  if (status === 413) return invalid(PlatformMessages.bodyTooLarge)
  if (status === 415) return invalid(PlatformMessages.unsupportedContentType)
  if (status === 431 || status === 414) return invalid(PlatformMessages.headersTooLarge)
  if (status === 503) return encode(ServiceUnavailable, new ServiceUnavailable({ message: PlatformMessages.databaseUnavailable }))
  if (status >= 500) return encode(ServerError, new ServerError({ message: PlatformMessages.serverError }))
  return invalid(PlatformMessages.requestNotProcessed)
}

const isApiPath = (path: string) => path === "/api" || path.startsWith("/api/")

/**
 * An error response with the catalogue's JSON body: API answers whose body is empty or not JSON get the body
 * their status stands for (same status, same headers). SPA answers keep a non-empty body (the "not built yet" page).
 */
export const toCatalogueBody = (
  response: HttpServerResponse.HttpServerResponse,
  method: string,
  path: string,
): HttpServerResponse.HttpServerResponse => {
  if (response.status < 400) return response
  const body = response.body
  if (body._tag !== "Empty") {
    if (!isApiPath(path)) return response
    const contentType = ((body as { readonly contentType?: string }).contentType ?? response.headers["content-type"] ?? "").toLowerCase()
    if (contentType.includes("json")) return response
  }
  const headers: Record<string, string> = {}
  for (const [k, v] of Object.entries(response.headers)) if (k !== "content-type" && k !== "content-length") headers[k] = v
  return HttpServerResponse.jsonUnsafe(catalogueBodyFor(response.status, method, path), { status: response.status, headers })
}

/** What Node's own parser refused (`clientError`): a raw HTTP/1.1 answer with the catalogue body. */
export const clientErrorResponse = (code: string | undefined): { readonly status: number; readonly body: string } => {
  const status = code === "HPE_HEADER_OVERFLOW" ? 431 : code === "ERR_HTTP_REQUEST_TIMEOUT" ? 408 : 400
  const message = status === 431 ? PlatformMessages.headersTooLarge : status === 408 ? PlatformMessages.requestTimedOut : PlatformMessages.requestNotProcessed
  return { status, body: JSON.stringify({ _tag: "ValidationError", message, errors: [{ path: "", message }] }) }
}

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
    if (isNulRejection(error)) return { _tag: "Response", response: invalidCharacterResponse(), logAsError: false } as const
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
