/**
 * The `organizations` group (beyond the spec, issue 31; src/contracts/organizations.ts, docs/organizations.md), and
 * onboarding through the spec's own add-account call (`addOrganization`, used by server/api/accounts.ts when
 * `is_organization` is true).
 *
 * Onboarding and every sync run in three steps, so no transaction is held open during network calls:
 *   1. permission, organisation (or payload) and the workspace's external id (short RLS transaction);
 *   2. discovery (./../organizations/sync.ts: Organizations / Resource Manager / management groups) and, for AWS, a
 *      probe of each member that will be scanned (assume the member role, read it);
 *   3. one transaction applies what was found (server/organizations/store.ts `applyDiscovery`) and audits it.
 * A discovery that fails is recorded as a failed sync (onboarding: nothing is saved) and answered with the catalogue's
 * nearest entry: refused credentials 401, a wrong organisation / folder / group or a missing grant 400, an unreachable
 * provider 503.
 */
import { Effect, Layer } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { AccountGroupMessages } from "../../src/contracts/account-groups.ts"
import type { AddAccountPayload } from "../../src/contracts/accounts.ts"
import { Api } from "../../src/contracts/api.ts"
import { ProviderIds } from "../../src/contracts/constants.ts"
import { Conflict, Forbidden, NotFound, ServiceUnavailable, Unauthorized, ValidationError } from "../../src/contracts/errors.ts"
import { ScanningMessages, ScanningServerMessages, ValidationMessages } from "../../src/contracts/messages.ts"
import { decodeServiceAccountKey } from "../../src/contracts/service-account-key.ts"
import {
  AZURE_MANAGEMENT_GROUP_ID,
  DEFAULT_MEMBER_CONCURRENCY,
  DEFAULT_MEMBER_ROLE_NAME,
  GCP_ROOT_ID,
  OrganizationMessages,
  type MemberSelection,
  type OrganizationSync,
} from "../../src/contracts/organizations.ts"
import { externalIdFor, getAccountSummary, reserveAccountId } from "../accounts/accounts-store.ts"
import { credentialsForProvider } from "../accounts/connection-test.ts"
import { normalizeCredentials, openCredentials, sealCredentials, type StoredCredentials } from "../accounts/credential-vault.ts"
import { providerEnabled } from "../accounts/providers.ts"
import { recordAudit } from "../audit/scanning-audit.ts"
import { AuthConfigFromApp } from "../auth/identity-layer.ts"
import { AppConfig } from "../config.ts"
import { logLine } from "../log.ts"
import { awsCliDeployCommands, checkTemplateInput, memberRoleTemplate, organizationTemplate, templateJson } from "../organizations/aws-template.ts"
import type { DiscoveryFailed } from "../organizations/discovery.ts"
import {
  applyDiscovery,
  getFleetScan,
  getOrganizationDetail,
  getOrganizationSummary,
  insertOrganization,
  listFleetScans,
  listOrganizations,
  listSyncs,
  loadOrganization,
  organizationUnitIds,
  recordFailedSync,
  updateMemberRole,
  updateSelection,
  withOrganizationView,
  type OrganizationRow,
} from "../organizations/store.ts"
import { organizationAccount } from "../organizations/fleet.ts"
import { memberAwsCredentials } from "../organizations/aws-discovery.ts"
import { discoverOrganization, memberAccess, probeMembers } from "../organizations/sync.ts"
import { MANAGE_ACCOUNTS, READ, scoped } from "./middleware/scanning-access.ts"
import { fillNotImplemented } from "./not-implemented.ts"
import { fleet, orgCompliance, orgComplianceCsv, orgCompliancePdf } from "./fleet.ts"

type Request = Parameters<typeof scoped>[0]

const invalid = (message: string, path: string) => new ValidationError({ message, errors: [{ path, message }] })

/** Syncs the organisation page and the sync history list. */
const SYNC_HISTORY = 50
const FLEET_SCAN_HISTORY = 20

