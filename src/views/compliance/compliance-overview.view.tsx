/**
 * /dashboard/compliance[?account=] (issue 14), rendered from `complianceOverviewMachine`: the account picker and, for
 * the account's latest completed scan, one card per framework of its provider (score, status bar, Open).
 */
import { useActorRef, useSelector } from "@xstate/react"
import { useSearch } from "wouter"
import type { ActorRefFrom } from "xstate"
import type { AccountId } from "../../contracts/ids.ts"
import type { complianceOverviewMachine } from "../../machines/compliance-overview.machine.ts"
import { Button } from "../ui/button.tsx"
import { PlusIcon } from "../ui/icons.tsx"
import { Link } from "../ui/link.tsx"
import { Select, SelectItem } from "../ui/select.tsx"
import { ErrorBox, LoadingBox, formatDateTime } from "../scanning/scan-parts.tsx"
import * as scanning from "../scanning/scanning.css.ts"
import { StatusBar, scoreText } from "./compliance-parts.tsx"
import { useComplianceActorOptions, useComplianceOverviewLogic } from "./compliance-logic.ts"
import * as css from "./compliance.css.ts"

type OverviewRef = ActorRefFrom<typeof complianceOverviewMachine>

/** The dashboard with its add-account wizard open (dashboard-screen.tsx reads `?add=account`). */
export const ADD_ACCOUNT_PATH = "/dashboard?add=account"

/** `?account=` when it is a positive integer. */
export const accountFromSearch = (search: string): AccountId | null => {
  const raw = new URLSearchParams(search).get("account")
  const n = raw === null ? NaN : Number(raw)
  return Number.isInteger(n) && n > 0 ? (n as AccountId) : null
}

function AccountPicker({ overviewRef }: { readonly overviewRef: OverviewRef }) {
  const accounts = useSelector(overviewRef, (s) => s.context.accounts)
  const accountId = useSelector(overviewRef, (s) => s.context.accountId)
  return (
    <Select
      label="Account"
      className={css.picker}
      selectedKey={accountId === null ? null : String(accountId)}
      onSelectionChange={(key) => overviewRef.send({ type: "account.selected", accountId: Number(key) as AccountId })}
    >
      {accounts.map((a) => (
        <SelectItem key={a.account_id} id={String(a.account_id)} textValue={`${a.account_name} (${a.cloud_account_id})`}>
          {`${a.account_name} · ${a.provider.toUpperCase()} · ${a.cloud_account_id}`}
        </SelectItem>
      ))}
    </Select>
  )
}

function Frameworks({ overviewRef }: { readonly overviewRef: OverviewRef }) {
  const summary = useSelector(overviewRef, (s) => s.context.summary)
  if (summary === null) return null
  return (
    <section aria-labelledby="frameworks-heading" className={scanning.fieldStack}>
      <div className={scanning.titles}>
        <h2 id="frameworks-heading" className={scanning.sectionTitle}>
          Frameworks
        </h2>
        <p className={scanning.muted}>{`Scan #${summary.scan.id} of ${summary.scan.account_name}, completed ${formatDateTime(summary.scan.scan_end)}`}</p>
      </div>
      <ul className={css.frameworkGrid}>
        {summary.frameworks.map(({ framework, counts }) => (
          <li key={framework.id} className={css.frameworkCard}>
            <h3 className={css.frameworkName}>{`${framework.name} v${framework.version}`}</h3>
            <div className={scanning.titleRow}>
              <span className={css.score}>{scoreText(counts.score)}</span>
              <span className={scanning.muted}>{`score · ${counts.total} requirements`}</span>
            </div>
            <StatusBar counts={counts} />
            <div>
              <Button
                variant="secondary"
                size="sm"
                aria-label={`Open ${framework.name} v${framework.version}`}
                onPress={() => overviewRef.send({ type: "framework.opened", frameworkId: framework.id })}
              >
                Open
              </Button>
            </div>
          </li>
        ))}
      </ul>
    </section>
  )
}

export function ComplianceOverviewView() {
  const logic = useComplianceOverviewLogic()
  const options = useComplianceActorOptions()
  const search = useSearch()
  const overviewRef = useActorRef(logic, { ...options, input: { accountId: accountFromSearch(search) } })
  const state = useSelector(overviewRef, (s) =>
    s.matches("loading") ? "loading"
    : s.matches("failed") ? "failed"
    : s.matches({ ready: "empty" }) ? "empty"
    : s.matches({ ready: "noScan" }) ? "noScan"
    : s.matches({ ready: "loadingSummary" }) ? "loadingSummary"
    : s.matches({ ready: "summaryFailed" }) ? "summaryFailed"
    : "ready")
  const error = useSelector(overviewRef, (s) => s.context.error)
  const retry = (
    <Button variant="secondary" size="sm" onPress={() => overviewRef.send({ type: "retry.requested" })}>
      Try again
    </Button>
  )
  return (
    <div className={scanning.page}>
      <div className={scanning.pageHeader}>
        <div className={scanning.titles}>
          <h1 className={scanning.title}>Compliance</h1>
          <p className={scanning.subtitle}>Each framework's requirements, evaluated on the account's latest completed scan.</p>
        </div>
      </div>
      {state === "loading" ? (
        <LoadingBox label="Loading accounts" />
      ) : state === "failed" ? (
        <ErrorBox title="Compliance could not be loaded" message={error ?? ""} actions={retry} />
      ) : state === "empty" ? (
        <div className={scanning.stateBox}>
          <p className={scanning.stateTitle}>No accounts yet</p>
          <p className={scanning.muted}>Connect a cloud account and scan it to see its compliance.</p>
          <Link href={ADD_ACCOUNT_PATH} variant="button">
            <PlusIcon size={16} />
            Add account
          </Link>
        </div>
      ) : (
        <>
          <div className={css.toolbar}>
            <AccountPicker overviewRef={overviewRef} />
          </div>
          {state === "noScan" ? (
            <div className={scanning.stateBox}>
              <p className={scanning.stateTitle}>No completed scan</p>
              <p className={scanning.muted}>Compliance is evaluated on completed scans. Scan this account first.</p>
            </div>
          ) : state === "loadingSummary" ? (
            <LoadingBox label="Loading frameworks" />
          ) : state === "summaryFailed" ? (
            <ErrorBox title="Frameworks could not be loaded" message={error ?? ""} actions={retry} />
          ) : (
            <Frameworks overviewRef={overviewRef} />
          )}
        </>
      )}
    </div>
  )
}
