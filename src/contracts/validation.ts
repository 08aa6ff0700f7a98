/**
 * Field rules of access §5 and scanning §5 as effect/Schema checks carrying the spec's exact messages,
 * plus `formErrors`, the pure helper behind every `validateX(input) => Record<field, message>`.
 *
 * Decode failures of these schemas carry the spec text (the server's 400 `ValidationError.errors` and the
 * SPA's inline field errors come from the same checks). Only the first message per field is kept by
 * `formErrors`, so checks are ordered: "required" before "format".
 */
import { Result, Schema, SchemaIssue } from "effect"
import { StatusMessages, ValidationMessages as M } from "./messages.ts"
import { Limits } from "./constants.ts"
import { ValidationError, type FieldIssue } from "./errors.ts"
import { EMAIL_RE } from "./sign-in-rules.ts"

export { isValidEmail } from "./sign-in-rules.ts"

/** Access §5 email: required ('Email is required'), valid format ('Please enter a valid email address'). */
export const Email = Schema.String.check(
  Schema.isMinLength(1, { message: M.emailRequired }),
  Schema.isPattern(EMAIL_RE, { message: M.emailInvalid }),
).pipe(Schema.annotateKey({ messageMissingKey: M.emailRequired }))

/** Any non-empty string, with a custom "required" text. */
export const requiredString = (message: string) =>
  Schema.String.check(Schema.isMinLength(1, { message })).pipe(Schema.annotateKey({ messageMissingKey: message }))

/** A string of 1..max characters with the spec's "required" and "too long" texts. */
export const boundedString = (max: number, requiredMessage: string, tooLongMessage: string) =>
  Schema.String.check(
    Schema.isMinLength(1, { message: requiredMessage }),
    Schema.isMaxLength(max, { message: tooLongMessage }),
  ).pipe(Schema.annotateKey({ messageMissingKey: requiredMessage }))

/** Access §5: names 1 to 50 characters. */
export const FirstName = boundedString(Limits.nameMax, M.firstNameRequired, M.firstNameTooLong)
export const LastName = boundedString(Limits.nameMax, M.lastNameRequired, M.lastNameTooLong)

/** Access §5 sign-in password: at least 8 characters. */
export const SignInPassword = Schema.String.check(
  Schema.isMinLength(1, { message: M.passwordRequired }),
  Schema.isMinLength(Limits.passwordMin, { message: M.passwordMin }),
).pipe(Schema.annotateKey({ messageMissingKey: M.passwordRequired }))

/** Access §5 composition rule: a lowercase, an uppercase and a digit. */
export const hasPasswordComposition = (s: string): boolean => /[a-z]/.test(s) && /[A-Z]/.test(s) && /\d/.test(s)

/** Access §5 signup/reset/invitation/change password: at least 8, with the composition rule. */
export const NewPassword = Schema.String.check(
  Schema.isMinLength(1, { message: M.passwordRequired }),
  Schema.isMinLength(Limits.passwordMin, { message: M.passwordMin }),
  Schema.makeFilter((s: string) => hasPasswordComposition(s) || M.passwordComposition),
).pipe(Schema.annotateKey({ messageMissingKey: M.passwordRequired }))

/** Access §5: workspace name at least 3 characters (surrounding spaces do not count). */
export const WorkspaceName = Schema.String.check(
  Schema.makeFilter((s: string) => s.trim().length >= Limits.workspaceNameMin || M.workspaceNameMin),
).pipe(Schema.annotateKey({ messageMissingKey: M.workspaceNameMin }))

/** Access §5 profile: timezone optional but non-empty when given. */
export const TimezoneValue = Schema.String.check(Schema.isMinLength(1, { message: M.timezoneEmpty }))

/** Access §5 verification link: token at least 32 characters. */
export const VerificationToken = Schema.String.check(
  Schema.isMinLength(Limits.verificationTokenMin, { message: M.verificationTokenFormat }),
).pipe(Schema.annotateKey({ messageMissingKey: M.verificationMissingParams }))

/** Access §5 verification link: a valid email. */
export const VerificationEmail = Schema.String.check(
  Schema.isPattern(EMAIL_RE, { message: M.verificationEmailFormat }),
).pipe(Schema.annotateKey({ messageMissingKey: M.verificationMissingParams }))

