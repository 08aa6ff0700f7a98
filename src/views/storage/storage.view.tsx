/**
 * /dashboard/storage (beyond the spec, issue 30 "Visible size" and the retention setting), rendered from
 * `workspaceStorageMachine`; lazy-loaded as its own chunk, for workspace admins only (the permission gate sends anyone
 * else to the dashboard with its usual message; the user menu offers the page to admins only).
 *
 * - 'Workspace storage': what the workspace's scan history occupies, each figure with its unit (scans kept, result rows
 *   the scans answer, rows stored, size on disk with the exact byte count).
 * - 'Retention': the setting in words, when it was last changed and applied, what it will free now, and the form (keep
 *   scans for N days, keep the last N scans per account; empty: no limit) with each field's description and error tied
 *   to it, Reset and Save.
 * - 'Storage by account': a TanStack table at ≥ 1024 px (sortable headers, bytes largest first by default) and cards
 *   below (a 'Sort accounts by' picker); one page of rows at a time with 'Show more accounts', so thousands of accounts
 *   stay quick.
 */
import { useMemo } from "react"
import { useActorRef, useSelector } from "@xstate/react"
import { createColumnHelper } from "@tanstack/react-table"
import { Button as AriaButton } from "react-aria-components"
import type { ActorRefFrom } from "xstate"
import { RETENTION_MAX_DAYS, RETENTION_MAX_SCANS, StorageMessages, type AccountStorage, type StorageFigures } from "../../contracts/storage.ts"
import {
  sortAccounts,
  workspaceStorageMachine,
  type RetentionField,
  type StorageColumn,
  type StorageSort,
} from "../../machines/workspace-storage.machine.ts"
import { AlertBox } from "../ui/alert-box.tsx"
import { Button } from "../ui/button.tsx"
import { Card } from "../ui/card.tsx"
import { DataTable, useIsDesktop, type ScanTableFeatures } from "../ui/data-table.tsx"
import { Form } from "../ui/form.tsx"
import { ChevronDownIcon } from "../ui/icons.tsx"
import { Select, SelectItem } from "../ui/select.tsx"
import { TextField } from "../ui/text-field.tsx"
import { effectActor, useNotifyAction } from "../screen-actors.ts"
import { ErrorBox, Fact, formatDateTime, LoadingBox } from "../scanning/scan-parts.tsx"
import * as scanCss from "../scanning/scanning.css.ts"
import { useStorageEnvironment } from "./storage-effects-context.tsx"
import {
  COLUMN_LABELS,
  FIGURE_LABELS,
  STORAGE_COLUMNS,
  bytesText,
  countText,
  exactBytesText,
  figuresText,
  retentionText,
} from "./storage-format.ts"
import * as css from "./storage.css.ts"

type StorageRef = ActorRefFrom<typeof workspaceStorageMachine>

function useStorageLogic() {
  const { effects } = useStorageEnvironment()
  const notify = useNotifyAction()
  return useMemo(
    () =>
      workspaceStorageMachine.provide({
        actors: { loadStorage: effectActor(effects.loadStorage), saveRetention: effectActor(effects.saveRetention) },
        actions: { notify },
      }),
    [effects, notify],
  )
}

// ---------------------------------------------------------------------------------------------------
// Figures

/** One figure of a set, with its unit in the value. */
function Figure({ label, value, note }: { readonly label: string; readonly value: string; readonly note?: string }) {
  return (
    <div className={css.figure}>
      <dt className={css.figureLabel}>{label}</dt>
      <dd className={css.figureValue}>{value}</dd>
      {note === undefined ? null : <dd className={css.figureNote}>{note}</dd>}
    </div>
  )
}

function FigureList({ figures }: { readonly figures: StorageFigures }) {
  return (
    <dl className={css.figures}>
      <Figure label={FIGURE_LABELS.scans} value={countText(figures.scans, "scans")} />
      <Figure label={FIGURE_LABELS.results} value={countText(figures.results, "results")} />
      <Figure label={FIGURE_LABELS.rows} value={countText(figures.rows, "rows")} />
      {figures.bytes < 1000 ? (
        <Figure label={FIGURE_LABELS.bytes} value={bytesText(figures.bytes)} />
      ) : (
        <Figure label={FIGURE_LABELS.bytes} value={bytesText(figures.bytes)} note={exactBytesText(figures.bytes)} />
      )}
    </dl>
  )
}

