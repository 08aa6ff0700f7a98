/**
 * Pure mapping from an HTTP outcome and the flow it happened in to the catalogue's `{ type, message }`
 * (access §8, scanning §8). The SPA's API client calls `mapHttpError` for every failed call; machines
 * and views show `message` verbatim.
 *
 * Rules shared by every flow:
 * - `{ kind: "no-response" }` (network failure, timeout, CORS) → NETWORK_ERROR with the access §8
 *   "No response" text, except where a flow has its own network text (verification) or its own
 *   catch-all (refresh).
 * - The server's message is `body.message` when it is a non-empty string (our catalogue bodies always
 *   carry one); `body.detail` (RFC 9457) and a string `body.error` are accepted too.
 * - The type comes from the status (and, when present, the body's catalogue `_tag` / `data.error_type`),
 *   so one outcome always maps to exactly one entry.
 */
import { errorTypeField, record, retryAfterSeconds, serverMessage } from "./error-body.ts"
import { type ErrorType, STATUS_OF_TAG, TYPE_OF_TAG, isApiErrorTag } from "./errors.ts"
import {
  InvitationMessages,
  OtherMessages,
  RefreshMessages,
  ResendMessages,
  ScanningMessages,
  SignupMessages,
  StatusMessages,
  TeamFailureMessages,
  VerificationMessages,
  resendWaitMessage,
} from "./messages.ts"

export type HttpOutcome =
  | { readonly kind: "no-response" }
  | { readonly kind: "response"; readonly status: number; readonly body: unknown }

export const ERROR_FLOWS = [
  "generic",
  "login",
  "signup",
  "verification",
  "resend",
  "invitation",
  "invitation-completion",
  "refresh",
  "forgot-password",
  "reset-password",
  "select-workspace",
  "accept-workspace-invitation",
  "load-workspaces",
  "team-load-members",
  "team-load-invitations",
  "team-add-member",
  "team-invite",
  "team-resend-invitation",
  "team-cancel-invitation",
  "team-delete-member",
  "team-update-member",
  "profile-update",
  "password-change",
  "dashboard-load",
  "account-add",
  "account-delete",
  "account-details",
  "account-refresh",
  "scan-start",
  "scan-load",
  "finding-load",
  "remediation",
  "export",
] as const
export type ErrorFlow = (typeof ERROR_FLOWS)[number]

/** What the SPA does next beyond showing the message (signup 409: back to login with a hint). */
export type ErrorHint = "resend-verification" | "sign-in"

export interface AppError {
  readonly type: ErrorType
  readonly message: string
  readonly hint?: ErrorHint
}

// ---------------------------------------------------------------------------------------------------
// Reading a body defensively (any JSON, or none).

export { errorTypeField, retryAfterSeconds, serverMessage } from "./error-body.ts"

const tagOf = (body: unknown): string | undefined => {
  const t = record(body)?.["_tag"]
  return typeof t === "string" ? t : undefined
}

const contains = (msg: string | undefined, ...needles: ReadonlyArray<string>): boolean => {
  const m = (msg ?? "").toLowerCase()
  return needles.some((n) => m.includes(n))
}

const isServerFailure = (status: number): boolean => status === 500 || status === 502 || status === 503 || status === 504

/** Type of an outcome from its status, refined by the catalogue tag or error_type when present. */
export const typeOfResponse = (status: number, body: unknown): ErrorType => {
  if (status === 401 && errorTypeField(body) === "email_not_verified") return "EMAIL_NOT_VERIFIED"
  const tag = tagOf(body)
  // A tag refines the type only when it agrees with the status (a proxy may answer for the server).
  if (isApiErrorTag(tag) && STATUS_OF_TAG[tag] === status && tag !== "NotFound") return TYPE_OF_TAG[tag]
  if (status === 400 || status === 422) return "VALIDATION_ERROR"
  if (status === 401 || status === 403) return "UNAUTHORIZED"
  if (status === 409) return "CONFLICT_ERROR"
  if (status === 429) return "RATE_LIMIT_ERROR"
  if (status >= 500) return "SERVER_ERROR"
  return "UNKNOWN_ERROR"
}

const network: AppError = { type: "NETWORK_ERROR", message: StatusMessages.noResponse }

// ---------------------------------------------------------------------------------------------------
// Access §8 status mapping (the generic flow).

