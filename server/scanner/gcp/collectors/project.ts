/**
 * Project-level settings: the IAM policy with audit configs (Cloud Resource Manager v1 getIamPolicy, policy
 * version 3), essential contacts as computed for the project (inherited from folders and the organization
 * included), whether the Cloud Asset API is enabled (Service Usage), and the Access Approval settings.
 */
import { Schema } from "effect"
import type { RestError } from "../../rest/http.ts"
import { IamPolicy, listAll, Paged, type GcpCollectContext } from "../context.ts"

export const projectResourceTypes = ["project.iam_policy", "project.ancestor_iam_policies", "project.essential_contacts", "project.cloudasset_service", "project.access_approval", "project.org_policies"] as const

/**
 * Boolean organization policy constraints that decide a setting for every resource of the project whatever the
 * resource says (https://cloud.google.com/resource-manager/docs/organization-policy/org-policy-constraints):
 * compute.disableSerialPortAccess turns serial port access off for every VM; storage.publicAccessPrevention
 * enforces public access prevention on every bucket whose own setting is "inherited"; compute.requireOsLogin
 * enables OS Login for the project's VMs and prevents metadata that disables it.
 */
export const ORG_POLICY_CONSTRAINTS = ["compute.disableSerialPortAccess", "storage.publicAccessPrevention", "compute.requireOsLogin"] as const
export type OrgPolicyConstraint = (typeof ORG_POLICY_CONSTRAINTS)[number]

/** orgpolicy v2 getEffectivePolicy: a boolean constraint is enforced when a rule of the effective spec says so. */
export const EffectivePolicy = Schema.Struct({
  name: Schema.optionalKey(Schema.String),
  spec: Schema.optionalKey(Schema.Struct({ rules: Schema.optionalKey(Schema.Array(Schema.Struct({ enforce: Schema.optionalKey(Schema.Boolean) }))) })),
})

/** projects.getAncestry: the project, then its folders up to the organization. */
export const Ancestry = Schema.Struct({
  ancestor: Schema.optionalKey(Schema.Array(Schema.Struct({ resourceId: Schema.optionalKey(Schema.Struct({ type: Schema.optionalKey(Schema.String), id: Schema.optionalKey(Schema.String) })) }))),
})

/** An ancestor folder or organization and its IAM policy (audit configurations are inherited from them). */
export interface AncestorPolicy {
  readonly resource: string
  readonly policy: IamPolicy
}

export const Contact = Schema.Struct({
  name: Schema.String,
  email: Schema.optionalKey(Schema.String),
  notificationCategorySubscriptions: Schema.optionalKey(Schema.Array(Schema.String)),
  validationState: Schema.optionalKey(Schema.String),
})
export type Contact = typeof Contact.Type

const ContactsPage = Paged({ contacts: Schema.optionalKey(Schema.Array(Contact)) })

export const ServiceState = Schema.Struct({ name: Schema.optionalKey(Schema.String), state: Schema.optionalKey(Schema.String) })

export const AccessApprovalSettings = Schema.Struct({
  name: Schema.optionalKey(Schema.String),
  enrolledServices: Schema.optionalKey(Schema.Array(Schema.Struct({ cloudProduct: Schema.optionalKey(Schema.String), enrollmentLevel: Schema.optionalKey(Schema.String) }))),
  enrolledAncestor: Schema.optionalKey(Schema.Boolean),
  notificationEmails: Schema.optionalKey(Schema.Array(Schema.String)),
})
export type AccessApprovalSettings = typeof AccessApprovalSettings.Type

export interface ProjectInventory {
  readonly iamPolicy: IamPolicy | undefined
  /**
   * IAM policies of the folders and organization above the project, those that could be read (a failure is a
   * recorded error of "project.ancestor_iam_policies"); undefined when the ancestry itself could not be read.
   */
  readonly ancestorPolicies: ReadonlyArray<AncestorPolicy> | undefined
  /** Whether each constraint is enforced on the project (effective policy); a constraint that could not be read is absent. */
  readonly orgPolicies: Readonly<Partial<Record<OrgPolicyConstraint, boolean>>> | undefined
  readonly essentialContacts: ReadonlyArray<Contact> | undefined
  /** Service Usage state of cloudasset.googleapis.com ("ENABLED", "DISABLED"). */
  readonly cloudAssetState: string | undefined
  /** null: Access Approval was never configured for the project. */
  readonly accessApproval: AccessApprovalSettings | null | undefined
}

