/**
 * Auth area (access §3, §5, §7): login, signup, logout, token refresh, user info, forgot/reset password,
 * email verification and resend. Wire payloads are plain JSON strings (passwords and tokens included);
 * `*Form` schemas are the SPA forms with their extra fields (confirm password) and the spec's messages.
 */
import { Schema } from "effect"
import { UserId, RoleId } from "./ids.ts"
import { SecretString, withData } from "./common.ts"
import { RefreshMessages, ValidationMessages as M } from "./messages.ts"
import {
  Email,
  FirstName,
  LastName,
  NewPassword,
  SignInPassword,
  VerificationEmail,
  VerificationToken,
  WorkspaceName,
  fieldsMatch,
  formErrors,
  requiredString,
  withMatchRule,
  type FieldErrors,
} from "./validation.ts"

// ---------------------------------------------------------------------------------------------------
// Entities

/** Timezone option: value (IANA name), label, offset (e.g. "+05:30"). */
export const Timezone = Schema.Struct({
  value: Schema.String,
  label: Schema.String,
  offset: Schema.String,
})
export type Timezone = typeof Timezone.Type

/** Role reference: id, name, is_custom (optional). */
export const RoleRef = Schema.Struct({
  id: RoleId,
  name: Schema.String,
  is_custom: Schema.optionalKey(Schema.Boolean),
})
export type RoleRef = typeof RoleRef.Type

/** Access §3 User (+ `id`, which the scan-start payload needs as `user_id`). */
export const User = Schema.Struct({
  id: UserId,
  email: Schema.String,
  email_verified: Schema.Boolean,
  first_name: Schema.String,
  last_name: Schema.String,
  workspace_name: Schema.NullOr(Schema.String),
  roles: Schema.Array(RoleRef),
  timezone: Schema.NullOr(Timezone),
  is_owner: Schema.optionalKey(Schema.Boolean),
})
export type User = typeof User.Type

/** `GET /api/user-info`: data is the user. */
export const UserInfoResponse = withData(User)
export type UserInfoResponse = typeof UserInfoResponse.Type

/** Token response: access_token and refresh_token. */
export const TokenResponse = Schema.Struct({
  access_token: Schema.String,
  refresh_token: Schema.String,
})
export type TokenResponse = typeof TokenResponse.Type

// ---------------------------------------------------------------------------------------------------
// Login

/** Wire payload: the server does not apply the form's length rule (a short wrong password is a 401). */
export const LoginPayload = Schema.Struct({
  email: Email,
  password: requiredString(M.passwordRequired),
})
export type LoginPayload = typeof LoginPayload.Type

/** Server-side view of the login payload: the password held as `Redacted<string>`. */
export const ServerLoginPayload = Schema.Struct({ ...LoginPayload.fields, password: SecretString })
export type ServerLoginPayload = typeof ServerLoginPayload.Type

export const LoginForm = Schema.Struct({ email: Email, password: SignInPassword })
export type LoginForm = typeof LoginForm.Type
export const validateLogin = (input: unknown): FieldErrors => formErrors(LoginForm, input)

export const LoginResponse = Schema.Struct({
  access_token: Schema.String,
  refresh_token: Schema.String,
  data: User,
})
export type LoginResponse = typeof LoginResponse.Type


// ---------------------------------------------------------------------------------------------------
// Signup

export const SignupPayload = Schema.Struct({
  first_name: FirstName,
  last_name: LastName,
  email: Email,
  password: NewPassword,
  workspace_name: WorkspaceName,
  timezone: Schema.optionalKey(Schema.String),
})
export type SignupPayload = typeof SignupPayload.Type

/** The sign-up form without its cross-field rule (for generators; `SignupForm` adds the match check). */
export const SignupFormFields = Schema.Struct({
  ...SignupPayload.fields,
  confirm_password: requiredString(M.confirmPasswordRequired),
})
export const SignupForm = SignupFormFields.check(
  fieldsMatch<typeof SignupFormFields.Type>("password", "confirm_password", M.passwordsDontMatch),
)
export type SignupForm = typeof SignupForm.Type
export const validateSignup = (input: unknown): FieldErrors =>
  withMatchRule(formErrors(SignupForm, input), input, "password", "confirm_password", M.passwordsDontMatch)

