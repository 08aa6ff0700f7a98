/**
 * Remediation preview and undo (issue 32, docs/remediation.md): each `remediations` row keeps what the fix planned and
 * the state it changed, so the fix can be undone.
 *
 * - `state`: pending → applied (the calls were made) → verified (the re-read complies) | failed; undo: undoing → undone |
 *   undo_failed. `status` (pending/running/remediated/failed) stays the job's lifecycle, which the abandoned-remediation
 *   recovery (0013) reads; existing rows get the state their status implies.
 * - `pre_image` (the fixer's state read before the first call), `plan` (calls, effects, undo calls), `outputs` (what
 *   each call answered: an undo may refer to them), `post_image` (the state read after the fix).
 * - `undo_until`: undo is offered until then (30 days after the fix); `undo_*`: who asked, when, forced or not, and
 *   what the undo said (with the field differences it found, when it refused or failed).
 *
 * The table keeps its row-level security (workspace scope, account-group limit of 0023, ticker read of 0013).
 * Frozen once released.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

const statements = [
  `ALTER TABLE remediations
     ADD COLUMN state text NOT NULL DEFAULT 'pending'
       CHECK (state IN ('pending', 'applied', 'verified', 'failed', 'undoing', 'undone', 'undo_failed')),
     ADD COLUMN provider text,
     ADD COLUMN pre_image jsonb,
     ADD COLUMN plan jsonb,
     ADD COLUMN outputs jsonb,
     ADD COLUMN post_image jsonb,
     ADD COLUMN applied_at timestamptz,
     ADD COLUMN undo_until timestamptz,
     ADD COLUMN undo_requested_by integer REFERENCES users (id) ON DELETE SET NULL,
     ADD COLUMN undo_requested_at timestamptz,
     ADD COLUMN undo_force boolean NOT NULL DEFAULT false,
     ADD COLUMN undo_job_id text,
     ADD COLUMN undone_at timestamptz,
     ADD COLUMN undo_message text,
     ADD COLUMN undo_differences jsonb`,
  // The owner sets every workspace's existing rows; FORCE is restored right after.
  `ALTER TABLE remediations NO FORCE ROW LEVEL SECURITY`,
  `UPDATE remediations SET state = CASE status WHEN 'remediated' THEN 'verified' WHEN 'failed' THEN 'failed' ELSE 'pending' END`,
  `ALTER TABLE remediations FORCE ROW LEVEL SECURITY`,
]

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  for (const statement of statements) yield* sql.unsafe(statement)
})
