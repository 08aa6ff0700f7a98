/**
 * Approval of remediations, four eyes (issue 32; docs/remediation-approvals.md; migration 0030).
 *
 * An account marked as requiring approval (`accounts.requires_approval`, changed by members who can edit accounts)
 * turns "Remediate" (POST /api/findings/{id}/remediate) into a request: `requestApproval` checks the row as the
 * remediation itself would (the row is in the finding, fails, has no remediation in progress or done, the check has a
 * fixer, the scan is the account's live one), records a `remediation_requests` row that expires after the account's
 * `approval_expiry_hours`, audits it and mails every other member who may approve it. Nothing runs.
 *
 * Another member holding remediate_findings (and allowed the account, when their role is limited to account groups —
 * row-level security hides the request otherwise) then, each in one transaction:
 * - approves (`approveRequest`): exactly the requested rows go through the same path as a remediation without approval
 *   (server/scans/remediation.ts `requestRemediation`, in the requester's name: they asked for it), the request records
 *   the remediations started; a row that can no longer be remediated refuses the approval with the reason and leaves the
 *   request pending (reject it then);
 * - or rejects it with a comment (`rejectRequest`).
 * The requester cannot decide their own request; they may withdraw it (`cancelRequest`). A pending request past its
 * expiry is expired by the posture ticker (`expireDueRequests`, server/scans/posture-ticker.ts) or by the next request
 * for the same resource. Requests, approvals, rejections, withdrawals and expiries are audited; the requester is mailed
 * each decision and the expiry.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import type { DetailRow } from "../../src/contracts/findings.ts"
import { Conflict, Forbidden, NotFound, ValidationError } from "../../src/contracts/errors.ts"
import { ScanningServerMessages } from "../../src/contracts/messages.ts"
import { OrganizationMessages } from "../../src/contracts/organizations.ts"
import { PERMISSION_IDS } from "../../src/contracts/permissions.ts"
import {
  ApprovalMessages,
  type ApprovalSetting,
  type RemediationRequest,
  type RemediationRequestedResponse,
  type RequestedRow,
  type RequestState,
} from "../../src/contracts/remediation-requests.ts"
import type { AccountId, FindingId, ScanId, UserId } from "../../src/contracts/ids.ts"
import type { RemediationRequestId } from "../../src/contracts/remediation-requests.ts"
import type { WorkspaceContext } from "../auth/workspace-context.ts"
import { recordAudit } from "../audit/scanning-audit.ts"
import { AppConfig } from "../config.ts"
import type { JobDefinition } from "../jobs/queue.ts"
import { Mailer } from "../mail/mailer.ts"
import { remediationDecisionMail, remediationRequestMail } from "../mail/templates.ts"
import { isSuperseded, HistoryMessages } from "../posture/algebra.ts"
import { fixerInfo } from "../scans/fixers.ts"
import { requestRemediation, type RemediatePayload } from "../scans/remediation.ts"
import { selectResultRows, toDetailRow, type ResultRow } from "../scans/results.ts"
import { lockScan } from "../scans/scans-store.ts"

const iso = (v: Date | string): string => new Date(v).toISOString()
const isoOrNull = (v: Date | string | null): string | null => (v === null ? null : iso(v))

// ---------------------------------------------------------------------------------------------------
// The account's setting

/** The account's approval setting; undefined when the account is not in the workspace (or not allowed to the caller). */
export const approvalSetting = Effect.fn("Approvals.setting")(function* (workspaceId: number, accountId: number) {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql<{ requires_approval: boolean; approval_expiry_hours: number }>`
    SELECT requires_approval, approval_expiry_hours FROM accounts WHERE workspace_id = ${workspaceId} AND id = ${accountId}`
  const r = rows[0]
  return r === undefined ? undefined : ({ requires_approval: r.requires_approval, expiry_hours: r.approval_expiry_hours } satisfies ApprovalSetting)
})

