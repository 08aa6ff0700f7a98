/**
 * The trigram index of migration 0017 is not used by the API's own reads: under row-level security PostgreSQL applies
 * a query's non-leakproof conditions (ILIKE is one) only after the policy's, so it never makes them index conditions,
 * and the search read the whole inventory of the account (measured at 1,000,000 result rows: ~640 ms; with the index,
 * ~12 ms).
 *
 * `findings_resource_uids(account, pattern)` answers the resource uids of one account of the caller's workspace
 * (`app_current_workspace_id()`, the value the policies use) whose uid matches the ILIKE pattern. It runs as its
 * owner, the role that ran the migrations (SECURITY DEFINER, fixed search_path); its own condition on the workspace
 * keeps the answer to the caller's workspace whatever the owner may read. When the owner is subject to row-level
 * security (neither superuser nor BYPASSRLS) the answer is the same, read without the index.
 *
 * Frozen once released.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

const statements = [
  `CREATE FUNCTION findings_resource_uids(p_account_id integer, p_pattern text) RETURNS TABLE (resource_uid text)
     LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, public ROWS 100 AS $$
   BEGIN
     -- EXECUTE plans with the pattern's value, so a selective pattern uses the trigram index.
     RETURN QUERY EXECUTE
       'SELECT inv.resource_uid FROM resources inv
        WHERE inv.workspace_id = app_current_workspace_id() AND inv.account_id = $1 AND inv.resource_uid ILIKE $2'
       USING p_account_id, p_pattern;
   END $$`,
  `REVOKE ALL ON FUNCTION findings_resource_uids(integer, text) FROM PUBLIC`,
  `GRANT EXECUTE ON FUNCTION findings_resource_uids(integer, text) TO cloud_audit_app`,
]

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  for (const statement of statements) yield* sql.unsafe(statement)
})
