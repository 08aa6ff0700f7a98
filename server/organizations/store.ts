/**
 * SQL of the organisations area (issue 31; migration 0022). Every function runs inside the caller's RLS scope and also
 * filters on `workspace_id`: a foreign id finds nothing (→ 404).
 *
 * `applyDiscovery` is the one place a sync changes the workspace: in ONE transaction it replaces the units, upserts the
 * members the provider answered (and marks the others removed), creates the account of each newly included active
 * member (credentials sealed for that account), adopts an account already connected by hand when it is such a member
 * (reached from then on with the organisation's credentials, as every member; one the selection leaves out, or
 * suspended or closed in the organisation, stays standalone with its own), retires the accounts of
 * members removed, closed, suspended or excluded (their history stays), brings back a retired member that returns,
 * follows moves and renames, and records the sync with what changed. The organisation row is locked first, so two
 * syncs of one organisation apply one after the other, each against what the other left.
 */
import { Effect, type Redacted } from "effect"
import { SqlClient } from "effect/sql"
import { toRunStatus } from "../../src/contracts/common.ts"
import { ProviderIds } from "../../src/contracts/constants.ts"
import type { AccountId, CloudProviderId, FleetScanId, ScanId } from "../../src/contracts/ids.ts"
import {
  DEFAULT_MEMBER_ROLE_NAME,
  EMPTY_CHANGES,
  EMPTY_SELECTION,
  memberIncluded,
  OrganizationMessages,
  unitChainOf,
  type FleetScan,
  type MemberChange,
  type MemberSelection,
  type OrganizationDetail,
  type OrganizationMember,
  type OrganizationSummary,
  type OrganizationSync,
  type SyncChanges,
} from "../../src/contracts/organizations.ts"
import { iso, isoOrNull } from "../accounts/accounts-store.ts"
import { sealCredentials, type StoredCredentials } from "../accounts/credential-vault.ts"
import { providerDisplayName } from "../accounts/providers.ts"
import { memberRoleArn } from "./aws-discovery.ts"
import { unitPaths, type DiscoveredMember, type OrganizationDiscovery } from "./discovery.ts"

/** How long after a sync the next daily sync is due. */
export const SYNC_INTERVAL = "1 day"
/** Syncs the organisation page lists. */
export const RECENT_SYNCS = 10

export interface OrganizationRow {
  readonly accountId: number
  readonly workspaceId: number
  readonly accountName: string
  readonly cloudProviderId: number
  readonly organizationId: string
  readonly rootId: string
  readonly rootName: string
  readonly managementAccountId: string | null
  readonly memberRoleName: string | null
  readonly memberConcurrency: number
  readonly selection: MemberSelection
  readonly credentialsSealed: string
  readonly tenantId: string | null
  readonly accessKeyId: string | null
  readonly createdBy: number | null
}

/** The organisation (with its sealed credentials); undefined when the account is not an organisation of this workspace. */
export const loadOrganization = Effect.fn("Organizations.load")(function* (workspaceId: number, accountId: number, lock = false) {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql<{
    account_id: number; workspace_id: number; account_name: string; cloud_provider_id: number; cloud_account_id: string
    root_id: string; root_name: string; management_account_id: string | null; member_role_name: string | null
    member_concurrency: number; include_units: Array<string>; exclude_units: Array<string>; include_accounts: Array<string>
    exclude_accounts: Array<string>; credentials_sealed: string; tenant_id: string | null; access_key_id: string | null; created_by: number | null
  }>`SELECT o.account_id, o.workspace_id, a.account_name, a.cloud_provider_id::int AS cloud_provider_id, a.cloud_account_id,
            o.root_id, o.root_name, o.management_account_id, o.member_role_name, o.member_concurrency::int AS member_concurrency,
            o.include_units, o.exclude_units, o.include_accounts, o.exclude_accounts, a.credentials_sealed, a.tenant_id,
            a.access_key_id, a.created_by
     FROM organizations o JOIN accounts a ON a.id = o.account_id AND a.workspace_id = o.workspace_id
     WHERE o.workspace_id = ${workspaceId} AND o.account_id = ${accountId}
     ${lock ? sql`FOR UPDATE OF o` : sql``}`
  const r = rows[0]
  if (r === undefined) return undefined
  return {
    accountId: r.account_id,
    workspaceId: r.workspace_id,
    accountName: r.account_name,
    cloudProviderId: r.cloud_provider_id,
    organizationId: r.cloud_account_id,
    rootId: r.root_id,
    rootName: r.root_name,
    managementAccountId: r.management_account_id,
    memberRoleName: r.member_role_name,
    memberConcurrency: r.member_concurrency,
    selection: { include_units: r.include_units, exclude_units: r.exclude_units, include_accounts: r.include_accounts, exclude_accounts: r.exclude_accounts },
    credentialsSealed: r.credentials_sealed,
    tenantId: r.tenant_id,
    accessKeyId: r.access_key_id,
    createdBy: r.created_by,
  } satisfies OrganizationRow
})

