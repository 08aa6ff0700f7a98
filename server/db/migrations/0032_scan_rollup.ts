/**
 * A completed scan's roll-up holds what the fleet's reads need (issue 31 benchmark: organisation compliance, the fleet
 * dashboard at 500 members × 30 scans), so they read one row per member instead of its scan's findings:
 *
 * - `scans.check_outcomes`: each finding of the scan by check id, `[status, resources checked, resources failing,
 *   resources remediated, resources muted]` — exactly the facts a requirement's status reads (`requirementStatus`,
 *   src/contracts/outcomes.ts), so organisation compliance evaluates a member from its latest scan's row (server/posture/
 *   algebra.ts `CHECK_OUTCOMES_SQL`) instead of reading 20,000 findings.
 * - `scans.failing_resources`: the scan's failing resources (`failingResources` of its failed checks: status fail, not
 *   muted — the rank-0 entries of `outcome_counts`), a number per scan for the fleet dashboard's trend.
 *
 * Both columns are written with `outcome_counts`, by the same statements (the scan's roll-up, and `recountServices`
 * after a mute or a remediation changed a live scan), so every surface reads the same numbers; a superseded scan is
 * never recounted (docs/outcomes.md "History"), so what it said stays. Existing completed scans are filled here from
 * their findings as they stand — a superseded scan's findings are themselves frozen — in batches of scan ids, so no
 * statement holds more than a batch's findings (adding the columns, with constant defaults, rewrites nothing).
 *
 * Frozen once released.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

/** Frozen copy of algebra `CHECK_OUTCOMES_SQL` (scan `s`) at the time of this migration. */
const CHECK_OUTCOMES = `(SELECT coalesce(jsonb_object_agg(f.check_id, jsonb_build_array(f.status, f.resources_checked, f.resources_failing,
      f.resources_remediated, f.resources_muted)), '{}'::jsonb)
    FROM findings f WHERE f.workspace_id = s.workspace_id AND f.scan_id = s.id)`

/** Frozen copy of algebra `SCAN_FAILING_RESOURCES_SQL` (scan `s`) at the time of this migration. */
const FAILING_RESOURCES = `(SELECT coalesce(sum(greatest(0, f.resources_failing - f.resources_remediated - f.resources_muted)), 0)::int
    FROM findings f WHERE f.workspace_id = s.workspace_id AND f.scan_id = s.id AND f.status = 'fail' AND NOT f.muted)`

/** Scans filled per statement. */
const BATCH = 500

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql.unsafe(`ALTER TABLE scans ADD COLUMN check_outcomes jsonb NOT NULL DEFAULT '{}'::jsonb
                       CHECK (jsonb_typeof(check_outcomes) = 'object')`)
  yield* sql.unsafe(`ALTER TABLE scans ADD COLUMN failing_resources integer NOT NULL DEFAULT 0 CHECK (failing_resources >= 0)`)

  // Filled as the owner without row-level security on the tables it reads and writes (as migrations 0016 and 0024 did).
  yield* sql.unsafe(`ALTER TABLE findings NO FORCE ROW LEVEL SECURITY`)
  yield* sql.unsafe(`ALTER TABLE scans NO FORCE ROW LEVEL SECURITY`)
  let after = 0
  for (;;) {
    const batch = yield* sql<{ id: number }>`
      SELECT id FROM scans WHERE status = 'completed' AND id > ${after} ORDER BY id LIMIT ${BATCH}`
    if (batch.length === 0) break
    const ids = batch.map((r) => r.id)
    yield* sql.unsafe(`UPDATE scans s SET check_outcomes = ${CHECK_OUTCOMES}, failing_resources = ${FAILING_RESOURCES}
                       WHERE s.id = ANY($1::int[])`, [ids])
    after = ids.at(-1)!
  }
  yield* sql.unsafe(`ALTER TABLE findings FORCE ROW LEVEL SECURITY`)
  yield* sql.unsafe(`ALTER TABLE scans FORCE ROW LEVEL SECURITY`)
})
