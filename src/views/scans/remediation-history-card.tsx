/**
 * The finding page's "Remediation history" card (issue 32), rendered from the `remediationHistoryMachine` child of the
 * finding page: each remediation of the finding with its state, the resource, who asked and when, its message, and
 * Undo while undo is possible (the server's reason why not otherwise). Undo opens a confirmation listing the calls
 * that restore the resource; a conflict (the resource changed since the fix) shows the field differences and offers
 * "Undo anyway". A refusal stays in the confirmation in the server's words; the list, read again, then shows Undo only
 * where the server still offers it, and so does the confirmation. Undo needs remediate_findings, as Remediate does.
 */
import { useSelector } from "@xstate/react"
import type { ActorRefFrom } from "xstate"
import {
  RemediationMessages,
  undoUnavailableText,
  UNSETTLED_REMEDIATION_STATES,
  type Remediation,
  type RemediationState,
  type StateDifference,
} from "../../contracts/remediations.ts"
import { undoTarget, type remediationHistoryMachine } from "../../machines/remediation-history.machine.ts"
import { AlertBox } from "../ui/alert-box.tsx"
import { Badge, type BadgeTone } from "../ui/badge.tsx"
import { Button } from "../ui/button.tsx"
import { Card } from "../ui/card.tsx"
import { Dialog, DialogFooter } from "../ui/dialog.tsx"
import { withBreaks } from "../ui/identifier.tsx"
import { Spinner } from "../ui/spinner.tsx"
import { ErrorBox, formatDateTime, GatedButton, LoadingBox } from "../scanning/scan-parts.tsx"
import * as shared from "../scanning/scanning.css.ts"
import * as css from "./remediation-preview.css.ts"

export type RemediationHistoryRef = ActorRefFrom<typeof remediationHistoryMachine>

const STATE_LABELS: { readonly [K in RemediationState]: readonly [string, BadgeTone] } = {
  pending: ["Pending", "accent"],
  applied: ["Applying", "accent"],
  verified: ["Fixed", "success"],
  failed: ["Failed", "danger"],
  undoing: ["Undoing", "accent"],
  undone: ["Undone", "neutral"],
  undo_failed: ["Undo failed", "danger"],
}

const who = (by: Remediation["requested_by"]): string => (by === null ? "an API key or the system" : by.email)

const shown = (u: unknown): string => (u === undefined ? "(absent)" : typeof u === "string" ? u : JSON.stringify(u))

