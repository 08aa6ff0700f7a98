/**
 * A fake Azure management-group hierarchy for the discovery tests, next to the fake Azure of tests/scanner-azure (its
 * Entra token endpoint and ARM guard): Microsoft.Management 2020-05-01 `ManagementGroup` (GET) and
 * `DescendantListResult` (GET …/descendants, a flat list of `DescendantInfo` paged by `nextLink` with `$skiptoken`),
 * and the 2022-12-01 `SubscriptionListResult` (GET /subscriptions) of the subscriptions the app may read. Output-only
 * fields are set on some items and left out of others; a group the app may not read answers 403 AuthorizationFailed.
 *
 * Optional fields are left out where discovery can do without them, so the decoders and their fallbacks are exercised
 * on every answer: the GET leaves `type` and `name` out for every other group (its id's last segment names it); of the
 * descendants, every third carries only `id` (no `type` or `name`) and every third no `id` (`name` and `type`), an
 * absent display name is `null` (the REST specification's x-nullable) on even positions and left out on odd ones, and
 * a descendant directly in the group asked about has `parent` set, left out or `null` in turn (all mean "in the root").
 */
import { decodePageToken, encodePageToken, type CloudFixtureServer, type FixtureReply, type FixtureRequest } from "../support/cloud-fixture-server.ts"
import { armError, type Json } from "../scanner-azure/azure-world.ts"

export interface MgNode {
  readonly name: string
  readonly displayName?: string
  readonly parent: string | null
}

export interface MgSubscription {
  readonly subscriptionId: string
  /** The management group the subscription sits directly in. */
  readonly parent: string
  /** In the descendants answer (absent on some items, as the model allows). */
  readonly displayName?: string
  /** The subscription list's entry; null = the app cannot read the subscription (not in its list). */
  readonly listed: { readonly displayName?: string; readonly state?: string; readonly tags?: Readonly<Record<string, string>> } | null
}

export interface AzureOrgWorld {
  readonly tenantId: string
  readonly groups: ReadonlyArray<MgNode>
  readonly subscriptions: ReadonlyArray<MgSubscription>
  /** Group names whose GET and descendants answer 403. */
  readonly denied: Set<string>
  pageSize: number
}

const groupId = (name: string) => `/providers/Microsoft.Management/managementGroups/${name}`

export function installAzureOrgWorld(server: CloudFixtureServer, world: AzureOrgWorld): void {
  const armBase = server.base("management.azure.com")
  const page = (req: FixtureRequest, items: ReadonlyArray<Json>): FixtureReply => {
    const start = decodePageToken(req.query.get("$skiptoken"))
    const slice = items.slice(start, start + world.pageSize)
    const next = start + world.pageSize < items.length ? encodePageToken(start + world.pageSize) : undefined
    const nextLink = next === undefined ? undefined : `${armBase}${req.path}?${new URLSearchParams([...[...req.query].filter(([k]) => k !== "$skiptoken"), ["$skiptoken", next]]).toString()}`
    return { body: { value: slice, ...(nextLink === undefined ? {} : { nextLink }) } }
  }
  const find = (name: string) => world.groups.find((g) => g.name.toLowerCase() === name.toLowerCase())
  const forbidden = (name: string): FixtureReply =>
    armError(403, "AuthorizationFailed", `The client 'c1c1c1c1-0000-4000-8000-000000000001' does not have authorization to perform action 'Microsoft.Management/managementGroups/read' over scope '${groupId(name)}' or the scope is invalid.`)
  const below = (name: string): MgNode[] => world.groups.filter((g) => g.parent === name).flatMap((g) => [g, ...below(g.name)])

  server.route("GET", "management.azure.com", /^\/providers\/Microsoft\.Management\/managementGroups\/([^/]+)$/i, (_req, m) => {
    const g = find(m[1]!)
    if (g === undefined) return armError(404, "NotFound", `'${m[1]}' not found`)
    if (world.denied.has(g.name)) return forbidden(g.name)
    const parent = g.parent === null ? undefined : find(g.parent)
    const named = world.groups.indexOf(g) % 2 === 0
    return {
      body: {
        id: groupId(g.name),
        ...(named ? { type: "Microsoft.Management/managementGroups", name: g.name } : {}),
        properties: {
          tenantId: world.tenantId,
          ...(g.displayName === undefined ? {} : { displayName: g.displayName }),
          details: {
            version: 3,
            updatedTime: "2025-11-02T09:15:00.0000000Z",
            updatedBy: "a3a3a3a3-0000-4000-8000-000000000003",
            ...(parent === undefined ? {} : { parent: { id: groupId(parent.name), name: parent.name, displayName: parent.displayName ?? parent.name } }),
          },
        },
      },
    }
  })

  server.route("GET", "management.azure.com", /^\/providers\/Microsoft\.Management\/managementGroups\/([^/]+)\/descendants$/i, (req, m) => {
    const g = find(m[1]!)
    if (g === undefined) return armError(404, "NotFound", `'${m[1]}' not found`)
    if (world.denied.has(g.name)) return forbidden(g.name)
    const groups = below(g.name)
    const inScope = new Set([g.name, ...groups.map((x) => x.name)])
    // Azure answers one flat list; a child group may come before its parent.
    const found = [
      ...groups.reverse().map((x) => ({ id: groupId(x.name), type: "Microsoft.Management/managementGroups", name: x.name, displayName: x.displayName, parent: x.parent! })),
      ...world.subscriptions
        .filter((s) => inScope.has(s.parent))
        .map((s) => ({ id: `/subscriptions/${s.subscriptionId}`, type: "/subscriptions", name: s.subscriptionId, displayName: s.displayName, parent: s.parent })),
    ]
    const items: Json[] = found.map((d, i) => {
      const displayName = d.displayName !== undefined ? { displayName: d.displayName } : i % 2 === 0 ? { displayName: null } : {}
      const parent = d.parent !== g.name || i % 3 === 0 ? { parent: { id: groupId(d.parent) } } : i % 3 === 1 ? {} : { parent: null }
      const properties = { ...displayName, ...parent }
      return {
        ...(i % 3 === 2 ? {} : { id: d.id }),
        ...(i % 3 === 1 ? {} : { type: d.type, name: d.name }),
        ...(Object.keys(properties).length > 0 ? { properties } : i % 2 === 0 ? { properties: null } : {}),
      }
    })
    return page(req, items)
  })

  server.route("GET", "management.azure.com", /^\/subscriptions$/, (req) =>
    page(
      req,
      world.subscriptions.flatMap((s) =>
        s.listed === null
          ? []
          : [
              {
                id: `/subscriptions/${s.subscriptionId}`,
                authorizationSource: "RoleBased",
                managedByTenants: [],
                subscriptionId: s.subscriptionId,
                tenantId: world.tenantId,
                ...(s.listed.displayName === undefined ? {} : { displayName: s.listed.displayName }),
                ...(s.listed.state === undefined ? {} : { state: s.listed.state }),
                ...(s.listed.tags === undefined ? {} : { tags: s.listed.tags }),
                subscriptionPolicies: { locationPlacementId: "Public_2014-09-01", quotaId: "EnterpriseAgreement_2014-09-01", spendingLimit: "Off" },
              },
            ],
      ),
    ),
  )
}