/** Saves the setting and audits the change (`account.approval_updated`, with the old and new values). */
export const saveApprovalSetting = Effect.fn("Approvals.saveSetting")(function* (ctx: WorkspaceContext, accountId: number, setting: ApprovalSetting) {
  const sql = yield* SqlClient.SqlClient
  const before = yield* sql<{ requires_approval: boolean; approval_expiry_hours: number; account_name: string }>`
    SELECT requires_approval, approval_expiry_hours, account_name FROM accounts
    WHERE workspace_id = ${ctx.workspaceId} AND id = ${accountId} FOR UPDATE`
  const old = before[0]
  if (old === undefined) return undefined
  yield* sql`UPDATE accounts SET requires_approval = ${setting.requires_approval}, approval_expiry_hours = ${setting.expiry_hours}, updated_at = now()
             WHERE workspace_id = ${ctx.workspaceId} AND id = ${accountId}`
  yield* recordAudit({
    action: "account.approval_updated",
    workspaceId: ctx.workspaceId,
    actorUserId: ctx.userId,
    targetType: "account",
    targetId: accountId,
    details: {
      account_name: old.account_name,
      requires_approval: setting.requires_approval,
      expiry_hours: setting.expiry_hours,
      previous: { requires_approval: old.requires_approval, expiry_hours: old.approval_expiry_hours },
    },
    ip: ctx.ip,
  })
  return setting
})

/** The account of a finding with its setting; undefined when the finding is unknown (the remediate call answers 404). */
export const approvalOfFinding = Effect.fn("Approvals.ofFinding")(function* (workspaceId: number, findingId: number) {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql<{ account_id: number; account_name: string; requires_approval: boolean; approval_expiry_hours: number }>`
    SELECT a.id AS account_id, a.account_name, a.requires_approval, a.approval_expiry_hours
    FROM findings f JOIN scans s ON s.workspace_id = f.workspace_id AND s.id = f.scan_id
    JOIN accounts a ON a.workspace_id = s.workspace_id AND a.id = s.account_id
    WHERE f.workspace_id = ${workspaceId} AND f.id = ${findingId}`
  return rows[0]
})

export type FindingApproval = NonNullable<Effect.Success<ReturnType<typeof approvalOfFinding>>>

// ---------------------------------------------------------------------------------------------------
// Reading requests

interface RequestRow {
  id: number
  state: RequestState
  account_id: number
  account_name: string
  finding_id: number
  scan_id: number
  check_id: string
  cloud_provider_id: number
  title: string
  severity: string
  rows: ReadonlyArray<RequestedRow> | string
  comment: string | null
  requested_by: number | null
  requested_email: string | null
  requested_first_name: string | null
  requested_at: Date | string
  expires_at: Date | string
  decided_by: number | null
  decided_email: string | null
  decided_at: Date | string | null
  decision_comment: string | null
  remediation_ids: ReadonlyArray<number>
}

const selectRequests = (sql: SqlClient.SqlClient) => sql`
  SELECT r.id, r.state, r.account_id, a.account_name, r.finding_id, f.scan_id, r.check_id, a.cloud_provider_id::int AS cloud_provider_id,
         f.title, f.severity, r.rows, r.comment, r.requested_by, ru.email AS requested_email, ru.first_name AS requested_first_name,
         r.requested_at, r.expires_at, r.decided_by, du.email AS decided_email, r.decided_at, r.decision_comment, r.remediation_ids
  FROM remediation_requests r
  JOIN accounts a ON a.workspace_id = r.workspace_id AND a.id = r.account_id
  JOIN findings f ON f.workspace_id = r.workspace_id AND f.id = r.finding_id
  LEFT JOIN users ru ON ru.id = r.requested_by
  LEFT JOIN users du ON du.id = r.decided_by`

const rowsOf = (r: Pick<RequestRow, "rows">): ReadonlyArray<RequestedRow> =>
  typeof r.rows === "string" ? (JSON.parse(r.rows) as ReadonlyArray<RequestedRow>) : r.rows