function TotalsCard({ storageRef }: { readonly storageRef: StorageRef }) {
  const used = useSelector(storageRef, (s) => s.context.storage?.used)
  const accounts = useSelector(storageRef, (s) => s.context.storage?.accounts.length ?? 0)
  if (used === undefined) return null
  return (
    <Card
      title="Workspace storage"
      aria-label="Workspace storage"
      description={`What the scan history of ${accounts.toLocaleString("en-US")} ${accounts === 1 ? "account" : "accounts"} occupies. Sizes on disk include indexes and are estimated per account.`}
    >
      <FigureList figures={used} />
    </Card>
  )
}

// ---------------------------------------------------------------------------------------------------
// Retention

const FIELD_LABELS: { readonly [K in RetentionField]: string } = {
  keep_days: "Keep scans for (days)",
  keep_scans: "Keep the last scans per account",
}

const FIELD_DESCRIPTIONS: { readonly [K in RetentionField]: string } = {
  keep_days: `Scans that ended more than this many days ago are removed. 1 to ${RETENTION_MAX_DAYS.toLocaleString("en-US")} days; leave empty for no limit.`,
  keep_scans: `Only this many of each account's latest scans are kept. 1 to ${RETENTION_MAX_SCANS.toLocaleString("en-US")} scans; leave empty for no limit.`,
}

function RetentionCard({ storageRef }: { readonly storageRef: StorageRef }) {
  const storage = useSelector(storageRef, (s) => s.context.storage)
  const values = useSelector(storageRef, (s) => s.context.values)
  const fieldErrors = useSelector(storageRef, (s) => s.context.fieldErrors)
  const saveError = useSelector(storageRef, (s) => s.context.saveError)
  const saving = useSelector(storageRef, (s) => s.matches("saving"))
  const canReset = useSelector(storageRef, (s) => s.can({ type: "form.reset" }))
  if (storage === null) return null
  const changed = storage.retention_updated_at === null ? null : formatDateTime(storage.retention_updated_at)
  const applied = storage.retention_applied_at === null ? "Not yet" : formatDateTime(storage.retention_applied_at)
  const field = (name: RetentionField) => {
    const error = fieldErrors[name]
    return (
      <TextField
        label={FIELD_LABELS[name]}
        description={FIELD_DESCRIPTIONS[name]}
        inputMode="numeric"
        autoComplete="off"
        placeholder="No limit"
        value={values[name]}
        onChange={(value) => storageRef.send({ type: "field.changed", field: name, value })}
        isDisabled={saving}
        isInvalid={error !== undefined}
        {...(error === undefined ? {} : { errorMessage: error })}
      />
    )
  }
  return (
    <Card title="Retention" aria-label="Retention" description="How long this workspace keeps its scans. Expired scans are removed once a day.">
      <div className={css.section}>
        <p className={css.sentence}>{retentionText(storage.retention)}</p>
        <dl className={css.meta}>
          <Fact label="Last changed">
            {changed === null ? "Never" : `${changed}${storage.retention_updated_by === null ? "" : ` by ${storage.retention_updated_by}`}`}
          </Fact>
          <Fact label="Last applied">{applied}</Fact>
        </dl>
        <h3 className={css.subheading}>The current setting will free</h3>
        {storage.frees.scans === 0 && storage.frees.bytes === 0 ? (
          <p className={css.sentence}>Nothing for now: no kept scan is beyond the current setting.</p>
        ) : (
          <FigureList figures={storage.frees} />
        )}
        <p className={css.note}>
          Whatever the setting, the latest completed scan of every account, every scan started after it, every scan a
          compliance report uses and every scan with a remediation in progress are kept.
        </p>
        <Form
          validationBehavior="aria"
          aria-label="Retention setting"
          className={css.form}
          onSubmit={(e) => {
            e.preventDefault()
            storageRef.send({ type: "form.submitted" })
          }}
        >
          {saveError === null ? null : <AlertBox tone="error">{saveError}</AlertBox>}
          <div className={css.fields}>
            {field("keep_days")}
            {field("keep_scans")}
          </div>
          <div className={css.actions}>
            <Button variant="secondary" isDisabled={!canReset || saving} onPress={() => storageRef.send({ type: "form.reset" })}>
              Reset
            </Button>
            <Button type="submit" isPending={saving} isDisabled={saving || !canReset}>
              Save retention setting
            </Button>
          </div>
        </Form>
      </div>
    </Card>
  )
}

// ---------------------------------------------------------------------------------------------------
// Accounts

const helper = createColumnHelper<ScanTableFeatures, AccountStorage>()

