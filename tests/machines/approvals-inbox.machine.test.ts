/**
 * The approvals inbox's machine (issue 32, four eyes): every (state, event) edge is driven (model-based, xstate/graph),
 * then the flows step by step — approve another member's request, reject it with a comment (required), withdraw one's
 * own, never decide one's own, a refusal kept on the form, the filter, a failed load and its retry — asserting the
 * snapshot and the fakes' call log.
 */
import { describe, expect, it } from "vitest"
import { createActor } from "xstate"
import type { AccountId, FindingId, ScanId, UserId } from "../../src/contracts/ids.ts"
import { ApprovalMessages, type RemediationRequest, type RemediationRequestId, type RequestState } from "../../src/contracts/remediation-requests.ts"
import type { Decided, DecisionInput } from "../../src/machines/approvals-effects.ts"
import { approvalsInboxMachine, orderedRequests } from "../../src/machines/approvals-inbox.machine.ts"
import { coverTransitions, formatCoverage } from "../support/graph.ts"
import { controlled, httpFailure, never } from "./auth-fakes.ts"
import { environment } from "./scan-fakes.ts"

const request = (id: number, patch: Partial<RemediationRequest> = {}): RemediationRequest => ({
  id: id as RemediationRequestId,
  state: "pending",
  account_id: 3 as AccountId,
  account_name: "Production",
  finding_id: 40 as FindingId,
  scan_id: 12 as ScanId,
  check_id: "s3_bucket_versioning_enabled",
  title: "S3 bucket versioning is enabled",
  severity: "medium",
  rows: [{ resource_id: `bucket-${id}`, region: "us-east-1", result_seq: id }],
  fix_description: "Enables versioning on the bucket.",
  cuts_access: null,
  comment: "Needed for backups",
  requested_by: { id: 8 as UserId, email: "alice@example.com" },
  requested_by_you: false,
  requested_at: "2026-11-27T10:00:00.000Z",
  expires_at: "2026-11-30T10:00:00.000Z",
  decided_by: null,
  decided_at: null,
  decision_comment: null,
  remediation_ids: [],
  ...patch,
})

const others = request(1)
const mine = request(2, { requested_by: { id: 9 as UserId, email: "me@example.com" }, requested_by_you: true })
const decided = request(3, { state: "approved", decided_by: { id: 9 as UserId, email: "me@example.com" }, decided_at: "2026-11-27T11:00:00.000Z" })

const forbidden = httpFailure("generic", 403, { _tag: "Forbidden", message: ApprovalMessages.ownRequest })
const expired = httpFailure("generic", 409, { _tag: "Conflict", message: ApprovalMessages.expired })

