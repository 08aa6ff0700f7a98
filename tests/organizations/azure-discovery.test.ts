/**
 * Azure management-group discovery (issue 31) against the Microsoft.Management and subscription APIs on the loopback
 * fixture server, signed in with the client-credentials flow of tests/scanner-azure's fake Entra ID: nested groups,
 * nextLink paging, subscription states (Disabled → suspended, Deleted → closed, not readable → active with no state),
 * access and input failures, the REST specification's nulls, and a member subscription tested with memberCredentials.
 * At compile time (`Checked`), the decoders against the official `@azure/arm-managementgroups` and
 * `@azure/arm-resources-subscriptions` models.
 */
import { Effect } from "effect"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import type * as ManagementGroups from "@azure/arm-managementgroups"
import type * as Subscriptions from "@azure/arm-resources-subscriptions"
import { testAzureAccount } from "../../server/accounts/connection-test.ts"
import {
  AzureDescendant,
  AzureDescendantsPage,
  AzureManagementGroup,
  AzureSubscriptionItem,
  AzureSubscriptionsPage,
  discoverAzure,
  type AzureDiscoveryInput,
} from "../../server/organizations/azure-discovery.ts"
import { unitPaths, type OrganizationDiscovery } from "../../server/organizations/discovery.ts"
import { memberCredentials } from "../../server/organizations/member-credentials.ts"
import { azureEndpointsAt } from "../../server/scanner/azure/endpoints.ts"
import { ProviderIds } from "../../src/contracts/constants.ts"
import { startCloudFixtureServer, type CloudFixtureServer } from "../support/cloud-fixture-server.ts"
import { emptySubscription, HARDENED, hardenedTenant } from "../scanner-azure/azure-fixtures.ts"
import { installAzureWorld, newAzureWorld, type AzureWorld } from "../scanner-azure/azure-world.ts"
import type { Conforms, Mismatches } from "../scanner-azure/official-models.check.ts"
import { contosoHierarchy, installAzureOrgWorld, SUB, type AzureOrgWorld } from "./azure-org-world.ts"

/**
 * @azure/arm-resources-subscriptions declares the list's page (`_SubscriptionListResult`) but does not export it: written
 * out from the REST specification (specification/resources/resource-manager/Microsoft.Resources/subscriptions/stable/
 * 2022-12-01/subscriptions.json, SubscriptionListResult: `value` required, `nextLink` optional).
 */
interface SubscriptionListResult {
  readonly value: Subscriptions.Subscription[]
  readonly nextLink?: string
}

/**
 * The decoders read only fields of the official models, with compatible types (a build error names the path otherwise;
 * tests/scanner-azure/official-models.check.ts: `properties.*` is flattened as the SDKs do; neither package renames a
 * field read here, and no date-time field is read).
 */
export type Checked = [
  Conforms<Mismatches<typeof AzureManagementGroup.Type, ManagementGroups.ManagementGroup, {}>>,
  Conforms<Mismatches<typeof AzureDescendant.Type, ManagementGroups.DescendantInfo, {}>>,
  Conforms<Mismatches<typeof AzureDescendantsPage.Type, ManagementGroups.DescendantListResult, {}>>,
  Conforms<Mismatches<typeof AzureSubscriptionItem.Type, Subscriptions.Subscription, {}>>,
  // The ARM envelope's `tags` is left out of a top-level comparison; a subscription's tags are its own.
  Conforms<Mismatches<Pick<typeof AzureSubscriptionItem.Type, "tags">, Subscriptions.Subscription, {}, "envelope.">>,
  Conforms<Mismatches<typeof AzureSubscriptionsPage.Type, SubscriptionListResult, {}>>,
]

/** The check rejects these discovery decoder mistakes. */
export type MustFail = [
  // @ts-expect-error a misspelt flattened field (properties.displayname)
  Conforms<Mismatches<{ readonly properties?: { readonly displayname?: string } }, ManagementGroups.DescendantInfo, {}>>,
  // @ts-expect-error a mistyped nested field (parent.id read as a number)
  Conforms<Mismatches<{ readonly properties?: { readonly parent?: { readonly id?: number } } }, ManagementGroups.DescendantInfo, {}>>,
  // @ts-expect-error a subscription state narrowed to some of the documented values
  Conforms<Mismatches<{ readonly state?: "Enabled" | "Disabled" }, Subscriptions.Subscription, {}>>,
  // @ts-expect-error a field the subscription model does not have
  Conforms<Mismatches<{ readonly status?: string }, Subscriptions.Subscription, {}>>,
]

let server: CloudFixtureServer
let world: AzureWorld
let org: AzureOrgWorld

const principal = { tenantId: HARDENED.tenantId, clientId: HARDENED.clientId, clientSecret: HARDENED.secret }

beforeAll(async () => {
  server = await startCloudFixtureServer()
  world = newAzureWorld()
  installAzureWorld(server, world)
  world.tenants.set(HARDENED.tenantId, hardenedTenant())
  org = contosoHierarchy(HARDENED.tenantId)
  installAzureOrgWorld(server, org)
  world.subscriptions.set(SUB(4), emptySubscription({ tenantId: HARDENED.tenantId, subscriptionId: SUB(4) }, "Corp 1"))
})
afterAll(async () => server.close())
beforeEach(() => {
  server.clearFaults()
  server.clearLog()
  org.denied.clear()
})