/** A failed discovery in the catalogue's words (see the module comment). */
const discoveryError = (cloudProviderId: number) => (failure: DiscoveryFailed): Unauthorized | ValidationError | ServiceUnavailable => {
  logLine("info", "organisation discovery failed", { reason: failure.reason, detail: failure.message })
  switch (failure.reason) {
    case "invalid_credentials":
      return new Unauthorized({
        message: cloudProviderId === ProviderIds.GCP
          ? ScanningServerMessages.cloudCredentialsInvalidGcp
          : cloudProviderId === ProviderIds.Azure
            ? ScanningServerMessages.cloudCredentialsInvalidAzure
            : ScanningServerMessages.cloudCredentialsInvalid,
        data: { error_type: "cloud_credentials_invalid" },
      })
    case "unreachable":
      return new ServiceUnavailable({ message: `${OrganizationMessages.discoveryFailed}: ${failure.message}` })
    default:
      return invalid(`${OrganizationMessages.discoveryFailed}: ${failure.message}`, cloudProviderId === ProviderIds.AWS ? "credentials" : "organization.root_id")
  }
}

/** The selection of an add-account payload (absent lists: everything). */
const selectionOf = (settings: AddAccountPayload["organization"]): MemberSelection => ({
  include_units: settings?.include_units ?? [],
  exclude_units: settings?.exclude_units ?? [],
  include_accounts: settings?.include_accounts ?? [],
  exclude_accounts: settings?.exclude_accounts ?? [],
})

/**
 * The refusal for unit ids of `selection` that are not among `known` (ids of `previous`, the selection saved before,
 * stay accepted: a unit gone from the organisation since may still be listed), or undefined when every id is known.
 */
const unknownUnitsOf = (selection: MemberSelection, known: ReadonlySet<string>, previous?: MemberSelection): ValidationError | undefined => {
  for (const key of ["include_units", "exclude_units"] as const) {
    const unknown = selection[key].filter((id) => !known.has(id) && !(previous?.[key].includes(id) ?? false))
    if (unknown.length > 0) {
      return invalid(`${OrganizationMessages.unitIdInvalid}: ${unknown.join(", ")}`, previous === undefined ? `organization.${key}` : key)
    }
  }
  return undefined
}

