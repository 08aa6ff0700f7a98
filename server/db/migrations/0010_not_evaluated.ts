/**
 * The "not evaluated" outcome (issue 16): a check that could not decide (API not enabled, access denied, throttled
 * beyond retries, region not enabled) is stored with status 'not_evaluated' and the reason, instead of 'fail'. Its rows
 * saying what could not be read carry no compliance flag. Failed counts never include it; passed counts neither (a
 * service's and a scan's passed_findings are the findings that are neither failed nor not evaluated). The API keeps the
 * spec's three statuses on `status` and carries the outcome beside it (src/contracts/findings.ts `FindingOutcome`).
 * Findings written before keep their status ('fail' with "Could not be checked" rows).
 *
 * Frozen once released.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

const statements = [
  `ALTER TABLE findings DROP CONSTRAINT findings_status_check`,
  `ALTER TABLE findings
     ADD CONSTRAINT findings_status_check CHECK (status IN ('pass', 'fail', 'remediated', 'not_evaluated')),
     ADD COLUMN not_evaluated_reason text`,
]

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  for (const statement of statements) yield* sql.unsafe(statement)
})
