/**
 * Bulk remediation's start (issue 32 part 4), rendered from `bulkRemediationMachine` on the pages that offer it: the
 * row checkboxes of a scan's findings list (failing findings only, for members holding remediate_findings), the bar
 * with "Remediate N selected", and the confirmation dialog that says how many resources in how many accounts are
 * fixed before the batch is created and its page opens. The cross-account findings page sends
 * `check.remediateRequested` from its "Remediate all failing (N)" button and shares the dialog.
 */
import { useMemo } from "react"
import { useActorRef, useSelector } from "@xstate/react"
import { useLocation } from "wouter"
import type { ActorRefFrom } from "xstate"
import type { Finding } from "../../contracts/findings.ts"
import { unitLabel } from "../../contracts/outcomes.ts"
import type { NavigateParams } from "../../machines/auth-effects.ts"
import { bulkRemediationMachine, isSelectable, selectedResources, targetCounts } from "../../machines/bulk-remediation.machine.ts"
import { failingRowsOf } from "../../machines/remediation-batches-effects.ts"
import { AlertBox } from "../ui/alert-box.tsx"
import { Button } from "../ui/button.tsx"
import { Checkbox } from "../ui/checkbox.tsx"
import { Dialog, DialogFooter } from "../ui/dialog.tsx"
import { Spinner } from "../ui/spinner.tsx"
import { effectActor, useNotifyAction } from "../screen-actors.ts"
import { useScanEnvironment } from "../scanning/scan-effects-context.tsx"
import * as scanCss from "../scanning/scanning.css.ts"
import { useRemediationBatchesEnvironment } from "./remediation-batches-effects-context.tsx"
import * as css from "./remediations.css.ts"

export type BulkRef = ActorRefFrom<typeof bulkRemediationMachine>

const count = (n: number) => n.toLocaleString("en-US")
/** "1 account", "3 accounts" (cloud accounts of the workspace). */
export const accountsLabel = (n: number) => `${count(n)} ${n === 1 ? "account" : "accounts"}`

/** The bulk machine with the scanning effects (permission, rows) and the batches' (create) supplied, started. */
export function useBulkRemediation(): BulkRef {
  const scan = useScanEnvironment()
  const { effects } = useRemediationBatchesEnvironment()
  const notify = useNotifyAction()
  const [, setLocation] = useLocation()
  const logic = useMemo(
    () =>
      bulkRemediationMachine.provide({
        actors: {
          loadViewer: effectActor(() => scan.effects.loadViewer()),
          resolveRows: effectActor(failingRowsOf(scan.effects.getFinding)),
          createBatch: effectActor(effects.createBatch),
        },
        actions: { notify, navigate: (_: unknown, { to }: NavigateParams) => setLocation(to) },
      }),
    [scan.effects, effects, notify, setLocation],
  )
  return useActorRef(logic, scan.clock === undefined ? {} : { clock: scan.clock })
}

/** Whether the selection is offered (the member may remediate, and no batch is being started). */
export const useSelectionOffered = (bulkRef: BulkRef): boolean => useSelector(bulkRef, (s) => !s.matches("checking") && !s.matches("unavailable"))

/** One failing finding's checkbox (a finding without failing resources gets none). */
export function SelectFinding({ bulkRef, finding }: { readonly bulkRef: BulkRef; readonly finding: Finding }) {
  const selected = useSelector(bulkRef, (s) => s.context.selected.some((f) => f.id === finding.id))
  const idle = useSelector(bulkRef, (s) => s.matches("idle"))
  if (!isSelectable(finding)) return null
  return (
    <Checkbox
      aria-label={`Select ${finding.policy_check}${finding.account_name === "" ? "" : ` (${finding.account_name})`}`}
      isSelected={selected}
      isDisabled={!idle}
      onChange={() => bulkRef.send({ type: "selection.toggled", finding })}
    />
  )
}

