/**
 * The error catalogue mapping (access §8, scanning §8). Spec texts are written out literally here so a
 * typo in src/contracts/messages.ts fails the test.
 */
import { describe, expect, it } from "vitest"
import fc from "fast-check"
import { ERROR_FLOWS, mapHttpError, invitationScreen, verificationScreen, type ErrorFlow, type HttpOutcome } from "../../src/contracts/error-mapping.ts"
import { ERROR_TYPES, STATUS_OF_TAG } from "../../src/contracts/errors.ts"
import * as Messages from "../../src/contracts/messages.ts"

const res = (status: number, body: unknown = undefined): HttpOutcome => ({ kind: "response", status, body })
const NONE: HttpOutcome = { kind: "no-response" }

/** The server's own texts (no spec wording): the SPA shows them only as a server message, never maps to them. */
const SERVER_GROUPS = new Set(["AccessServerMessages", "ScanningServerMessages", "PlatformMessages", "ErrorRowLabels"])
/** Every fixed spec text of messages.ts (the catalogue's vocabulary). */
const specTexts = new Set<string>(
  (Object.entries(Messages) as ReadonlyArray<[string, unknown]>)
    .filter(([name]) => !SERVER_GROUPS.has(name))
    .map(([, v]) => v)
    .filter((v): v is Record<string, string> => typeof v === "object" && v !== null)
    .flatMap((o) => Object.values(o)),
)

const serverMessageArb = fc.oneof(
  fc.constant("Workspace already exists. Please choose a different workspace name."),
  fc.constant("invalid token"),
  fc.constant("Email already verified"),
  fc.constant("The invitation has expired"),
  fc.constant("User is already a member"),
  fc.string({ minLength: 1, maxLength: 40 }),
)
const bodyArb: fc.Arbitrary<unknown> = fc.oneof(
  fc.constant(undefined),
  fc.constant(null),
  fc.constant(""),
  fc.constant("<html>Bad gateway</html>"),
  fc.constant([]),
  fc.record({ message: serverMessageArb }),
  fc.record({ message: fc.constant("") }),
  fc.record({ message: fc.integer() }),
  fc.record({ detail: serverMessageArb }),
  fc.record({ error: serverMessageArb }),
  fc.record({ _tag: fc.constantFrom(...Object.keys(STATUS_OF_TAG)), message: serverMessageArb }),
  fc.record({ message: serverMessageArb, data: fc.record({ error_type: fc.constantFrom("email_not_verified", "workspace_exists", "account_unverified", "x"), email: fc.emailAddress() }) }),
  fc.record({ message: serverMessageArb, retry_after_seconds: fc.integer({ min: -5, max: 100_000 }) }),
  fc.record({ data: fc.record({ retry_after_seconds: fc.double() }) }),
)
const statusArb = fc.oneof(fc.constantFrom(400, 401, 403, 404, 409, 410, 422, 429, 500, 502, 503, 504), fc.integer({ min: 100, max: 599 }))
const flowArb = fc.constantFrom(...ERROR_FLOWS)

const bodyMessage = (body: unknown): string | undefined => {
  if (typeof body !== "object" || body === null) return undefined
  const r = body as Record<string, unknown>
  for (const k of ["message", "detail", "error"]) {
    const v = r[k]
    if (typeof v === "string" && v.trim() !== "") return v
  }
  return undefined
}

describe("every outcome maps to exactly one catalogue entry", () => {
  it("total and deterministic: a catalogue type and a non-empty text from the catalogue or the server", () => {
    fc.assert(
      fc.property(flowArb, fc.option(statusArb, { nil: undefined }), bodyArb, (flow, status, body) => {
        const outcome = status === undefined ? NONE : res(status, body)
        const a = mapHttpError(outcome, flow)
        const b = mapHttpError(outcome, flow)
        expect(a).toEqual(b)
        expect(ERROR_TYPES).toContain(a.type)
        expect(a.message.trim()).not.toBe("")
        const fromServer = a.message === bodyMessage(body)
        const resendWait = /^Please wait \d+ minute\(s\) before requesting another verification email$/.test(a.message)
        expect(specTexts.has(a.message) || fromServer || resendWait, `${flow} ${status}: ${a.message}`).toBe(true)
      }),
      { numRuns: 3000 },
    )
  })

  it("no response: the access §8 text in every flow except verification and refresh", () => {
    for (const flow of ERROR_FLOWS) {
      const e = mapHttpError(NONE, flow)
      if (flow === "verification") expect(e).toEqual({ type: "NETWORK_ERROR", message: "Network error. Please check your connection and try again." })
      else if (flow === "refresh") expect(e).toEqual({ type: "REFRESH_FAILED", message: "Failed to refresh authentication. Please sign in again." })
      else expect(e).toEqual({ type: "NETWORK_ERROR", message: "Unable to connect to the server. Please check your internet connection." })
    }
  })
})

