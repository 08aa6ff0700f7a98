/**
 * Remediation preview and undo (issue 32, docs/remediation.md): the preview of a fix (its exact calls, effects,
 * permissions, reversibility, CLI and Terraform), a finding's remediations with their state, and the undo of one.
 *
 * Errors: 404 finding / remediation not found; 409 `RemediationConflict` when the resource changed since the fix (the
 * field differences are in `differences`; undo again with `force: true` to overwrite them); 409 Conflict when undo is
 * not possible (irreversible fix, retention passed, not verified, already undone or in progress); 400 for a row that is
 * not the finding's or a check whose fix has no preview yet.
 */
import { Schema } from "effect"
import { FindingId, idParam } from "./ids.ts"
import { NullableTimestamp, Timestamp, withData } from "./common.ts"
import { DetailRow } from "./findings.ts"

export const RemediationId = Schema.Int.check(Schema.isGreaterThan(0)).pipe(Schema.brand("RemediationId"))
export type RemediationId = typeof RemediationId.Type

/** How long after a fix its undo is offered. */
export const UNDO_RETENTION_DAYS = 30

export const REMEDIATION_STATES = ["pending", "applied", "verified", "failed", "undoing", "undone", "undo_failed"] as const
export const RemediationState = Schema.Literals(REMEDIATION_STATES)
export type RemediationState = typeof RemediationState.Type

/** POST /api/findings/{id}/remediation-preview: the row by its `result_seq`, or the detail row itself (`details`). */
export const RemediationPreviewPayload = Schema.Struct({
  result_seq: Schema.optionalKey(Schema.Int.check(Schema.isGreaterThanOrEqualTo(0))),
  details: Schema.optionalKey(DetailRow),
})
export type RemediationPreviewPayload = typeof RemediationPreviewPayload.Type

export const PlannedCallView = Schema.Struct({
  service: Schema.String,
  operation: Schema.String,
  region: Schema.NullOr(Schema.String),
  params: Schema.Unknown,
  /** The equivalent CLI command (aws …), generated from the same call. */
  cli: Schema.String,
})

export const PermissionCheckView = Schema.Struct({
  action: Schema.String,
  status: Schema.Literals(["allowed", "denied", "unknown"]),
  how: Schema.String,
})

export const RemediationPreview = Schema.Struct({
  check_id: Schema.String,
  description: Schema.String,
  cuts_access: Schema.NullOr(Schema.String),
  /** Set when the resource needs no change. */
  noop: Schema.NullOr(Schema.String),
  calls: Schema.Array(PlannedCallView),
  effects: Schema.Array(Schema.String),
  permissions: Schema.Array(PermissionCheckView),
  reversible: Schema.Boolean,
  undo_calls: Schema.Array(PlannedCallView),
  undo_note: Schema.NullOr(Schema.String),
  cli: Schema.String,
  terraform: Schema.String,
  /** The state the fix changes, as read now. */
  state: Schema.Unknown,
  /** How long after the fix undo stays possible (days). */
  undo_retention_days: Schema.Int,
})
export type RemediationPreview = typeof RemediationPreview.Type

export const RemediationPreviewResponse = withData(RemediationPreview)

export const StateDifferenceView = Schema.Struct({
  path: Schema.String,
  expected: Schema.optionalKey(Schema.Unknown),
  actual: Schema.optionalKey(Schema.Unknown),
})

