/**
 * /dashboard/remediations/batches/:batchId (issue 32 part 4), rendered from `remediationBatchMachine`; lazy-loaded as
 * its own chunk, for members holding remediate_findings. One bulk remediation: its state, a progress bar with the
 * server's counts (fixed, failed, skipped, pending, running, undone, undo failed), read again every two seconds while it
 * works; Stop while it runs and Undo batch once it is done and reversible (each confirmed in a dialog; "Undo anyway"
 * when resources changed since the fix); who started it (and with which API key, when one was used); every resource's outcome — account, resource, check, state and why (a
 * skipped or failed item's reason, an undo's field differences) — read from the server page by page.
 */
import { useMemo } from "react"
import { useActorRef, useSelector } from "@xstate/react"
import { createColumnHelper } from "@tanstack/react-table"
import { useParams } from "wouter"
import type { ActorRefFrom } from "xstate"
import {
  batchProgress,
  BatchMessages,
  type BatchItem,
  type BatchItemState,
  type BatchState,
  type RemediationBatch,
  type RemediationBatchId,
} from "../../contracts/remediation-batches.ts"
import { unitLabel } from "../../contracts/outcomes.ts"
import { findingPath } from "../../machines/findings-list.machine.ts"
import { accountPath } from "../../machines/dashboard-accounts.machine.ts"
import { BATCHES_PATH } from "../../machines/remediation-batches-effects.ts"
import { canUndoBatch, hasUndoConflicts, remediationBatchMachine } from "../../machines/remediation-batch.machine.ts"
import { AlertBox } from "../ui/alert-box.tsx"
import { Badge, type BadgeTone } from "../ui/badge.tsx"
import { Button } from "../ui/button.tsx"
import { Card } from "../ui/card.tsx"
import { DataTable, useIsDesktop, type ScanTableFeatures } from "../ui/data-table.tsx"
import { Dialog, DialogFooter } from "../ui/dialog.tsx"
import { Identifier } from "../ui/identifier.tsx"
import { Link } from "../ui/link.tsx"
import { effectActor, useNotifyAction } from "../screen-actors.ts"
import { ErrorBox, Fact, formatDateTime, LabelledProgress, LoadingBox } from "../scanning/scan-parts.tsx"
import * as scanCss from "../scanning/scanning.css.ts"
import { useRemediationBatchesEnvironment } from "./remediation-batches-effects-context.tsx"
import * as css from "./remediations.css.ts"

type BatchRef = ActorRefFrom<typeof remediationBatchMachine>

export const BATCH_STATE_LABELS: { readonly [K in BatchState]: string } = {
  queued: "Waiting to start",
  running: "Running",
  stopping: "Stopping",
  stopped: "Stopped",
  completed: "Completed",
  failed: "Failed",
  undoing: "Undoing",
  undone: "Undone",
  undo_failed: "Undo incomplete",
}

export const BATCH_STATE_TONES: { readonly [K in BatchState]: BadgeTone } = {
  queued: "neutral",
  running: "accent",
  stopping: "warning",
  stopped: "warning",
  completed: "success",
  failed: "danger",
  undoing: "accent",
  undone: "neutral",
  undo_failed: "danger",
}

const ITEM_STATE_LABELS: { readonly [K in BatchItemState]: string } = {
  pending: "Waiting",
  running: "Fixing",
  fixed: "Fixed",
  failed: "Failed",
  skipped: "Skipped",
  undoing: "Undoing",
  undone: "Undone",
  undo_failed: "Undo failed",
}

const ITEM_STATE_TONES: { readonly [K in BatchItemState]: BadgeTone } = {
  pending: "neutral",
  running: "accent",
  fixed: "success",
  failed: "danger",
  skipped: "warning",
  undoing: "accent",
  undone: "neutral",
  undo_failed: "danger",
}

/** What the batch's state means, in a sentence (null when the badge says it all). */
const stateSentence = (b: RemediationBatch): string | null => {
  switch (b.state) {
    case "queued":
      return "The batch waits for a worker; its resources are fixed a few at a time."
    case "running":
      return "The resources are being fixed a few at a time; this page follows the progress."
    case "stopping":
      return "Stop was asked: resources not yet started are skipped, the ones being fixed finish."
    case "stopped":
      return `Stopped${b.stop_requested_by === null ? "" : ` by ${b.stop_requested_by.email}`}${b.stop_api_key === null ? "" : ` with API key ${b.stop_api_key.name}`}${b.stop_requested_at === null ? "" : ` at ${formatDateTime(b.stop_requested_at)}`}: resources not yet started were skipped.`
    case "failed":
      return "The batch could not finish; each resource's outcome is listed below."
    case "undoing":
      return "Every fixed resource is being put back as it was before the fix."
    case "undone":
      return `Undone${b.undo_requested_by === null ? "" : ` by ${b.undo_requested_by.email}`}${b.undo_requested_at === null ? "" : ` at ${formatDateTime(b.undo_requested_at)}`}: the fixed resources were put back as they were.`
    case "undo_failed":
      return "Some resources were not put back: they changed since the fix, or their undo failed (the reasons are listed below)."
    default:
      return null
  }
}

