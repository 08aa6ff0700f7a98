/**
 * The findings list filters by region on the server (issue 28 item 5): each finding keeps how many of its resources
 * it evaluated in each region (`resources_by_region`, `{"us-east-1": 12, …}`), written with the finding
 * (server/scans/results.ts) and never changed afterwards (a scan's rows are immutable). A region filter then reads the
 * few hundred findings of a scan instead of their (up to millions of) result rows, and needs no index on `results`
 * (whose writes stay cheap). Existing findings are filled from their rows here.
 *
 * The conversion runs as the owner with the policies of the two tables relaxed for this transaction only (FORCE is
 * restored before commit), as in migration 0006.
 *
 * Frozen once released.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql.unsafe(`ALTER TABLE findings ADD COLUMN resources_by_region jsonb NOT NULL DEFAULT '{}'::jsonb
    CHECK (jsonb_typeof(resources_by_region) = 'object')`)
  yield* sql.unsafe(`ALTER TABLE findings NO FORCE ROW LEVEL SECURITY`)
  yield* sql.unsafe(`ALTER TABLE results NO FORCE ROW LEVEL SECURITY`)
  yield* sql.unsafe(`
    UPDATE findings f SET resources_by_region = x.by_region
    FROM (SELECT g.workspace_id, g.finding_id, jsonb_object_agg(g.region, g.n) AS by_region
          FROM (SELECT workspace_id, finding_id, region, count(*)::int AS n FROM results GROUP BY workspace_id, finding_id, region) g
          GROUP BY g.workspace_id, g.finding_id) x
    WHERE f.workspace_id = x.workspace_id AND f.id = x.finding_id`)
  yield* sql.unsafe(`ALTER TABLE findings FORCE ROW LEVEL SECURITY`)
  yield* sql.unsafe(`ALTER TABLE results FORCE ROW LEVEL SECURITY`)
})
