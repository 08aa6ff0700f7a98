/**
 * Profile area (access §2, §3, §5, §7): update profile (names, email, timezone), change password, and the
 * timezone list. Save actions are disabled unless the form changed (`changedProfileFields`).
 */
import { Schema } from "effect"
import { OkMessage, withData } from "./common.ts"
import { Timezone, User } from "./auth.ts"
import { ValidationMessages as M } from "./messages.ts"
import {
  Email,
  FirstName,
  LastName,
  NewPassword,
  TimezoneValue,
  fieldsMatch,
  formErrors,
  requiredString,
  withMatchRule,
  type FieldErrors,
} from "./validation.ts"

/** Access §3 profile update: email, first_name, last_name, timezone (optional, non-empty when given). */
export const UpdateProfilePayload = Schema.Struct({
  email: Email,
  first_name: FirstName,
  last_name: LastName,
  timezone: Schema.optionalKey(TimezoneValue),
})
export type UpdateProfilePayload = typeof UpdateProfilePayload.Type
export const validateProfile = (input: unknown): FieldErrors => formErrors(UpdateProfilePayload, input)

export const UpdateProfileResponse = Schema.Struct({
  ok: Schema.Boolean,
  message: Schema.String,
  data: Schema.optionalKey(User),
})
export type UpdateProfileResponse = typeof UpdateProfileResponse.Type

/** Access §2 confirmation dialog labels, in display order. */
export const PROFILE_FIELD_LABELS = {
  first_name: "First Name",
  last_name: "Last Name",
  email: "Email",
  timezone: "Timezone",
} as const
export type ProfileField = keyof typeof PROFILE_FIELD_LABELS

/** The changed fields with old and new values (empty → Save and Reset stay disabled). */
export const changedProfileFields = (
  before: { readonly [K in ProfileField]?: string | null | undefined },
  after: { readonly [K in ProfileField]?: string | null | undefined },
): ReadonlyArray<{ readonly field: ProfileField; readonly label: string; readonly from: string; readonly to: string }> =>
  (Object.keys(PROFILE_FIELD_LABELS) as Array<ProfileField>)
    .filter((k) => (before[k] ?? "") !== (after[k] ?? ""))
    .map((k) => ({ field: k, label: PROFILE_FIELD_LABELS[k], from: before[k] ?? "", to: after[k] ?? "" }))

/** Without the match check (for generators). */
export const ChangePasswordFields = Schema.Struct({
  current_password: requiredString(M.currentPasswordRequired),
  new_password: NewPassword,
  confirm_password: requiredString(M.confirmPasswordRequired),
})
/** Access §5 change password: current required, new ≥ 8 with composition, confirm ("New passwords don't match"). */
export const ChangePasswordPayload = ChangePasswordFields.check(
  fieldsMatch<typeof ChangePasswordFields.Type>("new_password", "confirm_password", M.newPasswordsDontMatch),
)
export type ChangePasswordPayload = typeof ChangePasswordPayload.Type
export const validateChangePassword = (input: unknown): FieldErrors =>
  withMatchRule(formErrors(ChangePasswordPayload, input), input, "new_password", "confirm_password", M.newPasswordsDontMatch)

export const ChangePasswordResponse = OkMessage

/** Timezones response: data.timezones. */
export const TimezonesResponse = withData(Schema.Struct({ timezones: Schema.Array(Timezone) }))
export type TimezonesResponse = typeof TimezonesResponse.Type