function useBatchLogic() {
  const { effects } = useRemediationBatchesEnvironment()
  const notify = useNotifyAction()
  return useMemo(
    () =>
      remediationBatchMachine.provide({
        actors: {
          loadBatch: effectActor(effects.loadBatch),
          loadItems: effectActor(effects.loadItems),
          stopBatch: effectActor(effects.stopBatch),
          undoBatch: effectActor(effects.undoBatch),
        },
        actions: { notify },
      }),
    [effects, notify],
  )
}

/** Done items over the total, as a bar with its numbers. */
function Progress({ batch }: { readonly batch: RemediationBatch }) {
  const done = batch.total - batch.counts.pending - batch.counts.running
  const label = `${done.toLocaleString("en-US")} of ${unitLabel(batch.total, "resources")} done`
  return <LabelledProgress name="Batch progress" label={label} percent={Math.round(batchProgress(batch) * 100)} className={css.progressRow} />
}

const COUNT_LABELS: ReadonlyArray<readonly [keyof RemediationBatch["counts"], string]> = [
  ["fixed", "Fixed"],
  ["failed", "Failed"],
  ["skipped", "Skipped"],
  ["pending", "Waiting"],
  ["running", "Fixing"],
  ["undoing", "Undoing"],
  ["undone", "Undone"],
  ["undo_failed", "Undo failed"],
]

function Counts({ batch }: { readonly batch: RemediationBatch }) {
  // The first three always show; the others once they count something.
  const shown = COUNT_LABELS.filter(([key], i) => i < 3 || batch.counts[key] > 0)
  return (
    <dl className={css.counts} aria-label="Counts">
      {shown.map(([key, label]) => (
        <Fact key={key} label={label}>
          {batch.counts[key].toLocaleString("en-US")}
        </Fact>
      ))}
    </dl>
  )
}

/** Why an item ended as it did: its message, and an undo's field differences. */
function ItemOutcome({ item }: { readonly item: BatchItem }) {
  if (item.message === null && item.differences.length === 0) return <span className={scanCss.subtle}>—</span>
  return (
    <span className={css.message}>
      {item.message}
      {item.differences.length === 0 ? null : (
        <ul className={css.difference} aria-label={`Changes since the fix on ${item.resource_id}`}>
          {item.differences.map((d) => (
            <li key={d.path}>{`${d.path}: ${JSON.stringify(d.expected ?? null)} → ${JSON.stringify(d.actual ?? null)}`}</li>
          ))}
        </ul>
      )}
    </span>
  )
}

const helper = createColumnHelper<ScanTableFeatures, BatchItem>()
const columns = [
  helper.accessor("account_name", {
    header: "Account",
    cell: ({ row }) => <Link href={accountPath(row.original.account_id)}>{row.original.account_name}</Link>,
  }),
  helper.accessor("resource_id", {
    header: "Resource",
    cell: ({ row }) => (
      <span className={css.message}>
        <Identifier text={row.original.resource_id} className={scanCss.mono} />
        <span className={scanCss.subtle}>{` ${row.original.region}`}</span>
      </span>
    ),
  }),
  helper.accessor("check_id", {
    header: "Check",
    cell: ({ row }) => (
      <Link href={findingPath(row.original.scan_id, row.original.finding_id, "")}>
        <span className={scanCss.mono}>{row.original.check_id}</span>
      </Link>
    ),
  }),
  helper.accessor("state", { header: "State", cell: ({ getValue }) => <Badge tone={ITEM_STATE_TONES[getValue()]}>{ITEM_STATE_LABELS[getValue()]}</Badge> }),
  helper.display({ id: "outcome", header: "Outcome", cell: ({ row }) => <ItemOutcome item={row.original} /> }),
]

