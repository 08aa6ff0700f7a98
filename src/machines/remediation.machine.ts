/**
 * The remediation dialog of one detail row of a finding (scanning §2 "a remediation dialog", §4 remediation states,
 * §6 remediate_findings, §7 POST /api/findings/{id}/remediate with `details` = the row, §8 'Failed to remediate
 * finding. Please try again.').
 *
 * - A row without a `remediate` record opens by loading the fix's preview (issue 32: its calls, effects, permissions,
 *   reversibility, CLI and Terraform, POST /api/findings/{id}/remediation-preview) and then asks to confirm
 *   ('Remediate'); a preview that fails to load shows the error with Retry. A row with a record opens in `viewing`
 *   (the button read 'View Success', 'View Remediated', 'View Error' or 'View Status').
 * - `remediation.confirmed` / `remediation.retried` ('Try again', only after a failure) → `remediating`; without
 *   remediate_findings the attempt toasts "You don't have permission to remediate findings" and nothing is sent.
 * - `remediating` → `viewing` with the row as the server now has it (toast with the server's message), `requested`
 *   when the account requires approval (the server answered 202 with the approval request: nothing changed), or `failed`
 *   (toast with the §8 text; 'Try again' offered; the server's own reason, when it gave one, is kept as `errorDetail`).
 * - In `viewing`, a message over 100 characters collapses; `message.toggled` switches Show more / Show less.
 * - `row.updated` (the finding page reloaded while the dialog is open) replaces the row, so a pending remediation's
 *   outcome appears without closing. `dialog.closed` finishes (not while the call is in flight); the output carries
 *   the row and whether it changed.
 *
 * Events accepted:
 * - `message.toggled` — the user pressed Show more / Show less on a long remediation message.
 * - `preview.retried` — the user pressed Retry after the preview failed to load.
 * - `dialog.closed` — the user closed the dialog: it finishes with the row and whether it changed.
 */
import { assign, fromPromise, sendParent, setup } from "xstate"
import { canRetryRemediation, type DetailRow, type RemediateResponse } from "../contracts/findings.ts"
import type { ApprovalRequestRef, RemediationRequestedResponse } from "../contracts/remediation-requests.ts"
import { RemediationMessages, type RemediationPreview, type RemediationPreviewPayload } from "../contracts/remediations.ts"
import type { FindingId } from "../contracts/ids.ts"
import { serverMessage } from "../contracts/error-mapping.ts"
import { ScanningMessages } from "../contracts/messages.ts"
import { toFailure, type NotifyParams } from "./auth-effects.ts"
import { errorOf } from "./actor-output.ts"

export interface RemediationInput {
  readonly findingId: FindingId
  readonly rowIndex: number
  readonly row: DetailRow
  readonly canRemediate: boolean
}

export interface RemediationContext extends RemediationInput {
  readonly error: string | null
  /** The server's own reason for a refused call (e.g. no automatic fix for this check), shown under the §8 text. */
  readonly errorDetail: string | null
  /** Show more (true) / Show less (false) of a long message. */
  readonly expanded: boolean
  readonly changed: boolean
  /** The fix's preview, once loaded. */
  readonly preview: RemediationPreview | null
  /** The approval request the server created instead of fixing (an account that requires approval). */
  readonly approval: ApprovalRequestRef | null
}

type RemediateAnswer = RemediateResponse | RemediationRequestedResponse

/** The preview asks for the row by its `result_seq` when it has one, else sends the row itself. */
export const previewPayload = (row: DetailRow): RemediationPreviewPayload =>
  typeof row["result_seq"] === "number" ? { result_seq: row["result_seq"] } : { details: row }

const approvalOf = (answer: RemediateAnswer): ApprovalRequestRef | null =>
  "approval_request" in answer.data ? (answer as RemediationRequestedResponse).data.approval_request : null

export type RemediationEvent =
  | { readonly type: "remediation.confirmed" }
  | { readonly type: "remediation.retried" }
  | { readonly type: "message.toggled" }
  | { readonly type: "preview.retried" }
  | { readonly type: "row.updated"; readonly row: DetailRow }
  | { readonly type: "dialog.closed" }

export interface RemediationOutput {
  readonly rowIndex: number
  readonly row: DetailRow
  readonly changed: boolean
}

const permissionDenied: NotifyParams = { kind: "error", message: ScanningMessages.remediatePermissionDenied }

