/**
 * Discovering an organisation and applying what was found (issue 31): onboarding, "Sync now", a selection change and
 * the daily sync all go through `discoverOrganization` (network, no transaction open) and then
 * `store.applyDiscovery` (one transaction). AWS members are also probed before they are applied (the member role is
 * assumed and reads itself, ./aws-discovery.ts `probeAwsMember`), so the organisation page shows which members cannot
 * be reached, with the provider's words, before any scan.
 */
import { Effect, type Redacted } from "effect"
import { ProviderIds } from "../../src/contracts/constants.ts"
import { DEFAULT_MEMBER_ROLE_NAME, memberIncluded, unitChainOf, type MemberSelection } from "../../src/contracts/organizations.ts"
import type { StoredCredentials } from "../accounts/credential-vault.ts"
import { azureEndpointsFromEnv } from "../scanner/azure/endpoints.ts"
import { gcpEndpointsFromEnv } from "../scanner/gcp/endpoints.ts"
import { gcpCredentialsFromFields } from "../scanner/gcp/session.ts"
import { discoverAws, mapLimit, memberAwsCredentials, memberRoleArn, probeAwsMember } from "./aws-discovery.ts"
import { discoverAzure } from "./azure-discovery.ts"
import { DiscoveryFailed, type OrganizationDiscovery } from "./discovery.ts"
import { discoverGcp } from "./gcp-discovery.ts"
import { memberCredentials } from "./member-credentials.ts"
import type { MemberAccess } from "./store.ts"

/** Member probes in flight at once. */
const PROBE_CONCURRENCY = 10

export interface Discovered {
  readonly discovery: OrganizationDiscovery
  /** The organisation's own id (the account's cloud id): AWS "o-…", else the root id. */
  readonly organizationId: string
  readonly managementAccountId: string | null
}

export interface DiscoverInput {
  readonly cloudProviderId: number
  readonly stored: StoredCredentials
  /** GCP: organizations/N or folders/N; Azure: the management group; AWS: ignored (the root is found). */
  readonly rootId: string | undefined
  readonly awsEndpoint: string | undefined
}

export const discoverOrganization = (input: DiscoverInput): Effect.Effect<Discovered, DiscoveryFailed> => {
  switch (input.cloudProviderId) {
    case ProviderIds.AWS:
      return Effect.map(discoverAws(input.stored, { endpoint: input.awsEndpoint }), (d) => ({
        discovery: d,
        organizationId: d.organizationId === "" ? d.rootId : d.organizationId,
        managementAccountId: d.managementAccountId === "" ? null : d.managementAccountId,
      }))
    case ProviderIds.GCP: {
      const credentials = gcpCredentialsFromFields({ service_account_key: input.stored.service_account_key })
      if (credentials === undefined) return Effect.fail(new DiscoveryFailed({ reason: "invalid_input", message: "Enter the service account key" }))
      const endpoints = gcpEndpointsFromEnv()
      return Effect.map(
        discoverGcp({ credentials, rootId: input.rootId ?? "", ...(endpoints === undefined ? {} : { endpoints }) }),
        (d) => ({ discovery: d, organizationId: d.rootId, managementAccountId: null }),
      )
    }
    case ProviderIds.Azure: {
      const { tenant_id, client_id, client_secret } = input.stored
      if (tenant_id === undefined || client_id === undefined || client_secret === undefined) {
        return Effect.fail(new DiscoveryFailed({ reason: "invalid_input", message: "Enter the tenant id, client id and client secret" }))
      }
      const endpoints = azureEndpointsFromEnv()
      return Effect.map(
        discoverAzure({
          credentials: { tenantId: tenant_id, clientId: client_id, clientSecret: client_secret },
          managementGroupId: input.rootId ?? "",
          ...(endpoints === undefined ? {} : { endpoints }),
        }),
        (d) => ({ discovery: d, organizationId: d.rootId, managementAccountId: tenant_id }),
      )
    }
    default:
      return Effect.fail(new DiscoveryFailed({ reason: "invalid_input", message: "Unknown cloud provider" }))
  }
}

/** How members' accounts are reached, per provider. */
export const memberAccess = (
  cloudProviderId: number,
  stored: StoredCredentials,
  options: { readonly roleName: string | null; readonly externalId: string; readonly accessKeyId: string | null; readonly tenantId: string | null },
): MemberAccess => {
  if (cloudProviderId === ProviderIds.AWS) {
    const roleName = options.roleName ?? DEFAULT_MEMBER_ROLE_NAME
    return {
      roleName,
      credentials: (m) => memberAwsCredentials(stored, m.cloudAccountId, roleName, options.externalId),
      authMethod: "role",
      principal: (m) => memberRoleArn(m.cloudAccountId, roleName),
      accessKeyId: stored.access_key ?? null,
      tenantId: null,
    }
  }
  return {
    roleName: null,
    credentials: (m) => memberCredentials(cloudProviderId, stored, m.cloudAccountId) ?? {},
    authMethod: "access_key",
    principal: () => null,
    accessKeyId: options.accessKeyId,
    tenantId: options.tenantId,
  }
}

/**
 * Probes the members that will be scanned (included and active): AWS only, where reaching a member is a separate grant
 * (a role in each account); a GCP or Azure grant at the organisation level reaches every member or none.
 */
export const probeMembers = (
  cloudProviderId: number,
  discovery: OrganizationDiscovery,
  selection: MemberSelection,
  access: MemberAccess,
  awsEndpoint: string | undefined,
): Effect.Effect<ReadonlyMap<string, string | undefined>> =>
  Effect.gen(function* () {
    if (cloudProviderId !== ProviderIds.AWS) return new Map()
    const parentOf = new Map(discovery.units.map((u) => [u.id, u.parentId]))
    const scanned = discovery.members.filter((m) => m.state === "active" && memberIncluded(m.cloudAccountId, unitChainOf(m.unitId, parentOf), selection))
    const context = yield* Effect.context<never>()
    const results = yield* Effect.promise(() =>
      mapLimit(scanned, PROBE_CONCURRENCY, (m) =>
        Effect.runPromiseWith(context)(probeAwsMember(access.credentials(m), { endpoint: awsEndpoint })).then((r) => [m.cloudAccountId, r] as const)),
    )
    return new Map(results)
  })

/** Everything `applyDiscovery` needs besides the organisation row. */
export interface SyncInputs {
  readonly discovered: Discovered
  readonly access: MemberAccess
  readonly probes: ReadonlyMap<string, string | undefined>
  readonly appSecretKey: Redacted.Redacted<string>
}
