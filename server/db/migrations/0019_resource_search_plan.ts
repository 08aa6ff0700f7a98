/**
 * The resource search's plan must not depend on table statistics: the embedded database (PGlite, single-user) runs no
 * autovacuum, so its tables are never analyzed, and without statistics the planner read the whole inventory through
 * the workspace index (and the whole of the scan's results index) instead of the trigram index (bench:findings on
 * PGlite at 1,000,000 rows: ~3.6 s p50).
 *
 * `findings_resource_uids` now asks the trigram index alone first (the ILIKE is the only condition of a fenced
 * subquery, `OFFSET 0`), then keeps the caller's workspace and the account; `listFindings` reaches the scan's rows of
 * each uid found by a LATERAL lookup of `results_resource_idx` (server/scans/findings-store.ts).
 *
 * Frozen once released.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql.unsafe(`CREATE OR REPLACE FUNCTION findings_resource_uids(p_account_id integer, p_pattern text) RETURNS TABLE (resource_uid text)
     LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, public ROWS 100 AS $$
   BEGIN
     -- EXECUTE plans with the pattern's value; the fence keeps the ILIKE the only condition the index scan may use.
     RETURN QUERY EXECUTE
       'SELECT t.resource_uid FROM (SELECT inv.resource_uid, inv.workspace_id, inv.account_id FROM resources inv
                                    WHERE inv.resource_uid ILIKE $2 OFFSET 0) t
        WHERE t.workspace_id = app_current_workspace_id() AND t.account_id = $1'
       USING p_account_id, p_pattern;
   END $$`)
})
