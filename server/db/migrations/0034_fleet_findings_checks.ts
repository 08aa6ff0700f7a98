/**
 * Findings across accounts filtered by service or by check (issue 31; server/scans/fleet-findings.ts): GET
 * /api/findings without `scan_id` and with `service_id` or `check` read every latest finding of the workspace (150,000
 * at 500 accounts × 300 checks) — the check filter ~3 s, the service filter ~0.9 s on the benchmark machine.
 *
 * - `findings_latest_check_idx`: the latest findings (migration 0024's `latest`) by service, check and a 64-bit hash
 *   of the finding's texts (title and policy check), carrying the columns the list reads (as
 *   `findings_latest_order_idx` does), so a service's latest findings are one range of it, read without the table.
 * - `latest_checks_matching(pattern)`: the (service, check) keys of the caller's workspace's latest findings whose
 *   check id, title or policy check matches the ILIKE pattern (`by_id`: the check id itself matches, so every finding
 *   of the key does): a loose index scan of that index over its distinct
 *   (service, check, texts) — one or two descents per distinct key, ~300 at 20 services × 15 checks however many
 *   accounts — the pattern tested once per distinct texts instead of once per finding. The list then reads the latest
 *   findings of those keys only (a range of `findings_latest_check_idx` each) and still tests the filter on each of
 *   them, so the hash only chooses which texts are looked at (a 64-bit collision between two texts of one check could
 *   hide one of them; nothing else depends on it).
 *   Under row-level security a query's ILIKE (not leakproof) is applied after the policies and never drives an index
 *   (migration 0018), so the function runs as its owner (SECURITY DEFINER, fixed search_path) and keeps itself to the
 *   caller's workspace (`app_current_workspace_id()`) and, for a member limited to account groups (`app_account_limit()`),
 *   to the keys some latest finding of their accounts has (one probe per matching key); it answers keys, never
 *   findings — the list's own statement, under the caller's policies, reads the findings. When the owner is itself
 *   subject to row-level security the walk sees what the caller's policies let it see (the same answer; the hash then
 *   cannot bound an index scan either, so a key's texts are one pass over that key's findings).
 *
 * Measured on the benchmark database (4.5M findings, 150,000 latest; bench/fleet-findings.ts, 2 cores shared with
 * other work): the migration takes 2.7–5.9 s (load 6–14), the index is 16 MB. Writes: a finding gains an entry only
 * while it is latest (300 per completed scan of 300 checks, as for `findings_latest_order_idx`).
 *
 * Frozen once released.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

/** The texts' hash of a `findings` row (and of `f`): the title's length keeps ("ab", "c") and ("a", "bc") apart. */
const TEXTS = `hashtextextended(length(title)::text || ':' || title || policy_check, 0)`
const TEXTS_F = `hashtextextended(length(f.title)::text || ':' || f.title || f.policy_check, 0)`

const statements = [
  `CREATE INDEX findings_latest_check_idx ON findings (workspace_id, service_id, check_id, (${TEXTS}))
     INCLUDE (id, scan_id, status, muted, severity, resources_checked, resources_failing, resources_remediated, resources_muted,
              resources_new, resources_fixed)
     WHERE latest`,

  // One step of the walk: the next texts of the same (service, check), else the first texts of the next (service,
  // check). Two probes rather than one row comparison over the three keys: the hash is not leakproof, so should the
  // owner be subject to row-level security it could not bound an index scan, while the (service, check) comparison
  // always can — the walk then stays one pass over the index, never one per key.
  `CREATE FUNCTION latest_checks_matching(p_pattern text) RETURNS TABLE (service_id integer, check_id text, by_id boolean)
     LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, public ROWS 50 AS $$
     WITH RECURSIVE k AS (
       (SELECT f.service_id, f.check_id, ${TEXTS_F} AS texts, f.title, f.policy_check
        FROM findings f WHERE f.workspace_id = app_current_workspace_id() AND f.latest
        ORDER BY f.service_id, f.check_id, ${TEXTS_F} LIMIT 1)
       UNION ALL
       SELECT n.service_id, n.check_id, n.texts, n.title, n.policy_check FROM k CROSS JOIN LATERAL (
         SELECT x.* FROM (
           (SELECT f.service_id, f.check_id, ${TEXTS_F} AS texts, f.title, f.policy_check
            FROM findings f WHERE f.workspace_id = app_current_workspace_id() AND f.latest
              AND f.service_id = k.service_id AND f.check_id = k.check_id AND ${TEXTS_F} > k.texts
            ORDER BY ${TEXTS_F} LIMIT 1)
           UNION ALL
           (SELECT f.service_id, f.check_id, ${TEXTS_F} AS texts, f.title, f.policy_check
            FROM findings f WHERE f.workspace_id = app_current_workspace_id() AND f.latest
              AND (f.service_id, f.check_id) > (k.service_id, k.check_id)
            ORDER BY f.service_id, f.check_id, ${TEXTS_F} LIMIT 1)
         ) x LIMIT 1) n
     )
     SELECT DISTINCT k.service_id, k.check_id, k.check_id ILIKE p_pattern AS by_id FROM k
     WHERE (k.check_id ILIKE p_pattern OR k.title ILIKE p_pattern OR k.policy_check ILIKE p_pattern)
       AND ((SELECT app_account_limit()) IS NULL OR EXISTS (
         SELECT 1 FROM findings f JOIN scans s ON s.id = f.scan_id AND s.workspace_id = f.workspace_id
         WHERE f.workspace_id = app_current_workspace_id() AND f.latest AND f.service_id = k.service_id
           AND f.check_id = k.check_id AND s.account_id = ANY ((SELECT app_account_limit())::integer[])))
   $$`,
  `REVOKE ALL ON FUNCTION latest_checks_matching(text) FROM PUBLIC`,
  `GRANT EXECUTE ON FUNCTION latest_checks_matching(text) TO cloud_audit_app`,
]

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  for (const statement of statements) yield* sql.unsafe(statement)
})
