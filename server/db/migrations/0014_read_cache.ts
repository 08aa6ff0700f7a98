/**
 * What changed, per workspace and transaction, for the validated read cache (issue 15 problem 8;
 * server/api/middleware/read-cache.ts, docs/identity.md "The validated read cache").
 *
 * `workspace_changes` holds one row per (workspace, writing transaction): every statement that writes a table of a
 * workspace records `(workspace, pg_current_xact_id())`, in the writer's own transaction, so the row becomes visible
 * exactly when the change does (and never, if the writer rolls back). A cached answer remembers the snapshot its
 * data was read under; it is still valid while no row of its workspace (or of workspace 0) carries a transaction
 * that snapshot did not see. Inserting rows (never updating one) means writers do not wait on each other.
 *
 * Who records what:
 * - every table with a `workspace_id` column except `audit_log` and `refresh_token_families` (no cached read shows
 *   them; a session's liveness is checked on every request, cached or not): statement-level triggers on INSERT,
 *   UPDATE and DELETE record the workspaces of the rows the statement touched (its transition table), whoever runs
 *   it and in whatever scope; a statement that touched no row records nothing. TRUNCATE records workspace 0, which
 *   stands for every workspace.
 * - `users` (names and emails appear in every workspace the user belongs to): a row trigger records each workspace
 *   of the user on UPDATE and DELETE (a deletion cascades to memberships of other workspaces than the scope's).
 * - `workspaces`: a row trigger records the workspace itself (its name; its deletion).
 *
 * The trigger functions are SECURITY DEFINER (the API role holds no privilege on the table beyond reading its own
 * workspace's rows) with a fixed search_path. `prune_workspace_changes()` deletes rows no cached answer can still
 * need: it samples the oldest running transaction (the snapshot xmin) each time it runs and deletes rows older than
 * a sample at least 10 minutes old; a cached answer lives at most 60 s, and every snapshot taken after a sample has
 * an xmin at least as new, so a deleted row was visible to every snapshot a cached answer can hold.
 *
 * Frozen once released.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

/** Tables with a workspace_id column whose writes do not invalidate cached reads (no cached read shows them). */
export const UNTRACKED_WORKSPACE_TABLES = ["audit_log", "refresh_token_families", "workspace_changes"] as const

