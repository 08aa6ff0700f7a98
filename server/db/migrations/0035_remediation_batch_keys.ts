/**
 * Bulk remediation started (or its undo asked) with an API key (docs/remediation.md "Bulk", docs/api-keys.md): the
 * batch remembers the key the request presented, so each item runs within what that key may do when the item is
 * claimed — not only what its creator may do (server/scans/remediation-batches.ts).
 *
 * - `remediation_batches.api_key_id`: the key that started the batch (NULL: a signed-in member did).
 * - `remediation_batches.undo_api_key_id`: the key that asked for its undo (NULL: a signed-in member did, or no undo).
 *
 * Both reference the key of the SAME workspace (`(api_key_id, workspace_id)` → `api_keys (id, workspace_id)`, for
 * which `api_keys` gets that unique key). Keys are never deleted, only revoked (migration 0025 revokes DELETE from the
 * API role): the references take no ON DELETE action, so a key a batch names cannot disappear and leave the batch
 * running as its creator; a workspace's deletion removes its keys and its batches in the same statement.
 * Row-level security is unchanged (the batch's own policies).
 *
 * Frozen once released.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

const statements = [
  `ALTER TABLE api_keys ADD CONSTRAINT api_keys_id_workspace_key UNIQUE (id, workspace_id)`,
  `ALTER TABLE remediation_batches
     ADD COLUMN api_key_id integer,
     ADD COLUMN undo_api_key_id integer,
     ADD CONSTRAINT remediation_batches_api_key_fk FOREIGN KEY (api_key_id, workspace_id) REFERENCES api_keys (id, workspace_id),
     ADD CONSTRAINT remediation_batches_undo_api_key_fk FOREIGN KEY (undo_api_key_id, workspace_id) REFERENCES api_keys (id, workspace_id)`,
  `CREATE INDEX remediation_batches_api_key_idx ON remediation_batches (api_key_id) WHERE api_key_id IS NOT NULL`,
  `CREATE INDEX remediation_batches_undo_api_key_idx ON remediation_batches (undo_api_key_id) WHERE undo_api_key_id IS NOT NULL`,
]

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  for (const statement of statements) yield* sql.unsafe(statement)
})
