/**
 * /dashboard/remediations/batches (issue 32 part 4), rendered from `remediationBatchesMachine`; lazy-loaded, for
 * members holding remediate_findings. The workspace's bulk remediations, newest first, 20 a page: each with its state,
 * who started it and when, what it covers and its counts, opening its page.
 */
import { useMemo } from "react"
import { useActorRef, useSelector } from "@xstate/react"
import { createColumnHelper } from "@tanstack/react-table"
import type { ActorRefFrom } from "xstate"
import type { RemediationBatch } from "../../contracts/remediation-batches.ts"
import { unitLabel } from "../../contracts/outcomes.ts"
import { batchPath } from "../../machines/remediation-batches-effects.ts"
import { BATCHES_LOAD_FAILED, remediationBatchesMachine } from "../../machines/remediation-batches.machine.ts"
import { Badge } from "../ui/badge.tsx"
import { Button } from "../ui/button.tsx"
import { Card } from "../ui/card.tsx"
import { DataTable, useIsDesktop, type ScanTableFeatures } from "../ui/data-table.tsx"
import { Link } from "../ui/link.tsx"
import { effectActor, useNotifyAction } from "../screen-actors.ts"
import { ErrorBox, formatDateTime, LoadingBox } from "../scanning/scan-parts.tsx"
import * as scanCss from "../scanning/scanning.css.ts"
import { useRemediationBatchesEnvironment } from "./remediation-batches-effects-context.tsx"
import { BATCH_STATE_LABELS, BATCH_STATE_TONES } from "./remediation-batch.view.tsx"

type ListRef = ActorRefFrom<typeof remediationBatchesMachine>

const batchesLabel = (n: number): string => `${n.toLocaleString("en-US")} ${n === 1 ? "batch" : "batches"}`
const scopeText = (b: RemediationBatch): string => (b.check_id === null ? "Selected resources" : `Every failing resource of ${b.check_id}`)
const countsText = (b: RemediationBatch): string =>
  `${b.counts.fixed.toLocaleString("en-US")} fixed · ${b.counts.failed.toLocaleString("en-US")} failed · ${b.counts.skipped.toLocaleString("en-US")} skipped${b.counts.undone > 0 ? ` · ${b.counts.undone.toLocaleString("en-US")} undone` : ""}`

const helper = createColumnHelper<ScanTableFeatures, RemediationBatch>()
const columns = [
  helper.accessor("id", { header: "Batch", cell: ({ getValue }) => <Link href={batchPath(getValue())}>{`#${getValue()}`}</Link> }),
  helper.accessor("state", { header: "State", cell: ({ getValue }) => <Badge tone={BATCH_STATE_TONES[getValue()]}>{BATCH_STATE_LABELS[getValue()]}</Badge> }),
  helper.display({
    id: "scope",
    header: "Covers",
    cell: ({ row }) =>
      row.original.check_id === null ? scopeText(row.original) : (
        <span>
          Every failing resource of <span className={scanCss.mono}>{row.original.check_id}</span>
        </span>
      ),
  }),
  helper.accessor("total", { header: "Resources", cell: ({ getValue }) => unitLabel(getValue(), "resources") }),
  helper.display({ id: "outcome", header: "Outcome", cell: ({ row }) => countsText(row.original) }),
  helper.display({ id: "by", header: "Started by", cell: ({ row }) => row.original.created_by?.email ?? "A removed member" }),
  helper.accessor("created_at", { header: "Created", cell: ({ getValue }) => <span className={scanCss.nowrap}>{formatDateTime(getValue())}</span> }),
]

function useListLogic() {
  const { effects } = useRemediationBatchesEnvironment()
  const notify = useNotifyAction()
  return useMemo(() => remediationBatchesMachine.provide({ actors: { listBatches: effectActor(effects.listBatches) }, actions: { notify } }), [effects, notify])
}

function Rows({ listRef }: { readonly listRef: ListRef }) {
  const batches = useSelector(listRef, (s) => s.context.batches)
  const pagination = useSelector(listRef, (s) => s.context.pagination)
  const paging = useSelector(listRef, (s) => s.matches("paging"))
  const isDesktop = useIsDesktop()
  const page = pagination?.page ?? 1
  const pages = pagination?.total_pages ?? 1
  return (
    <Card title="Batches" level={2} description={batchesLabel(pagination?.total ?? batches.length)}>
      {isDesktop || batches.length === 0 ? (
        <DataTable label="Remediation batches" columns={columns} data={batches} rowId={(b) => String(b.id)} busy={paging} empty="No bulk remediation yet: select failing findings on a scan's findings list to start one." />
      ) : (
        <ul className={scanCss.cardList} aria-label="Remediation batches" aria-busy={paging}>
          {batches.map((b) => (
            <li key={b.id} className={scanCss.itemCard}>
              <div className={scanCss.itemCardHeader}>
                <Link href={batchPath(b.id)}>{`Batch #${b.id}`}</Link>
                <Badge tone={BATCH_STATE_TONES[b.state]}>{BATCH_STATE_LABELS[b.state]}</Badge>
              </div>
              <span className={scanCss.muted}>{`${scopeText(b)} · ${unitLabel(b.total, "resources")}`}</span>
              <span className={scanCss.muted}>{countsText(b)}</span>
              <span className={scanCss.subtle}>{formatDateTime(b.created_at)}</span>
            </li>
          ))}
        </ul>
      )}
      {pages > 1 ? (
        <div className={scanCss.loadMore}>
          <Button variant="secondary" size="sm" isDisabled={page <= 1 || paging} onPress={() => listRef.send({ type: "page.requested", page: page - 1 })}>
            Previous
          </Button>
          <span className={scanCss.muted}>{`Page ${page} of ${pages}`}</span>
          <Button variant="secondary" size="sm" isDisabled={page >= pages || paging} onPress={() => listRef.send({ type: "page.requested", page: page + 1 })}>
            Next
          </Button>
        </div>
      ) : null}
    </Card>
  )
}

export function RemediationBatchesView() {
  const { clock } = useRemediationBatchesEnvironment()
  const listRef = useActorRef(useListLogic(), clock === undefined ? {} : { clock })
  const loading = useSelector(listRef, (s) => s.matches("loading"))
  const failed = useSelector(listRef, (s) => s.matches("failed"))
  const error = useSelector(listRef, (s) => s.context.error)
  return (
    <div className={scanCss.page}>
      <div className={scanCss.pageHeader}>
        <div className={scanCss.titles}>
          <h1 className={scanCss.title}>Remediation batches</h1>
          <p className={scanCss.subtitle}>Bulk remediations of the workspace, newest first: each shows its progress, every resource's outcome, and undoes in one step.</p>
        </div>
      </div>
      {loading ? (
        <LoadingBox label="Loading the remediation batches" />
      ) : failed ? (
        <ErrorBox
          title={BATCHES_LOAD_FAILED}
          message={error ?? BATCHES_LOAD_FAILED}
          actions={
            <Button variant="secondary" size="sm" onPress={() => listRef.send({ type: "batches.retryRequested" })}>
              Try again
            </Button>
          }
        />
      ) : (
        <Rows listRef={listRef} />
      )}
    </div>
  )
}