const generic = (status: number, body: unknown): AppError => {
  const type = typeOfResponse(status, body)
  const msg = serverMessage(body)
  switch (true) {
    case status === 400:
      return { type, message: msg ?? StatusMessages.badRequest }
    case status === 401:
      return { type, message: msg ?? StatusMessages.unauthorized }
    case status === 403:
      return { type, message: msg ?? StatusMessages.forbidden }
    case status === 409:
      return { type, message: msg ?? StatusMessages.conflict }
    case status === 429:
      return { type, message: StatusMessages.rateLimited }
    case isServerFailure(status):
      return { type, message: StatusMessages.serverError }
    default:
      return { type, message: msg ?? StatusMessages.unexpected }
  }
}

/** Server message for client errors (4xx except 429) when present, else the flow's fallback text. */
const messageOr = (fallback: string) => (status: number, body: unknown): AppError => {
  const type = typeOfResponse(status, body)
  const msg = status >= 400 && status < 500 && status !== 429 ? serverMessage(body) : undefined
  return { type, message: msg ?? fallback }
}

type Mapper = (status: number, body: unknown) => AppError

const login: Mapper = (status, body) => {
  if (status === 401 && errorTypeField(body) === "email_not_verified")
    return { type: "EMAIL_NOT_VERIFIED", message: StatusMessages.emailNotVerifiedAtLogin }
  const g = generic(status, body)
  return status === 401 ? { type: "INVALID_CREDENTIALS", message: g.message } : g
}

const refresh: Mapper = (status) =>
  status === 401 || status === 403
    ? { type: "UNAUTHORIZED", message: RefreshMessages.sessionExpired }
    : { type: "REFRESH_FAILED", message: RefreshMessages.refreshAuthFailed }

const signup: Mapper = (status, body) => {
  const msg = serverMessage(body)
  const type = typeOfResponse(status, body)
  if (status === 400) return { type, message: msg ?? StatusMessages.badRequest }
  if (status === 401) return { type, message: SignupMessages.authFailed }
  if (status === 409) {
    const et = errorTypeField(body)
    if (et === "workspace_exists" || (et === undefined && contains(msg, "workspace"))) {
      return { type: "CONFLICT_ERROR", message: msg ?? SignupMessages.workspaceExists }
    }
    const unverified = et === "account_unverified" || et === "email_not_verified" || contains(msg, "not verified", "unverified")
    return unverified
      ? { type: "CONFLICT_ERROR", message: SignupMessages.accountExistsUnverified, hint: "resend-verification" }
      : { type: "CONFLICT_ERROR", message: SignupMessages.accountExistsVerified, hint: "sign-in" }
  }
  if (status === 422) return { type: "VALIDATION_ERROR", message: SignupMessages.unprocessable }
  if (status === 429) return { type: "RATE_LIMIT_ERROR", message: SignupMessages.tooManyAttempts }
  if (isServerFailure(status)) return { type: "SERVER_ERROR", message: SignupMessages.serverUnavailable }
  return { type, message: SignupMessages.fallback }
}

/** Access §8 email verification, status based (with the §5 message-text matching on 400 and 409). */
const verification: Mapper = (status, body) => {
  const msg = serverMessage(body)
  const tag = tagOf(body)
  if (status === 400) {
    const invalidToken = tag === "InvalidToken" || contains(msg, "invalid token", "malformed")
    return { type: invalidToken ? "INVALID_TOKEN" : "VALIDATION_ERROR", message: VerificationMessages.status400 }
  }
  if (status === 404) return { type: "USER_NOT_FOUND", message: VerificationMessages.status404 }
  if (status === 409) {
    const already = tag === "AlreadyVerified" || contains(msg, "already verified")
    return { type: already ? "ALREADY_VERIFIED" : "CONFLICT_ERROR", message: VerificationMessages.status409 }
  }
  if (status === 410) return { type: "TOKEN_EXPIRED", message: VerificationMessages.status410 }
  return { type: typeOfResponse(status, body), message: VerificationMessages.unexpected }
}

