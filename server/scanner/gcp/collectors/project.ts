/**
 * Project-level settings: the IAM policy with audit configs (Cloud Resource Manager v1 getIamPolicy, policy
 * version 3), essential contacts as computed for the project (inherited from folders and the organization
 * included), whether the Cloud Asset API is enabled (Service Usage), and the Access Approval settings.
 */
import { Schema } from "effect"
import type { RestError } from "../../rest/http.ts"
import { IamPolicy, listAll, Paged, type GcpCollectContext } from "../context.ts"

export const projectResourceTypes = ["project.iam_policy", "project.essential_contacts", "project.cloudasset_service", "project.access_approval"] as const

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
  readonly essentialContacts: ReadonlyArray<Contact> | undefined
  /** Service Usage state of cloudasset.googleapis.com ("ENABLED", "DISABLED"). */
  readonly cloudAssetState: string | undefined
  /** null: Access Approval was never configured for the project. */
  readonly accessApproval: AccessApprovalSettings | null | undefined
}

export async function collectProject(ctx: GcpCollectContext): Promise<ProjectInventory> {
  const p = ctx.projectId
  const e = ctx.endpoints
  const [iamPolicy, essentialContacts, cloudAsset, accessApproval] = await Promise.all([
    ctx.wants("project.iam_policy")
      ? ctx.get(
          { type: "project.iam_policy", region: "global", op: "cloudresourcemanager.projects.getIamPolicy" },
          { url: `${e.cloudresourcemanager}/v1/projects/${p}:getIamPolicy`, method: "POST", body: { options: { requestedPolicyVersion: 3 } } },
          IamPolicy,
        )
      : undefined,
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
  return { iamPolicy, essentialContacts, cloudAssetState: cloudAsset === undefined ? undefined : (cloudAsset.state ?? "STATE_UNSPECIFIED"), accessApproval }
}
