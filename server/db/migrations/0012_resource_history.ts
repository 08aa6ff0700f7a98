/**
 * A resource's history (issue 13 "a resource page: one resource's results across scans"): result rows looked up by the
 * resource's identity within a workspace, without reading every row of every finding of the account.
 *
 * Frozen once released.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql.unsafe(`CREATE INDEX results_resource_idx ON results (workspace_id, resource_uid, scan_id)`)
})
