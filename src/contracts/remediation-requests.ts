/**
 * Approval of remediations, four eyes (beyond the spec, issue 32; docs/remediation-approvals.md). An account marked as
 * requiring approval turns "Remediate" into a request: another member holding remediate_findings approves or rejects
 * it (with a comment), it expires after the account's set time, and nothing runs before approval. Shapes shared by the
 * server (server/remediation/approvals.ts, server/api/remediation-requests.ts) and the SPA (the approvals inbox,
 * /dashboard/approvals, and the account page's approval setting); messages are the texts both show.
 *
 * Calls:
 * - GET  /api/accounts/{id}/approval — the account's setting (any reader of the account);
 * - PUT  /api/accounts/{id}/approval — change it (create_account, the permission that edits accounts);
 * - GET  /api/remediation-requests?state=… — the inbox (remediate_findings);
 * - POST /api/remediation-requests/{id}/approve | reject | cancel — decide (another member with remediate_findings), or
 *   withdraw one's own pending request;
 * - POST /api/findings/{id}/remediate on such an account answers 202 with `data.approval_request`
 *   (`RemediationRequestedResponse`) instead of starting the fix.
 */
import { Schema } from "effect"
import { AccountId, FindingId, ScanId, UserId, idParam } from "./ids.ts"
import { NullableTimestamp, Timestamp, withData } from "./common.ts"

export const RemediationRequestId = Schema.Int.check(Schema.isGreaterThan(0)).pipe(Schema.brand("RemediationRequestId"))
export type RemediationRequestId = typeof RemediationRequestId.Type

export const RemediationRequestIdParams = Schema.Struct({ id: idParam(RemediationRequestId) })

/** Default and bounds of an account's approval expiry, in hours. */
export const ApprovalExpiry = { defaultHours: 72, minHours: 1, maxHours: 720 } as const

export const ApprovalMessages = {
  requestCreated: "Remediation request sent for approval",
  requestApproved: "Request approved: the remediation has started",
  requestRejected: "Request rejected",
  requestCancelled: "Request withdrawn",
  requestNotFound: "Remediation request not found",
  notPending: "This request has already been decided",
  expired: "This request has expired",
  ownRequest: "You cannot approve your own request: another member must approve it",
  onlyRequesterCancels: "Only the member who made a request can withdraw it",
  alreadyRequested: "A request to remediate this resource is already waiting for approval",
  rejectCommentRequired: "Please say why the request is rejected",
  commentTooLong: "Comments are at most 1000 characters",
  approvePermissionDenied: "You don't have permission to approve remediation requests",
  settingSaved: "Approval setting saved",
  settingPermissionDenied: "You don't have permission to change this account",
  expiryOutOfRange: "The expiry must be between 1 and 720 hours",
  loadFailed: "Failed to load remediation requests. Please try again.",
  decideFailed: "Failed to decide the request. Please try again.",
  loadSettingFailed: "Failed to load the approval setting. Please try again.",
  saveSettingFailed: "Failed to save the approval setting. Please try again.",
} as const

export const RequestState = Schema.Literals(["pending", "approved", "rejected", "expired", "cancelled"])
export type RequestState = typeof RequestState.Type

const Comment = Schema.String.check(Schema.isMaxLength(1000, { message: ApprovalMessages.commentTooLong }))

// ---------------------------------------------------------------------------------------------------
// The account's setting

export const ApprovalSetting = Schema.Struct({
  requires_approval: Schema.Boolean,
  expiry_hours: Schema.Int.check(
    Schema.isBetween({ minimum: ApprovalExpiry.minHours, maximum: ApprovalExpiry.maxHours }, { message: ApprovalMessages.expiryOutOfRange }),
  ),
})
export type ApprovalSetting = typeof ApprovalSetting.Type

export const ApprovalSettingResponse = Schema.Struct({
  ok: Schema.Boolean,
  message: Schema.optionalKey(Schema.String),
  data: ApprovalSetting,
})
export type ApprovalSettingResponse = typeof ApprovalSettingResponse.Type

// ---------------------------------------------------------------------------------------------------
// Requests

export const RequestMember = Schema.Struct({ id: UserId, email: Schema.String })
export type RequestMember = typeof RequestMember.Type

/** One requested row: what the remediate call named of it. */
export const RequestedRow = Schema.Struct({
  resource_id: Schema.String,
  region: Schema.String,
  result_seq: Schema.NullOr(Schema.Int),
})
export type RequestedRow = typeof RequestedRow.Type