function SortHeader({ storageRef, column, sort }: { readonly storageRef: StorageRef; readonly column: StorageColumn; readonly sort: StorageSort }) {
  const active = sort.column === column
  return (
    <AriaButton className={css.sortButton} onPress={() => storageRef.send({ type: "sort.changed", column })}>
      {COLUMN_LABELS[column]}
      <ChevronDownIcon size={14} className={!active ? css.sortIconIdle : sort.direction === "asc" ? css.sortIconUp : css.sortIcon} />
    </AriaButton>
  )
}

/** A number and its unit word, right-aligned. */
function Count({ n, unit }: { readonly n: number; readonly unit: "scans" | "results" | "rows" }) {
  const [value, ...words] = countText(n, unit).split(" ")
  return (
    <span className={css.cellEnd}>
      <span>
        {value} <span className={css.unit}>{words.join(" ")}</span>
      </span>
    </span>
  )
}

function AccountName({ account }: { readonly account: AccountStorage }) {
  return (
    <span className={css.cell}>
      <span className={scanCss.identifier}>{account.account_name}</span>
      <span className={scanCss.subtle}>{account.provider.toUpperCase()}</span>
    </span>
  )
}

function Frees({ frees }: { readonly frees: StorageFigures }) {
  return frees.scans === 0 ? (
    <span className={css.unit}>Nothing</span>
  ) : (
    <span className={css.cellEnd}>
      <span>{bytesText(frees.bytes)}</span>
      <span className={css.unit}>{countText(frees.scans, "scans")}</span>
    </span>
  )
}

function AccountsTable({ storageRef, rows, sort }: { readonly storageRef: StorageRef; readonly rows: ReadonlyArray<AccountStorage>; readonly sort: StorageSort }) {
  const columns = useMemo(
    () =>
      helper.columns([
        helper.display({ id: "account", header: () => <SortHeader storageRef={storageRef} column="account" sort={sort} />, cell: ({ row }) => <AccountName account={row.original} /> }),
        helper.display({
          id: "bytes",
          header: () => <SortHeader storageRef={storageRef} column="bytes" sort={sort} />,
          cell: ({ row }) => (
            <span className={css.cellEnd} title={exactBytesText(row.original.used.bytes)}>
              {bytesText(row.original.used.bytes)}
            </span>
          ),
        }),
        helper.display({ id: "scans", header: () => <SortHeader storageRef={storageRef} column="scans" sort={sort} />, cell: ({ row }) => <Count n={row.original.used.scans} unit="scans" /> }),
        helper.display({ id: "results", header: () => <SortHeader storageRef={storageRef} column="results" sort={sort} />, cell: ({ row }) => <Count n={row.original.used.results} unit="results" /> }),
        helper.display({ id: "rows", header: () => <SortHeader storageRef={storageRef} column="rows" sort={sort} />, cell: ({ row }) => <Count n={row.original.used.rows} unit="rows" /> }),
        helper.display({ id: "frees", header: () => <SortHeader storageRef={storageRef} column="frees" sort={sort} />, cell: ({ row }) => <Frees frees={row.original.frees} /> }),
      ]),
    [storageRef, sort],
  )
  return (
    <DataTable
      label="Storage by account"
      columns={columns}
      data={rows}
      rowId={(a) => String(a.account_id)}
      endColumns={["bytes", "scans", "results", "rows", "frees"]}
      sortedBy={sort}
    />
  )
}

/** The order in words: names A to Z, figures largest or smallest first. */
const orderText = (sort: StorageSort): string =>
  sort.column === "account" ? (sort.direction === "asc" ? "A to Z" : "Z to A") : sort.direction === "asc" ? "Smallest first" : "Largest first"

const SORT_CHOICES = STORAGE_COLUMNS.map((column) => ({ id: column, name: COLUMN_LABELS[column] }))