export const remediationMachine = setup({
  types: {
    context: {} as RemediationContext,
    events: {} as RemediationEvent,
    input: {} as RemediationInput,
    output: {} as RemediationOutput,
  },
  actors: {
    /** POST /api/findings/{id}/remediate with the row as `details`; answers with the row as the server now has it and a message. */
    remediate: fromPromise<RemediateAnswer, { readonly id: FindingId; readonly details: DetailRow }>(async () => {
      throw new Error("remediate is not provided")
    }),
    /** POST /api/findings/{id}/remediation-preview: what the fix would do, read from the cloud without changing it. */
    previewRemediation: fromPromise<RemediationPreview, { readonly id: FindingId; readonly payload: RemediationPreviewPayload }>(async () => {
      throw new Error("previewRemediation is not provided")
    }),
  },
  guards: {
    /** The row already has a `remediate` record (an earlier remediation). */
    hasRecord: ({ context }) => context.row.remediate !== undefined,
    /** The user holds remediate_findings. */
    canRemediate: ({ context }) => context.canRemediate,
    /** The user holds remediate_findings and the row's remediation failed. */
    canRetry: ({ context }) => context.canRemediate && canRetryRemediation(context.row),
    /** The row's remediation failed, so 'Try again' is offered. */
    isRetryable: ({ context }) => canRetryRemediation(context.row),
    /** The server answered 202: the account requires approval and a request was created instead of the fix. */
    approvalRequested: ({ event }) => approvalOf((event as unknown as { readonly output: RemediateAnswer }).output) !== null,
  },
  actions: {
    assignPreview: assign({ preview: ({ event }) => (event as unknown as { readonly output: RemediationPreview }).output, error: null, errorDetail: null }),
    assignPreviewError: assign(({ event }) => ({ error: toFailure(errorOf(event), RemediationMessages.previewFailed).message, errorDetail: null })),
    assignApproval: assign({ approval: ({ event }) => approvalOf((event as unknown as { readonly output: RemediateAnswer }).output) }),
    assignAnswer: assign({
      row: ({ event }) => (event as unknown as { readonly output: RemediateResponse }).output.data.details,
      changed: true,
      error: null,
      errorDetail: null,
      expanded: false,
    }),
    assignError: assign(({ event }) => {
      const failure = toFailure(errorOf(event), ScanningMessages.remediateFailed)
      const detail = serverMessage(failure.data) ?? null
      return { error: failure.message, errorDetail: detail === failure.message ? null : detail }
    }),
    assignRow: assign(({ event }) => (event.type === "row.updated" ? { row: event.row, changed: true } : {})),
    /** Tells the finding page the row changed (it updates its table and polls a pending remediation). */
    reportRow: sendParent(({ context }) => ({ type: "remediation.rowChanged", rowIndex: context.rowIndex, row: context.row })),
    toggleExpanded: assign({ expanded: ({ context }) => !context.expanded }),
    /** Environment: a toast (supplied at the React boundary). */
    notify: (_, _params: NotifyParams) => {},
  },
}).createMachine({
  id: "remediation",
  context: ({ input }) => ({ ...input, error: null, errorDetail: null, expanded: false, changed: false, preview: null, approval: null }),
  initial: "opening",
  output: ({ context }) => ({ rowIndex: context.rowIndex, row: context.row, changed: context.changed }),
  states: {
    opening: {
      description: "The dialog picks its first view from the row: its remediation record if it has one, else the fix's preview.",
      /** A row with a `remediate` record opens on it; a row without one loads the preview of its fix. */
      always: [{ guard: "hasRecord", target: "viewing" }, { target: "previewing" }],
    },
    previewing: {
      description: "The fix's preview (calls, effects, permissions, reversibility, CLI and Terraform) is being read from the cloud.",
      invoke: {
        id: "previewRemediation",
        src: "previewRemediation",
        input: ({ context }) => ({ id: context.findingId, payload: previewPayload(context.row) }),
        /** The preview arrived: the dialog shows it and asks to confirm. */
        onDone: { target: "confirming", actions: "assignPreview" },
        /** The preview could not be read: the error ('Failed to load the remediation preview. Please try again.' or the server's reason) with Retry. */
        onError: { target: "previewFailed", actions: "assignPreviewError" },
      },
      on: { "dialog.closed": "closed" },
    },
    previewFailed: {
      description: "The preview could not be read: the error with Retry; nothing was changed.",
      on: { "preview.retried": "previewing", "dialog.closed": "closed" },
    },
    confirming: {
      description: "The dialog shows the preview and asks the user to confirm remediating this row ('Remediate').",
      on: {
        "remediation.confirmed": [
          { guard: "canRemediate", target: "remediating" },
          { actions: { type: "notify", params: permissionDenied } },
        ],
        "row.updated": { actions: "assignRow" },
        "dialog.closed": "closed",
      },
    },
    remediating: {
      description: "The remediation request is in flight; the dialog cannot be closed.",
      invoke: {
        id: "remediate",
        src: "remediate",
        input: ({ context }) => ({ id: context.findingId, details: context.row }),
        /** The server accepted it: the dialog shows the row as the server now has it, the finding page is told, and a toast carries the server's message. */
        onDone: [
          /** The account requires approval: the request was created (nothing changed); the dialog says so. */
          {
            guard: "approvalRequested",
            target: "requested",
            actions: ["assignApproval", { type: "notify", params: ({ event }) => ({ kind: "success", message: event.output.message }) }],
          },
          {
          target: "viewing",
          actions: ["assignAnswer", "reportRow", { type: "notify", params: ({ event }) => ({ kind: "success", message: event.output.message }) }],
          },
        ],
        /** The call failed: 'Failed to remediate finding. Please try again.' is toasted and shown, with the server's own reason when it gave one. */
        onError: {
          target: "failed",
          actions: ["assignError", { type: "notify", params: ({ context }) => ({ kind: "error", message: context.error ?? ScanningMessages.remediateFailed }) }],
        },
      },
    },
    /** The call itself failed: the message, and 'Try again'. */
    failed: {
      on: {
        "remediation.retried": [
          { guard: "canRemediate", target: "remediating" },
          { actions: { type: "notify", params: permissionDenied } },
        ],
        "dialog.closed": "closed",
      },
    },
    viewing: {
      description: "The dialog shows the row's remediation record (status and message, long ones collapsed), with 'Try again' when it failed.",
      on: {
        "message.toggled": { actions: "toggleExpanded" },
        "remediation.retried": [
          { guard: "canRetry", target: "remediating" },
          { guard: "isRetryable", actions: { type: "notify", params: permissionDenied } },
        ],
        "row.updated": { actions: "assignRow" },
        "dialog.closed": "closed",
      },
    },
    requested: {
      description: "The account requires approval: the request was sent (another member approves it in Approvals); nothing changed yet.",
      on: { "dialog.closed": "closed" },
    },
    closed: { type: "final", description: "The dialog closed; its output carries the row and whether it changed." },
  },
})
