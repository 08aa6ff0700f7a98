/**
 * The `system` group.
 *
 * - GET /api/health: checks the database with `SELECT 1` (bounded by HEALTH_DB_TIMEOUT) and answers
 *   200 { status: "ok", database: "ok" }, or 503 `ServiceUnavailable` when the database does not answer.
 *   Load balancers use it.
 * - GET /api/dev/outbox: 501 until the mail area implements it here (add `.handle("devOutbox", ...)`
 *   before `fillNotImplemented`).
 */
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { SqlClient } from "effect/sql"
import { Api } from "../../src/contracts/api.ts"
import { ServiceUnavailable } from "../../src/contracts/errors.ts"
import { devOutboxHandler } from "../mail/dev-outbox.ts"
import { fillNotImplemented } from "./not-implemented.ts"

export const HEALTH_DB_TIMEOUT = "3 seconds"
export const DATABASE_UNAVAILABLE_MESSAGE = "The database is unavailable. Please try again later."

export const SystemHandlers = HttpApiBuilder.group(
  Api,
  "system",
  Effect.fn(function* (handlers) {
    const sql = yield* SqlClient.SqlClient
    return fillNotImplemented(
      handlers.handle("health", () =>
        sql`SELECT 1 AS ok`.pipe(
          Effect.timeout(HEALTH_DB_TIMEOUT),
          Effect.as({ status: "ok" as const, database: "ok" as const }),
          Effect.catchCause((cause) =>
            Effect.logWarning("health check: database unavailable", cause).pipe(
              Effect.andThen(Effect.fail(new ServiceUnavailable({ message: DATABASE_UNAVAILABLE_MESSAGE }))),
            ),
          ),
        ),
      ).handle("devOutbox", devOutboxHandler),
    )
  }),
)
