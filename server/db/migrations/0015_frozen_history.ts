/**
 * History is immutable (issue 28 item 2; docs/outcomes.md "History"): a scan superseded by a later completed scan of
 * its account answers forever what it answered as the latest. Mute rules and remediations write only to the account's
 * live scans (its latest completed scan and any later one, server/posture/algebra.ts `liveScans`); a superseded scan's
 * rows and counts are never written again.
 *
 * What a muted row shows (the rule's reason, expiry and author) is kept per scan in `scan_mutes`, written when mutes are
 * applied to a live scan: a rule edited or deleted later leaves a superseded scan's snapshot as it was. Existing muted
 * rows get their snapshot from the rules as they stand now.
 *
 * Row-level security as in migration 0003; the read-cache triggers of migration 0014 for the new table.
 *
 * Frozen once released.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

const statements = [
  `CREATE TABLE scan_mutes (
     workspace_id integer NOT NULL,
     scan_id integer NOT NULL,
     rule_id integer NOT NULL,
     reason text NOT NULL,
     expires_at timestamptz,
     author text,
     PRIMARY KEY (workspace_id, scan_id, rule_id),
     FOREIGN KEY (scan_id, workspace_id) REFERENCES scans (id, workspace_id) ON DELETE CASCADE
   )`,
  `ALTER TABLE scan_mutes ENABLE ROW LEVEL SECURITY`,
  `ALTER TABLE scan_mutes FORCE ROW LEVEL SECURITY`,
  `CREATE POLICY scan_mutes_scope ON scan_mutes FOR ALL USING (workspace_id = app_current_workspace_id())
     WITH CHECK (workspace_id = app_current_workspace_id())`,
  `GRANT SELECT, INSERT, UPDATE, DELETE ON scan_mutes TO cloud_audit_app`,
  ...([["insert", "NEW TABLE AS new_rows"], ["update", "NEW TABLE AS new_rows"], ["delete", "OLD TABLE AS old_rows"]] as const).map(
    ([event, referencing]) => `CREATE TRIGGER scan_mutes_note_${event} AFTER ${event.toUpperCase()} ON scan_mutes
       REFERENCING ${referencing} FOR EACH STATEMENT EXECUTE FUNCTION note_workspace_change()`,
  ),
  `CREATE TRIGGER scan_mutes_note_truncate AFTER TRUNCATE ON scan_mutes FOR EACH STATEMENT EXECUTE FUNCTION note_workspace_change()`,
  // The snapshot of every muted row stored so far, from the rules as they stand (the owner runs migrations: no RLS).
  `ALTER TABLE scan_mutes NO FORCE ROW LEVEL SECURITY`,
  `ALTER TABLE results NO FORCE ROW LEVEL SECURITY`,
  `ALTER TABLE mute_rules NO FORCE ROW LEVEL SECURITY`,
  `INSERT INTO scan_mutes (workspace_id, scan_id, rule_id, reason, expires_at, author)
   SELECT DISTINCT ON (r.workspace_id, r.scan_id, r.muted_by) r.workspace_id, r.scan_id, r.muted_by, m.reason, m.expires_at,
          coalesce(uu.email, cu.email)
   FROM results r JOIN mute_rules m ON m.id = r.muted_by
   LEFT JOIN users uu ON uu.id = m.updated_by LEFT JOIN users cu ON cu.id = m.created_by
   WHERE r.muted_by IS NOT NULL
   ON CONFLICT DO NOTHING`,
  `ALTER TABLE scan_mutes FORCE ROW LEVEL SECURITY`,
  `ALTER TABLE results FORCE ROW LEVEL SECURITY`,
  `ALTER TABLE mute_rules FORCE ROW LEVEL SECURITY`,
]

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  for (const statement of statements) yield* sql.unsafe(statement)
})
