/**
 * Findings across accounts (issue 31, "findings across accounts"; server/scans/fleet-findings.ts): GET /api/findings
 * without `scan_id` lists the findings of every account's latest completed scan (`accounts.latest_scan_id`, migration
 * 0022) — 500 accounts × ~300 checks is 150,000 findings among the millions of their earlier scans — one page per
 * statement, paged by key, with the list's totals.
 *
 * - `findings.latest`: the finding belongs to its account's latest completed scan. Kept by the trigger
 *   `accounts_latest_findings` (when `accounts.latest_scan_id` moves, the old scan's findings lose it and the new one's
 *   gain it) and, for a finding written into a scan that is already the latest, by `findings_latest` on insert.
 * - `findings_latest_order_idx`: the latest findings of a workspace in the list's default order (failed, muted,
 *   remediated, not evaluated, passed; critical → low; id — the expressions of `STATUS_ORDER` and `SEVERITY_ORDER_SQL`),
 *   with the columns the finding-level filters read, so a page (first, or after a cursor) reads its rows and the
 *   rows its filters skip from the index, never the workspace's other findings.
 * - `scans.outcome_counts`: the scan's findings by (status rank, severity rank) — "0:1" is failed high — each
 *   `[findings, resources checked, failing resources]`: the algebra's counts (server/posture/algebra.ts
 *   `OUTCOME_COUNTS_SQL`, kept by `recountServices` and as a scan rolls up), so the totals of 500 latest scans are a
 *   sum of 500 small objects instead of a pass over their 150,000 findings (≈ 60–80 ms on the benchmark machine).
 *
 * Existing rows are filled here (every completed scan's counts: a scan superseded now becomes the latest again when a
 * later one is deleted). Frozen once released.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

/** Frozen copies of the rank expressions (server/scans/findings-store.ts STATUS_ORDER, algebra SEVERITY_ORDER_SQL). */
const STATUS_RANK = `CASE WHEN status = 'fail' AND NOT muted THEN 0 WHEN status = 'fail' THEN 1 WHEN status = 'remediated' THEN 2
                      WHEN status = 'not_evaluated' THEN 3 ELSE 4 END`
const SEVERITY_RANK = `CASE severity WHEN 'critical' THEN 0 WHEN 'high' THEN 1 WHEN 'medium' THEN 2 ELSE 3 END`

/** Frozen copy of the counts of one scan `s` (algebra `OUTCOME_COUNTS_SQL` at the time of this migration). */
const OUTCOME_COUNTS = `(SELECT coalesce(jsonb_object_agg(g.k, g.v), '{}'::jsonb) FROM (
    SELECT (${STATUS_RANK}) || ':' || (${SEVERITY_RANK}) AS k,
           jsonb_build_array(count(*), coalesce(sum(resources_checked), 0),
                             coalesce(sum(greatest(0, resources_failing - resources_remediated - resources_muted)), 0)) AS v
    FROM findings WHERE workspace_id = s.workspace_id AND scan_id = s.id GROUP BY 1) g)`

const statements = [
  `ALTER TABLE findings ADD COLUMN latest boolean NOT NULL DEFAULT false`,
  `ALTER TABLE scans ADD COLUMN outcome_counts jsonb NOT NULL DEFAULT '{}'::jsonb CHECK (jsonb_typeof(outcome_counts) = 'object')`,

  `CREATE FUNCTION findings_follow_latest_scan() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     IF OLD.latest_scan_id IS NOT NULL THEN
       UPDATE findings SET latest = false WHERE workspace_id = OLD.workspace_id AND scan_id = OLD.latest_scan_id AND latest;
     END IF;
     IF NEW.latest_scan_id IS NOT NULL THEN
       UPDATE findings SET latest = true WHERE workspace_id = NEW.workspace_id AND scan_id = NEW.latest_scan_id AND NOT latest;
     END IF;
     RETURN NULL;
   END $$`,
  `CREATE TRIGGER accounts_latest_findings AFTER UPDATE OF latest_scan_id ON accounts FOR EACH ROW
     WHEN (OLD.latest_scan_id IS DISTINCT FROM NEW.latest_scan_id) EXECUTE FUNCTION findings_follow_latest_scan()`,
  `CREATE FUNCTION findings_latest_of() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     NEW.latest := EXISTS (SELECT 1 FROM accounts a WHERE a.latest_scan_id = NEW.scan_id AND a.workspace_id = NEW.workspace_id);
     RETURN NEW;
   END $$`,
  `CREATE TRIGGER findings_latest BEFORE INSERT ON findings FOR EACH ROW EXECUTE FUNCTION findings_latest_of()`,

  // Filled as the owner without row-level security on the tables it writes (as migration 0016 did).
  `ALTER TABLE findings NO FORCE ROW LEVEL SECURITY`,
  `ALTER TABLE scans NO FORCE ROW LEVEL SECURITY`,
  `ALTER TABLE accounts NO FORCE ROW LEVEL SECURITY`,
  `UPDATE findings f SET latest = true FROM accounts a WHERE a.latest_scan_id = f.scan_id AND a.workspace_id = f.workspace_id`,
  `UPDATE scans s SET outcome_counts = ${OUTCOME_COUNTS} WHERE s.status = 'completed'`,
  `ALTER TABLE findings FORCE ROW LEVEL SECURITY`,
  `ALTER TABLE scans FORCE ROW LEVEL SECURITY`,
  `ALTER TABLE accounts FORCE ROW LEVEL SECURITY`,

  `CREATE INDEX findings_latest_order_idx ON findings (workspace_id, (${STATUS_RANK}), (${SEVERITY_RANK}), id)
     INCLUDE (scan_id, service_id, status, muted, severity, resources_checked, resources_failing, resources_remediated,
              resources_muted, resources_new, resources_fixed)
     WHERE latest`,
]

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  for (const statement of statements) yield* sql.unsafe(statement)
})
