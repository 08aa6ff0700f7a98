/**
 * /dashboard/approvals (beyond the spec, issue 32 "Approval (four eyes)"), rendered from `approvalsInboxMachine`;
 * lazy-loaded as its own chunk, for members holding remediate_findings (the permission gate sends anyone else to the
 * dashboard; the user menu offers the page to them only). A mail's link (`?request=`) lists its request first.
 *
 * - A 'Show' picker: pending requests (default), every request, or one decided state.
 * - One card per request: the check and account, the resources, what the fix changes (and whom it can cut off), who
 *   asked, when, why, and when it expires; decided requests say who decided, when and why.
 * - Approve / Reject on another member's pending request, Withdraw on one's own: each opens the decision form (a
 *   comment, required to reject) with Confirm and Cancel; the form shows a refusal in the server's words.
 */
import { useMemo } from "react"
import { useActorRef, useSelector } from "@xstate/react"
import { useSearch } from "wouter"
import type { ActorRefFrom } from "xstate"
import { ApprovalMessages, type RemediationRequest, type RequestState } from "../../contracts/remediation-requests.ts"
import type { DecisionKind } from "../../machines/approvals-effects.ts"
import { INBOX_FILTERS, approvalsInboxMachine, mayTake, orderedRequests, type InboxFilter } from "../../machines/approvals-inbox.machine.ts"
import { AlertBox } from "../ui/alert-box.tsx"
import { Badge, severityTone, type BadgeTone } from "../ui/badge.tsx"
import { Button } from "../ui/button.tsx"
import { Card } from "../ui/card.tsx"
import { Form } from "../ui/form.tsx"
import { Link } from "../ui/link.tsx"
import { Select, SelectItem } from "../ui/select.tsx"
import { TextField } from "../ui/text-field.tsx"
import { effectActor, useNotifyAction } from "../screen-actors.ts"
import { ErrorBox, Fact, formatDateTime, LoadingBox } from "../scanning/scan-parts.tsx"
import * as scanCss from "../scanning/scanning.css.ts"
import { useApprovalsEnvironment } from "./approvals-effects-context.tsx"
import * as css from "./approvals.css.ts"

type InboxRef = ActorRefFrom<typeof approvalsInboxMachine>

const FILTER_LABELS: { readonly [K in InboxFilter]: string } = {
  pending: "Waiting for approval",
  all: "All requests",
  approved: "Approved",
  rejected: "Rejected",
  expired: "Expired",
  cancelled: "Withdrawn",
}

const STATE_LABELS: { readonly [K in RequestState]: string } = {
  pending: "Waiting for approval",
  approved: "Approved",
  rejected: "Rejected",
  expired: "Expired",
  cancelled: "Withdrawn",
}

const STATE_TONES: { readonly [K in RequestState]: BadgeTone } = {
  pending: "warning",
  approved: "success",
  rejected: "danger",
  expired: "neutral",
  cancelled: "neutral",
}

const DECISION_LABELS: { readonly [K in DecisionKind]: string } = { approve: "Approve", reject: "Reject", withdraw: "Withdraw" }

const CONFIRM_LABELS: { readonly [K in DecisionKind]: string } = {
  approve: "Approve and start the remediation",
  reject: "Reject the request",
  withdraw: "Withdraw the request",
}

function useInboxLogic() {
  const { effects } = useApprovalsEnvironment()
  const notify = useNotifyAction()
  return useMemo(
    () =>
      approvalsInboxMachine.provide({
        actors: { listRequests: effectActor(effects.listRequests), decide: effectActor(effects.decide) },
        actions: { notify },
      }),
    [effects, notify],
  )
}

const focusFromSearch = (search: string): number | null => {
  const raw = new URLSearchParams(search).get("request") ?? ""
  return /^[1-9][0-9]{0,9}$/.test(raw) ? Number(raw) : null
}

function DecisionForm({ inboxRef, request }: { readonly inboxRef: InboxRef; readonly request: RemediationRequest }) {
  const draft = useSelector(inboxRef, (s) => (s.context.draft?.id === request.id ? s.context.draft : null))
  const submitting = useSelector(inboxRef, (s) => s.matches({ ready: "submitting" }))
  if (draft === null) return null
  return (
    <Form
      validationBehavior="aria"
      aria-label={`${DECISION_LABELS[draft.kind]} request ${request.id}`}
      className={css.form}
      onSubmit={(e) => {
        e.preventDefault()
        inboxRef.send({ type: "decision.submitted" })
      }}
    >
      <TextField
        label={draft.kind === "reject" ? "Why is it rejected?" : "Comment (optional)"}
        description={draft.kind === "reject" ? "The requester receives this comment by email." : "Kept with the request and sent to the requester."}
        value={draft.comment}
        rows={3}
        onChange={(value) => inboxRef.send({ type: "comment.changed", value })}
        isRequired={draft.kind === "reject"}
        isDisabled={submitting}
        isInvalid={draft.error !== null}
        {...(draft.error === null ? {} : { errorMessage: draft.error })}
        autoFocus
      />
      <div className={scanCss.actions}>
        <Button variant="secondary" isDisabled={submitting} onPress={() => inboxRef.send({ type: "decision.canceled" })}>
          Cancel
        </Button>
        <Button type="submit" variant={draft.kind === "approve" ? "primary" : "danger"} isPending={submitting} isDisabled={submitting}>
          {CONFIRM_LABELS[draft.kind]}
        </Button>
      </div>
    </Form>
  )
}