export const Remediation = Schema.Struct({
  id: RemediationId,
  finding_id: FindingId,
  scan_id: Schema.Int,
  account_id: Schema.Int,
  check_id: Schema.String,
  resource_id: Schema.String,
  region: Schema.String,
  result_seq: Schema.NullOr(Schema.Int),
  state: RemediationState,
  message: Schema.NullOr(Schema.String),
  requested_by: Schema.NullOr(Schema.Struct({ id: Schema.Int, email: Schema.String })),
  requested_at: Timestamp,
  applied_at: NullableTimestamp,
  finished_at: NullableTimestamp,
  /** The state the fix changed, before and after, and the calls it planned (null for fixes without a plan). */
  pre_image: Schema.Unknown,
  post_image: Schema.Unknown,
  calls: Schema.Array(PlannedCallView),
  effects: Schema.Array(Schema.String),
  undo: Schema.Struct({
    /** Whether undo can be asked now. */
    available: Schema.Boolean,
    /** Why not (irreversible fix, retention passed, not verified, already undone), or what undo will not bring back. */
    reason: Schema.NullOr(Schema.String),
    until: NullableTimestamp,
    calls: Schema.Array(PlannedCallView),
    requested_at: NullableTimestamp,
    requested_by: Schema.NullOr(Schema.Struct({ id: Schema.Int, email: Schema.String })),
    forced: Schema.Boolean,
    done_at: NullableTimestamp,
    message: Schema.NullOr(Schema.String),
    differences: Schema.Array(StateDifferenceView),
  }),
})
export type Remediation = typeof Remediation.Type

export const RemediationResponse = withData(Remediation)
export const RemediationListResponse = withData(Schema.Array(Remediation))

export const RemediationsQuery = Schema.Struct({ finding_id: FindingId })
export const RemediationIdParams = Schema.Struct({ id: idParam(RemediationId) })

export const UndoPayload = Schema.Struct({ force: Schema.optionalKey(Schema.Boolean) })

/** 409: the resource changed since the fix; undo would overwrite these differences (post-image → now). */
export class RemediationConflict extends Schema.TaggedError<RemediationConflict>()(
  "RemediationConflict",
  { message: Schema.String, differences: Schema.Array(StateDifferenceView) },
  { httpApiStatus: 409 },
) {}

export const RemediationMessages = {
  notFound: "Remediation not found",
  changedSinceFix: "The resource changed since the fix; undo would overwrite those changes. Undo again with force to overwrite them.",
  irreversible: "This fix cannot be undone",
  retentionPassed: `Undo is no longer possible: it is offered for ${UNDO_RETENTION_DAYS} days after the fix`,
  notVerified: "Only a fix that was applied can be undone",
  alreadyUndone: "This fix was already undone",
  undoInProgress: "This fix is being undone",
  noPlan: "This fix was made before undo existed or has no plan; it cannot be undone",
  rowRequired: "Give the row to preview: result_seq or details",
  noPreview: "This check's fix has no preview yet",
  undoQueued: "Undo queued",
  // The SPA's texts (issue 32 part 5): the remediate dialog's preview and the finding page's remediation history.
  previewFailed: "Failed to load the remediation preview. Please try again.",
  historyFailed: "Failed to load the remediation history. Please try again.",
  undoFailed: "Failed to undo the remediation. Please try again.",
  undoPermissionDenied: "You don't have permission to undo remediations",
} as const

/**
 * Why a remediation's undo is not offered, as the history shows it: the server's reason on its own. Each reason is a
 * sentence of its own ("This fix was already undone", "Undo is no longer possible: it is offered for 30 days…", "This
 * account was retired from its organization: …"), so a prefix before it read "…: This account…" or said "no longer
 * possible" twice.
 */
export const undoUnavailableText = (reason: string | null): string => reason ?? RemediationMessages.irreversible

/** States in which a remediation still moves on its own (the history polls while one is shown). */
export const UNSETTLED_REMEDIATION_STATES: ReadonlySet<RemediationState> = new Set(["pending", "applied", "undoing"])

const ConflictBody = Schema.Struct({ _tag: Schema.Literal("RemediationConflict"), message: Schema.String, differences: Schema.Array(StateDifferenceView) })
export type StateDifference = typeof StateDifferenceView.Type

/** The 409 `RemediationConflict` body of an undo refusal (its field differences), or null for any other error body. */
export const remediationConflictOf = (body: unknown): { readonly message: string; readonly differences: ReadonlyArray<StateDifference> } | null => {
  const decoded = Schema.decodeUnknownOption(ConflictBody)(body)
  return decoded._tag === "Some" ? { message: decoded.value.message, differences: decoded.value.differences } : null
}
