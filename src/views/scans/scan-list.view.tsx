/**
 * /dashboard/scans (scanning §2 "Scan list"), rendered from `scanListMachine`; lazy-loaded as its own chunk.
 * 'Security Scans', 'New scan' and 'Refresh'; a TanStack table at ≥ 1024 px and cards below; a progress bar
 * (completed / total services) for running scans; cancel for pending or running ones; 'Load more' (20 per page);
 * the empty state with 'Run first scan'; the list refreshes itself every 15 s while the tab is visible.
 */
import { useEffect, useMemo } from "react"
import { useActorRef, useSelector } from "@xstate/react"
import { createColumnHelper } from "@tanstack/react-table"
import type { ActorRefFrom } from "xstate"
import { ScanningMessages } from "../../contracts/messages.ts"
import type { Scan } from "../../contracts/scans.ts"
import { isActiveScan, scanPath, scanProgressPercent, type scanListMachine } from "../../machines/scan-list.machine.ts"
import { Button } from "../ui/button.tsx"
import { Card } from "../ui/card.tsx"
import { Link } from "../ui/link.tsx"
import { DataTable, useIsDesktop, type ScanTableFeatures } from "../ui/data-table.tsx"
import { LaunchScanDialog, type LaunchScanRef } from "./launch-scan-dialog.tsx"
import { PlayIcon, PlusIcon, RefreshIcon, ServerIcon, StopIcon } from "../ui/icons.tsx"
import { useScanActorOptions, useScanListLogic } from "../scanning/scan-logic.ts"
import { DateTimeText, ErrorBox, Fact, formatDateTime, LoadingBox, RunStatusBadge, ServicesProgress } from "../scanning/scan-parts.tsx"
import * as css from "../scanning/scanning.css.ts"

type ScanListRef = ActorRefFrom<typeof scanListMachine>

const helper = createColumnHelper<ScanTableFeatures, Scan>()

function Progress({ scan }: { readonly scan: Scan }) {
  return isActiveScan(scan) ? (
    <ServicesProgress completed={scan.completed_services} total={scan.total_services} percent={scanProgressPercent(scan)} />
  ) : (
    <span className={css.muted}>{`${scan.completed_services} / ${scan.total_services} services`}</span>
  )
}

function Findings({ scan }: { readonly scan: Scan }) {
  return (
    <span className={css.nowrap}>
      <strong>{scan.failed_findings}</strong>
      <span className={css.muted}>{` failed of ${scan.findings_count}`}</span>
    </span>
  )
}

function CancelButton({ listRef, scan }: { readonly listRef: ScanListRef; readonly scan: Scan }) {
  const scanId = scan.id
  const canCancel = useSelector(listRef, (s) => s.can({ type: "scan.cancelRequested", scanId }))
  const cancelling = useSelector(listRef, (s) => s.context.cancellingId === scanId)
  if (!isActiveScan(scan)) return null
  return (
    <Button
      variant="ghost"
      size="sm"
      isDisabled={!canCancel && !cancelling}
      isPending={cancelling}
      onPress={() => listRef.send({ type: "scan.cancelRequested", scanId })}
      aria-label={`Cancel scan #${scanId}`}
    >
      {cancelling ? null : <StopIcon size={14} />}
      Cancel
    </Button>
  )
}

function ScanTable({ listRef, scans }: { readonly listRef: ScanListRef; readonly scans: ReadonlyArray<Scan> }) {
  const columns = useMemo(
    () =>
      helper.columns([
        helper.accessor("id", {
          header: "Scan",
          cell: ({ getValue }) => <Link href={scanPath(getValue())}>{`#${getValue()}`}</Link>,
        }),
        helper.display({
          id: "account",
          header: "Account",
          cell: ({ row }) => (
            <span className={css.fact}>
              <span>{row.original.account_name}</span>
              <span className={css.subtle}>{row.original.cloud_provider.toUpperCase()}</span>
            </span>
          ),
        }),
        helper.accessor("status", { header: "Status", cell: ({ getValue }) => <RunStatusBadge status={getValue()} /> }),
        helper.display({ id: "progress", header: "Progress", cell: ({ row }) => <Progress scan={row.original} /> }),
        helper.accessor("scan_start", { header: "Started", cell: ({ getValue }) => <DateTimeText iso={getValue()} /> }),
        helper.accessor("scan_end", { header: "Ended", cell: ({ getValue }) => <DateTimeText iso={getValue()} /> }),
        helper.display({ id: "findings", header: "Findings", cell: ({ row }) => <Findings scan={row.original} /> }),
        helper.display({
          id: "actions",
          header: "Actions",
          cell: ({ row }) => (
            <span className={css.actions} style={{ justifyContent: "flex-end" }}>
              <Link href={scanPath(row.original.id)} variant="subtle">
                View
              </Link>
              <CancelButton listRef={listRef} scan={row.original} />
            </span>
          ),
        }),
      ]),
    [listRef],
  )
  return <DataTable label="Security scans" columns={columns} data={scans} rowId={(s) => String(s.id)} endColumns={["actions"]} />
}

