/**
 * The scan digest (issue 13): after a scan completes, each member of its workspace who opted in (`users.scan_digest`,
 * profile) gets one email with the account, new failing / fixed / still failing resources by severity (the algebra's
 * failing resources, server/posture/algebra.ts `digestNumbers`) and the top new failing checks (server/mail/templates.ts `scanDigestMail`).
 *
 * Once per scan: `queueDigest` claims the scan by setting `digest_enqueued_at` (only when NULL) and, in the same
 * transaction, queues the mails through the mail outbox (`Mailer.send`: outbox row + `mail.send` job). Either all of it
 * commits or none of it: a retried or concurrent claim finds the column set and sends nothing, and delivery itself is
 * at least once (server/mail/mail-outbox.ts). Called when a scan's last service completes, and by the posture ticker for
 * completed scans that were not claimed (a scan finished by the sweeper).
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { AppConfig } from "../config.ts"
import { Mailer } from "../mail/mailer.ts"
import { scanDigestMail } from "../mail/templates.ts"
import { digestNumbers } from "./algebra.ts"

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
  const { counts, topNew: top } = yield* digestNumbers(workspaceId, scanId, DIGEST_TOP)
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
