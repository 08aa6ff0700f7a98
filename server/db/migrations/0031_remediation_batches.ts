/**
 * Bulk remediation (issue 32 part 4; docs/remediation.md "Bulk"): a selection of rows, or every failing row of a check
 * across the workspace's accounts, fixed as one job with progress, per-resource outcomes, stop and one undo.
 *
 * - `remediation_batches`: one batch. `state`: queued → running → completed | stopping → stopped | failed; its undo:
 *   undoing → undone | undo_failed. `stop_requested_*` / `undo_requested_*` say who asked and when; `undo_force` whether
 *   the undo overwrites changes made since the fix; `job_id` / `undo_job_id` the jobs working it.
 * - `remediation_batch_items`: one row of a finding per item, in the batch's order (`position`). `state`: pending →
 *   running → fixed | failed, or skipped (stopped, approval required, no longer failing…, with `message`); undo: undoing
 *   → undone | undo_failed (with the field `differences` when the resource changed since the fix). `remediation_id`
 *   is the item's `remediations` row, created in the same transaction that claims the item (pending → running), so a
 *   worker killed mid-batch leaves every item either untouched (pending) or tied to its remediation, whose state tells
 *   what happened (server/scans/remediation-batches.ts).
 *
 * Row-level security as in migration 0002, the account-group limit of migration 0023 on the items' `account_id` (a
 * member limited to account groups counts and lists only their accounts' items) and the read-cache triggers of
 * migration 0014 on both tables.
 *
 * Frozen once released.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

const allows = (col: string) => `(SELECT app_account_limit()) IS NULL OR ${col} = ANY ((SELECT app_account_limit())::integer[])`

const noteChanges = (table: string) => [
  ...([["insert", "NEW TABLE AS new_rows"], ["update", "NEW TABLE AS new_rows"], ["delete", "OLD TABLE AS old_rows"]] as const).map(
    ([event, referencing]) => `CREATE TRIGGER ${table}_note_${event} AFTER ${event.toUpperCase()} ON ${table}
       REFERENCING ${referencing} FOR EACH STATEMENT EXECUTE FUNCTION note_workspace_change()`,
  ),
  `CREATE TRIGGER ${table}_note_truncate AFTER TRUNCATE ON ${table} FOR EACH STATEMENT EXECUTE FUNCTION note_workspace_change()`,
]

const statements = [
  `CREATE TABLE remediation_batches (
     id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
     workspace_id integer NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
     state text NOT NULL DEFAULT 'queued'
       CHECK (state IN ('queued', 'running', 'stopping', 'stopped', 'completed', 'failed', 'undoing', 'undone', 'undo_failed')),
     check_id text,
     created_by integer REFERENCES users (id) ON DELETE SET NULL,
     created_at timestamptz NOT NULL DEFAULT now(),
     started_at timestamptz,
     finished_at timestamptz,
     message text,
     job_id text,
     stop_requested_by integer REFERENCES users (id) ON DELETE SET NULL,
     stop_requested_at timestamptz,
     undo_requested_by integer REFERENCES users (id) ON DELETE SET NULL,
     undo_requested_at timestamptz,
     undo_force boolean NOT NULL DEFAULT false,
     undo_job_id text,
     UNIQUE (id, workspace_id)
   )`,
  `CREATE INDEX remediation_batches_list_idx ON remediation_batches (workspace_id, created_at DESC, id DESC)`,

  `CREATE TABLE remediation_batch_items (
     id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
     workspace_id integer NOT NULL,
     batch_id integer NOT NULL,
     position integer NOT NULL,
     account_id integer NOT NULL,
     finding_id integer NOT NULL,
     result_seq integer NOT NULL,
     check_id text NOT NULL,
     resource_id text NOT NULL,
     region text NOT NULL,
     state text NOT NULL DEFAULT 'pending'
       CHECK (state IN ('pending', 'running', 'fixed', 'failed', 'skipped', 'undoing', 'undone', 'undo_failed')),
     message text,
     remediation_id integer REFERENCES remediations (id) ON DELETE SET NULL,
     differences jsonb,
     updated_at timestamptz NOT NULL DEFAULT now(),
     UNIQUE (batch_id, position),
     UNIQUE (batch_id, finding_id, result_seq),
     FOREIGN KEY (batch_id, workspace_id) REFERENCES remediation_batches (id, workspace_id) ON DELETE CASCADE,
     FOREIGN KEY (account_id, workspace_id) REFERENCES accounts (id, workspace_id) ON DELETE CASCADE,
     FOREIGN KEY (finding_id, workspace_id) REFERENCES findings (id, workspace_id) ON DELETE CASCADE
   )`,
  `CREATE INDEX remediation_batch_items_state_idx ON remediation_batch_items (batch_id, state, position)`,
  `CREATE INDEX remediation_batch_items_finding_idx ON remediation_batch_items (finding_id)`,
  `CREATE INDEX remediation_batch_items_remediation_idx ON remediation_batch_items (remediation_id) WHERE remediation_id IS NOT NULL`,

  ...["remediation_batches", "remediation_batch_items"].flatMap((table) => [
    `ALTER TABLE ${table} ENABLE ROW LEVEL SECURITY`,
    `ALTER TABLE ${table} FORCE ROW LEVEL SECURITY`,
    `CREATE POLICY ${table}_scope ON ${table} FOR ALL USING (workspace_id = app_current_workspace_id())
       WITH CHECK (workspace_id = app_current_workspace_id())`,
    ...noteChanges(table),
    `GRANT SELECT, INSERT, UPDATE, DELETE ON ${table} TO cloud_audit_app`,
  ]),
  `CREATE POLICY remediation_batch_items_groups ON remediation_batch_items AS RESTRICTIVE FOR ALL USING (${allows("account_id")})
     WITH CHECK (${allows("account_id")})`,
  `GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO cloud_audit_app`,
]

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  for (const statement of statements) yield* sql.unsafe(statement)
})