export interface NewOrganization {
  readonly id: number
  readonly workspaceId: number
  readonly cloudProviderId: number
  readonly accountName: string
  /** AWS "o-…", GCP "organizations/N" / "folders/N", Azure management group. */
  readonly organizationId: string
  readonly rootId: string
  readonly rootName: string
  readonly managementAccountId: string | null
  readonly principalArn: string | null
  readonly authMethod: "access_key" | "role"
  readonly accessKeyId: string | null
  readonly tenantId: string | null
  readonly credentialsSealed: string
  readonly memberRoleName: string | null
  readonly memberConcurrency: number
  readonly selection: MemberSelection
  readonly createdBy: number
}

/** Inserts the organisation's account and settings; false when the organisation is already connected here. */
export const insertOrganization = Effect.fn("Organizations.insert")(function* (o: NewOrganization) {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql<{ id: number }>`
    INSERT INTO accounts (id, workspace_id, cloud_provider_id, account_name, cloud_account_id, principal_arn, auth_method,
                          access_key_id, tenant_id, credentials_sealed, created_by, is_organization)
    VALUES (${o.id}, ${o.workspaceId}, ${o.cloudProviderId}, ${o.accountName}, ${o.organizationId}, ${o.principalArn},
            ${o.authMethod}, ${o.accessKeyId}, ${o.tenantId}, ${o.credentialsSealed}, ${o.createdBy}, true)
    ON CONFLICT (workspace_id, cloud_provider_id, cloud_account_id) DO NOTHING
    RETURNING id`
  if (rows.length === 0) return false
  yield* sql`
    INSERT INTO organizations (account_id, workspace_id, root_id, root_name, management_account_id, member_role_name, member_concurrency,
                               include_units, exclude_units, include_accounts, exclude_accounts)
    VALUES (${o.id}, ${o.workspaceId}, ${o.rootId}, ${o.rootName}, ${o.managementAccountId}, ${o.memberRoleName}, ${o.memberConcurrency},
            ${pgArray(o.selection.include_units)}::text[], ${pgArray(o.selection.exclude_units)}::text[],
            ${pgArray(o.selection.include_accounts)}::text[], ${pgArray(o.selection.exclude_accounts)}::text[])`
  return true
})

/** A text[] literal (each element quoted). */
export const pgArray = (values: ReadonlyArray<string>): string =>
  `{${values.map((v) => `"${v.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`).join(",")}}`