describe("access §8 status mapping (generic flow)", () => {
  const defaults: ReadonlyArray<readonly [number, string]> = [
    [400, "Invalid input. Please check your details and try again."],
    [401, "Please sign in to continue."],
    [403, "You do not have permission to perform this action."],
    [409, "Resource already exists."],
  ]
  it.each(defaults)("%i: the server message, else the default", (status, text) => {
    fc.assert(
      fc.property(fc.string({ minLength: 1 }).filter((s) => s.trim() !== ""), (m) => {
        expect(mapHttpError(res(status, { message: m })).message).toBe(m)
        expect(mapHttpError(res(status, {})).message).toBe(text)
        expect(mapHttpError(res(status, "not json")).message).toBe(text)
      }),
    )
  })
  it("429 and 500/502/503/504 ignore the server message", () => {
    fc.assert(
      fc.property(bodyArb, (body) => {
        expect(mapHttpError(res(429, body))).toEqual({ type: "RATE_LIMIT_ERROR", message: "Too many requests. Please try again later." })
        for (const s of [500, 502, 503, 504])
          expect(mapHttpError(res(s, body))).toEqual({ type: "SERVER_ERROR", message: "We're experiencing technical difficulties. Please try again later." })
      }),
    )
  })
  it("other statuses: the server message, else the unexpected text", () => {
    fc.assert(
      fc.property(fc.integer({ min: 100, max: 599 }).filter((s) => ![400, 401, 403, 409, 429, 500, 502, 503, 504].includes(s)), (s) => {
        expect(mapHttpError(res(s, null)).message).toBe("An unexpected error occurred. Please try again.")
        expect(mapHttpError(res(s, { message: "Nope" })).message).toBe("Nope")
      }),
    )
  })
  it("types follow the status, refined by the catalogue tag", () => {
    expect(mapHttpError(res(400, {})).type).toBe("VALIDATION_ERROR")
    expect(mapHttpError(res(401, {})).type).toBe("UNAUTHORIZED")
    expect(mapHttpError(res(409, {})).type).toBe("CONFLICT_ERROR")
    expect(mapHttpError(res(403, { _tag: "WorkspaceAccessDenied", message: "x" })).type).toBe("WORKSPACE_ACCESS_DENIED")
    expect(mapHttpError(res(404, { _tag: "WorkspaceNotFound", message: "x" })).type).toBe("WORKSPACE_NOT_FOUND")
    expect(mapHttpError(res(400, { _tag: "WorkspaceRequired", message: "x" })).type).toBe("WORKSPACE_REQUIRED")
    expect(mapHttpError(res(401, { _tag: "TokenExpired", message: "x" })).type).toBe("TOKEN_EXPIRED")
    expect(mapHttpError(res(401, { message: "x", data: { error_type: "email_not_verified", email: "a@b.co" } })).type).toBe("EMAIL_NOT_VERIFIED")
  })
})

describe("login", () => {
  it("401 email_not_verified → EMAIL_NOT_VERIFIED with the spec text", () => {
    expect(
      mapHttpError(res(401, { _tag: "EmailNotVerified", message: "Email not verified", data: { error_type: "email_not_verified", email: "a@b.co" } }), "login"),
    ).toEqual({ type: "EMAIL_NOT_VERIFIED", message: "Please verify your email address to continue" })
  })
  it("other 401 → INVALID_CREDENTIALS with the server message or the default", () => {
    expect(mapHttpError(res(401, { message: "Invalid email or password" }), "login")).toEqual({ type: "INVALID_CREDENTIALS", message: "Invalid email or password" })
    expect(mapHttpError(res(401, {}), "login")).toEqual({ type: "INVALID_CREDENTIALS", message: "Please sign in to continue." })
  })
})

