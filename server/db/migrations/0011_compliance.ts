/**
 * Compliance reports (issue 14): a PDF per request, made by the `compliance.report` job.
 *
 * - `compliance_reports`: one request (scan, frameworks), its status (pending → running → completed | failed), its
 *   progress 0–100, and once completed its page count and size.
 * - `compliance_report_chunks`: the PDF as it was produced, in ordered chunks of at most ~256 KiB: the job writes each
 *   chunk as the PDF library emits it and the download streams them back by keyset, so neither side ever holds a
 *   large report in memory.
 *
 * Requirement statuses and scores are not stored: they are computed from the scan's findings and the framework
 * catalogue on every read (server/compliance/). Row-level security as in migration 0003. Frozen once released.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

const statements = [
  `CREATE TABLE compliance_reports (
     id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
     workspace_id integer NOT NULL,
     scan_id integer NOT NULL,
     framework_ids text[] NOT NULL CHECK (cardinality(framework_ids) BETWEEN 1 AND 10),
     status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'running', 'completed', 'failed')),
     progress integer NOT NULL DEFAULT 0 CHECK (progress BETWEEN 0 AND 100),
     pages integer CHECK (pages >= 0),
     bytes bigint CHECK (bytes >= 0),
     error text,
     job_id text,
     requested_by integer REFERENCES users (id) ON DELETE SET NULL,
     created_at timestamptz NOT NULL DEFAULT now(),
     started_at timestamptz,
     finished_at timestamptz,
     UNIQUE (id, workspace_id),
     FOREIGN KEY (scan_id, workspace_id) REFERENCES scans (id, workspace_id) ON DELETE CASCADE
   )`,
  `CREATE INDEX compliance_reports_scan_idx ON compliance_reports (workspace_id, scan_id, created_at DESC)`,
  `CREATE TABLE compliance_report_chunks (
     workspace_id integer NOT NULL,
     report_id integer NOT NULL,
     seq integer NOT NULL CHECK (seq >= 0),
     data bytea NOT NULL,
     PRIMARY KEY (workspace_id, report_id, seq),
     FOREIGN KEY (report_id, workspace_id) REFERENCES compliance_reports (id, workspace_id) ON DELETE CASCADE
   )`,
  ...["compliance_reports", "compliance_report_chunks"].flatMap((table) => [
    `ALTER TABLE ${table} ENABLE ROW LEVEL SECURITY`,
    `ALTER TABLE ${table} FORCE ROW LEVEL SECURITY`,
    `CREATE POLICY ${table}_scope ON ${table} FOR ALL USING (workspace_id = app_current_workspace_id())
       WITH CHECK (workspace_id = app_current_workspace_id())`,
  ]),
  `GRANT SELECT, INSERT, UPDATE, DELETE ON compliance_reports, compliance_report_chunks TO cloud_audit_app`,
  `GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO cloud_audit_app`,
]

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  for (const statement of statements) yield* sql.unsafe(statement)
})
