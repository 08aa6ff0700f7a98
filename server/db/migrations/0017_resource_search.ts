/**
 * The findings list's resource search (issue 28 item 5, server/scans/findings-store.ts `listFindings`) looks the text up
 * in the account's inventory (`resources.resource_uid ILIKE '%text%'`, one row per resource, far fewer than result
 * rows) before reaching the scan's rows through `results_resource_idx`. A trigram index answers that lookup without
 * reading the whole inventory (measured at 1,000,000 result rows: ~300 ms → a few ms).
 *
 * pg_trgm ships with PostgreSQL (contrib) and is a trusted extension (the database owner, who runs migrations, may
 * create it); the embedded database loads it (server/db/client.ts). Where it cannot be created the search still works,
 * reading the inventory: the migration then creates no index and says so.
 *
 * Frozen once released.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { logLine } from "../../log.ts"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  // A failed CREATE EXTENSION must not abort the migration's transaction: it runs in the block's own subtransaction.
  yield* sql.unsafe(`DO $$ BEGIN
      CREATE EXTENSION IF NOT EXISTS pg_trgm;
    EXCEPTION WHEN OTHERS THEN
      RAISE NOTICE 'pg_trgm unavailable: %', SQLERRM;
    END $$`)
  const installed = yield* sql<{ ok: boolean }>`SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'pg_trgm') AS ok`
  if (installed[0]?.ok === true) {
    yield* sql.unsafe(`CREATE INDEX resources_uid_trgm_idx ON resources USING gin (resource_uid gin_trgm_ops)`)
  } else {
    logLine("warn", "migration 0017: pg_trgm is not available; the findings list's resource search reads the inventory without an index")
  }
})
