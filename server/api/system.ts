/**
 * The `system` group.
 *
 * - GET /api/health: checks the database with `SELECT 1` and answers 200 { status: "ok", database: "ok" },
 *   or 503 `ServiceUnavailable` when the database does not answer within HEALTH_DB_TIMEOUT. The deadline is
 *   hard: the query runs on its own fiber and is abandoned (interrupted in the background) at the deadline,
 *   because interrupting an in-flight query makes the driver cancel and drain it, which can take seconds
 *   more when the database is stuck. Load balancers and the e2e setup use it.
 * - GET /api/dev/outbox: 501 until the mail area implements it here (add `.handle("devOutbox", ...)`
 *   before `fillNotImplemented`).
 */
import { type Duration, Effect, Exit, Fiber } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { SqlClient } from "effect/sql"
import { Api } from "../../src/contracts/api.ts"
import { ServiceUnavailable } from "../../src/contracts/errors.ts"
import { PlatformMessages } from "../../src/contracts/messages.ts"
import { devOutboxHandler } from "./dev-outbox.ts"
import { fillNotImplemented } from "./not-implemented.ts"

export const HEALTH_DB_TIMEOUT = "3 seconds"

/** `SELECT 1` within `timeout`, without waiting for an abandoned query to be cancelled. */
export const checkDatabase = (sql: SqlClient.SqlClient, timeout: Duration.Input = HEALTH_DB_TIMEOUT) =>
  Effect.gen(function* () {
    const query = yield* Effect.forkDetach(sql`SELECT 1 AS ok`)
    return yield* Fiber.join(query).pipe(
      Effect.timeout(timeout),
      Effect.onExit((exit) => (Exit.isSuccess(exit) ? Effect.void : Effect.asVoid(Effect.forkDetach(Fiber.interrupt(query))))),
    )
  })

export const SystemHandlers = HttpApiBuilder.group(
  Api,
  "system",
  Effect.fn(function* (handlers) {
    const sql = yield* SqlClient.SqlClient
    return fillNotImplemented(
      handlers.handle("health", () =>
        checkDatabase(sql).pipe(
          Effect.as({ status: "ok" as const, database: "ok" as const }),
          Effect.catchCause((cause) =>
            Effect.logWarning("health check: database unavailable", cause).pipe(
              Effect.andThen(Effect.fail(new ServiceUnavailable({ message: PlatformMessages.databaseUnavailable }))),
            ),
          ),
        ),
      ).handle("devOutbox", devOutboxHandler),
    )
  }),
)
