/**
 * Retention the operator controls (issue 30; server/scans/retention.ts, docs/architecture.md "Result storage").
 *
 * - `workspace_retention`: one row per workspace that chose a retention setting: keep ended scans for `keep_days` days
 *   and/or the last `keep_scans` scans of each account (NULL: no limit of that kind), who set it and when, and when the
 *   daily job last applied it (`applied_at`, with the number of scans it expired then), and the streams whose versions
 *   are still to collect (`gc_streams`: a scan was writing them during the last run). A workspace without a row keeps
 *   everything and costs the daily job nothing.
 *
 * Row-level security as in migration 0003 (scoped to the request's workspace), plus a read-only policy for the
 * `posture-ticker` system scope (migration 0009), which lists the workspaces whose retention is due; the read-cache
 * triggers of migration 0014.
 *
 * Frozen once released.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

const statements = [
  `CREATE TABLE workspace_retention (
     workspace_id integer PRIMARY KEY REFERENCES workspaces (id) ON DELETE CASCADE,
     keep_days integer CHECK (keep_days BETWEEN 1 AND 3650),
     keep_scans integer CHECK (keep_scans BETWEEN 1 AND 1000),
     updated_at timestamptz NOT NULL DEFAULT now(),
     updated_by integer REFERENCES users (id) ON DELETE SET NULL,
     applied_at timestamptz,
     applied_expired integer NOT NULL DEFAULT 0 CHECK (applied_expired >= 0),
     gc_streams integer[] NOT NULL DEFAULT '{}'
   )`,
  `ALTER TABLE workspace_retention ENABLE ROW LEVEL SECURITY`,
  `ALTER TABLE workspace_retention FORCE ROW LEVEL SECURITY`,
  `CREATE POLICY workspace_retention_scope ON workspace_retention FOR ALL USING (workspace_id = app_current_workspace_id())
     WITH CHECK (workspace_id = app_current_workspace_id())`,
  `CREATE POLICY workspace_retention_ticker ON workspace_retention FOR SELECT USING (app_system_scope() = 'posture-ticker')`,
  `GRANT SELECT, INSERT, UPDATE, DELETE ON workspace_retention TO cloud_audit_app`,
  ...([["insert", "NEW TABLE AS new_rows"], ["update", "NEW TABLE AS new_rows"], ["delete", "OLD TABLE AS old_rows"]] as const).map(
    ([event, referencing]) => `CREATE TRIGGER workspace_retention_note_${event} AFTER ${event.toUpperCase()} ON workspace_retention
       REFERENCING ${referencing} FOR EACH STATEMENT EXECUTE FUNCTION note_workspace_change()`,
  ),
  `CREATE TRIGGER workspace_retention_note_truncate AFTER TRUNCATE ON workspace_retention FOR EACH STATEMENT EXECUTE FUNCTION note_workspace_change()`,
]

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  for (const statement of statements) yield* sql.unsafe(statement)
})