function Items({ batchRef }: { readonly batchRef: BatchRef }) {
  const items = useSelector(batchRef, (s) => s.context.items)
  const total = useSelector(batchRef, (s) => s.context.batch?.total ?? 0)
  const canLoadMore = useSelector(batchRef, (s) => s.can({ type: "items.loadMoreRequested" }))
  const loadingMore = useSelector(batchRef, (s) => s.matches({ ready: { action: "loadingMore" } }))
  const isDesktop = useIsDesktop()
  return (
    <Card title="Resources" level={2} description={`Showing ${items.length.toLocaleString("en-US")} of ${unitLabel(total, "resources")}`}>
      {isDesktop ? (
        <DataTable label="Resources of the batch" columns={columns} data={items} rowId={(i) => String(i.position)} empty="No resource in this batch." />
      ) : (
        <ul className={scanCss.cardList} aria-label="Resources of the batch">
          {items.map((i) => (
            <li key={i.position} className={scanCss.itemCard}>
              <div className={scanCss.itemCardHeader}>
                <Badge tone={ITEM_STATE_TONES[i.state]}>{ITEM_STATE_LABELS[i.state]}</Badge>
                <span className={scanCss.muted}>{i.account_name}</span>
              </div>
              <Identifier text={i.resource_id} className={scanCss.mono} />
              <Link href={findingPath(i.scan_id, i.finding_id, "")}>{`${i.check_id} · ${i.region}`}</Link>
              <ItemOutcome item={i} />
            </li>
          ))}
        </ul>
      )}
      {canLoadMore || loadingMore ? (
        <div className={scanCss.loadMore}>
          <Button variant="secondary" isPending={loadingMore} onPress={() => batchRef.send({ type: "items.loadMoreRequested" })}>
            Load more
          </Button>
        </div>
      ) : null}
    </Card>
  )
}

function ConfirmDialog({ batchRef }: { readonly batchRef: BatchRef }) {
  const stop = useSelector(batchRef, (s) => s.matches({ ready: { action: "confirmingStop" } }) || s.matches({ ready: { action: "stopping" } }))
  const undo = useSelector(batchRef, (s) => s.matches({ ready: { action: "confirmingUndo" } }) || s.matches({ ready: { action: "undoing" } }))
  const sending = useSelector(batchRef, (s) => s.matches({ ready: { action: "stopping" } }) || s.matches({ ready: { action: "undoing" } }))
  const force = useSelector(batchRef, (s) => s.context.force)
  const batch = useSelector(batchRef, (s) => s.context.batch)
  if ((!stop && !undo) || batch === null) return null
  const cancel = () => batchRef.send({ type: "action.canceled" })
  const fixed = batch.counts.fixed + batch.counts.undo_failed
  return (
    <Dialog
      title={stop ? "Stop the batch?" : force ? "Undo anyway?" : "Undo the batch?"}
      role="alertdialog"
      isOpen
      onOpenChange={(open) => {
        if (!open && !sending) cancel()
      }}
      isDismissable={!sending}
      isKeyboardDismissDisabled={sending}
      showCloseButton={!sending}
    >
      {stop ? (
        <p>{`${unitLabel(batch.counts.pending, "resources")} not yet started will be skipped; the ones being fixed finish. Fixed resources stay fixed.`}</p>
      ) : force ? (
        <AlertBox tone="warning" title="Changes made since the fix will be overwritten">
          {`${unitLabel(batch.counts.undo_failed, "resources")} changed since the fix. Undo anyway puts them back as they were before the fix, overwriting those changes.`}
        </AlertBox>
      ) : (
        <p>{`${unitLabel(fixed, "resources")} fixed by this batch will be put back as they were before the fix. A resource that changed since the fix is left as it is and listed with its changes.`}</p>
      )}
      <DialogFooter>
        <Button variant="secondary" onPress={cancel} isDisabled={sending}>
          Cancel
        </Button>
        <Button variant="danger" isPending={sending} isDisabled={sending} onPress={() => batchRef.send({ type: "action.confirmed" })}>
          {stop ? "Stop the batch" : force ? "Undo anyway" : "Undo the batch"}
        </Button>
      </DialogFooter>
    </Dialog>
  )
}