/** POST /api/accounts with `is_organization: true`. */
export const addOrganization = (request: Request, payload: AddAccountPayload) =>
  Effect.gen(function* () {
    const config = yield* AppConfig
    const settings = payload.organization
    const pid = payload.cloud_provider_id
    // 1. Permission, provider, settings and the workspace's external id.
    const prepared = yield* scoped(request, MANAGE_ACCOUNTS, (ctx) =>
      Effect.gen(function* () {
        if (ctx.accountIds !== null) return yield* new Forbidden({ message: AccountGroupMessages.limitedCannotAddAccounts })
        if (!providerEnabled(pid)) return yield* invalid(ValidationMessages.invalidCloudProvider, "cloud_provider_id")
        const credentials = credentialsForProvider(pid, normalizeCredentials(payload.credentials))
        const rootId = settings?.root_id?.trim()
        if (pid === ProviderIds.GCP && (rootId === undefined || !GCP_ROOT_ID.test(rootId))) {
          return yield* invalid(rootId === undefined || rootId === "" ? OrganizationMessages.rootIdRequired : OrganizationMessages.rootIdInvalidGcp, "organization.root_id")
        }
        if (pid === ProviderIds.Azure && (rootId === undefined || !AZURE_MANAGEMENT_GROUP_ID.test(rootId))) {
          return yield* invalid(rootId === undefined || rootId === "" ? OrganizationMessages.rootIdRequired : OrganizationMessages.rootIdInvalidAzure, "organization.root_id")
        }
        // An Azure organisation is read through its management group, not a subscription.
        if (pid === ProviderIds.Azure) delete credentials.subscription_id
        const externalId = yield* externalIdFor(ctx.workspaceId)
        if (pid === ProviderIds.AWS) {
          if (credentials.role_arn !== undefined) {
            if (credentials.external_id !== undefined && credentials.external_id !== externalId) {
              return yield* invalid(ScanningServerMessages.externalIdChosen, "credentials.external_id")
            }
            credentials.external_id = externalId
          } else delete credentials.external_id
        }
        return { credentials, externalId, rootId }
      }))
    const { credentials, externalId, rootId } = prepared

    // 2. Discovery (no transaction open): also the connection test.
    const discovered = yield* discoverOrganization({ cloudProviderId: pid, stored: credentials, rootId, awsEndpoint: config.awsEndpointUrl }).pipe(
      Effect.mapError(discoveryError(pid)),
    )
    const selection = selectionOf(settings)
    // Units to include or leave out are units of this organisation: a mistyped id would onboard no member at all
    // (include) or silently leave nothing out (exclude). Checked by the connection test too.
    const unknownUnits = unknownUnitsOf(selection, new Set(discovered.discovery.units.map((u) => u.id)))
    if (unknownUnits !== undefined) return yield* unknownUnits
    if (payload.test_only === true) return { ok: true, message: ScanningMessages.connectionSuccessful, data: { tested: true } }
    const roleName = pid === ProviderIds.AWS ? settings?.member_role_name ?? DEFAULT_MEMBER_ROLE_NAME : null
    // The public half each account shows (a GCP project added alone shows its service account's e-mail): the members too.
    const gcpKey = pid === ProviderIds.GCP ? decodeServiceAccountKey(credentials.service_account_key) : undefined
    const accessKeyId = pid === ProviderIds.AWS
      ? credentials.access_key ?? null
      : pid === ProviderIds.GCP ? (gcpKey?.ok === true ? gcpKey.key.client_email : null) : credentials.client_id ?? null
    const tenantId = pid === ProviderIds.Azure ? credentials.tenant_id ?? null : null
    const access = memberAccess(pid, credentials, { roleName, externalId, accessKeyId, tenantId })
    const probes = yield* probeMembers(pid, discovered.discovery, selection, access, config.awsEndpointUrl)

    // 3. Save the organisation and apply the first sync in one transaction.
    return yield* scoped(request, MANAGE_ACCOUNTS, (ctx) =>
      Effect.gen(function* () {
        const id = yield* reserveAccountId()
        const inserted = yield* insertOrganization({
          id,
          workspaceId: ctx.workspaceId,
          cloudProviderId: pid,
          accountName: payload.account_name.trim(),
          organizationId: discovered.organizationId,
          rootId: discovered.discovery.rootId,
          rootName: discovered.discovery.rootName,
          managementAccountId: discovered.managementAccountId,
          principalArn: credentials.role_arn ?? null,
          authMethod: credentials.role_arn !== undefined ? "role" : "access_key",
          accessKeyId,
          tenantId,
          credentialsSealed: sealCredentials(config.appSecretKey, credentials, { workspaceId: ctx.workspaceId, accountId: id }),
          memberRoleName: roleName,
          memberConcurrency: settings?.member_concurrency ?? DEFAULT_MEMBER_CONCURRENCY,
          selection,
          createdBy: ctx.userId,
        })
        if (!inserted) return yield* new Conflict({ message: ScanningMessages.accountAlreadyExists, data: { error_type: "account_exists" } })
        const org = (yield* loadOrganization(ctx.workspaceId, id))!
        const sync = yield* applyDiscovery({
          org, discovery: discovered.discovery, probes, access, appSecretKey: config.appSecretKey, trigger: "onboard", userId: ctx.userId,
        })
        yield* recordAudit({
          action: "organization.created",
          workspaceId: ctx.workspaceId,
          actorUserId: ctx.userId,
          targetType: "account",
          targetId: id,
          details: {
            account_name: payload.account_name.trim(), organization_id: discovered.organizationId, cloud_provider_id: pid,
            members_total: sync.members_total, members_included: sync.members_included, ...changeCounts(sync),
          },
          ip: ctx.ip,
        })
        const account = (yield* getAccountSummary(ctx.workspaceId, id))!
        const organization = (yield* getOrganizationSummary(ctx.workspaceId, id))!
        return { ok: true, message: OrganizationMessages.organizationAdded, data: { account, tested: true, organization, sync } }
      }))
  })