/** The contract's request as `viewerId` sees it. */
const toRequest = (r: RequestRow, viewerId: number): RemediationRequest => {
  const fixer = fixerInfo(r.check_id, r.cloud_provider_id)
  return {
    id: r.id as RemediationRequestId,
    state: r.state,
    account_id: r.account_id as AccountId,
    account_name: r.account_name,
    finding_id: r.finding_id as FindingId,
    scan_id: r.scan_id as ScanId,
    check_id: r.check_id,
    title: r.title,
    severity: r.severity,
    rows: rowsOf(r),
    fix_description: fixer?.description ?? null,
    cuts_access: fixer?.cutsAccess ?? null,
    comment: r.comment,
    requested_by: r.requested_by === null ? null : { id: r.requested_by as UserId, email: r.requested_email ?? "" },
    requested_by_you: r.requested_by === viewerId,
    requested_at: iso(r.requested_at),
    expires_at: iso(r.expires_at),
    decided_by: r.decided_by === null ? null : { id: r.decided_by as UserId, email: r.decided_email ?? "" },
    decided_at: isoOrNull(r.decided_at),
    decision_comment: r.decision_comment,
    remediation_ids: [...r.remediation_ids],
  }
}

/** Requests listed in the inbox at most (newest first). */
export const INBOX_LIMIT = 200

/** The inbox: the workspace's requests (those of allowed accounts) as `viewerId` sees them, newest first, optionally of some states. */
export const listRequests = Effect.fn("Approvals.list")(function* (
  workspaceId: number,
  viewerId: number,
  filter: { readonly states: ReadonlyArray<RequestState>; readonly accountId?: number | undefined; readonly findingId?: number | undefined },
) {
  const sql = yield* SqlClient.SqlClient
  const states = filter.states.length === 0 ? sql`` : sql`AND r.state = ANY(${filter.states as Array<string>}::text[])`
  const account = filter.accountId === undefined ? sql`` : sql`AND r.account_id = ${filter.accountId}`
  const finding = filter.findingId === undefined ? sql`` : sql`AND r.finding_id = ${filter.findingId}`
  const rows = yield* sql<RequestRow>`${selectRequests(sql)}
    WHERE r.workspace_id = ${workspaceId} ${states} ${account} ${finding}
    ORDER BY r.requested_at DESC, r.id DESC LIMIT ${INBOX_LIMIT}`
  return rows.map((r) => toRequest(r, viewerId))
})

const loadRequest = (workspaceId: number, id: number, lock: boolean) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<RequestRow & { expired_now: boolean }>`${selectRequests(sql)}
      CROSS JOIN LATERAL (SELECT r.expires_at <= now() AS expired_now) x
      WHERE r.workspace_id = ${workspaceId} AND r.id = ${id} ${lock ? sql`FOR UPDATE OF r` : sql``}`
    return rows[0]
  })

// ---------------------------------------------------------------------------------------------------
// Mail

/** Members of the workspace other than `exceptUserId` who may approve a request on `accountId` (verified addresses). */
const approvers = (workspaceId: number, accountId: number, exceptUserId: number) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const permission = PERMISSION_IDS.remediate_findings
    return yield* sql<{ id: number; email: string; first_name: string }>`
      SELECT u.id, u.email, u.first_name
      FROM memberships m JOIN users u ON u.id = m.user_id JOIN workspaces w ON w.id = m.workspace_id
      LEFT JOIN custom_roles cr ON cr.workspace_id = m.workspace_id AND cr.id = m.custom_role_id
      WHERE m.workspace_id = ${workspaceId} AND u.id <> ${exceptUserId} AND u.email_verified
        AND (w.owner_id = u.id
             OR EXISTS (SELECT 1 FROM role_permissions rp WHERE rp.role_id = m.role_id AND rp.permission_id = ${permission})
             OR EXISTS (SELECT 1 FROM custom_role_permissions crp
                        WHERE crp.workspace_id = m.workspace_id AND crp.custom_role_id = m.custom_role_id AND crp.permission_id = ${permission}))
        AND (w.owner_id = u.id OR cr.id IS NULL OR NOT cr.limited_to_groups
             OR ${accountId} = ANY (app_role_account_ids(m.workspace_id, m.custom_role_id)::integer[]))
      ORDER BY u.id`
  })

