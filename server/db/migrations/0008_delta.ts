/**
 * What changed since the last scan (issue 13 "Delta"): every result row written from now on is classified against the
 * previous completed scan of the same account (server/scans/results.ts `classify`):
 *   first      — the account had no completed scan before;
 *   new        — failing now, not failing in the previous scan (a new resource, a new failure, or a check not run then);
 *   unchanged  — failing in both, or failing in neither;
 *   fixed      — failing before, not failing now.
 * Findings count their new failing rows and their fixed ones (fixed also counts resources that failed before and are
 * gone now); services and scans sum them and name the scan they were compared with. Rows and findings written before
 * this migration keep NULL / 0: not classified.
 *
 * Numbered 0008: 0007 was left to a change being made alongside. Frozen once released.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

const statements = [
  `ALTER TABLE results ADD COLUMN delta text CHECK (delta IN ('first', 'new', 'unchanged', 'fixed'))`,
  `ALTER TABLE findings
     ADD COLUMN resources_new integer NOT NULL DEFAULT 0 CHECK (resources_new >= 0),
     ADD COLUMN resources_fixed integer NOT NULL DEFAULT 0 CHECK (resources_fixed >= 0)`,
  `ALTER TABLE scan_services
     ADD COLUMN new_failing integer NOT NULL DEFAULT 0 CHECK (new_failing >= 0),
     ADD COLUMN fixed integer NOT NULL DEFAULT 0 CHECK (fixed >= 0)`,
  `ALTER TABLE scans
     ADD COLUMN new_failing integer NOT NULL DEFAULT 0 CHECK (new_failing >= 0),
     ADD COLUMN fixed integer NOT NULL DEFAULT 0 CHECK (fixed >= 0),
     ADD COLUMN previous_scan_id integer`,
]

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  for (const statement of statements) yield* sql.unsafe(statement)
})
