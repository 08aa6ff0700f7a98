/**
 * Abandoned remediations (issue 15 "Recovery"): the posture ticker, which runs in every worker process, lists the
 * workspaces holding a remediation still 'running' long after every attempt could have ended (its workers died), as it
 * lists those with due schedules, in the read-only system scope `posture-ticker`. It then fails them in each workspace's
 * own scope (server/scans/remediation.ts `failAbandonedRemediations`).
 *
 * Frozen once released.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql.unsafe(`CREATE POLICY remediations_ticker ON remediations FOR SELECT USING (app_system_scope() = 'posture-ticker')`)
})