const resend: Mapper = (status, body) => {
  const msg = serverMessage(body)
  if (status === 429) return { type: "RATE_LIMIT_ERROR", message: resendWaitMessage(retryAfterSeconds(body)) }
  if (status === 409 || tagOf(body) === "AlreadyVerified" || contains(msg, "already verified"))
    return { type: "ALREADY_VERIFIED", message: ResendMessages.alreadyVerified }
  if (status === 400 || status === 422) return { type: "VALIDATION_ERROR", message: ResendMessages.invalidEmail }
  return { type: typeOfResponse(status, body), message: ResendMessages.fallback }
}

/** Access §8 invitation, status based (check and accept by link). */
const invitation: Mapper = (status, body) => {
  const msg = serverMessage(body)
  if (status === 400) {
    const invalidToken = tagOf(body) === "InvalidToken" || contains(msg, "invalid token", "malformed", "invalid invitation")
    return { type: invalidToken ? "INVALID_TOKEN" : "VALIDATION_ERROR", message: InvitationMessages.status400 }
  }
  if (status === 404) return { type: "INVALID_TOKEN", message: InvitationMessages.status404 }
  if (status === 410) return { type: "TOKEN_EXPIRED", message: InvitationMessages.status410 }
  if (status === 409) return { type: "CONFLICT_ERROR", message: InvitationMessages.screenAlreadyAccepted }
  return generic(status, body)
}

/** Access §8 invitation completion: message-contains rules, else 'Failed to complete signup'. */
const invitationCompletion: Mapper = (status, body) => {
  const msg = serverMessage(body)
  if (contains(msg, "already accepted", "already a member"))
    return { type: "CONFLICT_ERROR", message: InvitationMessages.completionAlreadyMember }
  if (contains(msg, "expired") || status === 410) return { type: "TOKEN_EXPIRED", message: InvitationMessages.completionExpired }
  if (contains(msg, "invalid")) return { type: "INVALID_TOKEN", message: InvitationMessages.completionInvalid }
  return { type: typeOfResponse(status, body), message: InvitationMessages.completionFailed }
}

const resetPassword: Mapper = (status, body) => {
  const type = typeOfResponse(status, body)
  if (status === 400 || status === 404 || status === 410) {
    const tokenProblem = status !== 400 || tagOf(body) === "InvalidToken" || contains(serverMessage(body), "token", "link")
    if (tokenProblem) return { type: status === 410 ? "TOKEN_EXPIRED" : "INVALID_TOKEN", message: OtherMessages.invalidResetLink }
    return { type, message: serverMessage(body) ?? OtherMessages.resetFailed }
  }
  return { type, message: OtherMessages.resetFailed }
}

const dashboardLoad: Mapper = (status, body) => {
  if (status === 401) return { type: "UNAUTHORIZED", message: ScanningMessages.dashboardUnauthorized }
  if (isServerFailure(status)) return { type: "SERVER_ERROR", message: StatusMessages.serverError }
  return { type: typeOfResponse(status, body), message: serverMessage(body) ?? ScanningMessages.dashboardFallback }
}

const scanStart: Mapper = (status, body) => {
  if (status === 403) return { type: "UNAUTHORIZED", message: ScanningMessages.launchPermissionDenied }
  return messageOr(ScanningMessages.startScanFailed)(status, body)
}

const remediation: Mapper = (status, body) => {
  if (status === 403) return { type: "UNAUTHORIZED", message: ScanningMessages.remediatePermissionDenied }
  // Beyond the spec (issue 31): a member retired from its organisation is refused in the server's words, which say why.
  if (status === 409 && errorTypeField(body) === "account_retired") return { type: "CONFLICT_ERROR", message: serverMessage(body) ?? ScanningMessages.remediateFailed }
  return { type: typeOfResponse(status, body), message: ScanningMessages.remediateFailed }
}

const accountAdd: Mapper = (status, body) => {
  if (status === 409) return { type: "CONFLICT_ERROR", message: ScanningMessages.accountAlreadyExists }
  return messageOr(ScanningMessages.addAccountFailed)(status, body)
}