/** The page's "select every failing finding" checkbox. */
export function SelectPage({ bulkRef, findings }: { readonly bulkRef: BulkRef; readonly findings: ReadonlyArray<Finding> }) {
  const selectable = findings.filter(isSelectable)
  const ticked = useSelector(bulkRef, (s) => selectable.filter((f) => s.context.selected.some((x) => x.id === f.id)).length)
  const idle = useSelector(bulkRef, (s) => s.matches("idle"))
  if (selectable.length === 0) return null
  return (
    <Checkbox
      aria-label="Select every failing finding shown"
      isSelected={ticked === selectable.length}
      isIndeterminate={ticked > 0 && ticked < selectable.length}
      isDisabled={!idle}
      onChange={() => bulkRef.send({ type: "selection.pageToggled", findings })}
    />
  )
}

/** What is ticked, with "Remediate N selected" and Clear selection; nothing while nothing is ticked. */
export function SelectionBar({ bulkRef }: { readonly bulkRef: BulkRef }) {
  const selected = useSelector(bulkRef, (s) => s.context.selected)
  const busy = useSelector(bulkRef, (s) => s.matches("resolving"))
  if (selected.length === 0) return null
  return (
    <div className={css.selectionBar} role="region" aria-label="Selection">
      <span aria-live="polite">{`${unitLabel(selected.length, "findings")} selected · ${unitLabel(selectedResources(selected), "failingResources")}`}</span>
      <div className={scanCss.actions}>
        <Button variant="ghost" size="sm" onPress={() => bulkRef.send({ type: "selection.cleared" })}>
          Clear selection
        </Button>
        <Button size="sm" isPending={busy} onPress={() => bulkRef.send({ type: "selection.remediateRequested" })}>
          {`Remediate ${count(selected.length)} selected`}
        </Button>
      </div>
    </div>
  )
}

/** The confirmation: how many resources in how many accounts, Cancel and Remediate; the refusal in the server's words. */
export function BulkRemediationDialog({ bulkRef }: { readonly bulkRef: BulkRef }) {
  const resolving = useSelector(bulkRef, (s) => s.matches("resolving"))
  const confirming = useSelector(bulkRef, (s) => s.matches("confirming"))
  const creating = useSelector(bulkRef, (s) => s.matches("creating"))
  const target = useSelector(bulkRef, (s) => s.context.target)
  const error = useSelector(bulkRef, (s) => s.context.error)
  if (!resolving && !confirming && !creating) return null
  const close = () => bulkRef.send({ type: "dialog.closed" })
  const counts = target === null ? null : targetCounts(target)
  return (
    <Dialog
      title="Remediate in bulk"
      role="alertdialog"
      isOpen
      onOpenChange={(open) => {
        if (!open && !creating) close()
      }}
      isDismissable={!creating}
      isKeyboardDismissDisabled={creating}
      showCloseButton={!creating}
    >
      {resolving || counts === null ? (
        <div className={scanCss.stateBox}>
          <Spinner aria-label="Reading the failing resources" />
          <p className={scanCss.muted}>Reading the failing resources of the selection…</p>
        </div>
      ) : (
        <>
          <p className={css.confirmCount}>
            {`${unitLabel(counts.resources, "resources")} in ${accountsLabel(counts.accounts)} will be remediated.`}
          </p>
          <p className={scanCss.muted}>
            {target?.kind === "check" ? `Every failing resource of ${target.checkId} in these accounts gets the check's automatic fix. ` : "Each selected failing resource gets its check's automatic fix. "}
            The work runs as one batch: its page shows the progress and each resource's outcome, can stop it, and undoes the whole batch in one step. Resources on accounts that require approval are skipped.
          </p>
          {error === null ? null : <AlertBox tone="error" title={error} />}
        </>
      )}
      <DialogFooter>
        <Button variant="secondary" onPress={close} isDisabled={creating}>
          Cancel
        </Button>
        <Button isDisabled={!confirming} isPending={creating} onPress={() => bulkRef.send({ type: "batch.confirmed" })}>
          {counts === null ? "Remediate" : `Remediate ${unitLabel(counts.resources, "resources")}`}
        </Button>
      </DialogFooter>
    </Dialog>
  )
}
