/**
 * /dashboard (scanning §2 "Dashboard"), rendered from `dashboardAccountsMachine`: a card per connected account across
 * the enabled providers (badge: the issues count when above 0, 'No Issues' after a clean completed scan, 'Failed' after
 * a failed one), 'Refresh', 'Add more providers' / 'Connect your cloud providers', and the three dialogs (add-account
 * wizard, launch scan, delete account). `?section=accounts` (the breadcrumb's 'Accounts') brings the accounts section
 * into view. Loaded as its own chunk.
 */
import { PostureSection } from "./posture-section.tsx"
import { useEffect, useRef } from "react"
import { useActorRef, useSelector } from "@xstate/react"
import { Button as AriaButton } from "react-aria-components"
import { useSearchParams } from "wouter"
import type { ActorRefFrom } from "xstate"
import { accountBadge, type Account } from "../../contracts/accounts.ts"
import { ScanningMessages, deleteAccountConfirmMessage } from "../../contracts/messages.ts"
import { unitLabel } from "../../contracts/outcomes.ts"
import { OrganizationMessages } from "../../contracts/organizations.ts"
import { canLaunchScanFor, dashboardAccounts, type dashboardAccountsMachine } from "../../machines/dashboard-accounts.machine.ts"
import { organizationPath } from "../../machines/organization-effects.ts"
import { Link } from "../ui/link.tsx"
import { AlertBox } from "../ui/alert-box.tsx"
import { Badge } from "../ui/badge.tsx"
import { Button } from "../ui/button.tsx"
import { Card } from "../ui/card.tsx"
import { Dialog, DialogFooter } from "../ui/dialog.tsx"
import { AddAccountWizard, type AddAccountRef } from "./add-account-wizard.tsx"
import { LaunchScanDialog, type LaunchScanRef } from "../scans/launch-scan-dialog.tsx"
import { CloudIcon, PlayIcon, PlusIcon, RefreshIcon, TrashIcon } from "../ui/icons.tsx"
import { ProviderIcon } from "../scanning/scan-icons.tsx"
import { useDashboardAccountsLogic, useScanActorOptions } from "../scanning/scan-logic.ts"
import { ErrorBox, Fact, formatDateTime } from "../scanning/scan-parts.tsx"
import * as shared from "../scanning/scanning.css.ts"
import * as css from "./dashboard.css.ts"

type DashboardRef = ActorRefFrom<typeof dashboardAccountsMachine>

/** Scanning §2 card badge. */
export function AccountBadge({ account }: { readonly account: Pick<Account, "failed_findings" | "status"> }) {
  const badge = accountBadge(account)
  switch (badge.kind) {
    case "issues":
      // The issues count (scanning §2), with its unit: failed checks of the last scan (docs/outcomes.md).
      return <Badge tone="danger">{unitLabel(badge.count, "failedChecks")}</Badge>
    case "no-issues":
      return <Badge tone="success">{ScanningMessages.noIssuesBadge}</Badge>
    case "failed":
      return <Badge tone="warning">{ScanningMessages.failedBadge}</Badge>
    default:
      return null
  }
}

/**
 * Beyond the spec (issue 31): an organisation's card says so and links to its organisation page; a member's names its
 * unit and links to its organisation; a retired member shows a Retired badge, and its footer says it is no longer
 * scanned where 'Launch scan' would be.
 */
function OrganizationLine({ account }: { readonly account: Account }) {
  if (account.is_organization === true) {
    return (
      <div className={css.orgLine}>
        <Badge tone="accent">Organization</Badge>
        <Link href={organizationPath(account.id)} aria-label={`Members and fleet of ${account.account_name}`}>
          Members and fleet
        </Link>
      </div>
    )
  }
  const organizationId = account.organization_account_id ?? null
  if (organizationId === null) return null
  return (
    <div className={css.orgLine}>
      <Badge tone="neutral">Member</Badge>
      {account.retired_at === null || account.retired_at === undefined ? null : <Badge tone="warning">Retired</Badge>}
      <Link href={organizationPath(organizationId)} aria-label={`${account.org_unit_path ?? "Organization"}, the organization of ${account.account_name}`}>
        {account.org_unit_path ?? "Organization"}
      </Link>
    </div>
  )
}