/**
 * A struct-level rule "field `b` must equal field `a`" reported on `b` (the confirm field). Struct checks
 * run only when every field decoded, so the form helpers also call `matchRule` directly.
 */
export const fieldsMatch = <T extends object>(a: keyof T & string, b: keyof T & string, message: string) =>
  Schema.makeFilter<T>((value) => (value[a] === value[b] ? undefined : { path: [b], issue: message }))

export type FieldErrors = Readonly<Record<string, string>>

const formatter = SchemaIssue.makeFormatterStandardSchemaV1()

/** Flattened `{ path, message }` list of a schema issue (paths dot-joined; root problems get path ""). */
export const fieldIssues = (issue: SchemaIssue.Issue): ReadonlyArray<FieldIssue> =>
  formatter(issue).issues.map((i) => ({
    path: (i.path ?? []).map((p) => (typeof p === "object" && p !== null && "key" in p ? String(p.key) : String(p))).join("."),
    message: i.message,
  }))

/** Flattened `{ path, message }` list of decoding `input` with `schema` (every issue). */
export const issuesOf = (schema: Schema.Top & Schema.Decoder<unknown, never>, input: unknown): ReadonlyArray<FieldIssue> => {
  const r = Schema.decodeUnknownResult(schema)(input, { errors: "all" })
  return Result.isSuccess(r) ? [] : fieldIssues(r.failure.issue)
}

/**
 * The catalogue's 400 for a schema issue: `message` is the first problem's text (a spec message when the
 * rule has one), `errors` lists every problem. The server's decode-error mapping uses this.
 */
export const validationErrorFromIssue = (issue: SchemaIssue.Issue): ValidationError => {
  const errors = fieldIssues(issue)
  return new ValidationError({ message: errors[0]?.message ?? StatusMessages.badRequest, errors: [...errors] })
}

/**
 * Runs `schema` on `input` and returns the first message per field (top-level key; nested paths such as
 * `invitations.2.email` are kept as they are). `{}` means valid.
 */
export const formErrors = (schema: Schema.Top & Schema.Decoder<unknown, never>, input: unknown): FieldErrors => {
  const out: Record<string, string> = {}
  for (const { path, message } of issuesOf(schema, input)) {
    if (!(path in out)) out[path] = message
  }
  return out
}

/** Adds `message` on `field` when the two raw values differ and `field` has no error yet. */
export const withMatchRule = (
  errors: FieldErrors,
  input: unknown,
  a: string,
  b: string,
  message: string,
): FieldErrors => {
  if (b in errors || typeof input !== "object" || input === null) return errors
  const r = input as Record<string, unknown>
  return r[a] === r[b] ? errors : { ...errors, [b]: message }
}

// ---------------------------------------------------------------------------------------------------
// Characters no field can carry (issue 27): checked by the server on every request before any handler runs
// (server/http/input-characters.ts), so each endpoint answers 400 instead of failing in PostgreSQL or an SDK.

/** NUL (PostgreSQL text and JSON refuse it) and the other C0 controls but tab, line feed and carriage return. */
const CONTROL_IN_TEXT = /[\u0000-\u0008\u000b\u000c\u000e-\u001f]/
/** Any C0 control or DEL: nothing in a URL, a credential or a one-line identifier needs one. */
const CONTROL_IN_LINE = /[\u0000-\u001f\u007f]/
/** A UTF-16 surrogate without its pair: not Unicode (UTF-8 cannot encode it; PostgreSQL's JSON refuses `\ud800`). */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/

/** Whether a string from a JSON body can be stored and sent on: no NUL, no control but tab/LF/CR, no lone surrogate. */
export const isStorableText = (s: string): boolean => !CONTROL_IN_TEXT.test(s) && !LONE_SURROGATE.test(s)

/** Whether a one-line value (URL segment, query value, credential, header-bound id) has no control and no lone surrogate. */
export const isStorableLine = (s: string): boolean => !CONTROL_IN_LINE.test(s) && !LONE_SURROGATE.test(s)