describe("approvals-inbox machine", () => {
  it("drives every (state, event) edge", async () => {
    const provided = approvalsInboxMachine.provide({ actors: { listRequests: never(), decide: never() } })
    const events = [
      { type: "xstate.done.actor.listRequests", output: [others, mine, decided] },
      { type: "xstate.error.actor.listRequests", error: httpFailure("generic", 500) },
      { type: "requests.retryRequested" },
      { type: "filter.changed", filter: "all" },
      { type: "decision.started", id: 1, kind: "reject" },
      { type: "comment.changed", value: "Not this bucket" },
      { type: "decision.submitted" },
      { type: "decision.canceled" },
      { type: "xstate.done.actor.decide", output: { message: ApprovalMessages.requestRejected, request: { ...others, state: "rejected" } } },
      { type: "xstate.error.actor.decide", error: expired },
    ]
    const coverage = await coverTransitions(provided, {
      createActor: (clock) => createActor(provided, { clock, input: {} }),
      input: {},
      events,
      serializeState: (s) => JSON.stringify([s.value, s.context.filter, s.context.requests.length > 0, s.context.draft?.comment.trim() !== ""]),
    })
    console.info(formatCoverage("approvalsInbox", coverage))
    expect(coverage.missing).toEqual([])
    expect(coverage.driven).toBe(coverage.total)
  })

  const start = (focusId: number | null = null) => {
    const listRequests = controlled<{ readonly states: ReadonlyArray<RequestState> }, ReadonlyArray<RemediationRequest>>()
    const decide = controlled<DecisionInput, Decided>()
    const env = environment()
    const actor = createActor(
      approvalsInboxMachine.provide({ actors: { listRequests: listRequests.logic, decide: decide.logic }, actions: { notify: env.notify } }),
      { input: { focusId } },
    ).start()
    return { actor, listRequests, decide, env }
  }

  it("approves another member's request, then reads the list again", async () => {
    const { actor, listRequests, decide, env } = start()
    try {
      expect(listRequests.calls).toEqual([{ states: ["pending"] }])
      await listRequests.resolve([others, mine])
      expect(actor.getSnapshot().matches({ ready: "idle" })).toBe(true)
      actor.send({ type: "decision.started", id: 1, kind: "approve" })
      actor.send({ type: "comment.changed", value: "  Go ahead  " })
      actor.send({ type: "decision.submitted" })
      expect(actor.getSnapshot().matches({ ready: "submitting" })).toBe(true)
      expect(decide.calls).toEqual([{ id: 1, kind: "approve", comment: "Go ahead" }])
      await decide.resolve({ message: ApprovalMessages.requestApproved, request: { ...others, state: "approved" } })
      expect(actor.getSnapshot().value).toBe("loading")
      expect(actor.getSnapshot().context.draft).toBeNull()
      expect(listRequests.calls).toHaveLength(2)
      expect(env.toasts).toEqual([{ kind: "success", message: ApprovalMessages.requestApproved }])
    } finally {
      actor.stop()
    }
  })

  it("needs a comment to reject, never decides one's own request, lets the requester withdraw it", async () => {
    const { actor, listRequests, decide } = start()
    try {
      await listRequests.resolve([others, mine, decided])
      // One's own request cannot be approved or rejected; another's cannot be withdrawn; a decided one takes nothing.
      actor.send({ type: "decision.started", id: 2, kind: "approve" })
      actor.send({ type: "decision.started", id: 2, kind: "reject" })
      actor.send({ type: "decision.started", id: 1, kind: "withdraw" })
      actor.send({ type: "decision.started", id: 3, kind: "approve" })
      actor.send({ type: "decision.started", id: 99, kind: "approve" })
      expect(actor.getSnapshot().matches({ ready: "idle" })).toBe(true)

      actor.send({ type: "decision.started", id: 1, kind: "reject" })
      actor.send({ type: "decision.submitted" })
      expect(actor.getSnapshot().matches({ ready: "editing" })).toBe(true)
      expect(actor.getSnapshot().context.draft?.error).toBe(ApprovalMessages.rejectCommentRequired)
      actor.send({ type: "comment.changed", value: "Logs only" })
      expect(actor.getSnapshot().context.draft?.error).toBeNull()
      actor.send({ type: "decision.canceled" })
      expect(actor.getSnapshot().context.draft).toBeNull()
      expect(decide.calls).toEqual([])

      actor.send({ type: "decision.started", id: 2, kind: "withdraw" })
      actor.send({ type: "decision.submitted" })
      expect(decide.calls).toEqual([{ id: 2, kind: "withdraw", comment: null }])
    } finally {
      actor.stop()
    }
  })

  it("keeps a refusal on the form with the server's words", async () => {
    const { actor, listRequests, decide, env } = start()
    try {
      await listRequests.resolve([others])
      actor.send({ type: "decision.started", id: 1, kind: "approve" })
      actor.send({ type: "decision.submitted" })
      await decide.reject(expired)
      expect(actor.getSnapshot().matches({ ready: "editing" })).toBe(true)
      expect(actor.getSnapshot().context.draft?.error).toBe(ApprovalMessages.expired)
      actor.send({ type: "decision.submitted" })
      await decide.reject(forbidden)
      expect(actor.getSnapshot().context.draft?.error).toBe(ApprovalMessages.ownRequest)
      expect(env.toasts).toEqual([
        { kind: "error", message: ApprovalMessages.expired },
        { kind: "error", message: ApprovalMessages.ownRequest },
      ])
    } finally {
      actor.stop()
    }
  })

  it("changes the filter, shows a failed load with Try again, lists the mailed request first", async () => {
    const { actor, listRequests } = start(3)
    try {
      await listRequests.reject(httpFailure("generic", 500))
      expect(actor.getSnapshot().value).toBe("failed")
      expect(actor.getSnapshot().context.loadError).toBe(httpFailure("generic", 500).message)
      actor.send({ type: "filter.changed", filter: "all" })
      expect(listRequests.calls.at(-1)).toEqual({ states: [] })
      await listRequests.reject(new Error("boom"))
      expect(actor.getSnapshot().context.loadError).toBe(ApprovalMessages.loadFailed)
      actor.send({ type: "requests.retryRequested" })
      await listRequests.resolve([others, mine, decided])
      actor.send({ type: "filter.changed", filter: "all" })
      expect(listRequests.calls).toHaveLength(3)
      actor.send({ type: "filter.changed", filter: "expired" })
      expect(listRequests.calls.at(-1)).toEqual({ states: ["expired"] })
      expect(orderedRequests([others, mine, decided], actor.getSnapshot().context.focusId).map((r) => r.id)).toEqual([3, 1, 2])
    } finally {
      actor.stop()
    }
  })
})