export const SignupNote = Schema.Literal("verification_pending")
export const SignupResponse = Schema.Struct({
  ok: Schema.Boolean,
  status_code: Schema.Int,
  message: Schema.String,
  data: Schema.Struct({ note: SignupNote, email: Schema.optionalKey(Schema.String) }),
})
export type SignupResponse = typeof SignupResponse.Type

// ---------------------------------------------------------------------------------------------------
// Logout / refresh

export const LogoutPayload = Schema.Struct({ refresh_token: Schema.String })
export type LogoutPayload = typeof LogoutPayload.Type

export const RefreshPayload = Schema.Struct({ refresh_token: requiredString(RefreshMessages.noRefreshToken) })
export type RefreshPayload = typeof RefreshPayload.Type

// ---------------------------------------------------------------------------------------------------
// Forgot / reset password

export const ForgotPasswordPayload = Schema.Struct({ email: Email })
export type ForgotPasswordPayload = typeof ForgotPasswordPayload.Type
export const validateForgotPassword = (input: unknown): FieldErrors => formErrors(ForgotPasswordPayload, input)

export const ValidateResetTokenPayload = Schema.Struct({ token: requiredString(M.resetTokenRequired) })
export type ValidateResetTokenPayload = typeof ValidateResetTokenPayload.Type
export const ValidateResetTokenResponse = withData(Schema.Struct({ email: Schema.String }))
export type ValidateResetTokenResponse = typeof ValidateResetTokenResponse.Type

/** Without the match check (schema-derived generators cannot satisfy it; copy new_password into confirm_password). */
export const ResetPasswordFields = Schema.Struct({
  token: requiredString(M.resetTokenRequired),
  new_password: NewPassword,
  confirm_password: requiredString(M.confirmPasswordRequired),
})
/** Access §5 reset: new_password as signup; confirm required and must match. */
export const ResetPasswordPayload = ResetPasswordFields.check(
  fieldsMatch<typeof ResetPasswordFields.Type>("new_password", "confirm_password", M.passwordsDontMatch),
)
export type ResetPasswordPayload = typeof ResetPasswordPayload.Type
export const validateResetPassword = (input: unknown): FieldErrors =>
  withMatchRule(formErrors(ResetPasswordPayload, input), input, "new_password", "confirm_password", M.passwordsDontMatch)

// ---------------------------------------------------------------------------------------------------
// Email verification

/** Access §5 verification link: token ≥ 32, valid email, both present. GET query and POST body alike. */
export const VerifyEmailParams = Schema.Struct({ token: VerificationToken, email: VerificationEmail })
export type VerifyEmailParams = typeof VerifyEmailParams.Type

/**
 * The verify-email screen's link check (access §5): missing parameter → 'Invalid verification link.
 * Missing required parameters.', then the token format, then the email format. Returns the one message
 * to show, or undefined when the link is well formed.
 */
export const checkVerificationLink = (params: {
  readonly token?: string | null | undefined
  readonly email?: string | null | undefined
}): string | undefined => {
  if (!params.token || !params.email) return M.verificationMissingParams
  const errors = formErrors(VerifyEmailParams, { token: params.token, email: params.email })
  return errors["token"] ?? errors["email"]
}

export const VerifyEmailResponse = Schema.Struct({
  ok: Schema.Boolean,
  message: Schema.String,
  data: Schema.optionalKey(Schema.Struct({ email: Schema.String, already_verified: Schema.optionalKey(Schema.Boolean) })),
})
export type VerifyEmailResponse = typeof VerifyEmailResponse.Type

export const ResendVerificationPayload = Schema.Struct({ email: Email })
export type ResendVerificationPayload = typeof ResendVerificationPayload.Type
export const validateResendVerification = (input: unknown): FieldErrors => formErrors(ResendVerificationPayload, input)

/** Access §3: data.email and data.expires_in_minutes. */
export const ResendVerificationResponse = Schema.Struct({
  ok: Schema.Boolean,
  message: Schema.String,
  data: Schema.Struct({ email: Schema.String, expires_in_minutes: Schema.Int }),
})
export type ResendVerificationResponse = typeof ResendVerificationResponse.Type

/** Access §5 "Token refresh needs ... both a new access token and a new refresh token". */
export const isValidTokenResponse = (u: unknown): u is TokenResponse => {
  if (typeof u !== "object" || u === null) return false
  const r = u as Record<string, unknown>
  return typeof r["access_token"] === "string" && r["access_token"] !== "" && typeof r["refresh_token"] === "string" && r["refresh_token"] !== ""
}