function AccountCards({ storageRef, rows, sort }: { readonly storageRef: StorageRef; readonly rows: ReadonlyArray<AccountStorage>; readonly sort: StorageSort }) {
  return (
    <div className={css.section}>
      <div className={css.mobileSort}>
        <Select
          label="Sort accounts by"
          items={SORT_CHOICES}
          value={sort.column}
          onChange={(key) => {
            if (key !== null && key !== sort.column) storageRef.send({ type: "sort.changed", column: key as StorageColumn })
          }}
        >
          {(choice) => <SelectItem id={choice.id}>{choice.name}</SelectItem>}
        </Select>
        <Button variant="secondary" aria-label={`Order: ${orderText(sort)}. Reverse the order`} onPress={() => storageRef.send({ type: "sort.changed", column: sort.column })}>
          {orderText(sort)}
        </Button>
      </div>
      <ul className={scanCss.cardList} aria-label="Storage by account">
        {rows.map((a) => (
          <li key={a.account_id} className={scanCss.itemCard}>
            <AccountName account={a} />
            <dl className={scanCss.facts}>
              <Fact label={COLUMN_LABELS.bytes}>{bytesText(a.used.bytes)}</Fact>
              <Fact label={COLUMN_LABELS.scans}>{countText(a.used.scans, "scans")}</Fact>
              <Fact label={COLUMN_LABELS.results}>{countText(a.used.results, "results")}</Fact>
              <Fact label={COLUMN_LABELS.rows}>{countText(a.used.rows, "rows")}</Fact>
              <Fact label={COLUMN_LABELS.frees}>{a.frees.scans === 0 ? "Nothing" : figuresText(a.frees)}</Fact>
            </dl>
          </li>
        ))}
      </ul>
    </div>
  )
}

function AccountsCard({ storageRef }: { readonly storageRef: StorageRef }) {
  const accounts = useSelector(storageRef, (s) => s.context.storage?.accounts)
  const sort = useSelector(storageRef, (s) => s.context.sort)
  const shown = useSelector(storageRef, (s) => s.context.shown)
  const canShowMore = useSelector(storageRef, (s) => s.can({ type: "rows.moreRequested" }))
  const isDesktop = useIsDesktop()
  const sorted = useMemo(() => (accounts === undefined ? [] : sortAccounts(accounts, sort)), [accounts, sort])
  const rows = useMemo(() => sorted.slice(0, shown), [sorted, shown])
  if (accounts === undefined) return null
  const total = accounts.length
  return (
    <Card title="Storage by account" aria-label="Storage by account" description={`${total.toLocaleString("en-US")} ${total === 1 ? "account" : "accounts"}, largest first unless you sort otherwise.`}>
      {total === 0 ? (
        <p className={css.note}>No account has kept scans yet.</p>
      ) : isDesktop ? (
        <AccountsTable storageRef={storageRef} rows={rows} sort={sort} />
      ) : (
        <AccountCards storageRef={storageRef} rows={rows} sort={sort} />
      )}
      {total === 0 ? null : (
        <div className={css.tableFooter}>
          <span className={css.note} role="status">{`Showing ${rows.length.toLocaleString("en-US")} of ${total.toLocaleString("en-US")} accounts`}</span>
          {canShowMore ? (
            <Button variant="secondary" onPress={() => storageRef.send({ type: "rows.moreRequested" })}>
              Show more accounts
            </Button>
          ) : null}
        </div>
      )}
    </Card>
  )
}

// ---------------------------------------------------------------------------------------------------

function StorageBody({ storageRef }: { readonly storageRef: StorageRef }) {
  const loading = useSelector(storageRef, (s) => s.matches("loading"))
  const failed = useSelector(storageRef, (s) => s.matches("failed"))
  const error = useSelector(storageRef, (s) => s.context.loadError)
  if (loading) return <LoadingBox label="Loading storage" />
  if (failed) {
    const denied = error === StorageMessages.storagePermissionDenied
    return (
      <ErrorBox
        title={denied ? StorageMessages.storagePermissionDenied : StorageMessages.loadStorageFailed}
        message={denied ? "Ask the workspace owner or an admin." : (error ?? StorageMessages.loadStorageFailed)}
        {...(denied
          ? {}
          : {
              actions: (
                <Button variant="secondary" size="sm" onPress={() => storageRef.send({ type: "storage.retryRequested" })}>
                  Try again
                </Button>
              ),
            })}
      />
    )
  }
  return (
    <>
      <TotalsCard storageRef={storageRef} />
      <RetentionCard storageRef={storageRef} />
      <AccountsCard storageRef={storageRef} />
    </>
  )
}

export function StorageView() {
  const { clock } = useStorageEnvironment()
  const storageRef = useActorRef(useStorageLogic(), clock === undefined ? {} : { clock })
  return (
    <div className={scanCss.page}>
      <div className={scanCss.titles}>
        <h1 className={scanCss.title}>Storage</h1>
        <p className={scanCss.subtitle}>What this workspace&apos;s scan history occupies, and how long it is kept.</p>
      </div>
      <StorageBody storageRef={storageRef} />
    </div>
  )
}
