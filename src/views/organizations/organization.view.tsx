/**
 * /dashboard/accounts/{accountId}/organization (beyond the spec, issue 31 "Organisations and fleets"), rendered from
 * `organizationMachine`; lazy-loaded as its own chunk, below the organisation's account page (the account routes'
 * permission rule applies).
 *
 * - Header: the organisation's name and kind, 'Sync now' and 'Scan organization' (disabled with the launch tooltip
 *   without scan_service).
 * - 'Members': member accounts in total, included, retired and unreachable, each with its unit; the last and next sync.
 * - The last sync run from here: what changed (added, retired, reactivated, moved, renamed, unreachable), by member.
 * - 'Units and members': the units tree with each member's state, unit path, reachability or last error, a Retired
 *   badge and a link to its account page; 'Change selection' turns units and members into checkboxes (Save / Cancel).
 * - 'Fleet scan': the latest fleet scan's members with their progress (read again every 10 s while it runs).
 * - 'Sync history': the recent syncs, or every sync on request.
 */
import { useMemo } from "react"
import { useActorRef, useSelector } from "@xstate/react"
import { useParams } from "wouter"
import { fromPromise, type ActorRefFrom } from "xstate"
import type { AccountId } from "../../contracts/ids.ts"
import { ScanningMessages } from "../../contracts/messages.ts"
import {
  OrganizationMessages,
  type FleetScan,
  type MemberChange,
  type MemberSelection,
  type OrganizationDetail,
  type OrganizationMember,
  type OrganizationSync,
  type OrganizationUnit,
  type SyncChanges,
} from "../../contracts/organizations.ts"
import { unitLabel } from "../../contracts/outcomes.ts"
import { latestFleetScan } from "../../machines/organization-effects.ts"
import { fleetFindingsPath, fleetPath } from "../../machines/fleet-effects.ts"
import { organizationMachine, type FleetState } from "../../machines/organization.machine.ts"
import { canToggleMember, canToggleUnit, isMemberSelected, isUnitSelected } from "../../machines/organization-selection.ts"
import { accountPath } from "../../machines/dashboard-accounts.machine.ts"
import { scanPath } from "../../machines/scan-list.machine.ts"
import { AlertBox } from "../ui/alert-box.tsx"
import { AccountGroupMessages } from "../../contracts/account-groups.ts"
import { Badge } from "../ui/badge.tsx"
import { Button } from "../ui/button.tsx"
import { Card } from "../ui/card.tsx"
import { Checkbox } from "../ui/checkbox.tsx"
import { PlayIcon, RefreshIcon } from "../ui/icons.tsx"
import { Link } from "../ui/link.tsx"
import { effectActor, useNotifyAction } from "../screen-actors.ts"
import { ProviderIcon } from "../scanning/scan-icons.tsx"
import { useScanEnvironment } from "../scanning/scan-effects-context.tsx"
import { CrumbTrail, ErrorBox, Fact, formatDateTime, GatedButton, LoadingBox, RunStatusBadge, ServicesProgress } from "../scanning/scan-parts.tsx"
import { organizationPageCrumbs, type Crumb } from "../../machines/breadcrumbs.ts"
import * as shared from "../scanning/scanning.css.ts"
import { useOrganizationEnvironment } from "./organization-effects-context.tsx"
import * as css from "./organization.css.ts"

type OrganizationRef = ActorRefFrom<typeof organizationMachine>

const PROVIDER_KINDS: Readonly<Record<string, string>> = {
  aws: "AWS Organization",
  gcp: "GCP organization",
  azure: "Azure management group",
}