function AccountCard({ dashboardRef, account }: { readonly dashboardRef: DashboardRef; readonly account: Account }) {
  const accountId = account.id
  // A member retired from its organisation is no longer scanned (issue 31): its card says so instead of offering a scan.
  const canLaunch = canLaunchScanFor(account)
  return (
    <article className={css.accountCard} aria-label={account.account_name}>
      <AriaButton
        className={css.cardOpen}
        onPress={() => dashboardRef.send({ type: "account.selected", accountId })}
        onHoverStart={() => dashboardRef.send({ type: "account.hovered", accountId })}
        onFocus={() => dashboardRef.send({ type: "account.hovered", accountId })}
      >
        <ProviderIcon name={account.cloud_provider_name} decorative />
        <span className={css.cardTitles}>
          <span className={css.cardName}>{account.account_name}</span>
          <span className={shared.muted}>
            {account.cloud_provider_name}
            {account.account_id === null ? "" : ` · ${account.account_id}`}
          </span>
        </span>
        <AccountBadge account={account} />
      </AriaButton>
      <OrganizationLine account={account} />
      <dl className={shared.facts}>
        <Fact label="Last scan">{account.last_scan_date === null ? ScanningMessages.noScansYet : formatDateTime(account.last_scan_date)}</Fact>
        <Fact label="Total scans">{account.total_scans}</Fact>
      </dl>
      <div className={css.cardFooter}>
        {canLaunch ? (
          <Button variant="secondary" size="sm" onPress={() => dashboardRef.send({ type: "launchScan.requested", accountId })}>
            <PlayIcon size={14} />
            Launch scan
          </Button>
        ) : (
          <span className={shared.muted}>{OrganizationMessages.memberRetiredLine}</span>
        )}
        <Button
          variant="ghost"
          size="icon"
          aria-label={`Delete ${account.account_name}`}
          onPress={() => dashboardRef.send({ type: "deleteAccount.requested", accountId })}
        >
          <TrashIcon size={16} />
        </Button>
      </div>
    </article>
  )
}

function DeleteDialog({ dashboardRef }: { readonly dashboardRef: DashboardRef }) {
  const target = useSelector(dashboardRef, (s) => s.context.deleteTarget)
  const error = useSelector(dashboardRef, (s) => s.context.deleteError)
  const deleting = useSelector(dashboardRef, (s) => s.matches({ dialog: "deleting" }))
  if (target === null) return null
  const cancel = () => dashboardRef.send({ type: "delete.cancelled" })
  return (
    <Dialog
      title="Delete account"
      role="alertdialog"
      size="sm"
      isOpen
      onOpenChange={(open) => {
        if (!open && !deleting) cancel()
      }}
      isDismissable={!deleting}
      showCloseButton={!deleting}
    >
      <p className={shared.muted}>{deleteAccountConfirmMessage(target.cloud_provider_name, target.account_name)}</p>
      {error === null ? null : <AlertBox tone="error">{error}</AlertBox>}
      <DialogFooter>
        <Button variant="secondary" onPress={cancel} isDisabled={deleting}>
          Cancel
        </Button>
        <Button variant="danger" onPress={() => dashboardRef.send({ type: "delete.confirmed" })} isPending={deleting}>
          Delete account
        </Button>
      </DialogFooter>
    </Dialog>
  )
}

function Dialogs({ dashboardRef }: { readonly dashboardRef: DashboardRef }) {
  const wizard = useSelector(dashboardRef, (s) => s.children.addAccount as AddAccountRef | undefined)
  const launch = useSelector(dashboardRef, (s) => s.children.launchScan as LaunchScanRef | undefined)
  return (
    <>
      {wizard === undefined ? null : <AddAccountWizard wizardRef={wizard} />}
      {launch === undefined ? null : <LaunchScanDialog dialogRef={launch} />}
      <DeleteDialog dashboardRef={dashboardRef} />
    </>
  )
}

