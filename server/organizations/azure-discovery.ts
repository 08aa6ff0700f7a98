/**
 * Discovering an Azure management group (issue 31) with Azure Resource Manager, as the organisation's service principal:
 * - GET /providers/Microsoft.Management/managementGroups/{groupId}?api-version=2020-05-01: the root's display name;
 * - GET …/managementGroups/{groupId}/descendants?api-version=2020-05-01, paged by `nextLink`: every management group
 *   (type Microsoft.Management/managementGroups) and subscription (type /subscriptions) below, each with
 *   `properties.displayName` and `properties.parent.id` (its management group's id);
 * - GET /subscriptions?api-version=2022-12-01, paged by `nextLink`: the state and tags of the subscriptions the principal
 *   can read. Enabled, Warned and PastDue subscriptions still run (active); Disabled ones are read-only, their
 *   resources stopped (suspended); Deleted ones are gone (closed).
 *
 * Units are management groups by name (the last segment of their id); members are the descendant subscriptions by id.
 *
 * Every field the decoders read is optional in the official models, so they require none; the `Checked` type in
 * tests/organizations/azure-discovery.test.ts checks them at compile time against `@azure/arm-managementgroups`
 * (ManagementGroup, DescendantListResult: api-version 2021-04-01, whose members read here are those of 2020-05-01) and
 * `@azure/arm-resources-subscriptions` (Subscription, 2022-12-01), `properties.*` flattened as the SDKs do.
 *
 * A descendant subscription that is not in the principal's subscription list: the descendants API carries no state, and
 * Azure RBAC gives a role assigned on a management group to every subscription below it, so such a subscription is
 * one the principal was granted the hierarchy on (Microsoft.Management/managementGroups/descendants/read) but not the
 * resources (no Reader on the group). Its state is unknown: it is kept `active` with `cloudState` "" and no tags, so
 * it is scanned and its scan fails with access denied on that account, telling the user what to grant, rather than the
 * member silently disappearing.
 *
 * A descendant whose parent is not among the units found (the API lists them all, so only an inconsistent answer)
 * sits directly in the root.
 *
 * Fails with DiscoveryFailed: invalid_input (a malformed group name or principal), invalid_credentials (Entra ID refused
 * the client credentials, or 401), access_denied (403), not_found (404), unreachable (network, timeouts, 5xx and 429
 * after the client's retries, a `nextLink` to another host, an answer of another shape).
 */
import { Schema, type Effect } from "effect"
import { RestError, type RestClient } from "../scanner/rest/http.ts"
import { InvalidAzureCredentials, validateAzurePrincipal, type AzurePrincipalInput } from "../scanner/azure/auth.ts"
import { resolveAzureEndpoints, type AzureEndpoints } from "../scanner/azure/endpoints.ts"
import { azureRestClient, type AzureClientOptions } from "../scanner/azure/session.ts"
import { runDiscovery } from "./discovery-run.ts"
import { DiscoveryFailed, type DiscoveredMember, type DiscoveredUnit, type OrganizationDiscovery } from "./discovery.ts"

const MANAGEMENT_API = "api-version=2020-05-01"
const SUBSCRIPTIONS_API = "api-version=2022-12-01"

/** ManagementGroup (2020-05-01): only what discovery reads. */
export const AzureManagementGroup = Schema.Struct({
  id: Schema.optionalKey(Schema.String),
  name: Schema.optionalKey(Schema.String),
  properties: Schema.optionalKey(Schema.Struct({ displayName: Schema.optionalKey(Schema.String) })),
})

/**
 * DescendantInfo. The REST specification marks `id`, `type`, `properties`, `properties.displayName` and
 * `properties.parent` x-nullable (null on the wire, like absent: no display name, no parent → directly in the root);
 * the SDK's model leaves the nulls out.
 */
export const AzureDescendant = Schema.Struct({
  id: Schema.optionalKey(Schema.NullOr(Schema.String)),
  type: Schema.optionalKey(Schema.NullOr(Schema.String)),
  name: Schema.optionalKey(Schema.String),
  properties: Schema.optionalKey(
    Schema.NullOr(
      Schema.Struct({
        displayName: Schema.optionalKey(Schema.NullOr(Schema.String)),
        parent: Schema.optionalKey(Schema.NullOr(Schema.Struct({ id: Schema.optionalKey(Schema.String) }))),
      }),
    ),
  ),
})