const statements = [
  `CREATE TABLE workspace_changes (
     workspace_id integer NOT NULL,
     xid xid8 NOT NULL,
     PRIMARY KEY (workspace_id, xid)
   )`,
  `ALTER TABLE workspace_changes ENABLE ROW LEVEL SECURITY`,
  `CREATE POLICY workspace_changes_read ON workspace_changes FOR SELECT
     USING (workspace_id = app_current_workspace_id() OR workspace_id = 0)`,
  `REVOKE ALL ON workspace_changes FROM cloud_audit_app`,
  `GRANT SELECT ON workspace_changes TO cloud_audit_app`,
  `CREATE TABLE workspace_changes_horizons (
     sampled_at timestamptz PRIMARY KEY,
     horizon xid8 NOT NULL
   )`,
  `REVOKE ALL ON workspace_changes_horizons FROM cloud_audit_app`,
  // Statement-level, reading the statement's transition table: the workspaces of the rows it touched (none for a
  // statement that touched no row). One function for the three events; each trigger names its own table.
  `CREATE FUNCTION note_workspace_change() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER
     SET search_path = pg_catalog, public AS $$
   BEGIN
     IF TG_OP = 'TRUNCATE' THEN
       INSERT INTO workspace_changes (workspace_id, xid) VALUES (0, pg_current_xact_id()) ON CONFLICT DO NOTHING;
     ELSIF TG_OP = 'DELETE' THEN
       INSERT INTO workspace_changes (workspace_id, xid)
       SELECT DISTINCT o.workspace_id, pg_current_xact_id() FROM old_rows o WHERE o.workspace_id IS NOT NULL
       ON CONFLICT DO NOTHING;
     ELSE
       INSERT INTO workspace_changes (workspace_id, xid)
       SELECT DISTINCT n.workspace_id, pg_current_xact_id() FROM new_rows n WHERE n.workspace_id IS NOT NULL
       ON CONFLICT DO NOTHING;
     END IF;
     RETURN NULL;
   END $$`,
  `CREATE FUNCTION note_user_change() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER
     SET search_path = pg_catalog, public AS $$
   BEGIN
     INSERT INTO workspace_changes (workspace_id, xid)
     SELECT m.workspace_id, pg_current_xact_id() FROM memberships m WHERE m.user_id = OLD.id
     ON CONFLICT DO NOTHING;
     RETURN NULL;
   END $$`,
  `CREATE FUNCTION note_workspace_row_change() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER
     SET search_path = pg_catalog, public AS $$
   BEGIN
     INSERT INTO workspace_changes (workspace_id, xid)
     VALUES (CASE WHEN TG_OP = 'DELETE' THEN OLD.id ELSE NEW.id END, pg_current_xact_id())
     ON CONFLICT DO NOTHING;
     RETURN NULL;
   END $$`,
  // AFTER UPDATE sees the memberships still there; BEFORE DELETE runs before the cascade removes them.
  `CREATE TRIGGER users_note_change AFTER UPDATE ON users FOR EACH ROW EXECUTE FUNCTION note_user_change()`,
  `CREATE TRIGGER users_note_delete BEFORE DELETE ON users FOR EACH ROW EXECUTE FUNCTION note_user_change()`,
  `CREATE TRIGGER workspaces_note_change AFTER INSERT OR UPDATE OR DELETE ON workspaces FOR EACH ROW
     EXECUTE FUNCTION note_workspace_row_change()`,
  `CREATE FUNCTION prune_workspace_changes() RETURNS integer LANGUAGE plpgsql SECURITY DEFINER
     SET search_path = pg_catalog, public AS $$
   DECLARE
     oldest xid8;
     gone integer;
   BEGIN
     INSERT INTO workspace_changes_horizons (sampled_at, horizon)
     VALUES (clock_timestamp(), pg_snapshot_xmin(pg_current_snapshot())) ON CONFLICT DO NOTHING;
     SELECT max(h.horizon) INTO oldest FROM workspace_changes_horizons h WHERE h.sampled_at < clock_timestamp() - interval '10 minutes';
     IF oldest IS NULL THEN RETURN 0; END IF;
     DELETE FROM workspace_changes c WHERE c.xid < oldest;
     GET DIAGNOSTICS gone = ROW_COUNT;
     DELETE FROM workspace_changes_horizons h WHERE h.sampled_at < clock_timestamp() - interval '10 minutes' AND h.horizon < oldest;
     RETURN gone;
   END $$`,
]

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  for (const statement of statements) yield* sql.unsafe(statement)
  // Every workspace table there is now; a test fails when a later table with workspace_id has no trigger.
  const tables = yield* sql<{ table_name: string }>`
    SELECT c.table_name FROM information_schema.columns c
    JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
    WHERE c.table_schema = 'public' AND c.column_name = 'workspace_id' AND t.table_type = 'BASE TABLE'
    ORDER BY c.table_name`
  for (const { table_name } of tables) {
    if ((UNTRACKED_WORKSPACE_TABLES as ReadonlyArray<string>).includes(table_name)) continue
    // A trigger with a transition table fires on one event only.
    const events = [["insert", "NEW TABLE AS new_rows"], ["update", "NEW TABLE AS new_rows"], ["delete", "OLD TABLE AS old_rows"]] as const
    for (const [event, referencing] of events) {
      yield* sql.unsafe(`CREATE TRIGGER ${table_name}_note_${event} AFTER ${event.toUpperCase()} ON "${table_name}"
        REFERENCING ${referencing} FOR EACH STATEMENT EXECUTE FUNCTION note_workspace_change()`)
    }
    yield* sql.unsafe(`CREATE TRIGGER ${table_name}_note_truncate AFTER TRUNCATE ON "${table_name}"
      FOR EACH STATEMENT EXECUTE FUNCTION note_workspace_change()`)
  }
})