function ScanCards({ listRef, scans }: { readonly listRef: ScanListRef; readonly scans: ReadonlyArray<Scan> }) {
  return (
    <ul className={css.cardList} aria-label="Security scans">
      {scans.map((scan) => (
        <li key={scan.id} className={css.itemCard}>
          <div className={css.itemCardHeader}>
            <div className={css.fact}>
              <Link href={scanPath(scan.id)}>{`Scan #${scan.id}`}</Link>
              <span className={css.muted}>{`${scan.account_name} · ${scan.cloud_provider.toUpperCase()}`}</span>
            </div>
            <RunStatusBadge status={scan.status} />
          </div>
          <Progress scan={scan} />
          <dl className={css.facts}>
            <Fact label="Started">{formatDateTime(scan.scan_start)}</Fact>
            <Fact label="Findings">
              <Findings scan={scan} />
            </Fact>
          </dl>
          <div className={css.actions}>
            <Link href={scanPath(scan.id)} variant="button">
              View details
            </Link>
            <CancelButton listRef={listRef} scan={scan} />
          </div>
        </li>
      ))}
    </ul>
  )
}

function ScansBody({ listRef }: { readonly listRef: ScanListRef }) {
  const scans = useSelector(listRef, (s) => s.context.scans)
  const loading = useSelector(listRef, (s) => s.matches({ list: "loading" }))
  const failed = useSelector(listRef, (s) => s.matches({ list: "failed" }))
  const error = useSelector(listRef, (s) => s.context.error)
  const canLoadMore = useSelector(listRef, (s) => s.can({ type: "scans.loadMoreRequested" }))
  const loadingMore = useSelector(listRef, (s) => s.matches({ list: { loaded: "loadingMore" } }))
  const total = useSelector(listRef, (s) => s.context.total)
  const isDesktop = useIsDesktop()

  if (loading) return <LoadingBox label="Loading scans" />
  if (failed) {
    return (
      <ErrorBox
        title={ScanningMessages.errorLoadingScansTitle}
        message={error ?? ScanningMessages.errorLoadingScanDetails}
        actions={
          <Button variant="secondary" size="sm" onPress={() => listRef.send({ type: "scans.retryRequested" })}>
            Try again
          </Button>
        }
      />
    )
  }
  if (scans.length === 0) {
    return (
      <Card>
        <div className={css.stateBox}>
          <ServerIcon size={36} className={css.stateIcon} />
          <p className={css.stateTitle}>No scans yet</p>
          <p>Run a scan to check your cloud accounts against the security checks.</p>
          <Button onPress={() => listRef.send({ type: "scans.newRequested" })}>
            <PlayIcon size={16} />
            Run first scan
          </Button>
        </div>
      </Card>
    )
  }
  return (
    <Card title="All scans" description={`${total} ${total === 1 ? "scan" : "scans"}`}>
      {isDesktop ? <ScanTable listRef={listRef} scans={scans} /> : <ScanCards listRef={listRef} scans={scans} />}
      {canLoadMore || loadingMore ? (
        <div className={css.loadMore}>
          <Button variant="secondary" isPending={loadingMore} onPress={() => listRef.send({ type: "scans.loadMoreRequested" })}>
            Load more
          </Button>
        </div>
      ) : null}
    </Card>
  )
}

const isVisible = (): boolean => typeof document === "undefined" || document.visibilityState !== "hidden"

export function ScanListView() {
  const logic = useScanListLogic()
  const options = useScanActorOptions()
  const listRef = useActorRef(logic, { ...options, input: { visible: isVisible() } })
  const refreshing = useSelector(listRef, (s) => s.matches({ list: { loaded: "refreshing" } }))
  const launch = useSelector(listRef, (s) => s.children.launchScan as LaunchScanRef | undefined)

  // Scanning §4: the 15 s refresh runs only while the tab is visible.
  useEffect(() => {
    const onChange = () => listRef.send({ type: isVisible() ? "page.visible" : "page.hidden" })
    document.addEventListener("visibilitychange", onChange)
    return () => document.removeEventListener("visibilitychange", onChange)
  }, [listRef])

  return (
    <div className={css.page}>
      <div className={css.pageHeader}>
        <div className={css.titles}>
          <h1 className={css.title}>Security Scans</h1>
          <p className={css.subtitle}>Every scan of this workspace's cloud accounts, newest first.</p>
        </div>
        <div className={css.actions}>
          <Button variant="secondary" isPending={refreshing} onPress={() => listRef.send({ type: "scans.refreshRequested" })}>
            {refreshing ? null : <RefreshIcon size={16} />}
            Refresh
          </Button>
          <Button onPress={() => listRef.send({ type: "scans.newRequested" })}>
            <PlusIcon size={16} />
            New scan
          </Button>
        </div>
      </div>
      <ScansBody listRef={listRef} />
      {launch === undefined ? null : <LaunchScanDialog dialogRef={launch} />}
    </div>
  )
}
