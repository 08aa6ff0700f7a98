/**
 * The rules the sign-in page needs, without a schema library: sign-in is the first page a visitor loads, before
 * effect/Schema and the rest of the contracts have arrived (issue 17). `Email` and `SignInPassword` in validation.ts are
 * the same rules as schemas (the server's and every other form's); tests/contracts/sign-in-rules.test.ts checks on
 * random input that both give the same messages.
 */
import { Limits } from "./constants.ts"
import { ValidationMessages as M } from "./messages.ts"

/** Pragmatic email syntax (local@domain.tld, no whitespace). */
export const EMAIL_RE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/

export const isValidEmail = (s: string): boolean => EMAIL_RE.test(s)

/** Access §5 email: 'Email is required', then 'Please enter a valid email address'. */
export const emailProblem = (email: string): string | undefined =>
  email.length === 0 ? M.emailRequired : isValidEmail(email) ? undefined : M.emailInvalid

/** Access §5 sign-in password: required, then at least 8 characters. */
export const signInPasswordProblem = (password: string): string | undefined =>
  password.length === 0 ? M.passwordRequired : password.length < Limits.passwordMin ? M.passwordMin : undefined

/** The sign-in form's field errors (`{}` when valid): the first problem of each field. */
export const signInFormErrors = (form: { readonly email: string; readonly password: string }): Readonly<Record<string, string>> => {
  const errors: Record<string, string> = {}
  const email = emailProblem(form.email)
  const password = signInPasswordProblem(form.password)
  if (email !== undefined) errors["email"] = email
  if (password !== undefined) errors["password"] = password
  return errors
}
