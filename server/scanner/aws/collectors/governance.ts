/**
 * Organizations inventory (global, read once from the home region): whether the account belongs to an organization,
 * its feature set, and — readable from the management account or a delegated administrator only — the service control
 * policies with their documents. A member account's scan cannot list policies: that input is then not evaluated.
 */
import { DescribeOrganizationCommand, DescribePolicyCommand, ListPoliciesCommand } from "@aws-sdk/client-organizations"
import type { CollectContext } from "../context.ts"
import { parsePolicy, type PolicyDocument } from "../policy.ts"

export const organizationsResourceTypes = ["organizations.organization", "organizations.policies"] as const

export interface Organization {
  readonly id: string
  readonly featureSet: string
  readonly managementAccountId: string
}

export interface OrganizationsInventory {
  /** null: the account is not in an organization; undefined: could not be read. */
  readonly organization: Organization | null | undefined
  /** Service control policies (undefined when they could not be read or there is no organization). */
  readonly scps: ReadonlyArray<{ readonly id: string; readonly name: string; readonly document: PolicyDocument | undefined }> | undefined
}

export async function collectOrganizations(ctx: CollectContext): Promise<OrganizationsInventory> {
  const client = ctx.clients.get("organizations", ctx.homeRegion)
  const spec = { region: "global" }
  const described = await ctx.optional({ ...spec, type: "organizations.organization", op: "organizations:DescribeOrganization" }, ["AWSOrganizationsNotInUseException"], (o) =>
    client.send(new DescribeOrganizationCommand({}), o),
  )
  const organization =
    described === undefined ? undefined : described === null ? null : { id: described.Organization?.Id ?? "", featureSet: described.Organization?.FeatureSet ?? "", managementAccountId: described.Organization?.MasterAccountId ?? "" }
  ctx.countResources(organization === null || organization === undefined ? 0 : 1)
  if (organization === null || organization === undefined || !ctx.wants("organizations.policies")) return { organization, scps: undefined }
  const listed = await ctx.paginate(
    { ...spec, type: "organizations.policies", op: "organizations:ListPolicies" },
    (t, o) => client.send(new ListPoliciesCommand({ Filter: "SERVICE_CONTROL_POLICY", ...(t === undefined ? {} : { NextToken: t }) }), o),
    (p) => ({ items: p.Policies, next: p.NextToken }),
  )
  if (listed === undefined) return { organization, scps: undefined }
  const scps = await ctx.map(listed, async (p) => {
    const id = p.Id ?? ""
    const got = await ctx.call({ ...spec, type: "organizations.policies", op: "organizations:DescribePolicy", id }, (o) => client.send(new DescribePolicyCommand({ PolicyId: id }), o))
    return got === undefined ? undefined : { id, name: p.Name ?? id, document: parsePolicy(got.Policy?.Content) }
  })
  return { organization, scps: scps.some((s) => s === undefined) ? undefined : scps.filter((s) => s !== undefined) }
}
