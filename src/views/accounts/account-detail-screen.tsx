/**
 * /dashboard/accounts/{accountId} (scanning §2 "Account details"), rendered from `accountDetailsMachine`: header
 * (provider icon and name, account name, Refresh, 'Launch scan', 'Delete account'), information card, latest-scan
 * card, credentials card (the provider's own labelled identifiers) with the audited reveal, the delete
 * confirmation and the launch dialog. A failed deletion shows 'Failed to delete account' above the page. Loaded as
 * its own chunk. A member retired from its organisation (issue 31) offers no scan: a Retired badge under its name and
 * "Retired from its organization: no longer scanned" where 'Launch scan' (and 'Run first scan') would be.
 */
import { useActorRef, useSelector } from "@xstate/react"
import { useParams } from "wouter"
import type { ActorRefFrom } from "xstate"
import { credentialFacts, passedChecks, SECRET_MASK } from "../../contracts/accounts.ts"
import type { AccountId } from "../../contracts/ids.ts"
import { deleteAccountConfirmMessage, issuesFoundMessage, ScanningMessages } from "../../contracts/messages.ts"
import { OrganizationMessages } from "../../contracts/organizations.ts"
import { latestScan, selectRetired, type accountDetailsMachine } from "../../machines/account-details.machine.ts"
import { scanPath } from "../../machines/scan-list.machine.ts"
import { AlertBox } from "../ui/alert-box.tsx"
import { Badge } from "../ui/badge.tsx"
import { Button } from "../ui/button.tsx"
import { Card } from "../ui/card.tsx"
import { Dialog, DialogFooter } from "../ui/dialog.tsx"
import { EyeIcon, EyeOffIcon, PlayIcon, RefreshIcon, TrashIcon } from "../ui/icons.tsx"
import { Link } from "../ui/link.tsx"
import { LaunchScanDialog, type LaunchScanRef } from "../scans/launch-scan-dialog.tsx"
import { ProviderIcon } from "../scanning/scan-icons.tsx"
import { useAccountDetailsLogic, useScanActorOptions } from "../scanning/scan-logic.ts"
import { ErrorBox, Fact, formatDateTime, LoadingBox, RunStatusBadge } from "../scanning/scan-parts.tsx"
import * as shared from "../scanning/scanning.css.ts"
import * as css from "./account-detail.css.ts"
import { AccountPosture } from "./account-posture.tsx"
import { ApprovalSettingCard } from "../approvals/approval-setting-card.tsx"

type DetailsRef = ActorRefFrom<typeof accountDetailsMachine>

function InformationCard({ detailsRef }: { readonly detailsRef: DetailsRef }) {
  const detail = useSelector(detailsRef, (s) => s.context.detail)
  if (detail === null) return null
  const latest = latestScan(detail)
  return (
    <Card title="Account information" level={2} aria-label="Account information">
      <dl className={shared.facts}>
        <Fact label="Account Name">{detail.account_name}</Fact>
        <Fact label="Created At">{formatDateTime(detail.created_at)}</Fact>
        <Fact label="Last Scan Date">{latest === null ? ScanningMessages.noScansYet : formatDateTime(latest.scan_start)}</Fact>
        <Fact label="Security Status">
          {latest === null
            ? ScanningMessages.noScansYet
            : latest.failed_findings > 0
              ? issuesFoundMessage(latest.failed_findings)
              : ScanningMessages.noIssuesDetected}
        </Fact>
      </dl>
    </Card>
  )
}