describe("session refresh", () => {
  it.each([401, 403])("%i → session expired", (s) => {
    expect(mapHttpError(res(s, { message: "whatever" }), "refresh")).toEqual({ type: "UNAUTHORIZED", message: "Your session has expired. Please sign in again." })
  })
  it("anything else → failed to refresh authentication", () => {
    fc.assert(
      fc.property(fc.integer({ min: 100, max: 599 }).filter((s) => s !== 401 && s !== 403), bodyArb, (s, body) => {
        expect(mapHttpError(res(s, body), "refresh")).toEqual({ type: "REFRESH_FAILED", message: "Failed to refresh authentication. Please sign in again." })
      }),
    )
  })
})

describe("email verification", () => {
  it("status based texts", () => {
    expect(mapHttpError(res(400, { _tag: "InvalidToken", message: "invalid token" }), "verification")).toEqual({ type: "INVALID_TOKEN", message: "Invalid verification token. Please request a new verification email." })
    expect(mapHttpError(res(400, { message: "Token is malformed" }), "verification").type).toBe("INVALID_TOKEN")
    expect(mapHttpError(res(400, { message: "bad email" }), "verification")).toEqual({ type: "VALIDATION_ERROR", message: "Invalid verification token. Please request a new verification email." })
    expect(mapHttpError(res(404, {}), "verification")).toEqual({ type: "USER_NOT_FOUND", message: "User not found. Please sign up again." })
    expect(mapHttpError(res(409, { message: "Email already verified" }), "verification")).toEqual({ type: "ALREADY_VERIFIED", message: "Email is already verified! You can sign in now." })
    expect(mapHttpError(res(410, {}), "verification")).toEqual({ type: "TOKEN_EXPIRED", message: "Verification link has expired. Please request a new one." })
    expect(mapHttpError(res(500, {}), "verification").message).toBe("An unexpected error occurred during verification")
  })
  it("screen based texts; already verified is a success", () => {
    const screen = (o: HttpOutcome) => verificationScreen(mapHttpError(o, "verification"))
    expect(screen(res(409, { _tag: "AlreadyVerified", message: "already verified" }))).toEqual({ kind: "success", message: "Email is already verified!" })
    expect(screen(res(400, { message: "invalid token" }))).toEqual({ kind: "error", message: "Invalid or expired verification link. Please request a new one." })
    expect(screen(res(410, {}))).toEqual({ kind: "error", message: "Verification link has expired. Please request a new one." })
    expect(screen(res(404, {}))).toEqual({ kind: "error", message: "User not found. Please sign up again." })
    expect(screen(NONE)).toEqual({ kind: "error", message: "Network error. Please check your connection and try again." })
    expect(screen(res(400, { message: "email missing" }))).toEqual({ kind: "error", message: "Invalid verification data. Please try again." })
    expect(screen(res(500, {}))).toEqual({ kind: "error", message: "An unexpected error occurred during verification" })
  })
})

describe("resend verification", () => {
  it("429 → wait N minute(s), N = ceil(retry_after_seconds / 60), default 60 s", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 86_400 }), (sec) => {
        const n = Math.max(1, Math.ceil(sec / 60))
        expect(mapHttpError(res(429, { _tag: "RateLimited", message: "slow down", retry_after_seconds: sec }), "resend")).toEqual({
          type: "RATE_LIMIT_ERROR",
          message: `Please wait ${n} minute(s) before requesting another verification email`,
        })
      }),
    )
    expect(mapHttpError(res(429, {}), "resend").message).toBe("Please wait 1 minute(s) before requesting another verification email")
    expect(mapHttpError(res(429, { retry_after_seconds: 61 }), "resend").message).toBe("Please wait 2 minute(s) before requesting another verification email")
    expect(mapHttpError(res(429, { data: { retry_after_seconds: 180 } }), "resend").message).toBe("Please wait 3 minute(s) before requesting another verification email")
    expect(mapHttpError(res(429, { retry_after_seconds: 1e30 }), "resend").message).toBe("Please wait 1440 minute(s) before requesting another verification email")
  })
  it("already verified, invalid email, fallback", () => {
    expect(mapHttpError(res(409, { message: "Email already verified" }), "resend")).toEqual({ type: "ALREADY_VERIFIED", message: "Email is already verified! You can sign in now." })
    expect(mapHttpError(res(400, { message: "bad" }), "resend")).toEqual({ type: "VALIDATION_ERROR", message: "Invalid email address. Please check and try again." })
    expect(mapHttpError(res(500, {}), "resend").message).toBe("Failed to resend verification email. Please try again.")
    expect(mapHttpError(res(404, {}), "resend").message).toBe("Failed to resend verification email. Please try again.")
  })
})

