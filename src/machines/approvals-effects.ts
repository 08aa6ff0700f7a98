/**
 * What the approvals inbox and the account page's approval setting need from the outside world (beyond the spec,
 * issue 32, four eyes: GET /api/remediation-requests, POST /api/remediation-requests/{id}/approve | reject | cancel,
 * GET/PUT /api/accounts/{id}/approval), as types. Nothing here performs an effect: the real `ApprovalsEffects` are
 * built from the SPA services by `approvalsEffectsFrom(services)` (src/services/approvals-api.ts) and reach the views
 * through `<ApprovalsEffectsProvider>` (src/views/approvals/approvals-effects-context.tsx); tests hand fakes to
 * `machine.provide()`. Failures reject with a catalogue error value `{ type, message, status?, data? }`.
 */
import type { AccountId } from "../contracts/ids.ts"
import type { ApprovalSetting, RemediationRequest, RemediationRequestId, RequestState } from "../contracts/remediation-requests.ts"
import type { EffectCall } from "./auth-effects.ts"

/** What the member decides on a request: approve or reject (another member's), withdraw (their own). */
export type DecisionKind = "approve" | "reject" | "withdraw"

export interface DecisionInput {
  readonly id: RemediationRequestId
  readonly kind: DecisionKind
  readonly comment: string | null
}

/** A decided request: the server's message and the request as it stands now. */
export interface Decided {
  readonly message: string
  readonly request: RemediationRequest
}

export interface ApprovalSaved {
  readonly message: string
  readonly setting: ApprovalSetting
}

export interface ApprovalsEffects {
  /** GET /api/remediation-requests?state=… (no states: every state). */
  readonly listRequests: EffectCall<{ readonly states: ReadonlyArray<RequestState> }, ReadonlyArray<RemediationRequest>>
  /** POST /api/remediation-requests/{id}/approve | reject | cancel. */
  readonly decide: EffectCall<DecisionInput, Decided>
  /** GET /api/accounts/{id}/approval. */
  readonly loadApprovalSetting: EffectCall<{ readonly accountId: AccountId }, ApprovalSetting>
  /** PUT /api/accounts/{id}/approval. */
  readonly saveApprovalSetting: EffectCall<{ readonly accountId: AccountId; readonly setting: ApprovalSetting }, ApprovalSaved>
}

/** Where the inbox lives (members with remediate_findings; linked from the user menu). */
export const APPROVALS_PATH = "/dashboard/approvals"
