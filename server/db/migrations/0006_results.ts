/**
 * Resource-level results (issue 12): one row per (scan, check, resource) instead of one JSON array per finding.
 *
 * - `results`: one evaluated resource of one finding. Keyed by (workspace_id, finding_id, seq): `seq` is the row's
 *   position in the finding, assigned by the writer with every non-compliant row first, so a page of the finding
 *   detail ("failing rows first") is a range of the primary key, and so is a page of only failing or only passing rows
 *   (failing rows are seq 0 … resources_failing − 1). No other index: writes stay cheap (≥ 50,000 rows/s).
 *   `resource_id` is the id the check shows (a name, an ARN, a self link…); `resource_uid` the stable identity the
 *   inventory is keyed by (server/scans/results.ts `resourceIdentity`); `fields` the check's free detail fields;
 *   `remediate` the row's latest remediation record.
 * - `resources`: the account's inventory, keyed by (account_id, resource_uid), with first and last sighting.
 * - `findings` keeps one row per (scan, check) and gains its counts (resources checked, failing, remediated); its
 *   `details` array is converted into `results` rows here and then dropped: nothing already stored is lost.
 * - `remediations.result_seq` points at the result row a remediation acted on (its finding's row `seq`; the remediation
 *   already cascades with its finding, so no second foreign key).
 * - `results` has no foreign key (see below): a trigger deletes a finding's rows with the finding.
 *
 * Row-level security on both new tables as in migration 0003. The conversion runs as the owner with the policies of
 * the tables it reads and writes relaxed for the migration's own transaction only (FORCE is restored before commit).
 *
 * Frozen once released: later changes go into new migrations.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { resourceIdentity, splitStoredRow } from "../../scans/results.ts"

const before = [
  `ALTER TABLE findings
     ADD COLUMN resources_checked integer NOT NULL DEFAULT 0 CHECK (resources_checked >= 0),
     ADD COLUMN resources_failing integer NOT NULL DEFAULT 0 CHECK (resources_failing >= 0),
     ADD COLUMN resources_remediated integer NOT NULL DEFAULT 0 CHECK (resources_remediated >= 0)`,

  `CREATE TABLE results (
     workspace_id integer NOT NULL,
     finding_id integer NOT NULL,
     seq integer NOT NULL CHECK (seq >= 0),
     scan_id integer NOT NULL,
     resource_id text NOT NULL,
     resource_uid text NOT NULL,
     region text NOT NULL,
     compliant boolean,
     fields jsonb NOT NULL DEFAULT '{}'::jsonb CHECK (jsonb_typeof(fields) = 'object'),
     remediate jsonb CHECK (remediate IS NULL OR jsonb_typeof(remediate) = 'object'),
     PRIMARY KEY (workspace_id, finding_id, seq)
   )`,
  // No foreign key to findings: a per-row referential check halves the write rate (measured: 120k → 50k rows/s). The
  // writer only inserts rows of findings it created in the same transaction, RLS checks the workspace, and this
  // statement-level trigger removes a finding's rows with it (also when an account or scan deletion cascades).
  `CREATE FUNCTION results_delete_with_findings() RETURNS trigger LANGUAGE plpgsql AS $$
     BEGIN
       DELETE FROM results r USING gone g WHERE r.workspace_id = g.workspace_id AND r.finding_id = g.id;
       RETURN NULL;
     END $$`,
  `CREATE TRIGGER findings_delete_results AFTER DELETE ON findings REFERENCING OLD TABLE AS gone
     FOR EACH STATEMENT EXECUTE FUNCTION results_delete_with_findings()`,

  `CREATE TABLE resources (
     workspace_id integer NOT NULL,
     account_id integer NOT NULL,
     resource_uid text NOT NULL,
     resource_id text NOT NULL,
     service_key text NOT NULL,
     region text NOT NULL,
     first_seen_at timestamptz NOT NULL DEFAULT now(),
     last_seen_at timestamptz NOT NULL DEFAULT now(),
     first_scan_id integer NOT NULL,
     last_scan_id integer NOT NULL,
     PRIMARY KEY (account_id, resource_uid),
     FOREIGN KEY (account_id, workspace_id) REFERENCES accounts (id, workspace_id) ON DELETE CASCADE
   )`,
  `CREATE INDEX resources_workspace_idx ON resources (workspace_id, account_id, last_seen_at DESC)`,

  `ALTER TABLE remediations ADD COLUMN result_seq integer`,

  ...["results", "resources"].flatMap((table) => [
    `ALTER TABLE ${table} ENABLE ROW LEVEL SECURITY`,
    `CREATE POLICY ${table}_scope ON ${table} FOR ALL USING (workspace_id = app_current_workspace_id())
       WITH CHECK (workspace_id = app_current_workspace_id())`,
  ]),
  `GRANT SELECT, INSERT, UPDATE, DELETE ON results, resources TO cloud_audit_app`,

  // The owner converts every workspace's rows below; FORCE is restored at the end of this transaction.
  `ALTER TABLE findings NO FORCE ROW LEVEL SECURITY`,
  `ALTER TABLE remediations NO FORCE ROW LEVEL SECURITY`,
  `ALTER TABLE scans NO FORCE ROW LEVEL SECURITY`,
  `ALTER TABLE accounts NO FORCE ROW LEVEL SECURITY`,
]

const after = [
  `ALTER TABLE findings DROP COLUMN details`,
  ...["findings", "remediations", "scans", "accounts", "results", "resources"].map((t) => `ALTER TABLE ${t} FORCE ROW LEVEL SECURITY`),
]

interface OldFinding {
  readonly id: number
  readonly workspace_id: number
  readonly scan_id: number
  readonly account_id: number
  readonly cloud_provider_id: number
  readonly service_key: string
  readonly cloud_account_id: string
  readonly details: ReadonlyArray<Readonly<Record<string, unknown>>>
  readonly scan_start: Date | string
}

const isDone = (r: Readonly<Record<string, unknown>>) => {
  const status = (r["remediate"] as { status?: unknown } | undefined)?.status
  return status === "remediated" || status === "pass"
}

const CONVERT_BATCH = 200

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  for (const statement of before) yield* sql.unsafe(statement)

  let afterId = 0
  for (;;) {
    const findings = yield* sql<OldFinding>`
      SELECT f.id, f.workspace_id, f.scan_id, s.account_id, s.cloud_provider_id::int AS cloud_provider_id, cs.key AS service_key,
             a.cloud_account_id, f.details, s.scan_start
      FROM findings f JOIN scans s ON s.id = f.scan_id JOIN cloud_services cs ON cs.id = f.service_id
      JOIN accounts a ON a.id = s.account_id
      WHERE f.id > ${afterId} ORDER BY f.id LIMIT ${CONVERT_BATCH}`
    if (findings.length === 0) break
    afterId = findings[findings.length - 1]!.id
    for (const f of findings) {
      // Failing rows first (stable), as the writer orders them.
      const ordered = [...f.details.filter((d) => d["compliance"] === false), ...f.details.filter((d) => d["compliance"] !== false)]
      const rows = ordered.map((d, seq) => {
        const split = splitStoredRow(d)
        return {
          workspace_id: f.workspace_id,
          finding_id: f.id,
          seq,
          scan_id: f.scan_id,
          resource_id: split.resource_id,
          resource_uid: resourceIdentity(f.cloud_provider_id, f.service_key, split.resource_id, split.region, f.cloud_account_id),
          region: split.region,
          compliant: split.compliant,
          fields: split.fields,
          remediate: split.remediate,
        }
      })
      for (let i = 0; i < rows.length; i += 1000) {
        yield* sql`
          INSERT INTO results (workspace_id, finding_id, seq, scan_id, resource_id, resource_uid, region, compliant, fields, remediate)
          SELECT workspace_id, finding_id, seq, scan_id, resource_id, resource_uid, region, compliant, fields, remediate
          FROM json_to_recordset(${JSON.stringify(rows.slice(i, i + 1000))}::json) AS x(
            workspace_id int, finding_id int, seq int, scan_id int, resource_id text, resource_uid text, region text,
            compliant boolean, fields jsonb, remediate jsonb)`
      }
      const failing = ordered.filter((d) => d["compliance"] === false)
      yield* sql`UPDATE findings SET resources_checked = ${rows.length}, resources_failing = ${failing.length},
                   resources_remediated = ${failing.filter(isDone).length}
                 WHERE id = ${f.id}`
      // The inventory: every resource seen, first and last sighting from the scan's start.
      const seen = new Map<string, (typeof rows)[number]>()
      for (const r of rows) if (!seen.has(r.resource_uid)) seen.set(r.resource_uid, r)
      const inventory = [...seen.values()].map((r) => ({
        workspace_id: f.workspace_id,
        account_id: f.account_id,
        resource_uid: r.resource_uid,
        resource_id: r.resource_id,
        service_key: f.service_key,
        region: r.region,
        seen_at: new Date(f.scan_start).toISOString(),
        scan_id: f.scan_id,
      }))
      for (let i = 0; i < inventory.length; i += 1000) {
        yield* sql`
          INSERT INTO resources (workspace_id, account_id, resource_uid, resource_id, service_key, region,
                                 first_seen_at, last_seen_at, first_scan_id, last_scan_id)
          SELECT workspace_id, account_id, resource_uid, resource_id, service_key, region, seen_at, seen_at, scan_id, scan_id
          FROM json_to_recordset(${JSON.stringify(inventory.slice(i, i + 1000))}::json) AS x(
            workspace_id int, account_id int, resource_uid text, resource_id text, service_key text, region text,
            seen_at timestamptz, scan_id int)
          ON CONFLICT (account_id, resource_uid) DO UPDATE SET
            first_seen_at = least(resources.first_seen_at, excluded.first_seen_at),
            first_scan_id = CASE WHEN excluded.first_seen_at < resources.first_seen_at THEN excluded.first_scan_id ELSE resources.first_scan_id END,
            last_seen_at = greatest(resources.last_seen_at, excluded.last_seen_at),
            last_scan_id = CASE WHEN excluded.last_seen_at >= resources.last_seen_at THEN excluded.last_scan_id ELSE resources.last_scan_id END`
      }
    }
  }

  // Each remediation points at the row it acted on (same resource id and region in its finding).
  yield* sql`
    UPDATE remediations rm SET result_seq = r.seq
    FROM results r
    WHERE r.workspace_id = rm.workspace_id AND r.finding_id = rm.finding_id
      AND r.resource_id = rm.resource_id AND r.region = rm.region`

  for (const statement of after) yield* sql.unsafe(statement)
})