function RequestCard({ inboxRef, request, focused }: { readonly inboxRef: InboxRef; readonly request: RemediationRequest; readonly focused: boolean }) {
  const formOpen = useSelector(inboxRef, (s) => s.context.draft !== null)
  const kinds = (["approve", "reject", "withdraw"] as const).filter((k) => mayTake(request, k))
  const resources = request.rows.map((r) => `${r.resource_id} (${r.region})`).join(", ")
  return (
    <li className={focused ? css.focused : undefined}>
      <Card
        title={request.title}
        level={2}
        aria-label={`Request ${request.id}: ${request.title}`}
        description={`${request.account_name} · ${request.check_id}`}
        actions={
          formOpen || kinds.length === 0 ? undefined : (
            <>
              {kinds.map((kind) => (
                <Button
                  key={kind}
                  size="sm"
                  variant={kind === "approve" ? "primary" : "secondary"}
                  aria-label={`${DECISION_LABELS[kind]} request ${request.id}`}
                  onPress={() => inboxRef.send({ type: "decision.started", id: request.id, kind })}
                >
                  {DECISION_LABELS[kind]}
                </Button>
              ))}
            </>
          )
        }
      >
        <div className={css.body}>
          <div className={css.head}>
            <Badge tone={STATE_TONES[request.state]}>{STATE_LABELS[request.state]}</Badge>
            <Badge tone={severityTone(request.severity)}>{request.severity}</Badge>
            {request.requested_by_you ? <Badge tone="accent">Your request</Badge> : null}
          </div>
          <p className={css.sentence}>{request.fix_description ?? "The check's automatic fix."} Resources: {resources}.</p>
          {request.cuts_access === null ? null : <AlertBox tone="warning">{request.cuts_access}</AlertBox>}
          <dl className={css.facts}>
            <Fact label="Requested by">{request.requested_by?.email ?? "A removed member"}</Fact>
            <Fact label="Requested">{formatDateTime(request.requested_at)}</Fact>
            <Fact label="Reason">{request.comment ?? "None given"}</Fact>
            {request.state === "pending" ? (
              <Fact label="Expires">{formatDateTime(request.expires_at)}</Fact>
            ) : (
              <Fact label={request.state === "expired" ? "Expired" : "Decided"}>
                {formatDateTime(request.decided_at)}
                {request.decided_by === null ? "" : ` by ${request.decided_by.email}`}
              </Fact>
            )}
            {request.decision_comment === null ? null : <Fact label="Decision comment">{request.decision_comment}</Fact>}
          </dl>
          <Link href={`/dashboard/scans/${request.scan_id}/findings/${request.finding_id}`} aria-label={`Open the finding of request ${request.id}`}>
            Open the finding
          </Link>
          <DecisionForm inboxRef={inboxRef} request={request} />
        </div>
      </Card>
    </li>
  )
}

function InboxBody({ inboxRef }: { readonly inboxRef: InboxRef }) {
  const loading = useSelector(inboxRef, (s) => s.matches("loading"))
  const failed = useSelector(inboxRef, (s) => s.matches("failed"))
  const error = useSelector(inboxRef, (s) => s.context.loadError)
  const requests = useSelector(inboxRef, (s) => s.context.requests)
  const focusId = useSelector(inboxRef, (s) => s.context.focusId)
  const filter = useSelector(inboxRef, (s) => s.context.filter)
  if (loading) return <LoadingBox label="Loading remediation requests" />
  if (failed) {
    return (
      <ErrorBox
        title={ApprovalMessages.loadFailed}
        message={error ?? ApprovalMessages.loadFailed}
        actions={
          <Button variant="secondary" size="sm" onPress={() => inboxRef.send({ type: "requests.retryRequested" })}>
            Try again
          </Button>
        }
      />
    )
  }
  if (requests.length === 0) {
    return (
      <p className={scanCss.muted} role="status">
        {filter === "pending" ? "No request is waiting for approval." : "No request matches this choice."}
      </p>
    )
  }
  return (
    <ul className={css.list} aria-label="Remediation requests">
      {orderedRequests(requests, focusId).map((r) => (
        <RequestCard key={r.id} inboxRef={inboxRef} request={r} focused={r.id === focusId} />
      ))}
    </ul>
  )
}

function FilterPicker({ inboxRef }: { readonly inboxRef: InboxRef }) {
  const filter = useSelector(inboxRef, (s) => s.context.filter)
  const canFilter = useSelector(inboxRef, (s) => s.matches({ ready: "idle" }) || s.matches("failed"))
  return (
    <Select
      label="Show"
      items={INBOX_FILTERS.map((f) => ({ id: f, name: FILTER_LABELS[f] }))}
      value={filter}
      isDisabled={!canFilter}
      onChange={(key) => {
        if (key !== null && key !== filter) inboxRef.send({ type: "filter.changed", filter: key as InboxFilter })
      }}
    >
      {(choice) => <SelectItem id={choice.id}>{choice.name}</SelectItem>}
    </Select>
  )
}

export function ApprovalsView() {
  const { clock } = useApprovalsEnvironment()
  const search = useSearch()
  const inboxRef = useActorRef(useInboxLogic(), { input: { focusId: focusFromSearch(search) }, ...(clock === undefined ? {} : { clock }) })
  return (
    <div className={scanCss.page}>
      <div className={css.toolbar}>
        <div className={scanCss.titles}>
          <h1 className={scanCss.title}>Approvals</h1>
          <p className={scanCss.subtitle}>
            Remediations requested on accounts that require approval. Another member approves or rejects each; nothing runs before approval.
          </p>
        </div>
        <FilterPicker inboxRef={inboxRef} />
      </div>
      <InboxBody inboxRef={inboxRef} />
    </div>
  )
}