function useOrganizationLogic() {
  const organizations = useOrganizationEnvironment().effects
  const scans = useScanEnvironment().effects
  const notify = useNotifyAction()
  return useMemo(
    () =>
      organizationMachine.provide({
        actors: {
          loadOrganization: effectActor(organizations.loadOrganization),
          saveSelection: effectActor(organizations.saveSelection),
          syncNow: effectActor(organizations.syncNow),
          listSyncs: effectActor(organizations.listSyncs),
          getFleetScan: effectActor(organizations.getFleetScan),
          startScan: effectActor(scans.startScan),
          loadFleet: fromPromise<FleetState, { readonly id: AccountId }>(async ({ input, signal }) => {
            const [viewer, fleetScan] = await Promise.all([scans.loadViewer(undefined, signal), latestFleetScan(organizations, input.id, signal)])
            return { viewer, fleetScan }
          }),
        },
        actions: { notify },
      }),
    [organizations, scans, notify],
  )
}

// ---------------------------------------------------------------------------------------------------
// Summary and sync result

function Summary({ organization }: { readonly organization: OrganizationDetail }) {
  const figures: ReadonlyArray<readonly [string, string]> = [
    ["Members", unitLabel(organization.members_total, "members")],
    ["Included", unitLabel(organization.members_included, "members")],
    ["Retired", unitLabel(organization.members_retired, "members")],
    ["Unreachable", unitLabel(organization.members_unreachable, "members")],
  ]
  return (
    <Card title="Members" level={2} aria-label="Members">
      <dl className={css.figures}>
        {figures.map(([label, value]) => (
          <div key={label} className={css.figure}>
            <dt className={css.figureLabel}>{label}</dt>
            <dd className={css.figureValue}>{value}</dd>
          </div>
        ))}
      </dl>
      {organization.limited_view === true ? (
        <dl className={shared.facts}>
          <Fact label="Organization ID">{organization.organization_id}</Fact>
        </dl>
      ) : (
      <dl className={css.settingsFacts}>
        <Fact label="Organization ID">{organization.organization_id}</Fact>
        <Fact label="Root">{organization.root_name === "" ? organization.root_id : `${organization.root_name} (${organization.root_id})`}</Fact>
        {organization.member_role_name === null ? null : <Fact label="Member role">{organization.member_role_name}</Fact>}
        <Fact label="Last sync">{organization.last_sync_at === null ? "Never" : formatDateTime(organization.last_sync_at)}</Fact>
        <Fact label="Next sync">{organization.next_sync_at === null ? "Not scheduled" : formatDateTime(organization.next_sync_at)}</Fact>
      </dl>
      )}
    </Card>
  )
}

const CHANGE_LABELS: ReadonlyArray<readonly [keyof SyncChanges, string]> = [
  ["added", "Added"],
  ["retired", "Retired"],
  ["reactivated", "Reactivated"],
  ["moved", "Moved"],
  ["renamed", "Renamed"],
  ["unreachable", "Unreachable"],
]

const changeCount = (changes: SyncChanges): number => CHANGE_LABELS.reduce((n, [key]) => n + changes[key].length, 0)

/** "Added 2 member accounts, retired 1 member account" (or "No changes"). */
const changesText = (changes: SyncChanges): string => {
  const parts = CHANGE_LABELS.filter(([key]) => changes[key].length > 0).map(([key, label]) => `${label} ${unitLabel(changes[key].length, "members")}`)
  return parts.length === 0 ? "No changes" : parts.join(", ")
}

const changeLine = (key: keyof SyncChanges, c: MemberChange): string => {
  const where = key === "moved" && c.detail !== undefined ? `${c.detail} → ${c.unit_path}` : c.unit_path
  const why = key === "unreachable" && c.detail !== undefined ? `: ${c.detail}` : ""
  return `${c.name} (${c.cloud_account_id}), ${where}${why}`
}

function SyncResult({ orgRef }: { readonly orgRef: OrganizationRef }) {
  const sync = useSelector(orgRef, (s) => s.context.lastSync)
  const error = useSelector(orgRef, (s) => s.context.syncError)
  if (error !== null) return <AlertBox tone="error">{error}</AlertBox>
  if (sync === null) return null
  return (
    <Card title="Sync result" level={2} aria-label="Sync result" description={`${changesText(sync.changes)} · ${unitLabel(sync.members_total, "members")}, ${sync.members_included} included`}>
      {changeCount(sync.changes) === 0 ? (
        <p className={shared.muted}>The organization is as it was: no member joined, left, moved or changed.</p>
      ) : (
        <dl className={css.changeGroups}>
          {CHANGE_LABELS.filter(([key]) => sync.changes[key].length > 0).map(([key, label]) => (
            <Fact key={key} label={`${label} (${sync.changes[key].length})`}>
              <ul className={css.changeList}>
                {sync.changes[key].map((c) => (
                  <li key={c.cloud_account_id}>{changeLine(key, c)}</li>
                ))}
              </ul>
            </Fact>
          ))}
        </dl>
      )}
    </Card>
  )
}