export const updateSelection = Effect.fn("Organizations.updateSelection")(function* (
  workspaceId: number,
  accountId: number,
  selection: MemberSelection,
  memberRoleName: string | undefined,
  memberConcurrency: number | undefined,
) {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    UPDATE organizations SET include_units = ${pgArray(selection.include_units)}::text[], exclude_units = ${pgArray(selection.exclude_units)}::text[],
      include_accounts = ${pgArray(selection.include_accounts)}::text[], exclude_accounts = ${pgArray(selection.exclude_accounts)}::text[],
      member_role_name = coalesce(${memberRoleName ?? null}, member_role_name),
      member_concurrency = coalesce(${memberConcurrency ?? null}::smallint, member_concurrency), updated_at = now()
    WHERE workspace_id = ${workspaceId} AND account_id = ${accountId}`
})

/**
 * A new AWS member role name, applied to the members' accounts in the caller's transaction (the one that changes the
 * name, PUT …/selection): every member account of the organisation, retired ones too (should they come back), is
 * sealed again with `credentials` (the organisation's credentials pointed at the new role) and names the new role as
 * its principal, so its own scans, the fleet scan's probe and its remediation all use the role the sync probes. A
 * member's stored credentials, not a copy derived at use time, are what every reader opens (scans, fixes, undo,
 * Security Hub, reveal): one re-seal here rather than an organisation lookup in each of them. Answers how many
 * accounts were updated.
 */
export const updateMemberRole = Effect.fn("Organizations.updateMemberRole")(function* (input: {
  readonly workspaceId: number
  readonly organizationId: number
  readonly roleName: string
  readonly credentials: (cloudAccountId: string) => StoredCredentials
  readonly appSecretKey: Redacted.Redacted<string>
}) {
  const sql = yield* SqlClient.SqlClient
  const ws = input.workspaceId
  const members = yield* sql<{ id: number; cloud_account_id: string }>`
    SELECT id, cloud_account_id FROM accounts
    WHERE workspace_id = ${ws} AND organization_id = ${input.organizationId} AND is_organization = false
    ORDER BY id
    FOR UPDATE`
  if (members.length === 0) return 0
  // Sealed per account (the account id is bound into each seal), written in one statement.
  yield* sql`
    UPDATE accounts a SET credentials_sealed = x.sealed, principal_arn = x.arn, auth_method = 'role', updated_at = now()
    FROM unnest(${members.map((m) => m.id)}::int[],
                ${members.map((m) => sealCredentials(input.appSecretKey, input.credentials(m.cloud_account_id), { workspaceId: ws, accountId: m.id }))}::text[],
                ${members.map((m) => memberRoleArn(m.cloud_account_id, input.roleName))}::text[]) AS x(id, sealed, arn)
    WHERE a.workspace_id = ${ws} AND a.id = x.id`
  return members.length
})

/** What the sync needs to make a member's account: its stored credentials, sealed per account. */
export interface MemberAccess {
  /** AWS: the member role name the credentials assume (null for GCP and Azure). */
  readonly roleName: string | null
  readonly credentials: (member: DiscoveredMember) => StoredCredentials
  readonly authMethod: "access_key" | "role"
  readonly principal: (member: DiscoveredMember) => string | null
  readonly accessKeyId: string | null
  readonly tenantId: string | null
}

export interface ApplyInput {
  readonly org: OrganizationRow
  readonly discovery: OrganizationDiscovery
  /** Reachability of included active members (cloud account id → failure text, or undefined when reachable). */
  readonly probes: ReadonlyMap<string, string | undefined>
  readonly access: MemberAccess
  readonly appSecretKey: Redacted.Redacted<string>
  readonly trigger: OrganizationSync["trigger"]
  readonly userId: number | null
}

interface ExistingMemberAccount {
  readonly id: number
  readonly cloud_account_id: string
  readonly account_name: string
  readonly org_unit_id: string | null
  readonly org_unit_path: string | null
  readonly retired_at: Date | string | null
  readonly organization_id: number | null
}

export const applyDiscovery = Effect.fn("Organizations.applyDiscovery")(function* (input: ApplyInput) {
  const sql = yield* SqlClient.SqlClient
  const { org, discovery } = input
  const ws = org.workspaceId
  // Serialise syncs of this organisation; re-read the selection under the lock.
  const current = (yield* loadOrganization(ws, org.accountId, true)) ?? org
  // A sync that discovered and probed with the previous AWS member role while the name changed would create members
  // with that role and report their reachability by it: it is recorded as failed, and the sync the change runs after
  // it (PUT …/selection) applies instead.
  if (input.access.roleName !== null && input.access.roleName !== (current.memberRoleName ?? DEFAULT_MEMBER_ROLE_NAME)) {
    return yield* recordFailedSync(ws, org.accountId, input.trigger, OrganizationMessages.memberRoleChangedDuringSync, input.userId)
  }
  const paths = unitPaths(discovery.units)
  const parentOf = new Map(discovery.units.map((u) => [u.id, u.parentId]))
  const pathOf = (unitId: string) => paths.get(unitId) ?? unitId

  // Units: replaced by what the provider answered.
  yield* sql`DELETE FROM organization_units WHERE workspace_id = ${ws} AND organization_id = ${org.accountId}`
  if (discovery.units.length > 0) {
    yield* sql`INSERT INTO organization_units ${sql.insert(discovery.units.map((u) => ({
      organization_id: org.accountId, workspace_id: ws, unit_id: u.id, parent_unit_id: u.parentId, name: u.name.slice(0, 256),
      kind: u.kind, path: pathOf(u.id).slice(0, 2048),
    })) as never)}`
  }

  // The accounts this organisation already has, and any account of the workspace with a discovered member's id.
  const ids = discovery.members.map((m) => m.cloudAccountId)
  const existing = yield* sql<ExistingMemberAccount>`
    SELECT id, cloud_account_id, account_name, org_unit_id, org_unit_path, retired_at, organization_id FROM accounts
    WHERE workspace_id = ${ws} AND is_organization = false AND cloud_provider_id = ${org.cloudProviderId}
      AND (organization_id = ${org.accountId} OR cloud_account_id = ANY(${ids}::text[]))
    FOR UPDATE`
  const byCloudId = new Map(existing.map((e) => [e.cloud_account_id, e]))
  const changes: { -readonly [K in keyof SyncChanges]: Array<MemberChange> } = {
    added: [], retired: [], reactivated: [], moved: [], renamed: [], unreachable: [],
  }
  const change = (m: { cloudAccountId: string; name: string; unitId: string }, detail?: string): MemberChange => ({
    cloud_account_id: m.cloudAccountId, name: m.name, unit_path: pathOf(m.unitId), ...(detail === undefined ? {} : { detail }),
  })
  const memberRows: Array<Record<string, unknown>> = []
  let included = 0
  for (const m of discovery.members) {
    const isIncluded = memberIncluded(m.cloudAccountId, unitChainOf(m.unitId, parentOf), current.selection)
    const probe = input.probes.get(m.cloudAccountId)
    const scanned = isIncluded && m.state === "active"
    if (scanned) included++
    if (scanned && probe !== undefined) changes.unreachable.push(change(m, probe))
    let accountId: number | null = null
    const known = byCloudId.get(m.cloudAccountId)
    const unitPath = pathOf(m.unitId).slice(0, 2048)
    const tags = JSON.stringify(m.tags)
    // An account connected by hand becomes a member only when the organisation scans it (included and active); one
    // the selection leaves out, or that is suspended or closed in the organisation, stays a standalone account of the
    // workspace, still scanned on its own: adopting it would retire it in the same step.
    const adopt = known !== undefined && known.organization_id === null && scanned
    if (known !== undefined && (known.organization_id === org.accountId || adopt)) {
      accountId = known.id
      const retiredReason = scanned ? null : !isIncluded ? "excluded" : m.state === "closed" ? "closed" : "suspended"
      if (known.organization_id === null) changes.added.push(change(m, "already connected: now a member"))
      else if (known.retired_at === null && retiredReason !== null) changes.retired.push(change(m, retiredReason))
      else if (known.retired_at !== null && retiredReason === null) changes.reactivated.push(change(m))
      if (known.organization_id !== null && known.org_unit_id !== null && known.org_unit_id !== m.unitId) {
        changes.moved.push(change(m, known.org_unit_path ?? known.org_unit_id))
      }
      const name = m.name.trim().slice(0, 100) || m.cloudAccountId
      if (known.organization_id !== null && known.account_name !== name) changes.renamed.push(change(m, known.account_name))
      // An adopted account is reached from now on as every member is (the organisation's credentials, for AWS its
      // member role): what the sync probes is what its scans open, and a later role change reaches it too.
      if (adopt) {
        const sealed = sealCredentials(input.appSecretKey, input.access.credentials(m), { workspaceId: ws, accountId: known.id })
        yield* sql`
          UPDATE accounts SET credentials_sealed = ${sealed}, principal_arn = ${input.access.principal(m)}, auth_method = ${input.access.authMethod},
            access_key_id = ${input.access.accessKeyId}, tenant_id = ${input.access.tenantId}
          WHERE workspace_id = ${ws} AND id = ${known.id}`
      }
      yield* sql`
        UPDATE accounts SET organization_id = ${org.accountId}, org_unit_id = ${m.unitId}, org_unit_path = ${unitPath}, tags = ${tags}::jsonb,
          account_name = ${known.organization_id === null ? known.account_name : name},
          retired_at = CASE WHEN ${retiredReason}::text IS NULL THEN NULL ELSE coalesce(retired_at, now()) END,
          retired_reason = ${retiredReason}, updated_at = now()
        WHERE workspace_id = ${ws} AND id = ${known.id}`
    } else if (known === undefined && scanned) {
      const id = (yield* sql<{ id: number }>`SELECT nextval(pg_get_serial_sequence('accounts', 'id'))::int AS id`)[0]!.id
      const sealed = sealCredentials(input.appSecretKey, input.access.credentials(m), { workspaceId: ws, accountId: id })
      yield* sql`
        INSERT INTO accounts (id, workspace_id, cloud_provider_id, account_name, cloud_account_id, principal_arn, auth_method,
                              access_key_id, tenant_id, credentials_sealed, created_by, organization_id, org_unit_id, org_unit_path, tags)
        VALUES (${id}, ${ws}, ${org.cloudProviderId}, ${m.name.trim().slice(0, 100) || m.cloudAccountId}, ${m.cloudAccountId},
                ${input.access.principal(m)}, ${input.access.authMethod}, ${input.access.accessKeyId}, ${input.access.tenantId}, ${sealed},
                ${input.userId ?? org.createdBy}, ${org.accountId}, ${m.unitId}, ${unitPath}, ${tags}::jsonb)`
      accountId = id
      changes.added.push(change(m))
    }
    // (A member connected through another organisation of the workspace stays there: never taken over.)
    memberRows.push({
      organization_id: org.accountId, workspace_id: ws, cloud_account_id: m.cloudAccountId, name: m.name.slice(0, 256), unit_id: m.unitId,
      cloud_state: m.cloudState.slice(0, 64), state: m.state, tags, included: isIncluded, account_id: accountId,
      reachable: scanned ? probe === undefined : null, last_error: scanned && probe !== undefined ? probe.slice(0, 2000) : null,
    })
  }
  // Members the provider no longer answers: their accounts retire (history kept).
  const seen = new Set(ids)
  for (const gone of existing) {
    if (gone.organization_id !== org.accountId || seen.has(gone.cloud_account_id)) continue
    if (gone.retired_at === null) {
      changes.retired.push({ cloud_account_id: gone.cloud_account_id, name: gone.account_name, unit_path: gone.org_unit_path ?? "", detail: "removed" })
    }
    yield* sql`UPDATE accounts SET retired_at = coalesce(retired_at, now()), retired_reason = 'removed', updated_at = now()
               WHERE workspace_id = ${ws} AND id = ${gone.id} AND (retired_reason IS DISTINCT FROM 'removed' OR retired_at IS NULL)`
  }
  yield* sql`UPDATE organization_members SET removed_at = coalesce(removed_at, now())
             WHERE workspace_id = ${ws} AND organization_id = ${org.accountId} AND NOT (cloud_account_id = ANY(${ids}::text[]))`
  for (let i = 0; i < memberRows.length; i += 500) {
    const chunk = memberRows.slice(i, i + 500)
    yield* sql`
      INSERT INTO organization_members ${sql.insert(chunk as never)}
      ON CONFLICT (organization_id, cloud_account_id) DO UPDATE SET name = EXCLUDED.name, unit_id = EXCLUDED.unit_id,
        cloud_state = EXCLUDED.cloud_state, state = EXCLUDED.state, tags = EXCLUDED.tags, included = EXCLUDED.included,
        account_id = EXCLUDED.account_id, reachable = EXCLUDED.reachable, last_error = EXCLUDED.last_error,
        last_seen_at = now(), removed_at = NULL`
  }
  yield* sql`UPDATE organizations SET root_id = ${discovery.rootId}, root_name = ${discovery.rootName.slice(0, 256)},
               last_sync_at = now(), next_sync_at = now() + ${SYNC_INTERVAL}::interval, updated_at = now()
             WHERE workspace_id = ${ws} AND account_id = ${org.accountId}`
  const [sync] = yield* sql<{ id: number }>`
    INSERT INTO organization_syncs (organization_id, workspace_id, trigger, status, changes, members_total, members_included, requested_by, finished_at)
    VALUES (${org.accountId}, ${ws}, ${input.trigger}, 'completed', ${JSON.stringify(changes)}::jsonb, ${discovery.members.length}, ${included},
            ${input.userId}, now())
    RETURNING id`
  return (yield* getSync(ws, sync!.id))!
})

/** Records a sync that could not discover (the organisation's members stay as they were). */
export const recordFailedSync = Effect.fn("Organizations.recordFailedSync")(function* (
  workspaceId: number, organizationId: number, trigger: OrganizationSync["trigger"], error: string, userId: number | null,
) {
  const sql = yield* SqlClient.SqlClient
  yield* sql`UPDATE organizations SET next_sync_at = now() + ${SYNC_INTERVAL}::interval WHERE workspace_id = ${workspaceId} AND account_id = ${organizationId}`
  const [sync] = yield* sql<{ id: number }>`
    INSERT INTO organization_syncs (organization_id, workspace_id, trigger, status, error, requested_by, finished_at)
    VALUES (${organizationId}, ${workspaceId}, ${trigger}, 'failed', ${error.slice(0, 2000)}, ${userId}, now()) RETURNING id`
  return (yield* getSync(workspaceId, sync!.id))!
})

interface SyncRow {
  id: number; trigger: OrganizationSync["trigger"]; status: OrganizationSync["status"]; error: string | null; changes: unknown
  members_total: number; members_included: number; started_at: Date | string; finished_at: Date | string | null
}

const toSync = (r: SyncRow): OrganizationSync => {
  const raw = (typeof r.changes === "string" ? JSON.parse(r.changes) : r.changes) as Partial<SyncChanges> | null
  return {
    id: r.id,
    trigger: r.trigger,
    status: r.status,
    error: r.error,
    changes: { ...EMPTY_CHANGES, ...(raw ?? {}) },
    members_total: r.members_total,
    members_included: r.members_included,
    started_at: iso(r.started_at),
    finished_at: isoOrNull(r.finished_at),
  }
}

export const getSync = Effect.fn("Organizations.getSync")(function* (workspaceId: number, syncId: number) {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql<SyncRow>`
    SELECT id, trigger, status, error, changes, members_total, members_included, started_at, finished_at
    FROM organization_syncs WHERE workspace_id = ${workspaceId} AND id = ${syncId}`
  return rows[0] === undefined ? undefined : toSync(rows[0])
})

export const listSyncs = Effect.fn("Organizations.listSyncs")(function* (workspaceId: number, organizationId: number, limit: number) {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql<SyncRow>`
    SELECT id, trigger, status, error, changes, members_total, members_included, started_at, finished_at
    FROM organization_syncs WHERE workspace_id = ${workspaceId} AND organization_id = ${organizationId}
    ORDER BY started_at DESC, id DESC LIMIT ${limit}`
  return rows.map(toSync)
})

interface SummaryRow {
  account_id: number; account_name: string; cloud_provider_id: number; cloud_account_id: string; root_id: string | null; root_name: string | null
  management_account_id: string | null; member_role_name: string | null; member_concurrency: number | null; members_total: number
  members_included: number; members_retired: number; members_unreachable: number; last_sync_at: Date | string | null
  next_sync_at: Date | string | null; last_sync_status: OrganizationSync["status"] | null
}

/**
 * The transaction-local switch of migration 0039 (`app.organization_view`): while it is on, a member limited to
 * account groups reads the account row of an organisation one of their accounts is a member of (never its settings,
 * syncs or fleet scans). On only around `effect` (the organisation's read endpoints), so no other statement of the
 * transaction (one that reads an account's credentials) sees the row.
 */
export const withOrganizationView = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    yield* sql`SELECT set_config('app.organization_view', 'on', true)`
    return yield* effect.pipe(Effect.ensuring(Effect.ignore(sql`SELECT set_config('app.organization_view', '', true)`)))
  })

/**
 * The organisations of the workspace as the caller's scope sees them. A member limited to account groups reads the
 * organisation's account row only (under `withOrganizationView`, migration 0039) and none of its `organizations` row:
 * its settings answer empty ("" / null / 0) and `limited_view` says so; the member counts are of their members only.
 */
const summaries = (workspaceId: number, accountId: number | undefined) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<SummaryRow>`
      SELECT a.id AS account_id, a.account_name, a.cloud_provider_id::int AS cloud_provider_id, a.cloud_account_id, o.root_id, o.root_name,
             o.management_account_id, o.member_role_name, o.member_concurrency::int AS member_concurrency,
             (SELECT count(*)::int FROM organization_members m WHERE m.organization_id = a.id AND m.removed_at IS NULL) AS members_total,
             (SELECT count(*)::int FROM accounts m WHERE m.workspace_id = a.workspace_id AND m.organization_id = a.id AND m.retired_at IS NULL) AS members_included,
             (SELECT count(*)::int FROM accounts m WHERE m.workspace_id = a.workspace_id AND m.organization_id = a.id AND m.retired_at IS NOT NULL) AS members_retired,
             (SELECT count(*)::int FROM organization_members m WHERE m.organization_id = a.id AND m.reachable = false AND m.removed_at IS NULL) AS members_unreachable,
             o.last_sync_at, o.next_sync_at,
             (SELECT s.status FROM organization_syncs s WHERE s.organization_id = a.id ORDER BY s.started_at DESC, s.id DESC LIMIT 1) AS last_sync_status
      FROM accounts a LEFT JOIN organizations o ON o.account_id = a.id AND o.workspace_id = a.workspace_id
      WHERE a.workspace_id = ${workspaceId} AND a.is_organization ${accountId === undefined ? sql`` : sql`AND a.id = ${accountId}`}
      ORDER BY a.account_name, a.id`
    return rows.map((r): OrganizationSummary => ({
      id: r.account_id as AccountId,
      account_name: r.account_name,
      cloud_provider_id: r.cloud_provider_id as CloudProviderId,
      cloud_provider_name: providerDisplayName(r.cloud_provider_id),
      organization_id: r.cloud_account_id,
      root_id: r.root_id ?? "",
      root_name: r.root_name ?? "",
      management_account_id: r.management_account_id,
      member_role_name: r.cloud_provider_id === ProviderIds.AWS ? r.member_role_name : null,
      member_concurrency: r.member_concurrency ?? 0,
      members_total: r.members_total,
      members_included: r.members_included,
      members_retired: r.members_retired,
      members_unreachable: r.members_unreachable,
      last_sync_at: isoOrNull(r.last_sync_at),
      next_sync_at: isoOrNull(r.next_sync_at),
      last_sync_status: r.last_sync_status,
      ...(r.root_id === null ? { limited_view: true } : {}),
    }))
  })

export const listOrganizations = Effect.fn("Organizations.list")(function* (workspaceId: number) {
  return yield* summaries(workspaceId, undefined)
})

export const getOrganizationSummary = Effect.fn("Organizations.summary")(function* (workspaceId: number, accountId: number) {
  return (yield* summaries(workspaceId, accountId))[0]
})

export const getOrganizationDetail = Effect.fn("Organizations.detail")(function* (workspaceId: number, accountId: number) {
  const sql = yield* SqlClient.SqlClient
  const summary = (yield* summaries(workspaceId, accountId))[0]
  if (summary === undefined) return undefined
  // Undefined for a member limited to account groups (the settings are hidden from them, migration 0039).
  const org = yield* loadOrganization(workspaceId, accountId)
  const units = yield* sql<{ unit_id: string; parent_unit_id: string | null; name: string; kind: string; path: string; members: number }>`
    SELECT u.unit_id, u.parent_unit_id, u.name, u.kind, u.path,
           (SELECT count(*)::int FROM organization_members m WHERE m.organization_id = u.organization_id AND m.unit_id = u.unit_id AND m.removed_at IS NULL) AS members
    FROM organization_units u WHERE u.workspace_id = ${workspaceId} AND u.organization_id = ${accountId} ORDER BY u.path, u.unit_id`
  const paths = new Map(units.map((u) => [u.unit_id, u.path]))
  const members = yield* sql<{
    cloud_account_id: string; name: string; unit_id: string; cloud_state: string; state: OrganizationMember["state"]; tags: unknown
    included: boolean; account_id: number | null; retired_at: Date | string | null; retired_reason: OrganizationMember["retired_reason"]
    reachable: boolean | null; last_error: string | null; removed_at: Date | string | null
  }>`SELECT m.cloud_account_id, m.name, m.unit_id, m.cloud_state, m.state, m.tags, m.included, m.account_id, a.retired_at, a.retired_reason,
            m.reachable, m.last_error, m.removed_at
     FROM organization_members m LEFT JOIN accounts a ON a.id = m.account_id AND a.workspace_id = m.workspace_id
     WHERE m.workspace_id = ${workspaceId} AND m.organization_id = ${accountId}
     ORDER BY m.removed_at NULLS FIRST, m.name, m.cloud_account_id`
  const detail: OrganizationDetail = {
    ...summary,
    selection: org?.selection ?? EMPTY_SELECTION,
    units: units.map((u) => ({ ...u, kind: u.kind as OrganizationDetail["units"][number]["kind"] })),
    members: members.map((m) => ({
      cloud_account_id: m.cloud_account_id,
      name: m.name,
      unit_id: m.unit_id,
      unit_path: paths.get(m.unit_id) ?? m.unit_id,
      state: m.state,
      cloud_state: m.cloud_state,
      tags: (typeof m.tags === "string" ? JSON.parse(m.tags) : m.tags ?? {}) as Record<string, string>,
      included: m.included,
      account_id: m.account_id as AccountId | null,
      retired_at: isoOrNull(m.retired_at),
      retired_reason: m.retired_reason,
      reachable: m.reachable,
      last_error: m.last_error,
      removed_at: isoOrNull(m.removed_at),
    })),
    recent_syncs: yield* listSyncs(workspaceId, accountId, RECENT_SYNCS),
  }
  return detail
})

// ---------------------------------------------------------------------------------------------------
// Fleet scans (read side; ./fleet-scan.ts starts and advances them)

export const getFleetScan = Effect.fn("Organizations.getFleetScan")(function* (workspaceId: number, fleetScanId: number, withMembers = true) {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql<{
    id: number; organization_id: number; status: string; trigger: "manual" | "schedule"; member_cap: number; started_at: Date | string
    finished_at: Date | string | null
  }>`SELECT id, organization_id, status, trigger, member_cap::int AS member_cap, started_at, finished_at FROM fleet_scans
     WHERE workspace_id = ${workspaceId} AND id = ${fleetScanId}`
  const f = rows[0]
  if (f === undefined) return undefined
  const members = yield* sql<{
    account_id: number; account_name: string; cloud_account_id: string; org_unit_path: string | null; state: FleetScan["members"][number]["state"]
    scan_id: number | null; scan_status: string | null; total_services: number | null; completed_services: number | null
    failed_findings: number | null; reason: string | null; failure_reason: string | null
  }>`SELECT m.account_id, a.account_name, a.cloud_account_id, a.org_unit_path, m.state, m.scan_id, s.status AS scan_status,
            s.total_services, s.completed_services, s.failed_findings, m.reason, s.failure_reason
     FROM fleet_scan_members m JOIN accounts a ON a.id = m.account_id AND a.workspace_id = m.workspace_id
     LEFT JOIN scans s ON s.id = m.scan_id AND s.workspace_id = m.workspace_id
     WHERE m.workspace_id = ${workspaceId} AND m.fleet_scan_id = ${fleetScanId}
     ORDER BY m.position`
  const count = (state: string) => members.filter((m) => m.state === state).length
  const scan: FleetScan = {
    fleet_scan_id: f.id as FleetScanId,
    organization_account_id: f.organization_id as AccountId,
    status: toRunStatus(f.status),
    trigger: f.trigger,
    member_cap: f.member_cap,
    started_at: iso(f.started_at),
    finished_at: isoOrNull(f.finished_at),
    members_total: members.length,
    members_queued: count("queued"),
    members_running: count("started"),
    members_completed: count("completed"),
    members_failed: count("failed"),
    members: withMembers
      ? members.map((m) => ({
          account_id: m.account_id as AccountId,
          account_name: m.account_name,
          cloud_account_id: m.cloud_account_id,
          unit_path: m.org_unit_path ?? "",
          state: m.state,
          scan_id: m.scan_id as ScanId | null,
          scan_status: m.scan_status === null ? null : toRunStatus(m.scan_status),
          total_services: m.total_services ?? 0,
          completed_services: m.completed_services ?? 0,
          failed_checks: m.failed_findings ?? 0,
          reason: m.reason ?? m.failure_reason,
        }))
      : [],
  }
  return scan
})

export const listFleetScans = Effect.fn("Organizations.listFleetScans")(function* (workspaceId: number, organizationId: number, limit: number) {
  const sql = yield* SqlClient.SqlClient
  const ids = yield* sql<{ id: number }>`
    SELECT id FROM fleet_scans WHERE workspace_id = ${workspaceId} AND organization_id = ${organizationId}
    ORDER BY started_at DESC, id DESC LIMIT ${limit}`
  const out: Array<FleetScan> = []
  for (const { id } of ids) out.push((yield* getFleetScan(workspaceId, id, false))!)
  return out
})

/** The ids of an organisation's units as its last sync saw them (a selection change checks its new unit ids against them). */
export const organizationUnitIds = (workspaceId: number, organizationId: number) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<{ unit_id: string }>`
      SELECT unit_id FROM organization_units WHERE workspace_id = ${workspaceId} AND organization_id = ${organizationId}`
    return new Set(rows.map((r) => r.unit_id))
  })
