/**
 * The remediation dialog of one detail row (scanning §2, §4, §6), over a `remediationMachine` child: the fix's
 * preview (issue 32: calls, effects, permissions, reversibility, CLI and Terraform; its failure with Retry), confirm
 * 'Remediate' (disabled with "You need the 'remediate_findings' permission to fix this issue" without the
 * permission), the call in flight, its failure with 'Try again', or the record (status, message collapsed over 100
 * characters with Show more / Show less, when and by whom) with 'Try again' after a failed remediation; on an account
 * that requires approval, "Approval requested" (the request waits in Approvals).
 */
import { useSelector } from "@xstate/react"
import type { ActorRefFrom } from "xstate"
import { canRetryRemediation, remediationState, type RemediationRecord } from "../../contracts/findings.ts"
import { ScanningMessages } from "../../contracts/messages.ts"
import { RemediationMessages } from "../../contracts/remediations.ts"
import type { remediationMachine } from "../../machines/remediation.machine.ts"
import { AlertBox } from "../ui/alert-box.tsx"
import { Badge, type BadgeTone } from "../ui/badge.tsx"
import { Button } from "../ui/button.tsx"
import { Dialog, DialogFooter } from "../ui/dialog.tsx"
import { Spinner } from "../ui/spinner.tsx"
import { remediationMessageView } from "./detail-values.ts"
import { RemediationPreviewView } from "./remediation-preview.tsx"
import { Fact, formatDateTime, GatedButton } from "../scanning/scan-parts.tsx"
import * as css from "../scanning/scanning.css.ts"
import * as local from "./scans.css.ts"

export type RemediationRef = ActorRefFrom<typeof remediationMachine>

const STATE_LABELS: { readonly [K in ReturnType<typeof remediationState>]: readonly [string, BadgeTone] } = {
  pass: ["Success", "success"],
  remediated: ["Remediated", "success"],
  failed: ["Error", "danger"],
  pending: ["In progress", "accent"],
}

const attemptedBy = (by: RemediationRecord["attempted_by"]): string =>
  by === null ? "N/A" : typeof by === "number" ? `User #${by}` : by.email

function RecordView({ dialogRef, record }: { readonly dialogRef: RemediationRef; readonly record: RemediationRecord }) {
  const expanded = useSelector(dialogRef, (s) => s.context.expanded)
  const state = remediationState(record.status)
  const [label, tone] = STATE_LABELS[state]
  const message = remediationMessageView(record.message, expanded)
  return (
    <div className={css.fieldStack}>
      <div className={css.titleRow}>
        <Badge tone={tone}>
          <span className={css.titleRow}>
            {state === "pending" ? <Spinner size="sm" tone="inherit" aria-label="Remediation in progress" /> : null}
            {label}
          </span>
        </Badge>
      </div>
      {message.text === "" ? null : (
        <div>
          <p className={local.remediationMessage} id="remediation-message">
            {message.text}
          </p>
          {message.collapsible ? (
            <Button
              variant="ghost"
              size="sm"
              aria-expanded={expanded}
              aria-controls="remediation-message"
              onPress={() => dialogRef.send({ type: "message.toggled" })}
            >
              {expanded ? "Show less" : "Show more"}
            </Button>
          ) : null}
        </div>
      )}
      <dl className={css.facts}>
        <Fact label="Attempted at">{formatDateTime(record.attempted_at)}</Fact>
        <Fact label="Attempted by">{attemptedBy(record.attempted_by)}</Fact>
      </dl>
    </div>
  )
}