// ---------------------------------------------------------------------------------------------------
// Units tree

const MEMBER_STATE_TONES = { active: "success", suspended: "warning", closed: "neutral" } as const

function MemberItem({
  orgRef,
  member,
  units,
  draft,
}: {
  readonly orgRef: OrganizationRef
  readonly member: OrganizationMember
  readonly units: ReadonlyArray<OrganizationUnit>
  readonly draft: MemberSelection | null
}) {
  const reach =
    member.reachable === null ? "Not tried" : member.reachable ? "Reachable" : `Unreachable${member.last_error === null ? "" : `: ${member.last_error}`}`
  const label = `${member.name} (${member.cloud_account_id})`
  return (
    <li className={css.memberRow}>
      {draft === null ? (
        <span className={css.memberName}>{label}</span>
      ) : (
        <Checkbox
          isSelected={isMemberSelected(draft, units, member)}
          isDisabled={!canToggleMember(draft, units, member)}
          onChange={() => orgRef.send({ type: "member.toggled", cloudAccountId: member.cloud_account_id })}
        >
          <span className={css.memberName}>{label}</span>
        </Checkbox>
      )}
      <Badge tone={MEMBER_STATE_TONES[member.state]}>{member.state === "active" ? "Active" : member.state === "suspended" ? "Suspended" : "Closed"}</Badge>
      {member.retired_at === null ? null : <Badge tone="warning">Retired</Badge>}
      {draft === null ? <Badge tone={member.included ? "accent" : "neutral"}>{member.included ? "Included" : "Not scanned"}</Badge> : null}
      {member.account_id === null ? null : (
        <Link href={accountPath(member.account_id)} aria-label={`Account page of ${member.name}`}>
          Account page
        </Link>
      )}
      <span className={css.memberDetail}>
        {member.unit_path} · {reach}
        {member.retired_at === null ? "" : ` · Retired ${formatDateTime(member.retired_at)}${member.retired_reason === null ? "" : ` (${member.retired_reason})`}`}
      </span>
    </li>
  )
}

function UnitItem({
  orgRef,
  unit,
  organization,
  draft,
}: {
  readonly orgRef: OrganizationRef
  readonly unit: OrganizationUnit
  readonly organization: OrganizationDetail
  readonly draft: MemberSelection | null
}) {
  const children = organization.units.filter((u) => u.parent_unit_id === unit.unit_id)
  const members = organization.members.filter((m) => m.unit_id === unit.unit_id)
  const heading = `${unit.name} · ${unitLabel(unit.members, "members")}`
  return (
    <li>
      <div className={css.unitRow}>
        {draft === null ? (
          <span>{heading}</span>
        ) : (
          <Checkbox
            isSelected={isUnitSelected(draft, organization.units, unit.unit_id)}
            isDisabled={!canToggleUnit(draft, organization.units, unit.unit_id)}
            onChange={() => orgRef.send({ type: "unit.toggled", unitId: unit.unit_id })}
          >
            {heading}
          </Checkbox>
        )}
      </div>
      {children.length === 0 && members.length === 0 ? null : (
        <ul className={css.subtree} aria-label={`${unit.name} units and members`}>
          {members.map((m) => (
            <MemberItem key={m.cloud_account_id} orgRef={orgRef} member={m} units={organization.units} draft={draft} />
          ))}
          {children.map((u) => (
            <UnitItem key={u.unit_id} orgRef={orgRef} unit={u} organization={organization} draft={draft} />
          ))}
        </ul>
      )}
    </li>
  )
}