export async function collectProject(ctx: GcpCollectContext): Promise<ProjectInventory> {
  const p = ctx.projectId
  const e = ctx.endpoints
  const [iamPolicy, ancestorPolicies, orgPolicies, essentialContacts, cloudAsset, accessApproval] = await Promise.all([
    ctx.wants("project.iam_policy")
      ? ctx.get(
          { type: "project.iam_policy", region: "global", op: "cloudresourcemanager.projects.getIamPolicy" },
          { url: `${e.cloudresourcemanager}/v1/projects/${p}:getIamPolicy`, method: "POST", body: { options: { requestedPolicyVersion: 3 } } },
          IamPolicy,
        )
      : undefined,
    ctx.wants("project.ancestor_iam_policies") ? ancestorIamPolicies(ctx) : undefined,
    ctx.wants("project.org_policies") ? effectiveOrgPolicies(ctx) : undefined,
    ctx.wants("project.essential_contacts")
      ? listAll(
          ctx,
          { type: "project.essential_contacts", region: "global", op: "essentialcontacts.projects.contacts.compute" },
          `${e.essentialcontacts}/v1/projects/${p}/contacts:compute?notificationCategories=ALL`,
          ContactsPage,
          (page) => page.contacts,
        )
      : undefined,
    ctx.wants("project.cloudasset_service")
      ? ctx.get(
          { type: "project.cloudasset_service", region: "global", op: "serviceusage.services.get" },
          { url: `${e.serviceusage}/v1/projects/${p}/services/cloudasset.googleapis.com` },
          ServiceState,
        )
      : undefined,
    ctx.wants("project.access_approval")
      ? ctx.optional(
          { type: "project.access_approval", region: "global", op: "accessapproval.projects.getAccessApprovalSettings" },
          { url: `${e.accessapproval}/v1/projects/${p}/accessApprovalSettings` },
          AccessApprovalSettings,
          (err: RestError) => err.status === 404,
        )
      : undefined,
  ])
  return { iamPolicy, ancestorPolicies, orgPolicies, essentialContacts, cloudAssetState: cloudAsset === undefined ? undefined : (cloudAsset.state ?? "STATE_UNSPECIFIED"), accessApproval }
}

/** The IAM policies of the project's folders and organization (folders v2, organizations v1 getIamPolicy). */
async function ancestorIamPolicies(ctx: GcpCollectContext): Promise<AncestorPolicy[] | undefined> {
  const e = ctx.endpoints
  const spec = { type: "project.ancestor_iam_policies", region: "global" }
  const ancestry = await ctx.get({ ...spec, op: "cloudresourcemanager.projects.getAncestry" }, { url: `${e.cloudresourcemanager}/v1/projects/${ctx.projectId}:getAncestry`, method: "POST", body: {} }, Ancestry)
  if (ancestry === undefined) return undefined
  const ancestors = (ancestry.ancestor ?? []).flatMap((a) => {
    const id = a.resourceId?.id
    const type = a.resourceId?.type
    if (id === undefined) return []
    if (type === "folder") return [{ resource: `folders/${id}`, url: `${e.cloudresourcemanager}/v2/folders/${id}:getIamPolicy`, op: "cloudresourcemanager.folders.getIamPolicy" }]
    if (type === "organization") return [{ resource: `organizations/${id}`, url: `${e.cloudresourcemanager}/v1/organizations/${id}:getIamPolicy`, op: "cloudresourcemanager.organizations.getIamPolicy" }]
    return []
  })
  const policies = await ctx.map(ancestors, async (a) => {
    const policy = await ctx.get({ ...spec, op: a.op, id: a.resource }, { url: a.url, method: "POST", body: { options: { requestedPolicyVersion: 3 } } }, IamPolicy)
    return policy === undefined ? [] : [{ resource: a.resource, policy }]
  })
  return policies.flat()
}

/** The effective enforcement of the boolean constraints the checks depend on (orgpolicy v2 getEffectivePolicy). */
async function effectiveOrgPolicies(ctx: GcpCollectContext): Promise<Partial<Record<OrgPolicyConstraint, boolean>>> {
  const out: Partial<Record<OrgPolicyConstraint, boolean>> = {}
  await ctx.map(ORG_POLICY_CONSTRAINTS, async (c) => {
    const p = await ctx.get(
      { type: "project.org_policies", region: "global", op: "orgpolicy.projects.policies.getEffectivePolicy", id: c },
      { url: `${ctx.endpoints.orgpolicy}/v2/projects/${ctx.projectId}/policies/${c}:getEffectivePolicy` },
      EffectivePolicy,
    )
    if (p !== undefined) out[c] = (p.spec?.rules ?? []).some((r) => r.enforce === true)
  })
  return out
}