const input = (managementGroupId: string, extra: Partial<AzureDiscoveryInput> = {}): AzureDiscoveryInput => ({
  credentials: principal,
  managementGroupId,
  endpoints: azureEndpointsAt(server.origin),
  maxAttempts: 2,
  maxRetryDelayMs: 50,
  ...extra,
})
const discover = (group: string, extra?: Partial<AzureDiscoveryInput>) => Effect.runPromise(discoverAzure(input(group, extra)))
const failure = (group: string, extra?: Partial<AzureDiscoveryInput>) => Effect.runPromise(Effect.flip(discoverAzure(input(group, extra))))

const member = (d: OrganizationDiscovery, id: string) => {
  const m = d.members.find((x) => x.cloudAccountId === id)
  if (m === undefined) throw new Error(`no member ${id}; members: ${d.members.map((x) => x.cloudAccountId).join(", ")}`)
  return m
}

describe("discoverAzure: a management group", () => {
  it("finds every group below at any depth, by name, and every subscription in the group it sits directly in", async () => {
    const d = await discover("contoso-root")
    expect(d).toMatchObject({ rootId: "contoso-root", rootName: "Contoso" })
    expect(d.units.map((u) => [u.id, u.parentId, u.name, u.kind]).sort()).toEqual(
      [
        ["contoso-root", null, "Contoso", "management_group"],
        ["platform", "contoso-root", "Platform", "management_group"],
        ["identity", "platform", "Identity", "management_group"],
        ["landing-zones", "contoso-root", "Landing zones", "management_group"],
        ["corp", "landing-zones", "Corp", "management_group"],
        ["online", "landing-zones", "online", "management_group"],
      ].sort(),
    )
    expect(unitPaths(d.units).get("identity")).toBe("Contoso / Platform / Identity")
    expect(unitPaths(d.units).get("online")).toBe("Contoso / Landing zones / online")
    expect(d.members.map((m) => [m.cloudAccountId, m.unitId]).sort()).toEqual(
      [
        [SUB(1), "contoso-root"],
        [SUB(2), "platform"],
        [SUB(3), "identity"],
        [SUB(4), "corp"],
        [SUB(5), "corp"],
        [SUB(6), "corp"],
        [SUB(7), "online"],
        [SUB(8), "online"],
      ].sort(),
    )
  })

  it("follows nextLink through every page of descendants and of subscriptions", async () => {
    await discover("contoso-root")
    const descendants = server.requests.filter((r) => r.path.endsWith("/descendants"))
    expect(descendants.length).toBe(7) // 5 groups and 8 subscriptions below the root, 2 a page
    expect(descendants.slice(1).every((r) => r.query.get("$skiptoken") !== null && r.query.get("api-version") === "2020-05-01")).toBe(true)
    const subscriptions = server.requests.filter((r) => r.path === "/subscriptions")
    expect(subscriptions.length).toBe(4) // 7 readable subscriptions, 2 a page
    expect(subscriptions.every((r) => r.query.get("api-version") === "2022-12-01")).toBe(true)
  })

  it("maps the subscription states and tags from the subscription list", async () => {
    const d = await discover("contoso-root")
    expect(member(d, SUB(2))).toMatchObject({ name: "Connectivity", state: "active", cloudState: "Enabled", tags: { env: "prod", owner: "netops" } })
    expect(member(d, SUB(3))).toMatchObject({ state: "active", cloudState: "Warned" })
    expect(member(d, SUB(5))).toMatchObject({ state: "suspended", cloudState: "Disabled" })
    // Listed without a display name: the descendants answer's.
    expect(member(d, SUB(6))).toMatchObject({ name: "Corp 3", state: "closed", cloudState: "Deleted" })
    // The descendants answer left the display name out (SUB(1): absent, SUB(4): null): the subscription list's is used.
    expect(member(d, SUB(1))).toMatchObject({ name: "Sandbox", state: "active", cloudState: "Enabled", tags: {} })
    expect(member(d, SUB(4))).toMatchObject({ name: "Corp 1", state: "active", cloudState: "PastDue", tags: {} })
    // Listed without a state: Enabled, as the connection test reads it.
    expect(member(d, SUB(8))).toMatchObject({ name: "Online 2", state: "active", cloudState: "Enabled" })
  })

  it("a subscription the principal cannot read is kept active with an unknown state, so its scan reports the missing access", async () => {
    const d = await discover("contoso-root")
    expect(member(d, SUB(7))).toEqual({ cloudAccountId: SUB(7), name: "Online 1", unitId: "online", state: "active", cloudState: "", tags: {} })
  })

  it("reads the specification's nulls (x-nullable id, type, properties, displayName, parent) as absent", async () => {
    server.fault({
      host: "management.azure.com",
      path: /\/descendants$/,
      times: 1,
      reply: {
        body: {
          value: [
            { id: "/providers/Microsoft.Management/managementGroups/sandbox-mg", type: null, name: "sandbox-mg", properties: null },
            { id: null, type: "/subscriptions", name: SUB(1), properties: { displayName: null, parent: null } },
            { id: `/subscriptions/${SUB(7)}`, type: null, properties: { displayName: "Online 1", parent: { id: "/providers/Microsoft.Management/managementGroups/sandbox-mg" } } },
          ],
          nextLink: null,
        },
      },
    })
    const d = await discover("contoso-root")
    expect(d.units.map((u) => [u.id, u.parentId, u.name])).toEqual([
      ["contoso-root", null, "Contoso"],
      ["sandbox-mg", "contoso-root", "sandbox-mg"],
    ])
    expect(d.members).toEqual([
      { cloudAccountId: SUB(1), name: "Sandbox", unitId: "contoso-root", state: "active", cloudState: "Enabled", tags: {} },
      { cloudAccountId: SUB(7), name: "Online 1", unitId: "sandbox-mg", state: "active", cloudState: "", tags: {} },
    ])
  })

  it("starts from a group below the top: only its subtree, names matched case-insensitively", async () => {
    const d = await discover("Landing-Zones")
    expect(d.rootId).toBe("landing-zones")
    expect(d.units.map((u) => [u.id, u.parentId]).sort()).toEqual([["corp", "landing-zones"], ["landing-zones", null], ["online", "landing-zones"]])
    expect(d.members.map((m) => m.cloudAccountId).sort()).toEqual([SUB(4), SUB(5), SUB(6), SUB(7), SUB(8)])
  })
})

