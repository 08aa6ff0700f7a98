/**
 * Platform bootstrap: `app_meta`, a small key/value table the platform uses to record facts about the
 * installation (when the schema was created, which schema version the code expects). Idempotent.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE IF NOT EXISTS app_meta (
      key text PRIMARY KEY,
      value text NOT NULL,
      updated_at timestamptz NOT NULL DEFAULT now()
    )
  `
  yield* sql`
    INSERT INTO app_meta (key, value) VALUES ('installed_at', to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'))
    ON CONFLICT (key) DO NOTHING
  `
})
