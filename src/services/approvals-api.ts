/**
 * Typed calls of remediation approvals (beyond the spec, issue 32, four eyes) on the shared API client, and the
 * effects of the approvals inbox and the account page's approval setting built from them
 * (`approvalsEffectsFrom(services)`, handed to `<ApprovalsEffectsProvider>` by the composition root). Answers are decoded
 * with the contract's schemas; failures reject with the client's catalogue error (the server's message for 4xx).
 */
import {
  ApprovalMessages,
  ApprovalSettingResponse,
  RemediationRequestResponse,
  RemediationRequestsResponse,
} from "../contracts/remediation-requests.ts"
import type { ApprovalsEffects, DecisionKind } from "../machines/approvals-effects.ts"
import { endpoint, pathWith, type Endpoint } from "./api-client.ts"
import type { AppServices } from "./app-services.ts"

export const APPROVALS_ENDPOINTS = {
  list: endpoint({ method: "GET", path: "/api/remediation-requests", response: RemediationRequestsResponse }),
  approve: endpoint({ method: "POST", path: "/api/remediation-requests/:id/approve", response: RemediationRequestResponse }),
  reject: endpoint({ method: "POST", path: "/api/remediation-requests/:id/reject", response: RemediationRequestResponse }),
  cancel: endpoint({ method: "POST", path: "/api/remediation-requests/:id/cancel", response: RemediationRequestResponse }),
  getSetting: endpoint({ method: "GET", path: "/api/accounts/:id/approval", response: ApprovalSettingResponse }),
  putSetting: endpoint({ method: "PUT", path: "/api/accounts/:id/approval", response: ApprovalSettingResponse }),
} satisfies Record<string, Endpoint<unknown>>

const DECISION_ENDPOINT: { readonly [K in DecisionKind]: Endpoint<typeof RemediationRequestResponse.Type> } = {
  approve: APPROVALS_ENDPOINTS.approve,
  reject: APPROVALS_ENDPOINTS.reject,
  withdraw: APPROVALS_ENDPOINTS.cancel,
}

const signalOpt = (signal: AbortSignal | undefined) => (signal === undefined ? {} : { signal })
const at = <A>(e: Endpoint<A>, id: number): Endpoint<A> => ({ ...e, path: pathWith(e.path, { id }) })

export const approvalsEffectsFrom = (services: Pick<AppServices, "client">): ApprovalsEffects => ({
  listRequests: async ({ states }, signal) =>
    (await services.client.request(APPROVALS_ENDPOINTS.list, {
      query: { state: states.length === 0 ? undefined : states.join(",") },
      ...signalOpt(signal),
    })).data,
  decide: async ({ id, kind, comment }, signal) => {
    const answer = await services.client.request(at(DECISION_ENDPOINT[kind], id), { body: { comment }, ...signalOpt(signal) })
    return { message: answer.message, request: answer.data }
  },
  loadApprovalSetting: async ({ accountId }, signal) =>
    (await services.client.request(at(APPROVALS_ENDPOINTS.getSetting, accountId), signalOpt(signal))).data,
  saveApprovalSetting: async ({ accountId, setting }, signal) => {
    const answer = await services.client.request(at(APPROVALS_ENDPOINTS.putSetting, accountId), { body: setting, ...signalOpt(signal) })
    return { message: answer.message ?? ApprovalMessages.settingSaved, setting: answer.data }
  },
})