export const AzureDescendantsPage = Schema.Struct({
  value: Schema.optionalKey(Schema.Array(AzureDescendant)),
  nextLink: Schema.optionalKey(Schema.NullOr(Schema.String)),
})

/** Subscription (2022-12-01). */
export const AzureSubscriptionItem = Schema.Struct({
  subscriptionId: Schema.optionalKey(Schema.String),
  displayName: Schema.optionalKey(Schema.String),
  state: Schema.optionalKey(Schema.String),
  tags: Schema.optionalKey(Schema.Record(Schema.String, Schema.String)),
})

export const AzureSubscriptionsPage = Schema.Struct({
  value: Schema.optionalKey(Schema.Array(AzureSubscriptionItem)),
  nextLink: Schema.optionalKey(Schema.NullOr(Schema.String)),
})

export interface AzureDiscoveryInput extends AzureClientOptions {
  /** The service principal (a subscription id, when present, is ignored). */
  readonly credentials: AzurePrincipalInput
  /** The management group's name (its id's last segment; the tenant root group's is the tenant id). */
  readonly managementGroupId: string
  readonly endpoints?: Partial<AzureEndpoints>
}

/** Management group names: up to 90 letters, digits, hyphens, underscores, periods and parentheses, not ending in a period. */
const GROUP_NAME = /^[A-Za-z0-9\-_.()]{1,90}$/

const STATES: Readonly<Record<string, DiscoveredMember["state"]>> = {
  enabled: "active",
  warned: "active",
  pastdue: "active",
  disabled: "suspended",
  deleted: "closed",
}

const lastSegment = (id: string | null | undefined): string | undefined => {
  const s = id?.replace(/\/+$/, "")
  if (s === undefined || s === "") return undefined
  return s.slice(s.lastIndexOf("/") + 1)
}

const isSubscription = (d: typeof AzureDescendant.Type) => d.type?.toLowerCase() === "/subscriptions" || d.id?.toLowerCase().startsWith("/subscriptions/") === true
const isGroup = (d: typeof AzureDescendant.Type) => d.type?.toLowerCase() === "microsoft.management/managementgroups" || d.id?.toLowerCase().startsWith("/providers/microsoft.management/managementgroups/") === true

const toFailure = (group: string) => (error: unknown): DiscoveryFailed => {
  if (error instanceof DiscoveryFailed) return error
  if (error instanceof RestError) {
    if (error.op === "oauth2.token") {
      return new DiscoveryFailed({ reason: error.kind === "access_denied" ? "invalid_credentials" : "unreachable", message: error.message })
    }
    if (error.status === 401) return new DiscoveryFailed({ reason: "invalid_credentials", message: `Azure rejected the access token: ${error.message}` })
    if (error.status === 403) return new DiscoveryFailed({ reason: "access_denied", message: `The application cannot read management group ${group} (${error.op}): ${error.code}: ${error.message}` })
    if (error.status === 404) return new DiscoveryFailed({ reason: "not_found", message: `Management group ${group} was not found (${error.op}): ${error.message}` })
    if (error.status === 400) return new DiscoveryFailed({ reason: "invalid_input", message: `Azure refused the request (${error.op}): ${error.code}: ${error.message}` })
    return new DiscoveryFailed({ reason: "unreachable", message: `Could not read management group ${group} (${error.op}): ${error.code}: ${error.message}` })
  }
  return new DiscoveryFailed({ reason: "unreachable", message: error instanceof Error ? error.message : String(error) })
}

/** Every page of an ARM list, following `nextLink` (the client refuses a link to a host it was not configured for). */
async function listAll<P extends { readonly value?: ReadonlyArray<unknown>; readonly nextLink?: string | null }>(
  client: RestClient,
  url: string,
  audience: string,
  op: string,
  schema: Schema.ConstraintDecoder<P>,
): Promise<ReadonlyArray<NonNullable<P["value"]>[number]>> {
  const out: Array<NonNullable<P["value"]>[number]> = []
  let next: string | undefined = url
  while (next !== undefined) {
    const page: P = await client.json({ url: next, audience, op }, schema)
    out.push(...(page.value ?? []))
    next = page.nextLink === undefined || page.nextLink === null || page.nextLink === "" ? undefined : page.nextLink
  }
  return out
}