function LatestScanCard({ detailsRef }: { readonly detailsRef: DetailsRef }) {
  const detail = useSelector(detailsRef, (s) => s.context.detail)
  const retired = useSelector(detailsRef, selectRetired)
  if (detail === null) return null
  const scan = latestScan(detail)
  if (scan === null) {
    return (
      <Card title="Latest scan" level={2} aria-label="Latest scan">
        <div className={shared.stateBox}>
          <p>{ScanningMessages.noScansForAccount}</p>
          {retired ? (
            <p className={shared.muted}>{OrganizationMessages.memberRetiredLine}</p>
          ) : (
            <Button onPress={() => detailsRef.send({ type: "launchScan.requested" })}>
              <PlayIcon size={16} />
              Run first scan
            </Button>
          )}
        </div>
      </Card>
    )
  }
  return (
    <Card
      title="Latest scan"
      level={2}
      aria-label="Latest scan"
      actions={<RunStatusBadge status={scan.status} inProgressLabel="In progress" />}
    >
      <dl className={shared.facts}>
        <Fact label="Started">{formatDateTime(scan.scan_start)}</Fact>
        <Fact label="Completed">{formatDateTime(scan.scan_end)}</Fact>
        <Fact label="Scan ID">{`#${scan.id}`}</Fact>
      </dl>
      <dl className={shared.stats}>
        <div className={shared.stat}>
          <dt className={shared.factLabel}>Passed Checks</dt>
          <dd className={shared.statValue({ tone: "success" })}>{passedChecks(scan)}</dd>
        </div>
        <div className={shared.stat}>
          <dt className={shared.factLabel}>Total Findings</dt>
          <dd className={shared.statValue()}>{scan.findings_count}</dd>
        </div>
        <div className={shared.stat}>
          <dt className={shared.factLabel}>Failed Checks</dt>
          <dd className={shared.statValue({ tone: "danger" })}>{scan.failed_findings}</dd>
        </div>
        <div className={shared.stat}>
          <dt className={shared.factLabel}>Passed with exceptions</dt>
          <dd className={shared.statValue()}>{scan.muted_findings}</dd>
        </div>
        <div className={shared.stat}>
          <dt className={shared.factLabel}>Not evaluated</dt>
          <dd className={shared.statValue()}>{scan.not_evaluated_findings}</dd>
        </div>
      </dl>
      <div>
        <Link href={scanPath(scan.id)} variant="button">
          View scan details
        </Link>
      </div>
    </Card>
  )
}

function CredentialsCard({ detailsRef }: { readonly detailsRef: DetailsRef }) {
  const detail = useSelector(detailsRef, (s) => s.context.detail)
  const secret = useSelector(detailsRef, (s) => s.context.secret)
  const revealing = useSelector(detailsRef, (s) => s.matches({ secret: "revealing" }))
  const revealed = useSelector(detailsRef, (s) => s.matches({ secret: "revealed" }))
  if (detail === null) return null
  const creds = detail.credential_data
  // AWS: account id and access key id; GCP: project and service account; Azure: tenant, client and subscription ids.
  const { facts, secretLabel } = credentialFacts(detail)
  const secretName = secretLabel.toLowerCase()
  return (
    <Card title="Credentials" level={2} aria-label="Credentials">
      <dl className={shared.facts}>
        {facts.map((f) => (
          <Fact key={f.label} label={f.label}>
            <span className={shared.mono}>{f.value ?? "N/A"}</span>
          </Fact>
        ))}
        <Fact label={secretLabel}>
          <span className={css.secretRow}>
            <span className={shared.mono} aria-live="polite">
              {creds.secret_key === null ? "N/A" : revealed && secret !== null ? secret : SECRET_MASK}
            </span>
            {creds.secret_key === null ? null : (
              <Button
                variant="ghost"
                size="icon"
                aria-label={revealed ? `Hide ${secretName}` : `Reveal ${secretName}`}
                aria-pressed={revealed}
                isPending={revealing}
                onPress={() => detailsRef.send({ type: "secret.revealToggled" })}
              >
                {revealing ? null : revealed ? <EyeOffIcon size={16} /> : <EyeIcon size={16} />}
              </Button>
            )}
          </span>
        </Fact>
      </dl>
    </Card>
  )
}

function DeleteDialog({ detailsRef }: { readonly detailsRef: DetailsRef }) {
  const open = useSelector(detailsRef, (s) => s.matches({ dialog: "confirmingDelete" }) || s.matches({ dialog: "deleting" }))
  const deleting = useSelector(detailsRef, (s) => s.matches({ dialog: "deleting" }))
  const detail = useSelector(detailsRef, (s) => s.context.detail)
  if (!open || detail === null) return null
  const cancel = () => detailsRef.send({ type: "delete.cancelled" })
  return (
    <Dialog
      title="Delete account"
      role="alertdialog"
      size="sm"
      isOpen
      onOpenChange={(isOpen) => {
        if (!isOpen && !deleting) cancel()
      }}
      isDismissable={!deleting}
      showCloseButton={!deleting}
    >
      <p className={shared.muted}>{deleteAccountConfirmMessage(detail.cloud_provider_name, detail.account_name)}</p>
      <DialogFooter>
        <Button variant="secondary" onPress={cancel} isDisabled={deleting}>
          Cancel
        </Button>
        <Button variant="danger" onPress={() => detailsRef.send({ type: "delete.confirmed" })} isPending={deleting}>
          Delete account
        </Button>
      </DialogFooter>
    </Dialog>
  )
}