function UnitsCard({ orgRef, organization }: { readonly orgRef: OrganizationRef; readonly organization: OrganizationDetail }) {
  const draft = useSelector(orgRef, (s) => s.context.draft)
  const error = useSelector(orgRef, (s) => s.context.selectionError)
  const saving = useSelector(orgRef, (s) => s.matches({ ready: { selection: "saving" } }))
  const canEdit = useSelector(orgRef, (s) => s.can({ type: "selection.editRequested" }))
  const known = new Set(organization.units.map((u) => u.unit_id))
  const roots = organization.units.filter((u) => u.parent_unit_id === null || !known.has(u.parent_unit_id))
  const editing = draft !== null
  return (
    <Card
      title="Units and members"
      level={2}
      aria-label="Units and members"
      description={editing ? "Choose the units and member accounts to scan. Excluded units leave out everything below them." : "Which member accounts are scanned, by unit."}
      actions={
        organization.limited_view === true ? undefined : editing ? (
          <>
            <Button variant="secondary" size="sm" isDisabled={saving} onPress={() => orgRef.send({ type: "selection.cancelled" })}>
              Cancel
            </Button>
            <Button size="sm" isPending={saving} onPress={() => orgRef.send({ type: "selection.saveRequested" })}>
              Save selection
            </Button>
          </>
        ) : (
          <Button variant="secondary" size="sm" isDisabled={!canEdit} onPress={() => orgRef.send({ type: "selection.editRequested" })}>
            Change selection
          </Button>
        )
      }
    >
      {error === null ? null : <AlertBox tone="error">{error}</AlertBox>}
      {roots.length === 0 ? (
        <p className={shared.muted}>No units were discovered yet: sync the organization.</p>
      ) : (
        <ul className={css.tree} aria-label="Organizational units">
          {roots.map((u) => (
            <UnitItem key={u.unit_id} orgRef={orgRef} unit={u} organization={organization} draft={draft} />
          ))}
        </ul>
      )}
    </Card>
  )
}

// ---------------------------------------------------------------------------------------------------
// Fleet scan

const FLEET_MEMBER_STATES = { queued: "Queued", started: "Running", completed: "Completed", failed: "Failed" } as const

function FleetCard({ orgRef }: { readonly orgRef: OrganizationRef }) {
  const fleetScan: FleetScan | null = useSelector(orgRef, (s) => s.context.fleetScan)
  const error = useSelector(orgRef, (s) => s.context.fleetError)
  const loading = useSelector(orgRef, (s) => s.matches({ ready: { fleet: "loading" } }))
  const failed = useSelector(orgRef, (s) => s.matches({ ready: { fleet: "failed" } }))
  const watching = useSelector(orgRef, (s) => s.matches({ ready: { fleet: "watching" } }))
  if (loading) return <LoadingBox label="Loading the fleet scan" />
  if (failed) {
    return (
      <ErrorBox
        title="Fleet scan"
        message={error ?? OrganizationMessages.loadFleetFailed}
        actions={
          <Button variant="secondary" size="sm" onPress={() => orgRef.send({ type: "fleet.retryRequested" })}>
            Try again
          </Button>
        }
      />
    )
  }
  return (
    <Card
      title="Fleet scan"
      level={2}
      aria-label="Fleet scan"
      description={
        fleetScan === null
          ? "No scan of the organization yet."
          : `Started ${formatDateTime(fleetScan.started_at)} · ${unitLabel(fleetScan.members_total, "members")}: ${fleetScan.members_completed} completed, ${fleetScan.members_running} running, ${fleetScan.members_queued} queued, ${fleetScan.members_failed} failed${watching ? " · refreshed every 10 s" : ""}`
      }
      actions={fleetScan === null ? undefined : <RunStatusBadge status={fleetScan.status} />}
    >
      {error === null ? null : <AlertBox tone="error">{error}</AlertBox>}
      {fleetScan === null ? null : (
        <ul className={css.list} aria-label="Member scans">
          {fleetScan.members.map((m) => (
            <li key={m.account_id} className={css.listItem}>
              <span className={css.grow}>
                <span className={css.memberName}>{m.account_name}</span>
                <span className={shared.muted}>
                  {" "}
                  {m.cloud_account_id} · {m.unit_path}
                </span>
              </span>
              <Badge tone={m.state === "failed" ? "danger" : m.state === "completed" ? "success" : "accent"}>{FLEET_MEMBER_STATES[m.state]}</Badge>
              {m.total_services > 0 ? (
                <ServicesProgress completed={m.completed_services} total={m.total_services} percent={Math.round((100 * m.completed_services) / m.total_services)} />
              ) : null}
              <span className={shared.muted}>{unitLabel(m.failed_checks, "failedChecks")}</span>
              {m.scan_id === null ? null : (
                <Link href={scanPath(m.scan_id)} aria-label={`Scan #${m.scan_id} of ${m.account_name}`}>
                  Scan #{m.scan_id}
                </Link>
              )}
              {m.reason === null ? null : <span className={css.memberDetail}>{m.reason}</span>}
            </li>
          ))}
        </ul>
      )}
    </Card>
  )
}

