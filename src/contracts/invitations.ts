/**
 * Invitations area (access §3, §4, §5, §7): bulk invite (1–50, trimmed + lower-cased, no duplicates
 * case-insensitively), list, resend, cancel, check by token, accept by link (signed in) and the invitation
 * sign-up completion.
 */
import { Schema, SchemaTransformation } from "effect"
import { InvitationId, WorkspaceId } from "./ids.ts"
import { NullableTimestamp, Timestamp, withData } from "./common.ts"
import { Limits } from "./constants.ts"
import { ValidationMessages as M } from "./messages.ts"
import {
  Email,
  FirstName,
  LastName,
  NewPassword,
  fieldsMatch,
  formErrors,
  requiredString,
  withMatchRule,
  type FieldErrors,
} from "./validation.ts"

export const INVITATION_STATUSES = ["pending", "accepted", "expired", "canceled"] as const
export const InvitationStatus = Schema.Literals(INVITATION_STATUSES)
export type InvitationStatus = typeof InvitationStatus.Type

/** Access §4: 'pending' is the only status that permits resend or cancel. */
export const canResendOrCancel = (status: string): boolean => status === "pending"

/** Access §3 invitation list item. */
export const Invitation = Schema.Struct({
  id: InvitationId,
  email: Schema.String,
  status: InvitationStatus,
  role_name: Schema.NullOr(Schema.String),
  created_at: Timestamp,
  expires_at: NullableTimestamp,
  invited_by_first_name: Schema.NullOr(Schema.String),
  invited_by_last_name: Schema.NullOr(Schema.String),
  invited_by_email: Schema.NullOr(Schema.String),
  invite_link: Schema.NullOr(Schema.String),
  invitation_token: Schema.NullOr(Schema.String),
})
export type Invitation = typeof Invitation.Type

export const InvitationListResponse = withData(Schema.Array(Invitation))
export type InvitationListResponse = typeof InvitationListResponse.Type

/**
 * Access §4: the link is `invite_link`; without one but with a token it is the origin + /invitation/signup?token=…;
 * with neither, undefined ('No invitation link available').
 */
export const invitationLink = (
  inv: { readonly invite_link: string | null; readonly invitation_token: string | null },
  origin: string,
): string | undefined => {
  if (inv.invite_link) return inv.invite_link
  if (inv.invitation_token) return `${origin}/invitation/signup?token=${encodeURIComponent(inv.invitation_token)}`
  return undefined
}

/** Access §2: 'Invited by' name or email or a dash. */
export const invitedBy = (inv: Pick<Invitation, "invited_by_first_name" | "invited_by_last_name" | "invited_by_email">): string => {
  const name = `${inv.invited_by_first_name ?? ""} ${inv.invited_by_last_name ?? ""}`.trim()
  return name !== "" ? name : inv.invited_by_email ?? "-"
}

// ---------------------------------------------------------------------------------------------------
// Bulk invite

const InviteRoleId = Schema.Int.check(Schema.isGreaterThan(0, { message: M.selectRole })).pipe(
  Schema.brand("RoleId"),
  Schema.annotateKey({ messageMissingKey: M.selectRole }),
)

/** Emails are trimmed and lower-cased before validation and sending. */
export const NormalizedEmail = Schema.String.pipe(
  Schema.decodeTo(
    Email,
    SchemaTransformation.transform({ decode: (s: string) => s.trim().toLowerCase(), encode: (s: string) => s }),
  ),
)

export const InvitationEntry = Schema.Struct({
  email: NormalizedEmail,
  role_id: InviteRoleId,
  is_custom_role: Schema.Boolean,
})
export type InvitationEntry = typeof InvitationEntry.Type

const noDuplicateEmails = Schema.makeFilter((list: ReadonlyArray<{ readonly email: string }>) => {
  const seen = new Set<string>()
  for (const [i, e] of list.entries()) {
    const k = e.email.trim().toLowerCase()
    if (seen.has(k)) return { path: [i, "email"], issue: M.invitationsDuplicate }
    seen.add(k)
  }
  return undefined
})

/** Access §5: 1 to 50 invitations, each with an email and a role, no duplicate emails (case-insensitive). */
export const BulkInvitePayload = Schema.Struct({
  invitations: Schema.Array(InvitationEntry)
    .check(
      Schema.isMinLength(Limits.invitationsMin, { message: M.invitationsMin }),
      Schema.isMaxLength(Limits.invitationsMax, { message: M.invitationsMax }),
    )
    .check(noDuplicateEmails)
    .pipe(Schema.annotateKey({ messageMissingKey: M.invitationsMin })),
})
export type BulkInvitePayload = typeof BulkInvitePayload.Type

/** Trim + lower-case every email (access §5) — apply before validating and sending. */
export const normalizeInvitations = <T extends { readonly email: string }>(rows: ReadonlyArray<T>): ReadonlyArray<T> =>
  rows.map((r) => ({ ...r, email: r.email.trim().toLowerCase() }))