describe("signup", () => {
  it("status texts", () => {
    expect(mapHttpError(res(400, {}), "signup").message).toBe("Invalid input. Please check your details and try again.")
    expect(mapHttpError(res(400, { message: "First name must be less than 50 characters" }), "signup").message).toBe("First name must be less than 50 characters")
    expect(mapHttpError(res(401, { message: "x" }), "signup").message).toBe("Authentication failed. Please try again.")
    expect(mapHttpError(res(422, {}), "signup").message).toBe("Please check your input and try again.")
    expect(mapHttpError(res(429, {}), "signup").message).toBe("Too many signup attempts. Please try again later.")
    for (const s of [500, 502, 503, 504]) expect(mapHttpError(res(s, {}), "signup").message).toBe("Server is temporarily unavailable. Please try again later.")
    expect(mapHttpError(res(418, {}), "signup").message).toBe("Failed to create account. Please try again.")
  })
  it("409 workspace exists shows it; account exists goes to login with a resend hint", () => {
    expect(mapHttpError(res(409, { _tag: "Conflict", message: "Workspace already exists. Please choose a different workspace name.", data: { error_type: "workspace_exists" } }), "signup")).toEqual({
      type: "CONFLICT_ERROR",
      message: "Workspace already exists. Please choose a different workspace name.",
    })
    expect(mapHttpError(res(409, { data: { error_type: "workspace_exists" } }), "signup").message).toBe("Workspace already exists. Please choose a different workspace name.")
    const unverified = mapHttpError(res(409, { message: "Account exists", data: { error_type: "account_unverified", email: "a@b.co" } }), "signup")
    expect(unverified.hint).toBe("resend-verification")
    const verified = mapHttpError(res(409, { message: "Account exists", data: { error_type: "account_exists" } }), "signup")
    expect(verified.hint).toBe("sign-in")
    expect(verified.message).not.toBe(unverified.message)
  })
})

describe("invitation", () => {
  it("status texts", () => {
    expect(mapHttpError(res(400, { message: "invalid token" }), "invitation")).toEqual({ type: "INVALID_TOKEN", message: "Invalid invitation token. Please check your invitation link." })
    expect(mapHttpError(res(404, {}), "invitation").message).toBe("Invitation not found. The invitation may have been revoked.")
    expect(mapHttpError(res(410, {}), "invitation")).toEqual({ type: "TOKEN_EXPIRED", message: "Invitation has expired. Please request a new invitation." })
  })
  it("screen texts", () => {
    expect(invitationScreen(mapHttpError(res(410, {}), "invitation"))).toEqual({ kind: "expired", message: "This invitation has expired. Please request a new invitation." })
    expect(invitationScreen(mapHttpError(res(409, { message: "already accepted" }), "invitation"))).toEqual({ kind: "already-accepted", message: "This invitation has already been accepted. You can sign in now." })
    expect(invitationScreen(mapHttpError(res(400, {}), "invitation"))).toEqual({ kind: "invalid", message: "Invalid or expired invitation link" })
  })
  it("completion: message-contains rules", () => {
    const c = (m: string) => mapHttpError(res(400, { message: m }), "invitation-completion").message
    expect(c("Invitation already accepted")).toBe("You're already a member of this workspace")
    expect(c("User is already a member of the workspace")).toBe("You're already a member of this workspace")
    expect(c("Invitation expired")).toBe("This invitation has expired. Please request a new one.")
    expect(c("Invalid invitation token")).toBe("Invalid invitation link. Please check your email for the correct link.")
    expect(c("Something else")).toBe("Failed to complete signup")
    expect(mapHttpError(res(500, {}), "invitation-completion").message).toBe("Failed to complete signup")
  })
})

