/**
 * The API key a bulk remediation's stop was asked with (docs/api-keys.md "Work that outlives the request",
 * docs/remediation.md "Bulk"): the batch already names the key it was started with and the key its undo was asked
 * with (migration 0035); its stop names the member only, so a stop asked with a key read as the member's own.
 *
 * - `remediation_batches.stop_api_key_id`: the key that asked for the stop (NULL: a signed-in member did, or no stop).
 *
 * It references the key of the SAME workspace (`(stop_api_key_id, workspace_id)` → `api_keys (id, workspace_id)`, the
 * unique key of migration 0035), with no ON DELETE action: keys are never deleted, only revoked. Row-level security is
 * unchanged (the batch's own policies).
 *
 * Frozen once released.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

const statements = [
  `ALTER TABLE remediation_batches
     ADD COLUMN stop_api_key_id integer,
     ADD CONSTRAINT remediation_batches_stop_api_key_fk FOREIGN KEY (stop_api_key_id, workspace_id) REFERENCES api_keys (id, workspace_id)`,
  `CREATE INDEX remediation_batches_stop_api_key_idx ON remediation_batches (stop_api_key_id) WHERE stop_api_key_id IS NOT NULL`,
]

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  for (const statement of statements) yield* sql.unsafe(statement)
})
