/**
 * Password hashing with argon2id (@node-rs/argon2; the `algorithm` option is omitted because argon2id is the default
 * and the enum is an ambient const enum, STACK G13). Hashes carry their parameters (PHC string), so a sign-in can tell
 * when a stored hash is weaker than the current policy and upgrade it.
 */
import { hash, parseOptions, verify } from "@node-rs/argon2"
import { Effect } from "effect"

export interface PasswordParams {
  /** KiB of memory per hash. */
  readonly memoryCost: number
  readonly timeCost: number
  readonly parallelism: number
}

/** The floor the issue sets: memory ≥ 19 MiB, time cost ≥ 2. Tests may hash with exactly this. */
export const MINIMUM_PASSWORD_PARAMS: PasswordParams = { memoryCost: 19456, timeCost: 2, parallelism: 1 }

/** What the product uses: 32 MiB, 3 passes (≈50 ms on one core). */
export const PRODUCTION_PASSWORD_PARAMS: PasswordParams = { memoryCost: 32768, timeCost: 3, parallelism: 1 }

export const isAtLeastMinimum = (p: PasswordParams): boolean =>
  p.memoryCost >= MINIMUM_PASSWORD_PARAMS.memoryCost && p.timeCost >= MINIMUM_PASSWORD_PARAMS.timeCost && p.parallelism >= 1

export const hashPassword = (password: string, params: PasswordParams): Effect.Effect<string> =>
  Effect.promise(() => hash(password, { memoryCost: params.memoryCost, timeCost: params.timeCost, parallelism: params.parallelism }))

/** The parameters a stored hash was made with; undefined when it is not an argon2 PHC string. */
export const hashParams = (stored: string): (PasswordParams & { readonly argon2id: boolean }) | undefined => {
  try {
    const o = parseOptions(stored)
    return { memoryCost: o.memoryCost, timeCost: o.timeCost, parallelism: o.parallelism, argon2id: o.algorithm === 2 }
  } catch {
    return undefined
  }
}

/** True when the stored hash is not argon2id or any parameter is below the policy. */
export const needsRehash = (stored: string, policy: PasswordParams): boolean => {
  const p = hashParams(stored)
  return p === undefined || !p.argon2id || p.memoryCost < policy.memoryCost || p.timeCost < policy.timeCost ||
    p.parallelism < policy.parallelism
}

export const verifyPassword = (stored: string, password: string): Effect.Effect<boolean> =>
  Effect.promise(() => verify(stored, password).catch(() => false))

/**
 * A hash of a random password made with the policy's parameters, verified against when the email is unknown so that
 * unknown and known emails take about the same time.
 */
export const makeDummyHash = (params: PasswordParams): Effect.Effect<string> =>
  hashPassword(`dummy-${Math.random()}-${Date.now()}`, params)
