/**
 * The error catalogue (access §8 + scanning §8) as tagged error classes the SERVER fails with.
 *
 * Each class has its HTTP status (`httpApiStatus`, read by HttpApi for responses and OpenAPI) and every
 * body carries `message`. On the wire a body is `{ "_tag": "<Tag>", "message": "...", ... }`; the SPA maps
 * any outcome to the catalogue's `{ type, message }` with `src/contracts/error-mapping.ts`.
 *
 * `ERROR_TYPES` lists the 17 catalogue types; `errorTypeOfTag` says which type a tag stands for.
 */
import { Schema } from "effect"

/** Access §8: the 13 error types plus the four auth-specific ones. */
export const ERROR_TYPES = [
  "INVALID_CREDENTIALS",
  "NETWORK_ERROR",
  "TOKEN_EXPIRED",
  "REFRESH_FAILED",
  "UNAUTHORIZED",
  "SERVER_ERROR",
  "UNKNOWN_ERROR",
  "VALIDATION_ERROR",
  "CONFLICT_ERROR",
  "RATE_LIMIT_ERROR",
  "WORKSPACE_NOT_FOUND",
  "WORKSPACE_ACCESS_DENIED",
  "WORKSPACE_REQUIRED",
  "EMAIL_NOT_VERIFIED",
  "INVALID_TOKEN",
  "USER_NOT_FOUND",
  "ALREADY_VERIFIED",
] as const
export const ErrorType = Schema.Literals(ERROR_TYPES)
export type ErrorType = typeof ErrorType.Type

/** One field problem of a rejected request: `path` is dot-joined (`invitations.2.email`). */
export const FieldIssue = Schema.Struct({ path: Schema.String, message: Schema.String })
export type FieldIssue = typeof FieldIssue.Type

/** Body of the 401 login answer for unverified users (access §3 "Sign-in error data"). */
export const EmailNotVerifiedData = Schema.Struct({
  error_type: Schema.Literal("email_not_verified"),
  email: Schema.String,
})
export type EmailNotVerifiedData = typeof EmailNotVerifiedData.Type

/** Optional machine-readable detail on 401/409 answers (e.g. `workspace_exists`, `account_unverified`). */
export const ErrorData = Schema.Struct({
  error_type: Schema.optionalKey(Schema.String),
  email: Schema.optionalKey(Schema.String),
})
export type ErrorData = typeof ErrorData.Type

// ---------------------------------------------------------------------------------------------------
// 400

/** Malformed or schema-invalid input. `errors` lists every field problem with the spec's message. */
export class ValidationError extends Schema.TaggedError<ValidationError>()(
  "ValidationError",
  { message: Schema.String, errors: Schema.optionalKey(Schema.Array(FieldIssue)) },
  { httpApiStatus: 400 },
) {}

/** A verification / reset / invitation token that is malformed or unknown ('invalid token' on 400). */
export class InvalidToken extends Schema.TaggedError<InvalidToken>()(
  "InvalidToken",
  { message: Schema.String },
  { httpApiStatus: 400 },
) {}

/** A workspace-scoped call without an `X-Workspace-ID` header. */
export class WorkspaceRequired extends Schema.TaggedError<WorkspaceRequired>()(
  "WorkspaceRequired",
  { message: Schema.String },
  { httpApiStatus: 400 },
) {}

// ---------------------------------------------------------------------------------------------------
// 401

/** Missing, invalid or revoked credentials (bearer token, refresh token). */
export class Unauthorized extends Schema.TaggedError<Unauthorized>()(
  "Unauthorized",
  { message: Schema.String, data: Schema.optionalKey(ErrorData) },
  { httpApiStatus: 401 },
) {}

/** Wrong email or password at login (same answer for unknown emails). */
export class InvalidCredentials extends Schema.TaggedError<InvalidCredentials>()(
  "InvalidCredentials",
  { message: Schema.String },
  { httpApiStatus: 401 },
) {}

/** An access token past its expiry: the SPA refreshes once and replays. */
export class TokenExpired extends Schema.TaggedError<TokenExpired>()(
  "TokenExpired",
  { message: Schema.String },
  { httpApiStatus: 401 },
) {}

/** Login of an unverified user: `data: { error_type: 'email_not_verified', email }` (access §3, §4). */
export class EmailNotVerified extends Schema.TaggedError<EmailNotVerified>()(
  "EmailNotVerified",
  { message: Schema.String, data: EmailNotVerifiedData },
  { httpApiStatus: 401 },
) {}

// ---------------------------------------------------------------------------------------------------
// 403

/** The caller lacks a permission for this call. */
export class Forbidden extends Schema.TaggedError<Forbidden>()(
  "Forbidden",
  { message: Schema.String, permission: Schema.optionalKey(Schema.String) },
  { httpApiStatus: 403 },
) {}

/** The caller is not a member of the workspace named by `X-Workspace-ID`. */
export class WorkspaceAccessDenied extends Schema.TaggedError<WorkspaceAccessDenied>()(
  "WorkspaceAccessDenied",
  { message: Schema.String },
  { httpApiStatus: 403 },
) {}

// ---------------------------------------------------------------------------------------------------
// 404

/** Unknown resource, or a resource of another workspace (foreign ids answer 404). */
export class NotFound extends Schema.TaggedError<NotFound>()(
  "NotFound",
  { message: Schema.String },
  { httpApiStatus: 404 },
) {}

export class UserNotFound extends Schema.TaggedError<UserNotFound>()(
  "UserNotFound",
  { message: Schema.String },
  { httpApiStatus: 404 },
) {}

export class WorkspaceNotFound extends Schema.TaggedError<WorkspaceNotFound>()(
  "WorkspaceNotFound",
  { message: Schema.String },
  { httpApiStatus: 404 },
) {}