// ---------------------------------------------------------------------------------------------------
// Sync history

const TRIGGERS = { onboard: "Onboarding", manual: "Manual", daily: "Daily", selection: "Selection saved" } as const

function HistoryCard({ orgRef, organization }: { readonly orgRef: OrganizationRef; readonly organization: OrganizationDetail }) {
  const all = useSelector(orgRef, (s) => s.context.syncs)
  const error = useSelector(orgRef, (s) => s.context.historyError)
  const loading = useSelector(orgRef, (s) => s.matches({ ready: { history: "loading" } }))
  const syncs: ReadonlyArray<OrganizationSync> = all ?? organization.recent_syncs
  return (
    <Card
      title="Sync history"
      level={2}
      aria-label="Sync history"
      actions={
        <Button variant="secondary" size="sm" isPending={loading} onPress={() => orgRef.send({ type: "history.requested" })}>
          {all === null ? "Show every sync" : "Reload"}
        </Button>
      }
    >
      {error === null ? null : <AlertBox tone="error">{error}</AlertBox>}
      {syncs.length === 0 ? (
        <p className={shared.muted}>No sync yet.</p>
      ) : (
        <ul className={css.list}>
          {syncs.map((s) => (
            <li key={s.id} className={css.listItem}>
              <span className={css.grow}>
                {formatDateTime(s.started_at)} · {TRIGGERS[s.trigger]}
              </span>
              <RunStatusBadge status={s.status === "running" ? "running" : s.status} />
              <span className={css.memberDetail}>
                {s.error ?? `${changesText(s.changes)} · ${unitLabel(s.members_total, "members")}, ${s.members_included} included`}
              </span>
            </li>
          ))}
        </ul>
      )}
    </Card>
  )
}

// ---------------------------------------------------------------------------------------------------
// Page

/** A limited member's trail: the organisation account's crumb is plain text (its account page is not theirs: 404). */
const limitedCrumbs = (crumbs: ReadonlyArray<Crumb>): ReadonlyArray<Crumb> =>
  crumbs.map((c) => (c.href !== undefined && c.href.startsWith("/dashboard/accounts/") ? { label: c.label } : c))