export const RemediationRequest = Schema.Struct({
  id: RemediationRequestId,
  state: RequestState,
  account_id: AccountId,
  account_name: Schema.String,
  finding_id: FindingId,
  /** The scan of the finding (its page is /dashboard/scans/{scan_id}/findings/{finding_id}). */
  scan_id: ScanId,
  check_id: Schema.String,
  /** The finding's title (the check's). */
  title: Schema.String,
  severity: Schema.String,
  rows: Schema.Array(RequestedRow),
  /** What the fix does, and the warning when it can cut someone's access (null: it cannot). */
  fix_description: Schema.NullOr(Schema.String),
  cuts_access: Schema.NullOr(Schema.String),
  comment: Schema.NullOr(Schema.String),
  /** Null when the member has since been removed. */
  requested_by: Schema.NullOr(RequestMember),
  /** The caller made this request (they may withdraw it, never decide it). */
  requested_by_you: Schema.Boolean,
  requested_at: Timestamp,
  expires_at: Timestamp,
  decided_by: Schema.NullOr(RequestMember),
  decided_at: NullableTimestamp,
  decision_comment: Schema.NullOr(Schema.String),
  /** The remediations approval started (server/scans/remediation.ts; follow them on the finding). */
  remediation_ids: Schema.Array(Schema.Int),
})
export type RemediationRequest = typeof RemediationRequest.Type

/** A short reference to a request, as the remediate call answers it. */
export const ApprovalRequestRef = Schema.Struct({ id: RemediationRequestId, state: RequestState, expires_at: Timestamp })
export type ApprovalRequestRef = typeof ApprovalRequestRef.Type

/**
 * The remediate call's answer on an account that requires approval: 202 Accepted, the row as it stands (nothing
 * changed) and the request created.
 */
export const RemediationRequestedResponse = Schema.Struct({
  ok: Schema.Boolean,
  message: Schema.String,
  data: Schema.Struct({
    details: Schema.Record(Schema.String, Schema.Unknown),
    approval_request: ApprovalRequestRef,
  }),
}).annotate({ httpApiStatus: 202 })
export type RemediationRequestedResponse = typeof RemediationRequestedResponse.Type

/** The inbox: `state` filters (comma-joined; default every state), newest first. */
export const RemediationRequestsQuery = Schema.Struct({
  state: Schema.optionalKey(Schema.String),
  account_id: Schema.optionalKey(idParam(AccountId)),
  finding_id: Schema.optionalKey(idParam(FindingId)),
})
export type RemediationRequestsQuery = typeof RemediationRequestsQuery.Type

export const INVALID_STATE_FILTER = "state must be comma-joined request states (pending, approved, rejected, expired, cancelled)"

export const RemediationRequestsResponse = withData(Schema.Array(RemediationRequest))
export type RemediationRequestsResponse = typeof RemediationRequestsResponse.Type

/** Approve and cancel take an optional comment; reject needs one (`ApprovalMessages.rejectCommentRequired`). */
export const DecisionPayload = Schema.Struct({ comment: Schema.optionalKey(Schema.NullOr(Comment)) })
export type DecisionPayload = typeof DecisionPayload.Type

export const RemediationRequestResponse = Schema.Struct({ ok: Schema.Boolean, message: Schema.String, data: RemediationRequest })
export type RemediationRequestResponse = typeof RemediationRequestResponse.Type

/** Who may approve or reject a request: another member than its requester (the permission is checked by the server too). */
export const canDecide = (request: Pick<RemediationRequest, "state" | "requested_by_you">): boolean =>
  request.state === "pending" && !request.requested_by_you

/** Who may withdraw a request: its requester, while it is pending. */
export const canWithdraw = (request: Pick<RemediationRequest, "state" | "requested_by_you">): boolean =>
  request.state === "pending" && request.requested_by_you

/** The states a `state` filter names, or undefined when it names something else. */
export const parseStateFilter = (value: string | undefined): ReadonlyArray<RequestState> | undefined => {
  if (value === undefined || value.trim() === "") return []
  const parts = value.split(",").map((s) => s.trim()).filter((s) => s !== "")
  const states: ReadonlyArray<string> = RequestState.literals
  return parts.every((p) => states.includes(p)) ? [...new Set(parts)] as ReadonlyArray<RequestState> : undefined
}