const MAPPERS: { readonly [K in ErrorFlow]: Mapper } = {
  generic,
  login,
  signup,
  verification,
  resend,
  invitation,
  "invitation-completion": invitationCompletion,
  refresh,
  "forgot-password": messageOr(OtherMessages.forgotFailed),
  "reset-password": resetPassword,
  "select-workspace": messageOr(OtherMessages.selectWorkspaceFailed),
  "accept-workspace-invitation": messageOr(OtherMessages.acceptWorkspaceInvitationFailed),
  "load-workspaces": (status, body) => ({ type: typeOfResponse(status, body), message: OtherMessages.loadWorkspacesFailed }),
  "team-load-members": (status, body) => ({ type: typeOfResponse(status, body), message: TeamFailureMessages.loadTeamMembers }),
  "team-load-invitations": (status, body) => ({ type: typeOfResponse(status, body), message: TeamFailureMessages.loadInvitations }),
  "team-add-member": messageOr(TeamFailureMessages.addMember),
  "team-invite": messageOr(TeamFailureMessages.sendInvitations),
  "team-resend-invitation": messageOr(TeamFailureMessages.resendInvitation),
  "team-cancel-invitation": messageOr(TeamFailureMessages.cancelInvitation),
  "team-delete-member": messageOr(TeamFailureMessages.deleteMember),
  "team-update-member": messageOr(TeamFailureMessages.updateMember),
  "profile-update": messageOr(TeamFailureMessages.updateProfile),
  "password-change": messageOr(TeamFailureMessages.updatePassword),
  "dashboard-load": dashboardLoad,
  "account-add": accountAdd,
  "account-delete": (status, body) => ({ type: typeOfResponse(status, body), message: ScanningMessages.deleteAccountFailed }),
  "account-details": messageOr(ScanningMessages.loadAccountDetailsFailed),
  "account-refresh": (status, body) => ({ type: typeOfResponse(status, body), message: ScanningMessages.refreshAccountDetailsFailed }),
  "scan-start": scanStart,
  "scan-load": messageOr(ScanningMessages.errorLoadingScanDetails),
  "finding-load": (status, body) => ({ type: typeOfResponse(status, body), message: ScanningMessages.loadFindingFailed }),
  remediation,
  export: messageOr(ScanningMessages.exportFailed),
}

/**
 * Maps a failed call to the catalogue entry for `flow` (default "generic"). Total: every status and body
 * shape gives exactly one `{ type, message }`.
 */
export const mapHttpError = (outcome: HttpOutcome, flow: ErrorFlow = "generic"): AppError => {
  if (outcome.kind === "no-response") {
    if (flow === "verification") return { type: "NETWORK_ERROR", message: VerificationMessages.network }
    if (flow === "refresh") return { type: "REFRESH_FAILED", message: RefreshMessages.refreshAuthFailed }
    return network
  }
  return MAPPERS[flow](outcome.status, outcome.body)
}

// ---------------------------------------------------------------------------------------------------
// Screen texts derived from a mapped error.

/** Access §8 verification screen: already verified is a success. */
export const verificationScreen = (
  e: AppError,
): { readonly kind: "success"; readonly message: string } | { readonly kind: "error"; readonly message: string } => {
  switch (e.type) {
    case "ALREADY_VERIFIED":
      return { kind: "success", message: VerificationMessages.alreadyVerifiedSuccess }
    case "INVALID_TOKEN":
      return { kind: "error", message: VerificationMessages.screenInvalid }
    case "TOKEN_EXPIRED":
      return { kind: "error", message: VerificationMessages.screenExpired }
    case "USER_NOT_FOUND":
      return { kind: "error", message: VerificationMessages.screenUserNotFound }
    case "NETWORK_ERROR":
      return { kind: "error", message: VerificationMessages.network }
    case "VALIDATION_ERROR":
      return { kind: "error", message: VerificationMessages.validation }
    default:
      return { kind: "error", message: VerificationMessages.unexpected }
  }
}

/** Access §8 invitation screen: expired, already accepted (→ login after 1.5 s), else the page text. */
export const invitationScreen = (
  e: AppError,
): { readonly kind: "expired" | "already-accepted" | "invalid"; readonly message: string } => {
  if (e.type === "TOKEN_EXPIRED") return { kind: "expired", message: InvitationMessages.screenExpired }
  if (e.type === "CONFLICT_ERROR" || e.type === "ALREADY_VERIFIED")
    return { kind: "already-accepted", message: InvitationMessages.screenAlreadyAccepted }
  return { kind: "invalid", message: InvitationMessages.pageInvalid }
}

/** Access §8 session refresh: the text for a missing refresh token. */
export const noRefreshTokenError: AppError = { type: "REFRESH_FAILED", message: RefreshMessages.noRefreshToken }