/** How many members each kind of change names (the audit record's details). */
const changeCounts = (sync: OrganizationSync) =>
  Object.fromEntries(Object.entries(sync.changes).map(([k, v]) => [k, v.length]))

/** The organisation's credentials, opened; a blob that does not open is a defect (moved row, other APP_SECRET_KEY). */
const openOrganization = (org: OrganizationRow) =>
  Effect.gen(function* () {
    const config = yield* AppConfig
    const stored = openCredentials(config.appSecretKey, org.credentialsSealed, { workspaceId: org.workspaceId, accountId: org.accountId })
    if (stored === undefined) return yield* Effect.die(new Error(`${ScanningServerMessages.credentialsUnreadable} (account ${org.accountId})`))
    return stored
  })

/** Rediscovers the organisation and applies it (Sync now, a selection change). */
const syncNow = (request: Request, accountId: number, trigger: OrganizationSync["trigger"]) =>
  Effect.gen(function* () {
    const config = yield* AppConfig
    const loaded = yield* scoped(request, MANAGE_ACCOUNTS, (ctx) =>
      Effect.gen(function* () {
        if (ctx.accountIds !== null) return yield* new Forbidden({ message: AccountGroupMessages.limitedCannotManageOrganization })
        const org = yield* loadOrganization(ctx.workspaceId, accountId)
        if (org === undefined) return yield* new NotFound({ message: OrganizationMessages.organizationNotFound })
        return { org, externalId: yield* externalIdFor(ctx.workspaceId) }
      }))
    const { org, externalId } = loaded
    const stored: StoredCredentials = yield* openOrganization(org)
    const discovered = yield* discoverOrganization({
      cloudProviderId: org.cloudProviderId, stored, rootId: org.rootId, awsEndpoint: config.awsEndpointUrl,
    }).pipe(
      Effect.catchTag("DiscoveryFailed", (failure) =>
        scoped(request, MANAGE_ACCOUNTS, (ctx) =>
          Effect.gen(function* () {
            yield* recordFailedSync(ctx.workspaceId, accountId, trigger, failure.message, ctx.userId)
            yield* recordAudit({
              action: "organization.sync_failed", workspaceId: ctx.workspaceId, actorUserId: ctx.userId, targetType: "account",
              targetId: accountId, details: { trigger, reason: failure.reason }, ip: ctx.ip,
            })
          })).pipe(Effect.andThen(Effect.fail(discoveryError(org.cloudProviderId)(failure))))),
    )
    const access = memberAccess(org.cloudProviderId, stored, { roleName: org.memberRoleName, externalId, accessKeyId: org.accessKeyId, tenantId: org.tenantId })
    const probes = yield* probeMembers(org.cloudProviderId, discovered.discovery, org.selection, access, config.awsEndpointUrl)
    return yield* scoped(request, MANAGE_ACCOUNTS, (ctx) =>
      Effect.gen(function* () {
        const current = yield* loadOrganization(ctx.workspaceId, accountId)
        if (current === undefined) return yield* new NotFound({ message: OrganizationMessages.organizationNotFound })
        const sync = yield* applyDiscovery({
          org: current, discovery: discovered.discovery, probes, access, appSecretKey: config.appSecretKey, trigger, userId: ctx.userId,
        })
        yield* recordAudit({
          action: "organization.synced", workspaceId: ctx.workspaceId, actorUserId: ctx.userId, targetType: "account", targetId: accountId,
          details: { trigger, members_total: sync.members_total, members_included: sync.members_included, ...changeCounts(sync) }, ip: ctx.ip,
        })
        return sync
      }))
  })