function Differences({ differences }: { readonly differences: ReadonlyArray<StateDifference> }) {
  return (
    <table className={css.differences}>
      <caption className={shared.muted}>What changed since the fix</caption>
      <thead>
        <tr>
          <th className={css.headCell} scope="col">Field</th>
          <th className={css.headCell} scope="col">After the fix</th>
          <th className={css.headCell} scope="col">Now</th>
        </tr>
      </thead>
      <tbody>
        {differences.map((d) => (
          <tr key={d.path}>
            <td className={css.cell}>{d.path}</td>
            <td className={css.cell}>{shown(d.expected)}</td>
            <td className={css.cell}>{shown(d.actual)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  )
}

function HistoryItem({
  historyRef,
  remediation: r,
  canUndo,
  viewerKnown,
}: {
  readonly historyRef: RemediationHistoryRef
  readonly remediation: Remediation
  readonly canUndo: boolean
  readonly viewerKnown: boolean
}) {
  const [label, tone] = STATE_LABELS[r.state]
  const moving = UNSETTLED_REMEDIATION_STATES.has(r.state)
  const undo = () => historyRef.send({ type: "undo.requested", id: r.id })
  return (
    <li className={shared.itemCard} aria-label={`Remediation ${r.id}: ${label}`}>
      <div className={shared.itemCardHeader}>
        <span className={css.itemHead}>
          <Badge tone={tone}>
            <span className={shared.titleRow}>
              {moving ? <Spinner size="sm" tone="inherit" aria-label="In progress" /> : null}
              {label}
            </span>
          </Badge>
          <span className={shared.mono}>{withBreaks(r.resource_id)}</span>
        </span>
        {r.undo.available ? (
          <GatedButton
            variant="secondary"
            size="sm"
            allowed={canUndo || !viewerKnown}
            isDisabled={!viewerKnown}
            tooltip={RemediationMessages.undoPermissionDenied}
            onBlockedPress={undo}
            onPress={undo}
          >
            Undo
          </GatedButton>
        ) : null}
      </div>
      <p className={shared.muted}>
        Requested by {who(r.requested_by)} on {formatDateTime(r.requested_at)}
        {r.finished_at === null ? "" : ` · finished ${formatDateTime(r.finished_at)}`}
      </p>
      {r.message === null ? null : <p className={css.item}>{r.message}</p>}
      {r.undo.requested_at === null ? null : (
        <p className={shared.muted}>
          Undo {r.undo.forced ? "(forced) " : ""}requested by {who(r.undo.requested_by)} on {formatDateTime(r.undo.requested_at)}
          {r.undo.done_at === null ? "" : ` · done ${formatDateTime(r.undo.done_at)}`}
          {r.undo.message === null ? "" : `: ${r.undo.message}`}
        </p>
      )}
      {r.undo.available ? (
        <p className={shared.subtle}>
          Undo possible until {r.undo.until === null ? "—" : formatDateTime(r.undo.until)}
          {r.undo.reason === null ? "" : `. ${r.undo.reason}`}
        </p>
      ) : moving ? null : (
        <p className={shared.subtle}>{undoUnavailableText(r.undo.reason)}</p>
      )}
    </li>
  )
}

function UndoDialog({ historyRef }: { readonly historyRef: RemediationHistoryRef }) {
  const target = useSelector(historyRef, (s) => undoTarget(s.context))
  const undoing = useSelector(historyRef, (s) => s.matches({ undo: "undoing" }))
  const conflicted = useSelector(historyRef, (s) => s.matches({ undo: "conflict" }))
  const conflict = useSelector(historyRef, (s) => s.context.conflict)
  const undoError = useSelector(historyRef, (s) => s.context.undoError)
  const forcing = useSelector(historyRef, (s) => s.context.force)
  // Withdrawn when the list read again after a refusal no longer offers this undo (the server's message stays).
  const canConfirm = useSelector(historyRef, (s) => s.can({ type: "undo.confirmed" }))
  const canForce = useSelector(historyRef, (s) => s.can({ type: "undo.forced" }))
  const cancel = () => historyRef.send({ type: "undo.cancelled" })
  return (
    <Dialog
      title="Undo remediation"
      isOpen
      onOpenChange={(open) => {
        if (!open && !undoing) cancel()
      }}
      isDismissable={!undoing}
      isKeyboardDismissDisabled={undoing}
      showCloseButton={!undoing}
    >
      {target === undefined ? null : (
        <p className={shared.muted}>
          Resource: <span className={shared.mono}>{withBreaks(target.resource_id)}</span>
        </p>
      )}
      <p>The resource is put back as it was before the fix, then read again to check it. The finding fails again.</p>
      {target === undefined || target.undo.calls.length === 0 ? null : (
        <section className={css.section} aria-labelledby="undo-calls">
          <h3 id="undo-calls" className={css.heading}>
            Calls, in order
          </h3>
          <ol className={css.list}>
            {target.undo.calls.map((c, i) => (
              <li key={i} className={css.item}>
                <span className={css.itemHead}>
                  <strong>
                    {c.service} {c.operation}
                  </strong>
                  {c.region === null ? null : <Badge tone="neutral">{c.region}</Badge>}
                </span>
              </li>
            ))}
          </ol>
        </section>
      )}
      {target?.undo.reason == null || target.undo.reason === undoError ? null : <p className={shared.muted}>{target.undo.reason}</p>}
      {undoError === null ? null : <AlertBox tone="error" title={undoError} />}
      {conflicted && conflict !== null ? (
        <AlertBox tone="warning" title={conflict.message}>
          <Differences differences={conflict.differences} />
        </AlertBox>
      ) : null}
      {undoing ? (
        <div className={shared.stateBox}>
          <Spinner aria-label="Undoing" />
        </div>
      ) : null}
      <DialogFooter>
        <Button variant="secondary" onPress={cancel} isDisabled={undoing}>
          Cancel
        </Button>
        {conflicted || (undoing && forcing) ? (
          canForce || undoing ? (
            <Button variant="danger" isDisabled={undoing} onPress={() => historyRef.send({ type: "undo.forced" })}>
              Undo anyway
            </Button>
          ) : null
        ) : canConfirm || undoing ? (
          <Button isDisabled={undoing} onPress={() => historyRef.send({ type: "undo.confirmed" })}>
            Undo
          </Button>
        ) : null}
      </DialogFooter>
    </Dialog>
  )
}

export function RemediationHistoryCard({
  historyRef,
  canUndo,
  viewerKnown,
}: {
  readonly historyRef: RemediationHistoryRef
  readonly canUndo: boolean
  readonly viewerKnown: boolean
}) {
  const remediations = useSelector(historyRef, (s) => s.context.remediations)
  const failed = useSelector(historyRef, (s) => s.matches({ list: "failed" }))
  const error = useSelector(historyRef, (s) => s.context.error)
  const dialogOpen = useSelector(historyRef, (s) => !s.matches({ undo: "idle" }))
  return (
    <Card title="Remediation history" aria-label="Remediation history">
      {failed ? (
        <ErrorBox
          title="Remediation history"
          message={error ?? RemediationMessages.historyFailed}
          actions={
            <Button variant="secondary" size="sm" onPress={() => historyRef.send({ type: "history.retried" })}>
              Retry
            </Button>
          }
        />
      ) : remediations === null ? (
        <LoadingBox label="Loading the remediation history" />
      ) : remediations.length === 0 ? (
        <p className={shared.muted}>This finding has not been remediated yet.</p>
      ) : (
        <ul className={shared.cardList} aria-label="Remediations">
          {remediations.map((r) => (
            <HistoryItem key={r.id} historyRef={historyRef} remediation={r} canUndo={canUndo} viewerKnown={viewerKnown} />
          ))}
        </ul>
      )}
      {dialogOpen ? <UndoDialog historyRef={historyRef} /> : null}
    </Card>
  )
}