async function discover(input: AzureDiscoveryInput, signal: AbortSignal): Promise<OrganizationDiscovery> {
  const groupId = input.managementGroupId.trim()
  if (!GROUP_NAME.test(groupId) || groupId.endsWith(".")) {
    throw new DiscoveryFailed({ reason: "invalid_input", message: `"${input.managementGroupId}" is not a management group name (up to 90 letters, digits, -, _, ., ( and ), not ending in a period)` })
  }
  let principal: AzurePrincipalInput
  let endpoints: AzureEndpoints
  try {
    principal = validateAzurePrincipal(input.credentials)
    endpoints = resolveAzureEndpoints(input.endpoints)
  } catch (error) {
    throw new DiscoveryFailed({ reason: "invalid_input", message: error instanceof InvalidAzureCredentials || error instanceof RangeError ? error.message : "Invalid Azure credentials" })
  }
  const client = azureRestClient(principal, endpoints, { ...input, signal })
  const audience = endpoints.armAudience
  const groupUrl = `${endpoints.arm}/providers/Microsoft.Management/managementGroups/${encodeURIComponent(groupId)}`

  const root = await client.json({ url: `${groupUrl}?${MANAGEMENT_API}`, audience, op: "Microsoft.Management/managementGroups/read" }, AzureManagementGroup)
  const [descendants, subscriptions] = await Promise.all([
    listAll(client, `${groupUrl}/descendants?${MANAGEMENT_API}`, audience, "Microsoft.Management/managementGroups/descendants/read", AzureDescendantsPage),
    listAll(client, `${endpoints.arm}/subscriptions?${SUBSCRIPTIONS_API}`, audience, "Microsoft.Resources/subscriptions/read", AzureSubscriptionsPage),
  ])

  // The group's name as Azure spells it (names are case-insensitive; ids in `parent.id` use Azure's spelling).
  const rootId = root.name ?? lastSegment(root.id) ?? groupId
  const rootName = root.properties?.displayName ?? rootId
  const units: DiscoveredUnit[] = [{ id: rootId, parentId: null, name: rootName, kind: "management_group" }]
  const unitIds = new Map([[rootId.toLowerCase(), rootId]])
  const groups = descendants.filter(isGroup)
  for (const g of groups) {
    const id = g.name ?? lastSegment(g.id)
    if (id !== undefined && !unitIds.has(id.toLowerCase())) unitIds.set(id.toLowerCase(), id)
  }
  const unitOf = (parentId: string | undefined): string => unitIds.get(lastSegment(parentId)?.toLowerCase() ?? "") ?? rootId
  const placed = new Set([rootId.toLowerCase()])
  for (const g of groups) {
    const id = g.name ?? lastSegment(g.id)
    if (id === undefined || placed.has(id.toLowerCase())) continue
    placed.add(id.toLowerCase())
    units.push({ id, parentId: unitOf(g.properties?.parent?.id), name: g.properties?.displayName ?? id, kind: "management_group" })
  }

  const visible = new Map(subscriptions.flatMap((s) => (s.subscriptionId === undefined ? [] : [[s.subscriptionId.toLowerCase(), s] as const])))
  const members: DiscoveredMember[] = []
  const seen = new Set<string>()
  for (const d of descendants) {
    if (!isSubscription(d)) continue
    const id = d.name ?? lastSegment(d.id)
    if (id === undefined || seen.has(id.toLowerCase())) continue
    seen.add(id.toLowerCase())
    const sub = visible.get(id.toLowerCase())
    const cloudState = sub === undefined ? "" : (sub.state ?? "Enabled")
    members.push({
      cloudAccountId: id,
      name: d.properties?.displayName ?? sub?.displayName ?? id,
      unitId: unitOf(d.properties?.parent?.id),
      state: STATES[cloudState.toLowerCase()] ?? "active",
      cloudState,
      tags: sub?.tags ?? {},
    })
  }
  return { rootId, rootName, units, members }
}

/** The management group's groups and subscriptions (see the module header for the calls, the states and the failures). */
export const discoverAzure = (input: AzureDiscoveryInput): Effect.Effect<OrganizationDiscovery, DiscoveryFailed> =>
  runDiscovery((signal) => discover(input, signal), toFailure(input.managementGroupId))