/** The AWS member-role template for this workspace's external id (see aws-template.ts). */
const awsTemplate = (request: Request, query: { readonly role_name?: string; readonly trusted_principal_arn?: string }) =>
  scoped(request, MANAGE_ACCOUNTS, (ctx) =>
    Effect.gen(function* () {
      const externalId = yield* externalIdFor(ctx.workspaceId)
      const orgs = yield* listOrganizations(ctx.workspaceId)
      const known = orgs.find((o) => o.cloud_provider_id === ProviderIds.AWS && o.management_account_id !== null)
      const principal = query.trusted_principal_arn ?? (known === undefined ? undefined : `arn:aws:iam::${known.management_account_id}:root`)
      if (principal === undefined) {
        return yield* invalid("Enter the principal the member roles trust: arn:aws:iam::<management account id>:root", "trusted_principal_arn")
      }
      const roleName = query.role_name ?? DEFAULT_MEMBER_ROLE_NAME
      const input = { roleName, externalId, trustedPrincipalArn: principal }
      const checked = checkTemplateInput(input)
      if (checked._tag === "Failure") {
        return yield* invalid(checked.failure.message, checked.failure.field === "roleName" ? "role_name" : "trusted_principal_arn")
      }
      const units = known === undefined ? [] : [known.root_id]
      return {
        ok: true,
        data: {
          role_name: roleName,
          external_id: externalId,
          trusted_principal_arn: principal,
          organization_template: templateJson(organizationTemplate({ ...input, ...(units.length > 0 ? { organizationalUnitIds: units } : {}) })),
          member_template: templateJson(memberRoleTemplate(input)),
          cli_commands: awsCliDeployCommands({ ...input, organizationalUnitIds: units.length > 0 ? units : ["r-exampleroot"], region: "us-east-1" }),
        },
      }
    }))