const findingPath = (r: Pick<RequestRow, "scan_id" | "finding_id">) => `/dashboard/scans/${r.scan_id}/findings/${r.finding_id}`

/** Mails the requester a decision or the expiry (nothing when they were removed or their address is unverified). */
const mailRequester = (r: RequestRow, outcome: "approved" | "rejected" | "expired", decider: string | null, comment: string | null) =>
  Effect.gen(function* () {
    if (r.requested_by === null) return
    const sql = yield* SqlClient.SqlClient
    const users = yield* sql<{ email: string; first_name: string }>`
      SELECT email, first_name FROM users WHERE id = ${r.requested_by} AND email_verified`
    const user = users[0]
    if (user === undefined) return
    const config = yield* AppConfig
    const mailer = yield* Mailer
    yield* mailer.send(remediationDecisionMail({
      origin: config.appOrigin,
      to: user.email,
      firstName: user.first_name,
      accountName: r.account_name,
      title: r.title,
      resources: rowsOf(r).map((row) => row.resource_id),
      outcome,
      decider,
      comment,
      requestId: r.id,
      findingPath: findingPath(r),
    }))
  })

// ---------------------------------------------------------------------------------------------------
// Expiry

/**
 * Expires the workspace's pending requests past their expiry at `now` (optionally only those of one resource of a
 * finding), audits each (`remediation_request.expired`, no actor) and mails its requester. Answers how many expired.
 */
export const expireDueRequests = Effect.fn("Approvals.expire")(function* (
  workspaceId: number,
  now: Date,
  only?: { readonly findingId: number; readonly resourceId: string; readonly region: string },
) {
  const sql = yield* SqlClient.SqlClient
  const which = only === undefined
    ? sql``
    : sql`AND finding_id = ${only.findingId} AND resource_id = ${only.resourceId} AND region = ${only.region}`
  const expired = yield* sql<{ id: number }>`
    UPDATE remediation_requests SET state = 'expired', decided_at = greatest(${now}::timestamptz, requested_at)
    WHERE workspace_id = ${workspaceId} AND state = 'pending' AND expires_at <= ${now} ${which}
    RETURNING id`
  for (const { id } of expired) {
    const r = yield* loadRequest(workspaceId, id, false)
    if (r === undefined) continue
    yield* recordAudit({
      action: "remediation_request.expired",
      workspaceId,
      actorUserId: null,
      targetType: "remediation_request",
      targetId: id,
      details: { finding_id: r.finding_id, account_id: r.account_id, check_id: r.check_id, expires_at: iso(r.expires_at) },
    })
    yield* mailRequester(r, "expired", null, null)
  }
  return expired.length
})

/** The condition on `remediation_requests` the posture ticker lists workspaces by (in its read-only system scope). */
export const dueRequests = (sql: SqlClient.SqlClient, now: Date) =>
  sql`SELECT workspace_id FROM remediation_requests WHERE state = 'pending' AND expires_at <= ${now}`

// ---------------------------------------------------------------------------------------------------
// Requesting

const invalidRow = () =>
  new ValidationError({
    message: ScanningServerMessages.rowNotInFinding,
    errors: [{ path: "details", message: ScanningServerMessages.rowNotInFinding }],
  })