/**
 * Invite form: keys are `invitations` (list-level: count, duplicates) and `invitations.<i>.email` /
 * `invitations.<i>.role_id` per row. Emails are normalised first.
 */
export const validateInvitations = (input: { readonly invitations: ReadonlyArray<Record<string, unknown>> }): FieldErrors => {
  const rows = input.invitations.map((r) => ({ ...r, email: typeof r["email"] === "string" ? r["email"].trim().toLowerCase() : r["email"] }))
  const errors = formErrors(BulkInvitePayload, { invitations: rows })
  const out: Record<string, string> = {}
  for (const [k, v] of Object.entries(errors)) {
    // The duplicate rule reports on the row; the list-level message is shown once as well.
    if (v === M.invitationsDuplicate && !("invitations" in out)) out["invitations"] = v
    out[k] = v
  }
  return out
}

export const SkippedEmail = Schema.Struct({ email: Schema.String, reason: Schema.String })
export type SkippedEmail = typeof SkippedEmail.Type

/** Answer sent_count, resent_count, skipped_count, skipped_emails. */
export const BulkInviteResponse = Schema.Struct({
  ok: Schema.optionalKey(Schema.Boolean),
  message: Schema.optionalKey(Schema.String),
  sent_count: Schema.Int,
  resent_count: Schema.Int,
  skipped_count: Schema.Int,
  skipped_emails: Schema.Array(SkippedEmail),
})
export type BulkInviteResponse = typeof BulkInviteResponse.Type

export const ResendInvitationResponse = Schema.Struct({
  ok: Schema.Boolean,
  message: Schema.String,
  data: Schema.optionalKey(Schema.Struct({ email: Schema.String, expires_at: Timestamp })),
})
export type ResendInvitationResponse = typeof ResendInvitationResponse.Type

// ---------------------------------------------------------------------------------------------------
// Check, accept, complete

/** GET /api/invitation/verify/{token}: email, workspace_name, role_name. */
export const InvitationCheckResponse = Schema.Struct({
  ok: Schema.optionalKey(Schema.Boolean),
  email: Schema.String,
  workspace_name: Schema.String,
  role_name: Schema.NullOr(Schema.String),
  status: Schema.optionalKey(InvitationStatus),
  user_exists: Schema.optionalKey(Schema.Boolean),
})
export type InvitationCheckResponse = typeof InvitationCheckResponse.Type

const InvitationToken = requiredString(M.invitationTokenInvalid)

const AcceptFields = Schema.Struct({
  invitation_token: InvitationToken,
  timezone: Schema.optionalKey(Schema.String),
  first_name: Schema.optionalKey(FirstName),
  last_name: Schema.optionalKey(LastName),
  password: Schema.optionalKey(NewPassword),
  confirm_password: Schema.optionalKey(Schema.String),
})
/**
 * Accept by link (both paths): `invitation_token` + `timezone` for a signed-in user, plus the completion
 * fields (first_name, last_name, password, confirm_password) for a new user.
 */
export const AcceptInvitationPayload = AcceptFields.check(
  Schema.makeFilter((v: typeof AcceptFields.Type) =>
    v.password !== undefined && v.password !== v.confirm_password
      ? { path: ["confirm_password"], issue: M.passwordsDontMatch }
      : undefined,
  ),
)
export type AcceptInvitationPayload = typeof AcceptInvitationPayload.Type

/** Access §3 invitation completion payload fields (all required except timezone), without the match check. */
export const InvitationCompletionFields = Schema.Struct({
  invitation_token: InvitationToken,
  first_name: FirstName,
  last_name: LastName,
  password: NewPassword,
  confirm_password: requiredString(M.confirmPasswordRequired),
  timezone: Schema.optionalKey(Schema.String),
})
export const InvitationCompletionPayload = InvitationCompletionFields.check(
  fieldsMatch<typeof InvitationCompletionFields.Type>("password", "confirm_password", M.passwordsDontMatch),
)
export type InvitationCompletionPayload = typeof InvitationCompletionPayload.Type
export const validateInvitationSignup = (input: unknown): FieldErrors =>
  withMatchRule(formErrors(InvitationCompletionPayload, input), input, "password", "confirm_password", M.passwordsDontMatch)

/** Access §5: a missing invitation token on the signup screen. */
export const checkInvitationToken = (token: string | null | undefined): string | undefined =>
  token && token.trim() !== "" ? undefined : M.invitationTokenInvalid

/** Response: ok, access_token, refresh_token (new users / signed-in accept), message, data.workspace_name. */
export const AcceptInvitationResponse = Schema.Struct({
  ok: Schema.Boolean,
  message: Schema.String,
  access_token: Schema.optionalKey(Schema.String),
  refresh_token: Schema.optionalKey(Schema.String),
  data: Schema.Struct({
    workspace_id: Schema.optionalKey(WorkspaceId),
    workspace_name: Schema.String,
    email: Schema.optionalKey(Schema.String),
  }),
})
export type AcceptInvitationResponse = typeof AcceptInvitationResponse.Type

