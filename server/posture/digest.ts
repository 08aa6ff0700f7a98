/**
 * The scan digest (issue 13): after a scan completes, each member of its workspace who opted in (`users.scan_digest`,
 * profile) gets one email with the account, new failing / fixed / still failing resources by severity (muted rows left
 * out) and the top new failing checks (server/mail/templates.ts `scanDigestMail`).
 *
 * Once per scan: `queueDigest` claims the scan by setting `digest_enqueued_at` (only when NULL) and, in the same
 * transaction, queues the mails through the mail outbox (`Mailer.send`: outbox row + `mail.send` job). Either all of it
 * commits or none of it: a retried or concurrent claim finds the column set and sends nothing, and delivery itself is
 * at least once (server/mail/mail-outbox.ts). Called when a scan's last service completes, and by the posture ticker for
 * completed scans that were not claimed (a scan finished by the sweeper).
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { SEVERITIES } from "../../src/contracts/findings.ts"
import { AppConfig } from "../config.ts"
import { Mailer } from "../mail/mailer.ts"
import { scanDigestMail, type DigestCounts } from "../mail/templates.ts"

/** Top new failing checks listed in a digest. */
export const DIGEST_TOP = 5

export const queueDigest = Effect.fn("Digest.queue")(function* (workspaceId: number, scanId: number) {
  const sql = yield* SqlClient.SqlClient
  const claimed = yield* sql<{ account_name: string; workspace_name: string }>`
    UPDATE scans s SET digest_enqueued_at = now()
    FROM accounts a, workspaces w
    WHERE s.workspace_id = ${workspaceId} AND s.id = ${scanId} AND s.status = 'completed' AND s.digest_enqueued_at IS NULL
      AND a.id = s.account_id AND w.id = s.workspace_id
    RETURNING a.account_name, w.name AS workspace_name`
  const scan = claimed[0]
  if (scan === undefined) return 0
  const members = yield* sql<{ email: string; first_name: string }>`
    SELECT u.email, u.first_name FROM memberships m JOIN users u ON u.id = m.user_id
    WHERE m.workspace_id = ${workspaceId} AND u.scan_digest AND u.email_verified
    ORDER BY u.id`
  if (members.length === 0) return 0
  const rows = yield* sql<{ severity: string; new_failing: number; still_failing: number }>`
    SELECT f.severity,
           count(r.seq) FILTER (WHERE r.delta = 'new')::int AS new_failing,
           count(r.seq) FILTER (WHERE r.delta IS DISTINCT FROM 'new')::int AS still_failing
    FROM findings f JOIN results r ON r.workspace_id = f.workspace_id AND r.finding_id = f.id AND r.seq < f.resources_failing
    WHERE f.workspace_id = ${workspaceId} AND f.scan_id = ${scanId} AND f.status = 'fail' AND r.muted_by IS NULL
      AND coalesce(r.remediate->>'status', '') NOT IN ('remediated', 'pass')
    GROUP BY f.severity`
  const fixed = yield* sql<{ severity: string; fixed: number }>`
    SELECT severity, coalesce(sum(resources_fixed), 0)::int AS fixed FROM findings
    WHERE workspace_id = ${workspaceId} AND scan_id = ${scanId} GROUP BY severity`
  const counts: ReadonlyArray<DigestCounts> = SEVERITIES.map((severity) => ({
    severity,
    newFailing: rows.find((r) => r.severity === severity)?.new_failing ?? 0,
    stillFailing: rows.find((r) => r.severity === severity)?.still_failing ?? 0,
    fixed: fixed.find((r) => r.severity === severity)?.fixed ?? 0,
  }))
  const top = yield* sql<{ id: number; title: string; severity: string; resources: number }>`
    SELECT f.id, f.title, f.severity, count(r.seq)::int AS resources
    FROM findings f JOIN results r ON r.workspace_id = f.workspace_id AND r.finding_id = f.id AND r.seq < f.resources_failing
    WHERE f.workspace_id = ${workspaceId} AND f.scan_id = ${scanId} AND f.resources_new > 0 AND r.delta = 'new' AND r.muted_by IS NULL
    GROUP BY f.id
    ORDER BY CASE f.severity WHEN 'critical' THEN 0 WHEN 'high' THEN 1 WHEN 'medium' THEN 2 ELSE 3 END, count(r.seq) DESC, f.id
    LIMIT ${DIGEST_TOP}`
  const config = yield* AppConfig
  const mailer = yield* Mailer
  for (const member of members) {
    yield* mailer.send(scanDigestMail({
      origin: config.appOrigin,
      to: member.email,
      firstName: member.first_name,
      workspaceName: scan.workspace_name,
      accountName: scan.account_name,
      scanId,
      counts,
      topNew: top.map((t) => ({ findingId: t.id, title: t.title, severity: t.severity, resources: t.resources })),
    }))
  }
  return members.length
})