/** The finding's row the client names: its `result_seq` when it still holds that resource, else resource id + region. */
const findRow = (workspaceId: number, findingId: number, resourceId: string, region: string, seq: unknown) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    if (typeof seq === "number" && Number.isInteger(seq) && seq >= 0 && seq <= 2_147_483_647) {
      const bySeq = yield* sql<ResultRow>`${selectResultRows(sql)}
        WHERE workspace_id = ${workspaceId} AND finding_id = ${findingId} AND seq = ${seq}`
      const row = bySeq[0]
      if (row !== undefined && row.resource_id === resourceId && row.region === region) return row
    }
    const byId = yield* sql<ResultRow>`${selectResultRows(sql)}
      WHERE workspace_id = ${workspaceId} AND finding_id = ${findingId} AND resource_id = ${resourceId} AND region = ${region}
      ORDER BY compliant NULLS LAST, rank, seq LIMIT 1`
    return byId[0]
  })

/**
 * The remediate call on an account requiring approval: checks the row as a remediation would, records the request,
 * audits it and mails the approvers. Answers 202 with the row unchanged and the request.
 */
export const requestApproval = (
  ctx: WorkspaceContext,
  findingId: number,
  wanted: DetailRow,
  comment: string | null,
  account: FindingApproval,
) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const resourceId = wanted["resource_id"]
    const region = wanted["region"]
    if (typeof resourceId !== "string" || typeof region !== "string") {
      return yield* new ValidationError({
        message: ScanningServerMessages.rowNotInFinding,
        errors: [{ path: "details.resource_id", message: ScanningServerMessages.rowNotInFinding }],
      })
    }
    if (comment !== null && comment.length > 1000) {
      return yield* new ValidationError({ message: ApprovalMessages.commentTooLong, errors: [{ path: "comment", message: ApprovalMessages.commentTooLong }] })
    }
    const found = yield* sql<{ scan_id: number; check_id: string; title: string; cloud_provider_id: number; workspace_name: string; retired: boolean }>`
      SELECT f.scan_id, f.check_id, f.title, s.cloud_provider_id::int AS cloud_provider_id, w.name AS workspace_name,
             a.retired_at IS NOT NULL AS retired
      FROM findings f JOIN scans s ON s.id = f.scan_id JOIN workspaces w ON w.id = f.workspace_id
      JOIN accounts a ON a.id = s.account_id AND a.workspace_id = s.workspace_id
      WHERE f.workspace_id = ${ctx.workspaceId} AND f.id = ${findingId}`
    const finding = found[0]
    if (finding === undefined) return yield* new NotFound({ message: ScanningServerMessages.findingNotFound })
    // As a remediation without approval (server/scans/remediation.ts): a retired member's findings take none.
    if (finding.retired) return yield* new Conflict({ message: OrganizationMessages.memberRetiredRemediation, data: { error_type: "account_retired" } })
    // The lock order of a remediation (server/scans/remediation.ts): scan, then finding.
    yield* lockScan(ctx.workspaceId, finding.scan_id)
    if (yield* isSuperseded(ctx.workspaceId, finding.scan_id)) return yield* new Conflict({ message: HistoryMessages.scanSuperseded })
    yield* sql`SELECT 1 FROM findings WHERE workspace_id = ${ctx.workspaceId} AND id = ${findingId} FOR UPDATE`
    const row = yield* findRow(ctx.workspaceId, findingId, resourceId, region, wanted["result_seq"])
    if (row === undefined) return yield* invalidRow()
    if (row.compliant !== false) return yield* new Conflict({ message: ScanningServerMessages.rowCompliant })
    const status = row.remediate?.["status"]
    if (status === "remediated") return yield* new Conflict({ message: ScanningServerMessages.rowAlreadyRemediated })
    if (status === "pending" || status === "running") return yield* new Conflict({ message: ScanningServerMessages.remediationPending })
    const fixer = fixerInfo(finding.check_id, finding.cloud_provider_id)
    if (row.fields["error_code"] !== undefined || fixer === undefined) return yield* new Conflict({ message: ScanningServerMessages.noFixer })

    // A request of this resource left pending past its expiry is expired now (the ticker may not have come by yet).
    const now = new Date()
    yield* expireDueRequests(ctx.workspaceId, now, { findingId, resourceId: row.resource_id, region: row.region })
    const open = yield* sql<{ id: number }>`
      SELECT id FROM remediation_requests
      WHERE workspace_id = ${ctx.workspaceId} AND finding_id = ${findingId} AND resource_id = ${row.resource_id}
        AND region = ${row.region} AND state = 'pending'`
    if (open.length > 0) return yield* new Conflict({ message: ApprovalMessages.alreadyRequested, data: { error_type: "approval_pending" } })

    const rows: ReadonlyArray<RequestedRow> = [{ resource_id: row.resource_id, region: row.region, result_seq: row.seq }]
    const inserted = yield* sql<{ id: number; expires_at: Date | string }>`
      INSERT INTO remediation_requests (workspace_id, account_id, finding_id, check_id, resource_id, region, rows, comment, requested_by, expires_at)
      VALUES (${ctx.workspaceId}, ${account.account_id}, ${findingId}, ${finding.check_id}, ${row.resource_id}, ${row.region},
              ${JSON.stringify(rows)}::jsonb, ${comment}, ${ctx.userId}, now() + make_interval(hours => ${account.approval_expiry_hours}))
      RETURNING id, expires_at`
    const request = inserted[0]!
    yield* recordAudit({
      action: "remediation_request.created",
      workspaceId: ctx.workspaceId,
      actorUserId: ctx.userId,
      targetType: "remediation_request",
      targetId: request.id,
      details: {
        finding_id: findingId,
        account_id: account.account_id,
        check_id: finding.check_id,
        resource_id: row.resource_id,
        region: row.region,
        expires_at: iso(request.expires_at),
        may_cut_access: fixer.cutsAccess ?? false,
      },
      ip: ctx.ip,
    })
    const requester = (yield* sql<{ email: string }>`SELECT email FROM users WHERE id = ${ctx.userId}`)[0]?.email ?? "A member"
    const config = yield* AppConfig
    const mailer = yield* Mailer
    for (const approver of yield* approvers(ctx.workspaceId, account.account_id, ctx.userId)) {
      yield* mailer.send(remediationRequestMail({
        origin: config.appOrigin,
        to: approver.email,
        firstName: approver.first_name,
        workspaceName: finding.workspace_name,
        accountName: account.account_name,
        requester,
        title: finding.title,
        resources: rows.map((r) => r.resource_id),
        comment,
        requestId: request.id,
        expiresAt: iso(request.expires_at),
      }))
    }
    return {
      ok: true,
      message: ApprovalMessages.requestCreated,
      data: {
        details: toDetailRow(row) as unknown as Record<string, unknown>,
        approval_request: { id: request.id as RemediationRequestId, state: "pending" as const, expires_at: iso(request.expires_at) },
      },
    } satisfies RemediationRequestedResponse
  })