export const OrganizationsHandlers = HttpApiBuilder.group(Api, "organizations", (handlers) =>
  fillNotImplemented(handlers
    .handle("list", ({ request }) =>
      scoped(request, READ, (ctx) =>
        Effect.map(withOrganizationView(listOrganizations(ctx.workspaceId)), (organizations) => ({ ok: true, data: { organizations } }))))
    .handle("awsTemplate", ({ request, query }) => awsTemplate(request, query))
    .handle("get", ({ request, params }) =>
      scoped(request, READ, (ctx) =>
        Effect.gen(function* () {
          const detail = yield* withOrganizationView(getOrganizationDetail(ctx.workspaceId, params.id))
          if (detail === undefined) return yield* new NotFound({ message: OrganizationMessages.organizationNotFound })
          return { ok: true, data: detail }
        })))
    .handle("putSelection", ({ request, params, payload }) =>
      Effect.gen(function* () {
        yield* scoped(request, MANAGE_ACCOUNTS, (ctx) =>
          Effect.gen(function* () {
            if (ctx.accountIds !== null) return yield* new Forbidden({ message: AccountGroupMessages.limitedCannotManageOrganization })
            const org = yield* loadOrganization(ctx.workspaceId, params.id, true)
            if (org === undefined) return yield* new NotFound({ message: OrganizationMessages.organizationNotFound })
            if (payload.member_role_name !== undefined && org.cloudProviderId !== ProviderIds.AWS) {
              return yield* invalid(OrganizationMessages.roleNameInvalid, "member_role_name")
            }
            const selection: MemberSelection = {
              include_units: payload.include_units, exclude_units: payload.exclude_units,
              include_accounts: payload.include_accounts, exclude_accounts: payload.exclude_accounts,
            }
            const unknownUnits = unknownUnitsOf(selection, yield* organizationUnitIds(ctx.workspaceId, params.id), org.selection)
            if (unknownUnits !== undefined) return yield* unknownUnits
            yield* updateSelection(ctx.workspaceId, params.id, selection, payload.member_role_name, payload.member_concurrency)
            // A new member role reaches every member in this same transaction (store.ts `updateMemberRole`).
            const previousRoleName = org.memberRoleName ?? DEFAULT_MEMBER_ROLE_NAME
            const roleChanged = payload.member_role_name !== undefined && payload.member_role_name !== previousRoleName
            if (roleChanged) {
              const config = yield* AppConfig
              const stored = yield* openOrganization(org)
              const externalId = yield* externalIdFor(ctx.workspaceId)
              const roleName = payload.member_role_name!
              const membersUpdated = yield* updateMemberRole({
                workspaceId: ctx.workspaceId, organizationId: params.id, roleName,
                credentials: (cloudAccountId) => memberAwsCredentials(stored, cloudAccountId, roleName, externalId),
                appSecretKey: config.appSecretKey,
              })
              yield* recordAudit({
                action: "organization.member_role_changed", workspaceId: ctx.workspaceId, actorUserId: ctx.userId, targetType: "account",
                targetId: params.id, details: { previous_member_role_name: previousRoleName, member_role_name: roleName, members_updated: membersUpdated },
                ip: ctx.ip,
              })
            }
            yield* recordAudit({
              action: "organization.selection_updated", workspaceId: ctx.workspaceId, actorUserId: ctx.userId, targetType: "account",
              targetId: params.id,
              details: {
                ...selection, member_role_name: payload.member_role_name ?? null,
                ...(roleChanged ? { previous_member_role_name: previousRoleName } : {}),
              },
              ip: ctx.ip,
            })
          }))
        yield* syncNow(request, params.id, "selection")
        return yield* scoped(request, READ, (ctx) =>
          Effect.map(getOrganizationDetail(ctx.workspaceId, params.id), (detail) => ({ ok: true, message: OrganizationMessages.selectionSaved, data: detail! })))
      }))
    .handle("syncs", ({ request, params }) =>
      scoped(request, READ, (ctx) =>
        Effect.gen(function* () {
          // The organisation's account (a limited member's too, migration 0039); its syncs as the scope sees them (a
          // limited member: none, their change lists name members of other units).
          yield* withOrganizationView(organizationAccount(ctx.workspaceId, params.id))
          return { ok: true, data: { syncs: yield* listSyncs(ctx.workspaceId, params.id, SYNC_HISTORY) } }
        })))
    .handle("sync", ({ request, params }) =>
      Effect.map(syncNow(request, params.id, "manual"), (sync) => ({ ok: true, message: OrganizationMessages.syncStarted, data: sync })))
    .handle("fleetScans", ({ request, params }) =>
      scoped(request, READ, (ctx) =>
        Effect.gen(function* () {
          // As the syncs: a limited member sees none (a fleet scan's counts span every member).
          yield* withOrganizationView(organizationAccount(ctx.workspaceId, params.id))
          return { ok: true, data: { fleet_scans: yield* listFleetScans(ctx.workspaceId, params.id, FLEET_SCAN_HISTORY) } }
        })))
    .handle("fleetScan", ({ request, params }) =>
      scoped(request, READ, (ctx) =>
        Effect.gen(function* () {
          const scan = yield* getFleetScan(ctx.workspaceId, params.id)
          if (scan === undefined) return yield* new NotFound({ message: OrganizationMessages.fleetScanNotFound })
          return { ok: true, data: scan }
        })))
    .handle("fleet", fleet)
    .handle("orgCompliance", orgCompliance)
    .handle("orgComplianceCsv", orgComplianceCsv)
    .handle("orgCompliancePdf", orgCompliancePdf)),
).pipe(Layer.provide(AuthConfigFromApp))