describe("other messages and team toasts", () => {
  const cases: ReadonlyArray<readonly [ErrorFlow, string]> = [
    ["forgot-password", "Failed to send password reset email"],
    ["select-workspace", "Failed to select workspace"],
    ["accept-workspace-invitation", "Failed to accept workspace invitation"],
    ["load-workspaces", "Failed to load workspaces"],
    ["team-add-member", "Failed to add team member"],
    ["team-invite", "Failed to send invitations"],
    ["team-resend-invitation", "Failed to resend invitation"],
    ["team-cancel-invitation", "Failed to cancel invitation"],
    ["team-delete-member", "Failed to delete team member"],
    ["team-update-member", "Failed to update team member"],
    ["profile-update", "Failed to update profile. Please try again."],
    ["password-change", "Failed to update password. Please try again."],
    ["team-load-members", "Failed to load team members"],
    ["team-load-invitations", "Failed to load invitations"],
  ]
  it.each(cases)("%s: fallback '%s' when the error has no message", (flow, text) => {
    expect(mapHttpError(res(500, { message: "Internal" }), flow).message).toBe(text)
    expect(mapHttpError(res(400, {}), flow).message).toBe(text)
  })
  it("team toasts use the error's message when available", () => {
    expect(mapHttpError(res(409, { message: "User already exists" }), "team-add-member").message).toBe("User already exists")
  })
  it("reset password: invalid/expired link vs failure", () => {
    expect(mapHttpError(res(410, {}), "reset-password").message).toBe("Invalid or expired reset link")
    expect(mapHttpError(res(400, { _tag: "InvalidToken", message: "Invalid token" }), "reset-password").message).toBe("Invalid or expired reset link")
    expect(mapHttpError(res(500, {}), "reset-password").message).toBe("Failed to reset password")
  })
})

describe("scanning §8", () => {
  it("account add", () => {
    expect(mapHttpError(res(409, { message: "dup" }), "account-add")).toEqual({ type: "CONFLICT_ERROR", message: "Account already exists" })
    expect(mapHttpError(res(500, {}), "account-add").message).toBe("Failed to add account. Please try again.")
    expect(mapHttpError(res(401, { message: "The security token included in the request is invalid" }), "account-add").message).toBe("The security token included in the request is invalid")
  })
  it("account delete, details, refresh", () => {
    expect(mapHttpError(res(500, {}), "account-delete").message).toBe("Failed to delete account")
    expect(mapHttpError(res(500, {}), "account-details").message).toBe("Failed to load account details")
    expect(mapHttpError(res(404, { message: "Account not found" }), "account-details").message).toBe("Account not found")
    expect(mapHttpError(res(500, {}), "account-refresh").message).toBe("Failed to refresh account details")
  })
  it("dashboard load", () => {
    expect(mapHttpError(NONE, "dashboard-load").message).toBe("Unable to connect to the server. Please check your internet connection.")
    expect(mapHttpError(res(401, {}), "dashboard-load").message).toBe("You are not authorized to view this data. Please sign in again.")
    expect(mapHttpError(res(503, {}), "dashboard-load").message).toBe("We're experiencing technical difficulties. Please try again later.")
    expect(mapHttpError(res(404, {}), "dashboard-load").message).toBe("Failed to fetch cloud provider accounts")
    expect(mapHttpError(res(400, { message: "Bad provider" }), "dashboard-load").message).toBe("Bad provider")
  })
  it("scan start, remediation, export, scan and finding load", () => {
    expect(mapHttpError(res(403, {}), "scan-start").message).toBe("Permission denied: Cannot launch scans")
    expect(mapHttpError(res(500, {}), "scan-start").message).toBe("Failed to start scan. Please try again.")
    expect(mapHttpError(res(500, {}), "remediation").message).toBe("Failed to remediate finding. Please try again.")
    expect(mapHttpError(res(403, {}), "remediation").message).toBe("You don't have permission to remediate findings")
    // Beyond the spec (issue 31): a retired member's refusal keeps the server's words; other conflicts keep the spec's text.
    const retired = "This account was retired from its organization: its findings can no longer be remediated"
    expect(mapHttpError(res(409, { message: retired, data: { error_type: "account_retired" } }), "remediation")).toEqual({ type: "CONFLICT_ERROR", message: retired })
    expect(mapHttpError(res(409, { message: "Scan is superseded" }), "remediation").message).toBe("Failed to remediate finding. Please try again.")
    expect(mapHttpError(res(500, {}), "export").message).toBe("Failed to export scan findings")
    expect(mapHttpError(res(409, { message: "Scan is not completed" }), "export").message).toBe("Scan is not completed")
    expect(mapHttpError(res(500, {}), "scan-load").message).toBe("Error loading scan details")
    expect(mapHttpError(res(500, {}), "finding-load").message).toBe("Failed to load finding details. Please try again.")
  })
})
