/**
 * Input the contract's schemas accept but PostgreSQL or SMTP cannot store or use: NUL characters (PostgreSQL text
 * refuses 0x00) and e-mail addresses longer than RFC 5321 allows (254). Checked on the decoded params, query and
 * payload of every identity handler, answered 400 ValidationError instead of failing in the database (found by
 * tests/identity/fuzz.test.ts).
 */
import { Effect } from "effect"
import { ValidationError } from "../../../src/contracts/errors.ts"
import { PlatformMessages, StatusMessages, ValidationMessages } from "../../../src/contracts/messages.ts"

const MAX_EMAIL = 254

const problems = (value: unknown, path: Array<string>, out: Array<{ path: string; message: string }>): void => {
  if (typeof value === "string") {
    if (value.includes("\u0000")) out.push({ path: path.join("."), message: PlatformMessages.invalidCharacter })
    else if (/(^|_)email$/.test(path.at(-1) ?? "") && value.length > MAX_EMAIL) {
      out.push({ path: path.join("."), message: ValidationMessages.emailInvalid })
    }
  } else if (Array.isArray(value)) {
    value.forEach((v, i) => problems(v, [...path, String(i)], out))
  } else if (value !== null && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) problems(v, [...path, k], out)
  }
}

export const checkInput = (args: { readonly payload?: unknown; readonly query?: unknown; readonly params?: unknown }) => {
  const out: Array<{ path: string; message: string }> = []
  problems(args.payload, [], out)
  problems(args.query, ["query"], out)
  problems(args.params, ["params"], out)
  return out.length === 0
    ? Effect.void
    : Effect.fail(new ValidationError({ message: out[0]?.message ?? StatusMessages.badRequest, errors: out }))
}

/** Wraps a handler so its decoded input is checked first. */
export const guard = <Args, A, E, R>(handler: (args: Args) => Effect.Effect<A, E, R>) =>
(args: Args): Effect.Effect<A, E | ValidationError, R> =>
  Effect.andThen(
    checkInput(args as { readonly payload?: unknown; readonly query?: unknown; readonly params?: unknown }),
    Effect.suspend(() => handler(args)),
  )