export function AccountDetailScreen() {
  const { accountId = "" } = useParams<{ accountId: string }>()
  const id = Number(accountId)
  if (!Number.isInteger(id) || id <= 0) {
    return <ErrorBox title={ScanningMessages.loadAccountDetailsFailed} message={ScanningMessages.loadAccountDetailsFailed} />
  }
  return <AccountDetails key={id} accountId={id as AccountId} />
}

function AccountDetails({ accountId }: { readonly accountId: AccountId }) {
  const logic = useAccountDetailsLogic()
  const options = useScanActorOptions()
  const detailsRef = useActorRef(logic, { ...options, input: { accountId } })
  const detail = useSelector(detailsRef, (s) => s.context.detail)
  const loading = useSelector(detailsRef, (s) => s.matches({ detail: "loading" }))
  const failed = useSelector(detailsRef, (s) => s.matches({ detail: "failed" }))
  const loadError = useSelector(detailsRef, (s) => s.context.loadError)
  const deleteError = useSelector(detailsRef, (s) => s.context.deleteError)
  const refreshing = useSelector(detailsRef, (s) => s.matches({ detail: { ready: "refreshing" } }))
  const launch = useSelector(detailsRef, (s) => s.children.launchScan as LaunchScanRef | undefined)
  const retired = useSelector(detailsRef, selectRetired)

  return (
    <div className={shared.page}>
      {deleteError === null ? null : <AlertBox tone="error">{deleteError}</AlertBox>}
      {loading ? (
        <LoadingBox label="Loading account details" />
      ) : failed || detail === null ? (
        <ErrorBox
          title={ScanningMessages.loadAccountDetailsFailed}
          message={loadError ?? ScanningMessages.loadAccountDetailsFailed}
          actions={
            <Button variant="secondary" size="sm" onPress={() => detailsRef.send({ type: "detail.retryRequested" })}>
              Try again
            </Button>
          }
        />
      ) : (
        <>
          <div className={shared.pageHeader}>
            <div className={shared.titleRow}>
              <ProviderIcon name={detail.cloud_provider_name} size={48} />
              <div className={shared.titles}>
                <span className={shared.muted}>{detail.cloud_provider_name}</span>
                <h1 className={shared.title}>{detail.account_name}</h1>
                {retired ? (
                  <span className={css.retiredLine}>
                    <Badge tone="warning">Retired</Badge>
                    <span className={shared.muted}>{OrganizationMessages.memberRetiredLine}</span>
                  </span>
                ) : null}
              </div>
            </div>
            <div className={shared.actions}>
              <Button variant="secondary" onPress={() => detailsRef.send({ type: "detail.refreshRequested" })} isPending={refreshing}>
                {refreshing ? null : <RefreshIcon size={16} />}
                Refresh
              </Button>
              {retired ? null : (
                <Button onPress={() => detailsRef.send({ type: "launchScan.requested" })}>
                  <PlayIcon size={16} />
                  Launch scan
                </Button>
              )}
              <Button variant="danger" onPress={() => detailsRef.send({ type: "deleteAccount.requested" })}>
                <TrashIcon size={16} />
                Delete account
              </Button>
            </div>
          </div>
          <div className={css.cards}>
            <InformationCard detailsRef={detailsRef} />
            <LatestScanCard detailsRef={detailsRef} />
            <CredentialsCard detailsRef={detailsRef} />
            <AccountPosture key={retired ? "retired" : "scanned"} accountId={accountId} accountName={detail.account_name} retired={retired} />
            <ApprovalSettingCard accountId={accountId} />
          </div>
        </>
      )}
      <DeleteDialog detailsRef={detailsRef} />
      {launch === undefined ? null : <LaunchScanDialog dialogRef={launch} />}
    </div>
  )
}