function OrganizationPage({ orgRef, organization }: { readonly orgRef: OrganizationRef; readonly organization: OrganizationDetail }) {
  const syncing = useSelector(orgRef, (s) => s.matches({ ready: { sync: "syncing" } }) || s.matches({ ready: { sync: "reloading" } }))
  const canSync = useSelector(orgRef, (s) => s.can({ type: "sync.requested" }))
  const mayLaunch = useSelector(orgRef, (s) => s.context.viewer?.canLaunchScans ?? true)
  const starting = useSelector(orgRef, (s) => s.matches({ ready: { fleet: "starting" } }))
  const canScan = useSelector(orgRef, (s) => s.can({ type: "fleetScan.requested" }))
  const kind = PROVIDER_KINDS[organization.cloud_provider_name.toLowerCase()] ?? "Organization"
  // A member limited to account groups (docs/organizations.md "Access by group"): their members only; the organisation's
  // account, settings, syncs and fleet scans are not theirs (the server refuses sync, selection and fleet scan).
  const limited = organization.limited_view === true
  return (
    <div className={shared.page}>
      <CrumbTrail crumbs={limited ? limitedCrumbs(organizationPageCrumbs(organization.id, organization.account_name)) : organizationPageCrumbs(organization.id, organization.account_name)} />
      <div className={shared.pageHeader}>
        <div className={shared.titleRow}>
          <ProviderIcon name={organization.cloud_provider_name} size={36} decorative />
          <div className={shared.titles}>
            <h1 className={shared.title}>{organization.account_name}</h1>
            <p className={shared.subtitle}>
              {kind} · {organization.organization_id} ·{" "}
              {limited ? null : <><Link href={accountPath(organization.id)}>Organization account</Link> · </>}<Link href={fleetPath(organization.id)}>Fleet dashboard</Link> · <Link href={fleetFindingsPath(organization.id)}>Findings across members</Link>
            </p>
          </div>
        </div>
        {limited ? null : <div className={shared.actions}>
          <Button variant="secondary" isPending={syncing} isDisabled={!canSync && !syncing} onPress={() => orgRef.send({ type: "sync.requested" })}>
            {syncing ? null : <RefreshIcon size={16} />}
            Sync now
          </Button>
          <GatedButton
            allowed={mayLaunch}
            tooltip={ScanningMessages.launchPermissionTooltip}
            onBlockedPress={() => orgRef.send({ type: "fleetScan.requested" })}
            isPending={starting}
            isDisabled={!canScan && !starting}
            onPress={() => orgRef.send({ type: "fleetScan.requested" })}
          >
            {starting ? null : <PlayIcon size={16} />}
            Scan organization
          </GatedButton>
        </div>}
      </div>
      {limited ? <AlertBox tone="info">{AccountGroupMessages.limitedOrganizationView}</AlertBox> : null}
      <Summary organization={organization} />
      {limited ? null : <SyncResult orgRef={orgRef} />}
      {limited ? null : <FleetCard orgRef={orgRef} />}
      <UnitsCard orgRef={orgRef} organization={organization} />
      {limited ? null : <HistoryCard orgRef={orgRef} organization={organization} />}
    </div>
  )
}

export function OrganizationView() {
  const params = useParams<{ accountId: string }>()
  // Another organisation is another page: a fresh machine.
  return <OrganizationScreen key={params.accountId} organizationId={Number(params.accountId) as AccountId} />
}

function OrganizationScreen({ organizationId }: { readonly organizationId: AccountId }) {
  const { clock } = useOrganizationEnvironment()
  const logic = useOrganizationLogic()
  const orgRef = useActorRef(logic, { input: { organizationId }, ...(clock === undefined ? {} : { clock }) })
  const organization = useSelector(orgRef, (s) => s.context.organization)
  const failed = useSelector(orgRef, (s) => s.matches("failed"))
  const error = useSelector(orgRef, (s) => s.context.error)
  if (failed) {
    return (
      <div className={shared.page}>
        <CrumbTrail crumbs={organizationPageCrumbs(organizationId, null)} />
        <ErrorBox
          title={OrganizationMessages.loadOrganizationFailed}
          message={error ?? OrganizationMessages.loadOrganizationFailed}
          actions={
            <Button variant="secondary" size="sm" onPress={() => orgRef.send({ type: "organization.retryRequested" })}>
              Try again
            </Button>
          }
        />
      </div>
    )
  }
  if (organization === null) {
    return (
      <div className={shared.page}>
        <CrumbTrail crumbs={organizationPageCrumbs(organizationId, null)} />
        <LoadingBox label="Loading the organization" />
      </div>
    )
  }
  return <OrganizationPage orgRef={orgRef} organization={organization} />
}