export function RemediationDialog({ dialogRef, guidance }: { readonly dialogRef: RemediationRef; readonly guidance: string | null }) {
  const row = useSelector(dialogRef, (s) => s.context.row)
  const canRemediate = useSelector(dialogRef, (s) => s.context.canRemediate)
  const error = useSelector(dialogRef, (s) => s.context.error)
  const errorDetail = useSelector(dialogRef, (s) => s.context.errorDetail)
  const confirming = useSelector(dialogRef, (s) => s.matches("confirming"))
  const remediating = useSelector(dialogRef, (s) => s.matches("remediating"))
  const failed = useSelector(dialogRef, (s) => s.matches("failed"))
  const viewing = useSelector(dialogRef, (s) => s.matches("viewing"))
  const previewing = useSelector(dialogRef, (s) => s.matches("previewing"))
  const previewFailed = useSelector(dialogRef, (s) => s.matches("previewFailed"))
  const requested = useSelector(dialogRef, (s) => s.matches("requested"))
  const preview = useSelector(dialogRef, (s) => s.context.preview)
  const approval = useSelector(dialogRef, (s) => s.context.approval)
  const close = () => dialogRef.send({ type: "dialog.closed" })
  const resource = typeof row["resource_id"] === "string" ? row["resource_id"] : typeof row["resource"] === "string" ? row["resource"] : null
  const retryable = failed || (viewing && canRetryRemediation(row))

  return (
    <Dialog
      title={confirming || previewing || previewFailed ? "Remediate resource" : requested ? "Approval requested" : "Remediation"}
      size={confirming && preview !== null ? "lg" : "md"}
      isOpen
      onOpenChange={(open) => {
        if (!open && !remediating) close()
      }}
      isDismissable={!remediating}
      isKeyboardDismissDisabled={remediating}
      showCloseButton={!remediating}
    >
      {resource === null ? null : (
        <p className={css.muted}>
          Resource: <span className={css.mono}>{resource}</span>
        </p>
      )}
      {previewing ? (
        <div className={css.stateBox}>
          <Spinner aria-label="Loading the preview" />
          <p className={css.muted}>Reading the resource to preview the fix…</p>
        </div>
      ) : null}
      {previewFailed ? (
        <AlertBox
          tone="error"
          title={error ?? RemediationMessages.previewFailed}
          action={
            <Button variant="secondary" size="sm" onPress={() => dialogRef.send({ type: "preview.retried" })}>
              Retry
            </Button>
          }
        />
      ) : null}
      {confirming ? (
        <>
          <p>The automatic fix for this check is applied to the resource, then the resource is checked again.</p>
          {guidance === null ? null : <p className={local.guidance}>{guidance}</p>}
          {preview === null ? null : <RemediationPreviewView preview={preview} />}
        </>
      ) : null}
      {requested ? (
        <AlertBox tone="info" title="Approval requested">
          This account requires approval: another member with the remediate_findings permission approves the fix in
          Approvals before it runs.
          {approval === null ? null : ` The request expires ${formatDateTime(approval.expires_at)}.`}
        </AlertBox>
      ) : null}
      {remediating ? (
        <div className={css.stateBox}>
          <Spinner aria-label="Remediating" />
        </div>
      ) : null}
      {failed ? (
        <AlertBox tone="error" title={error ?? ScanningMessages.remediateFailed}>
          {errorDetail ?? undefined}
        </AlertBox>
      ) : null}
      {viewing && row.remediate !== undefined ? <RecordView dialogRef={dialogRef} record={row.remediate} /> : null}
      <DialogFooter>
        <Button variant="secondary" onPress={close} isDisabled={remediating}>
          {confirming || previewing || previewFailed ? "Cancel" : "Close"}
        </Button>
        {confirming ? (
          <GatedButton
            allowed={canRemediate}
            tooltip={ScanningMessages.remediatePermissionTooltip}
            onBlockedPress={() => dialogRef.send({ type: "remediation.confirmed" })}
            onPress={() => dialogRef.send({ type: "remediation.confirmed" })}
          >
            Remediate
          </GatedButton>
        ) : null}
        {retryable ? (
          <GatedButton
            allowed={canRemediate}
            tooltip={ScanningMessages.remediatePermissionTooltip}
            onBlockedPress={() => dialogRef.send({ type: "remediation.retried" })}
            onPress={() => dialogRef.send({ type: "remediation.retried" })}
          >
            Try again
          </GatedButton>
        ) : null}
      </DialogFooter>
    </Dialog>
  )
}