// ---------------------------------------------------------------------------------------------------
// 409 / 410 / 429

/** Duplicate resource. `data.error_type` tells the SPA which (e.g. `workspace_exists`, `account_unverified`). */
export class Conflict extends Schema.TaggedError<Conflict>()(
  "Conflict",
  { message: Schema.String, data: Schema.optionalKey(ErrorData) },
  { httpApiStatus: 409 },
) {}

/** Verifying an email that is already verified ('already verified' on 409). */
export class AlreadyVerified extends Schema.TaggedError<AlreadyVerified>()(
  "AlreadyVerified",
  { message: Schema.String },
  { httpApiStatus: 409 },
) {}

/** An expired verification, reset or invitation token. */
export class Gone extends Schema.TaggedError<Gone>()("Gone", { message: Schema.String }, { httpApiStatus: 410 }) {}

/** Too many attempts; `retry_after_seconds` drives the resend cool-down text. */
export class RateLimited extends Schema.TaggedError<RateLimited>()(
  "RateLimited",
  { message: Schema.String, retry_after_seconds: Schema.Int.check(Schema.isGreaterThanOrEqualTo(0)) },
  { httpApiStatus: 429 },
) {}

// ---------------------------------------------------------------------------------------------------
// 5xx

/** Unhandled failure; the message is generic, details stay in the server log. */
export class ServerError extends Schema.TaggedError<ServerError>()(
  "ServerError",
  { message: Schema.String },
  { httpApiStatus: 500 },
) {}

/** An endpoint of the contract that no handler implements yet: names it ("METHOD /path"). */
export class NotImplemented extends Schema.TaggedError<NotImplemented>()(
  "NotImplemented",
  { message: Schema.String, endpoint: Schema.String },
  { httpApiStatus: 501 },
) {}

/** A dependency (the database, a cloud provider) is unavailable. */
export class ServiceUnavailable extends Schema.TaggedError<ServiceUnavailable>()(
  "ServiceUnavailable",
  { message: Schema.String },
  { httpApiStatus: 503 },
) {}

// ---------------------------------------------------------------------------------------------------

/** Every catalogue class, e.g. for decoding any error body on the SPA side. */
export const ApiErrorClasses = [
  ValidationError,
  InvalidToken,
  WorkspaceRequired,
  Unauthorized,
  InvalidCredentials,
  TokenExpired,
  EmailNotVerified,
  Forbidden,
  WorkspaceAccessDenied,
  NotFound,
  UserNotFound,
  WorkspaceNotFound,
  Conflict,
  AlreadyVerified,
  Gone,
  RateLimited,
  ServerError,
  NotImplemented,
  ServiceUnavailable,
] as const

export const ApiError = Schema.Union(ApiErrorClasses)
export type ApiError = typeof ApiError.Type
export type ApiErrorTag = ApiError["_tag"]

/** HTTP status of each tag (the same numbers as the classes' `httpApiStatus`). */
export const STATUS_OF_TAG: { readonly [K in ApiErrorTag]: number } = {
  ValidationError: 400,
  InvalidToken: 400,
  WorkspaceRequired: 400,
  Unauthorized: 401,
  InvalidCredentials: 401,
  TokenExpired: 401,
  EmailNotVerified: 401,
  Forbidden: 403,
  WorkspaceAccessDenied: 403,
  NotFound: 404,
  UserNotFound: 404,
  WorkspaceNotFound: 404,
  Conflict: 409,
  AlreadyVerified: 409,
  Gone: 410,
  RateLimited: 429,
  ServerError: 500,
  NotImplemented: 501,
  ServiceUnavailable: 503,
}

/** Which catalogue type a server error tag stands for. */
export const TYPE_OF_TAG: { readonly [K in ApiErrorTag]: ErrorType } = {
  ValidationError: "VALIDATION_ERROR",
  InvalidToken: "INVALID_TOKEN",
  WorkspaceRequired: "WORKSPACE_REQUIRED",
  Unauthorized: "UNAUTHORIZED",
  InvalidCredentials: "INVALID_CREDENTIALS",
  TokenExpired: "TOKEN_EXPIRED",
  EmailNotVerified: "EMAIL_NOT_VERIFIED",
  Forbidden: "UNAUTHORIZED",
  WorkspaceAccessDenied: "WORKSPACE_ACCESS_DENIED",
  NotFound: "UNKNOWN_ERROR",
  UserNotFound: "USER_NOT_FOUND",
  WorkspaceNotFound: "WORKSPACE_NOT_FOUND",
  Conflict: "CONFLICT_ERROR",
  AlreadyVerified: "ALREADY_VERIFIED",
  Gone: "TOKEN_EXPIRED",
  RateLimited: "RATE_LIMIT_ERROR",
  ServerError: "SERVER_ERROR",
  NotImplemented: "SERVER_ERROR",
  ServiceUnavailable: "SERVER_ERROR",
}

export const isApiErrorTag = (u: unknown): u is ApiErrorTag =>
  typeof u === "string" && Object.prototype.hasOwnProperty.call(STATUS_OF_TAG, u)

/**
 * Errors every authenticated endpoint may answer with (declared on each endpoint). Forbidden: a sign-in-only call made
 * with an API key (docs/api-keys.md).
 */
export const AuthErrors = [Unauthorized, TokenExpired, Forbidden] as const
export const WorkspaceErrors = [
  Unauthorized,
  TokenExpired,
  Forbidden,
  WorkspaceRequired,
  WorkspaceNotFound,
  WorkspaceAccessDenied,
] as const
/** Errors any endpoint may answer with. */
export const CommonErrors = [ValidationError, RateLimited, ServerError, NotImplemented, ServiceUnavailable] as const