// ---------------------------------------------------------------------------------------------------
// Deciding

/** The pending request, locked; the refusals every decision shares (unknown, decided, expired). */
const pendingRequest = (workspaceId: number, id: number) =>
  Effect.gen(function* () {
    const r = yield* loadRequest(workspaceId, id, true)
    if (r === undefined) return yield* new NotFound({ message: ApprovalMessages.requestNotFound })
    if (r.state !== "pending") return yield* new Conflict({ message: ApprovalMessages.notPending, data: { error_type: `request_${r.state}` } })
    if (r.expired_now) return yield* new Conflict({ message: ApprovalMessages.expired, data: { error_type: "request_expired" } })
    return r
  })

const cleanComment = (comment: string | null | undefined): string | null => {
  const c = comment?.trim() ?? ""
  return c === "" ? null : c
}

const decide = (ctx: WorkspaceContext, id: number, state: "approved" | "rejected" | "cancelled", comment: string | null, remediationIds: ReadonlyArray<number>) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    yield* sql`UPDATE remediation_requests
               SET state = ${state}, decided_by = ${ctx.userId}, decided_at = now(), decision_comment = ${comment},
                   remediation_ids = ${remediationIds as Array<number>}::int[]
               WHERE workspace_id = ${ctx.workspaceId} AND id = ${id}`
    const after = yield* loadRequest(ctx.workspaceId, id, false)
    yield* recordAudit({
      action: `remediation_request.${state}`,
      workspaceId: ctx.workspaceId,
      actorUserId: ctx.userId,
      targetType: "remediation_request",
      targetId: id,
      details: {
        finding_id: after!.finding_id,
        account_id: after!.account_id,
        check_id: after!.check_id,
        requested_by: after!.requested_by,
        comment,
        ...(state === "approved" ? { remediation_ids: remediationIds } : {}),
      },
      ip: ctx.ip,
    })
    return after!
  })