export const SUB = (n: number) => `33333333-3333-4333-8333-${String(n).padStart(12, "0")}`

/**
 * Contoso (contoso-root)
 * ├─ Sandbox                         SUB(1)  Enabled, no tags; no display name in the descendants answer
 * ├─ Platform (platform)
 * │  ├─ Connectivity                 SUB(2)  listed without a state (Enabled), tags
 * │  └─ Identity (identity)
 * │     └─ Identity                  SUB(3)  Warned
 * └─ Landing zones (landing-zones)
 *    ├─ Corp (corp)
 *    │  ├─ Corp 1                    SUB(4)  PastDue; no display name in the descendants answer
 *    │  ├─ Corp 2                    SUB(5)  Disabled
 *    │  └─ Corp 3                    SUB(6)  Deleted; listed without a display name
 *    └─ online (no display name)
 *       ├─ Online 1                  SUB(7)  not in the app's subscription list
 *       └─ Online 2                  SUB(8)  listed without a state or a display name
 */
export function contosoHierarchy(tenantId: string, pageSize = 2): AzureOrgWorld {
  return {
    tenantId,
    pageSize,
    denied: new Set(),
    groups: [
      { name: "contoso-root", displayName: "Contoso", parent: null },
      { name: "platform", displayName: "Platform", parent: "contoso-root" },
      { name: "identity", displayName: "Identity", parent: "platform" },
      { name: "landing-zones", displayName: "Landing zones", parent: "contoso-root" },
      { name: "corp", displayName: "Corp", parent: "landing-zones" },
      { name: "online", parent: "landing-zones" },
    ],
    subscriptions: [
      { subscriptionId: SUB(1), parent: "contoso-root", listed: { displayName: "Sandbox", state: "Enabled" } },
      { subscriptionId: SUB(2), parent: "platform", displayName: "Connectivity", listed: { displayName: "Connectivity", tags: { env: "prod", owner: "netops" } } },
      { subscriptionId: SUB(3), parent: "identity", displayName: "Identity", listed: { displayName: "Identity", state: "Warned" } },
      { subscriptionId: SUB(4), parent: "corp", listed: { displayName: "Corp 1", state: "PastDue", tags: {} } },
      { subscriptionId: SUB(5), parent: "corp", displayName: "Corp 2", listed: { displayName: "Corp 2", state: "Disabled" } },
      { subscriptionId: SUB(6), parent: "corp", displayName: "Corp 3", listed: { state: "Deleted" } },
      { subscriptionId: SUB(7), parent: "online", displayName: "Online 1", listed: null },
      { subscriptionId: SUB(8), parent: "online", displayName: "Online 2", listed: {} },
    ],
  }
}