describe("discoverAzure: failures", () => {
  it("403 on the group is access_denied", async () => {
    org.denied.add("platform")
    const e = await failure("platform")
    expect(e.reason).toBe("access_denied")
    expect(e.message).toContain("AuthorizationFailed")
  })

  it("403 on the descendants list alone is access_denied", async () => {
    server.fault({
      host: "management.azure.com",
      path: /\/descendants$/,
      times: 1,
      reply: { status: 403, body: { error: { code: "AuthorizationFailed", message: "The client does not have authorization to perform action 'Microsoft.Management/managementGroups/descendants/read'." } } },
    })
    expect((await failure("contoso-root")).reason).toBe("access_denied")
  })

  it("an unknown group (404) is not_found", async () => {
    expect((await failure("no-such-group")).reason).toBe("not_found")
  })

  it("a wrong client secret is invalid_credentials", async () => {
    expect((await failure("contoso-root", { credentials: { ...principal, clientSecret: "wrong" } })).reason).toBe("invalid_credentials")
  })

  it("5xx after the retries is unreachable", async () => {
    server.fault({ host: "management.azure.com", path: /^\/subscriptions$/, times: 10, reply: { status: 503, body: { error: { code: "ServiceUnavailable", message: "The server is currently unavailable." } } } })
    expect((await failure("contoso-root")).reason).toBe("unreachable")
  })

  it("a nextLink to another host is not followed (no token leaves for it): unreachable", async () => {
    server.fault({ host: "management.azure.com", path: /\/descendants$/, times: 1, reply: { body: { value: [], nextLink: "https://attacker.example/providers/Microsoft.Management/managementGroups/x/descendants?api-version=2020-05-01" } } })
    const e = await failure("contoso-root")
    expect(e.reason).toBe("unreachable")
    expect(e.message).toContain("UntrustedUrl")
  })

  it.each(["", "a/b", "group.", "x".repeat(91), "bad group", "../subscriptions"])("group id %j is invalid_input, before anything is sent", async (group) => {
    expect((await failure(group)).reason).toBe("invalid_input")
    expect(server.requests).toHaveLength(0)
  })

  it("a client id that is not a GUID is invalid_input", async () => {
    expect((await failure("contoso-root", { credentials: { ...principal, clientId: "my-app" } })).reason).toBe("invalid_input")
    expect(server.requests).toHaveLength(0)
  })
})

describe("a member subscription with the organisation's credentials", () => {
  const orgStored = { tenant_id: principal.tenantId, client_id: principal.clientId, client_secret: principal.clientSecret }

  it("memberCredentials keeps the principal and names the member subscription", () => {
    expect(memberCredentials(ProviderIds.Azure, { ...orgStored, subscription_id: SUB(1), service_account_key: "{}" }, SUB(4))).toEqual({ ...orgStored, subscription_id: SUB(4) })
    expect(memberCredentials(ProviderIds.Azure, { tenant_id: principal.tenantId, client_id: principal.clientId }, SUB(4))).toBeUndefined()
  })

  it("the connection test reads the member subscription", async () => {
    const stored = memberCredentials(ProviderIds.Azure, orgStored, SUB(4))!
    const identity = await Effect.runPromise(testAzureAccount(stored, { AZURE_ENDPOINT_URL: server.origin }))
    expect(identity).toMatchObject({ accountId: SUB(4), tenantId: HARDENED.tenantId, principal: HARDENED.clientId })
    expect(server.requests.filter((r) => r.host === "management.azure.com").map((r) => r.path)).toEqual([`/subscriptions/${SUB(4)}`])
  })
})
