/**
 * Mapping database failures: a unique violation of a named constraint becomes a domain error (e.g. 409 Conflict);
 * every other SqlError is a defect (the platform answers 500 ServerError and logs the cause).
 */
import { Effect } from "effect"
import type { SqlError } from "effect/sql/SqlError"

export const onUniqueViolation = <E2>(constraint: string, toError: () => E2) =>
  <A, E, R>(self: Effect.Effect<A, E | SqlError, R>): Effect.Effect<A, E | E2 | SqlError, R> =>
    Effect.catchIf(
      self,
      (e): e is SqlError =>
        typeof e === "object" && e !== null && (e as { _tag?: unknown })._tag === "SqlError" &&
        (e as SqlError).reason._tag === "UniqueViolation" &&
        ((e as SqlError).reason as { constraint?: string }).constraint === constraint,
      () => Effect.fail(toError()),
    ) as Effect.Effect<A, E | E2 | SqlError, R>

/** Every remaining SqlError becomes a defect. */
export const sqlDefects = <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, Exclude<E, SqlError>, R> =>
  Effect.catchIf(
    self,
    (e): e is Extract<E, SqlError> => typeof e === "object" && e !== null && (e as { _tag?: unknown })._tag === "SqlError",
    (e) => Effect.die(e),
  ) as Effect.Effect<A, Exclude<E, SqlError>, R>