function BatchBody({ batchRef, batch }: { readonly batchRef: BatchRef; readonly batch: RemediationBatch }) {
  const canStop = useSelector(batchRef, (s) => s.can({ type: "stop.requested" }))
  const canUndo = useSelector(batchRef, (s) => s.can({ type: "undo.requested", force: false }))
  const sentence = stateSentence(batch)
  const conflicts = hasUndoConflicts(batch) && canUndoBatch(batch)
  return (
    <>
      <Card
        title="Progress"
        level={2}
        actions={
          <div className={css.headerActions}>
            {canStop ? (
              <Button variant="danger" size="sm" onPress={() => batchRef.send({ type: "stop.requested" })}>
                Stop
              </Button>
            ) : null}
            {canUndo && !conflicts ? (
              <Button variant="secondary" size="sm" onPress={() => batchRef.send({ type: "undo.requested", force: false })}>
                Undo batch
              </Button>
            ) : null}
            {canUndo && conflicts ? (
              <>
                <Button variant="secondary" size="sm" onPress={() => batchRef.send({ type: "undo.requested", force: false })}>
                  Undo again
                </Button>
                <Button variant="danger" size="sm" onPress={() => batchRef.send({ type: "undo.requested", force: true })}>
                  Undo anyway
                </Button>
              </>
            ) : null}
          </div>
        }
      >
        <div className={scanCss.actions}>
          <Badge tone={BATCH_STATE_TONES[batch.state]}>{BATCH_STATE_LABELS[batch.state]}</Badge>
          {sentence === null ? null : <span className={scanCss.muted}>{sentence}</span>}
        </div>
        <Progress batch={batch} />
        <Counts batch={batch} />
        {batch.counts.skipped > 0 ? (
          <p className={scanCss.muted}>Skipped resources were not changed; each says why (stopped, approval required, already remediated, no automatic fix, or the starter or their API key may no longer fix it).</p>
        ) : null}
        <dl className={css.counts}>
          <Fact label="Started by">{batch.created_by?.email ?? "A removed member"}</Fact>
          {batch.api_key === null ? null : <Fact label="Started with API key">{batch.api_key.name}</Fact>}
          {batch.stop_api_key === null ? null : <Fact label="Stop asked with API key">{batch.stop_api_key.name}</Fact>}
          {batch.undo_api_key === null ? null : <Fact label="Undo asked with API key">{batch.undo_api_key.name}</Fact>}
          <Fact label="Created">{formatDateTime(batch.created_at)}</Fact>
          <Fact label="Finished">{batch.finished_at === null ? "Not yet" : formatDateTime(batch.finished_at)}</Fact>
          <Fact label="Undo possible until">{batch.undo_until === null ? "Nothing to undo" : formatDateTime(batch.undo_until)}</Fact>
        </dl>
      </Card>
      <Items batchRef={batchRef} />
      <ConfirmDialog batchRef={batchRef} />
    </>
  )
}

function Batch({ batchId }: { readonly batchId: RemediationBatchId }) {
  const { clock } = useRemediationBatchesEnvironment()
  const batchRef = useActorRef(useBatchLogic(), { input: { batchId }, ...(clock === undefined ? {} : { clock }) })
  const loading = useSelector(batchRef, (s) => s.matches("loading"))
  const failed = useSelector(batchRef, (s) => s.matches("failed"))
  const error = useSelector(batchRef, (s) => s.context.error)
  const batch = useSelector(batchRef, (s) => s.context.batch)
  return (
    <div className={scanCss.page}>
      <div className={scanCss.pageHeader}>
        <div className={scanCss.titles}>
          <h1 className={scanCss.title}>{`Remediation batch #${batchId}`}</h1>
          <p className={scanCss.subtitle}>
            {batch === null ? "Bulk remediation" : batch.check_id === null ? "A selection of failing resources" : `Every failing resource of ${batch.check_id}`}
          </p>
        </div>
        <div className={scanCss.actions}>
          <Link href={BATCHES_PATH}>All batches</Link>
        </div>
      </div>
      {loading ? (
        <LoadingBox label="Loading the remediation batch" />
      ) : failed || batch === null ? (
        <ErrorBox
          title={BatchMessages.loadFailed}
          message={error ?? BatchMessages.loadFailed}
          actions={
            <Button variant="secondary" size="sm" onPress={() => batchRef.send({ type: "batch.retryRequested" })}>
              Try again
            </Button>
          }
        />
      ) : (
        <BatchBody batchRef={batchRef} batch={batch} />
      )}
    </div>
  )
}

export function RemediationBatchView() {
  const { batchId = "" } = useParams<{ batchId: string }>()
  const id = /^[1-9][0-9]{0,9}$/.test(batchId) ? Number(batchId) : null
  if (id === null) return <ErrorBox title={BatchMessages.notFound} message="Open a batch from the list of remediation batches." />
  return <Batch key={id} batchId={id as RemediationBatchId} />
}