function AccountsSection({ dashboardRef }: { readonly dashboardRef: DashboardRef }) {
  const accounts = useSelector(dashboardRef, (s) => dashboardAccounts(s.context))
  const providers = useSelector(dashboardRef, (s) => s.context.providers)
  const loading = useSelector(dashboardRef, (s) => s.matches({ list: "loading" }))
  const failed = useSelector(dashboardRef, (s) => s.matches({ list: "failed" }))
  const error = useSelector(dashboardRef, (s) => s.context.error)
  const addAccount = () => dashboardRef.send({ type: "addAccount.requested" })

  if (loading) {
    return (
      <ul className={css.grid} aria-busy="true" aria-label="Loading accounts">
        {[0, 1, 2].map((i) => (
          <li key={i} className={css.skeletonCard} aria-hidden="true" />
        ))}
      </ul>
    )
  }
  if (failed) {
    return (
      <ErrorBox
        title={ScanningMessages.dashboardFallback}
        message={error ?? ScanningMessages.dashboardFallback}
        actions={
          <Button variant="secondary" size="sm" onPress={() => dashboardRef.send({ type: "dashboard.refreshRequested" })}>
            Refresh
          </Button>
        }
      />
    )
  }
  if (accounts.length === 0) {
    return (
      <Card>
        <div className={css.connectCard}>
          <CloudIcon size={40} className={shared.stateIcon} />
          <h3 className={shared.stateTitle}>Connect your cloud providers</h3>
          <p className={shared.muted}>Add a cloud account to run security scans and review its findings.</p>
          <div className={css.providerRow} aria-hidden="true">
            {providers.map((p) => (
              <ProviderIcon key={p.id} name={p.name} size={32} />
            ))}
          </div>
          <Button onPress={addAccount}>
            <PlusIcon size={16} />
            Add account
          </Button>
        </div>
      </Card>
    )
  }
  return (
    <ul className={css.grid}>
      {accounts.map((a) => (
        <li key={a.id}>
          <AccountCard dashboardRef={dashboardRef} account={a} />
        </li>
      ))}
      <li>
        <div className={css.promoCard}>
          <PlusIcon size={28} className={shared.stateIcon} />
          <h3 className={shared.sectionTitle}>Add more providers</h3>
          <p className={shared.muted}>Connect another account to scan it too.</p>
          <Button variant="secondary" size="sm" onPress={addAccount}>
            Add account
          </Button>
        </div>
      </li>
    </ul>
  )
}

export function DashboardScreen() {
  const logic = useDashboardAccountsLogic()
  const dashboardRef = useActorRef(logic, useScanActorOptions())
  const refreshing = useSelector(dashboardRef, (s) => s.matches({ list: { loaded: "refreshing" } }))
  const [params, setParams] = useSearchParams()
  const section = params.get("section")
  const accountsHeading = useRef<HTMLHeadingElement>(null)

  // `/dashboard?add=account` (the empty compliance page's 'Add account') opens the wizard once; the address drops the
  // request so that a reload does not open it again.
  const addRequested = params.get("add") === "account"
  useEffect(() => {
    if (!addRequested) return
    dashboardRef.send({ type: "addAccount.requested" })
    setParams((p) => {
      p.delete("add")
      return p
    }, { replace: true })
  }, [addRequested, dashboardRef, setParams])

  // The breadcrumb's 'Accounts' lands on /dashboard?section=accounts: bring the section into view and focus it.
  useEffect(() => {
    if (section !== "accounts") return
    const heading = accountsHeading.current
    heading?.scrollIntoView?.({ block: "start" })
    heading?.focus({ preventScroll: true })
  }, [section])

  return (
    <div className={shared.page}>
      <div className={shared.pageHeader}>
        <div className={shared.titles}>
          <h1 className={shared.title}>Dashboard</h1>
          <p className={shared.subtitle}>Your connected cloud provider accounts.</p>
        </div>
        <div className={shared.actions}>
          <Button variant="secondary" onPress={() => dashboardRef.send({ type: "dashboard.refreshRequested" })} isPending={refreshing}>
            {refreshing ? null : <RefreshIcon size={16} />}
            Refresh
          </Button>
          <Button onPress={() => dashboardRef.send({ type: "addAccount.requested" })}>
            <PlusIcon size={16} />
            Add account
          </Button>
        </div>
      </div>
      <section id="accounts" aria-labelledby="accounts-heading" className={shared.page}>
        <h2 id="accounts-heading" ref={accountsHeading} tabIndex={-1} className={shared.sectionTitle}>
          Cloud accounts
        </h2>
        <AccountsSection dashboardRef={dashboardRef} />
      </section>
      <PostureSection />
      <Dialogs dashboardRef={dashboardRef} />
    </div>
  )
}