/**
 * Approves a pending request of another member: runs exactly its rows through `requestRemediation` (in the requester's
 * name; the approver is recorded on the request and in the audit), records the remediations started, audits, mails the
 * requester. A row that can no longer be remediated fails the whole approval with that reason (nothing is recorded).
 */
export const approveRequest = (
  ctx: WorkspaceContext,
  id: number,
  comment: string | null | undefined,
  job: JobDefinition<string, RemediatePayload, any>,
) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const r = yield* pendingRequest(ctx.workspaceId, id)
    if (r.requested_by === ctx.userId) return yield* new Forbidden({ message: ApprovalMessages.ownRequest })
    const asRequester: WorkspaceContext = { ...ctx, userId: r.requested_by ?? ctx.userId }
    const started: Array<number> = []
    for (const row of rowsOf(r)) {
      const wanted = { resource_id: row.resource_id, region: row.region, ...(row.result_seq === null ? {} : { result_seq: row.result_seq }) }
      yield* requestRemediation(asRequester, r.finding_id, wanted as unknown as DetailRow, job)
      const latest = yield* sql<{ id: number }>`
        SELECT id FROM remediations WHERE workspace_id = ${ctx.workspaceId} AND finding_id = ${r.finding_id}
          AND resource_id = ${row.resource_id} AND region = ${row.region} ORDER BY id DESC LIMIT 1`
      if (latest[0] !== undefined) started.push(latest[0].id)
    }
    const c = cleanComment(comment)
    const after = yield* decide(ctx, id, "approved", c, started)
    const approver = (yield* sql<{ email: string }>`SELECT email FROM users WHERE id = ${ctx.userId}`)[0]?.email ?? null
    yield* mailRequester(after, "approved", approver, c)
    return toRequest(after, ctx.userId)
  })

/** Rejects a pending request of another member with a comment (required), audits, mails the requester. */
export const rejectRequest = (ctx: WorkspaceContext, id: number, comment: string | null | undefined) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const c = cleanComment(comment)
    if (c === null) {
      return yield* new ValidationError({ message: ApprovalMessages.rejectCommentRequired, errors: [{ path: "comment", message: ApprovalMessages.rejectCommentRequired }] })
    }
    const r = yield* pendingRequest(ctx.workspaceId, id)
    if (r.requested_by === ctx.userId) return yield* new Forbidden({ message: ApprovalMessages.ownRequest })
    const after = yield* decide(ctx, id, "rejected", c, [])
    const decider = (yield* sql<{ email: string }>`SELECT email FROM users WHERE id = ${ctx.userId}`)[0]?.email ?? null
    yield* mailRequester(after, "rejected", decider, c)
    return toRequest(after, ctx.userId)
  })

/** The requester withdraws their pending request (audited; nobody is mailed). */
export const cancelRequest = (ctx: WorkspaceContext, id: number, comment: string | null | undefined) =>
  Effect.gen(function* () {
    const r = yield* pendingRequest(ctx.workspaceId, id)
    if (r.requested_by !== ctx.userId) return yield* new Forbidden({ message: ApprovalMessages.onlyRequesterCancels })
    return toRequest(yield* decide(ctx, id, "cancelled", cleanComment(comment), []), ctx.userId)
  })
