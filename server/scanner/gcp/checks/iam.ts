/** IAM checks (CIS GCP v4.0 section 1): service-account keys and privileges, separation of duties, essential contacts. */
import { ageDays, row } from "../../rest/engine.ts"
import { isServiceAgent, type IamPolicy } from "../context.ts"
import { defineGcpCheck } from "../define-check.ts"

/** role → members, for the roles bound unconditionally at project level. */
const membersByRole = (policy: IamPolicy): Map<string, Set<string>> => {
  const out = new Map<string, Set<string>>()
  for (const b of policy.bindings ?? []) {
    const set = out.get(b.role) ?? new Set<string>()
    for (const m of b.members ?? []) set.add(m)
    out.set(b.role, set)
  }
  return out
}

/** Roles held by each member. */
const rolesByMember = (policy: IamPolicy): Map<string, string[]> => {
  const out = new Map<string, string[]>()
  for (const b of policy.bindings ?? []) for (const m of b.members ?? []) out.set(m, [...(out.get(m) ?? []), b.role])
  return out
}

const isAdminRole = (role: string) => role === "roles/owner" || role === "roles/editor" || /admin/i.test(role.slice(role.lastIndexOf("/") + 1))

const KMS_CRYPTO_ROLES = ["roles/cloudkms.cryptoKeyEncrypterDecrypter", "roles/cloudkms.cryptoKeyEncrypter", "roles/cloudkms.cryptoKeyDecrypter"]
const CONTACT_CATEGORIES = ["LEGAL", "SECURITY", "SUSPENSION", "TECHNICAL", "TECHNICAL_INCIDENTS"]

export const iamChecks = [
  defineGcpCheck({
    id: "iam_sa_no_user_managed_keys",
    service: "iam",
    title: "Service accounts should only have GCP-managed keys",
    description: "Flags service accounts that have user-managed keys: a downloaded private key is a long-lived credential that can leak and is not rotated by Google.",
    severity: "medium",
    cis: "1.4",
    remediation: "Delete the user-managed keys (gcloud iam service-accounts keys delete KEY_ID --iam-account=SA_EMAIL) and use attached service accounts, workload identity federation or impersonation instead.",
    field_labels: { user_managed_keys: "User-managed keys" },
    uses: ["iam.service_accounts", "iam.keys"],
    reads: "iam projects.serviceAccounts.keys.list?keyTypes=USER_MANAGED → keys[].name",
    evaluate: (inv) =>
      (inv.iam.serviceAccounts ?? []).flatMap((sa) => {
        if (sa.keys === undefined) return []
        const ids = sa.keys.map((k) => k.name.slice(k.name.lastIndexOf("/") + 1))
        return [row(sa.email, "global", ids.length === 0, ids.length === 0 ? `${sa.email} has no user-managed keys.` : `${sa.email} has ${ids.length} user-managed key(s).`, { user_managed_keys: ids })]
      }),
  }),
  defineGcpCheck({
    id: "iam_sa_no_admin_privileges",
    service: "iam",
    title: "Service accounts should not have admin privileges",
    description: "Checks the project IAM policy for service accounts bound to Owner, Editor or any *Admin role. Google-managed service agents are not judged (Google grants and manages their roles).",
    severity: "high",
    cis: "1.5",
    remediation: "Replace the Owner/Editor/*Admin bindings of the service account with the narrow predefined or custom roles it needs.",
    field_labels: { admin_roles: "Admin roles" },
    uses: ["project.iam_policy"],
    reads: "cloudresourcemanager projects.getIamPolicy → bindings[].role, bindings[].members (serviceAccount:*)",
    evaluate: (inv) => {
      const policy = inv.project.iamPolicy
      if (policy === undefined) return []
      return [...rolesByMember(policy)]
        .filter(([m]) => m.startsWith("serviceAccount:"))
        .map(([m, roles]) => {
          const admin = roles.filter(isAdminRole)
          const email = m.slice("serviceAccount:".length)
          if (isServiceAgent(m)) return row(email, "global", true, `Not judged: ${email} is a Google-managed service agent; Google grants and manages its roles.`, { admin_roles: admin })
          return row(email, "global", admin.length === 0, admin.length === 0 ? `${email} has no admin role on the project.` : `${email} holds ${admin.join(", ")}.`, { admin_roles: admin })
        })
    },
  }),
  defineGcpCheck({
    id: "iam_no_project_level_sa_user_roles",
    service: "iam",
    title: "Service Account User and Token Creator should not be granted at project level",
    description: "Project-level Service Account User or Service Account Token Creator lets the member act as every service account of the project. Google-managed service agents are not judged.",
    severity: "high",
    cis: "1.6",
    remediation: "Remove the project-level bindings of roles/iam.serviceAccountUser and roles/iam.serviceAccountTokenCreator and grant them on the individual service accounts instead.",
    field_labels: { bindings: "Project-level bindings" },
    uses: ["project.iam_policy"],
    reads: "cloudresourcemanager projects.getIamPolicy → bindings[role=roles/iam.serviceAccountUser|roles/iam.serviceAccountTokenCreator].members",
    evaluate: (inv) => {
      const policy = inv.project.iamPolicy
      if (policy === undefined) return []
      const roles = membersByRole(policy)
      const found = ["roles/iam.serviceAccountUser", "roles/iam.serviceAccountTokenCreator"].flatMap((r) => [...(roles.get(r) ?? [])].filter((m) => !isServiceAgent(m)).map((m) => `${m}:${r}`))
      return [row(inv.projectId, "global", found.length === 0, found.length === 0 ? "No project-level Service Account User or Token Creator bindings." : `Project-level bindings: ${found.join(", ")}.`, { bindings: found })]
    },
  }),
  defineGcpCheck({
    id: "iam_no_basic_editor_role",
    service: "iam",
    title: "The basic Editor role should not be granted on the project",
    description: "Editor lets a member change almost every resource of the project; grant the predefined roles each member needs instead. Google-managed service agents are ignored.",
    severity: "medium",
    remediation: "Replace each roles/editor binding with narrow predefined roles: gcloud projects remove-iam-policy-binding PROJECT --member=MEMBER --role=roles/editor",
    field_labels: { members: "Editors" },
    uses: ["project.iam_policy"],
    reads: "cloudresourcemanager projects.getIamPolicy → bindings[role=roles/editor].members",
    evaluate: (inv) => {
      const policy = inv.project.iamPolicy
      if (policy === undefined) return []
      // Service agents hold Editor by design (the Google APIs Service Agent does); they are Google's to manage.
      const editors = [...(membersByRole(policy).get("roles/editor") ?? [])].filter((m) => !isServiceAgent(m))
      return [row(inv.projectId, "global", editors.length === 0, editors.length === 0 ? "No member holds the basic Editor role." : `Editors: ${editors.join(", ")}.`, { members: editors })]
    },
  }),
  defineGcpCheck({
    id: "iam_members_corporate_identities_only",
    service: "iam",
    title: "Project roles should be granted to corporate identities only",
    description: "Flags personal Google accounts (gmail.com, googlemail.com) in the project's IAM policy: the organisation cannot enforce MFA on them, audit them or remove them when someone leaves.",
    severity: "medium",
    remediation: "Grant the roles to the person's corporate (Cloud Identity / Workspace) account and remove the personal account; the domain restricted sharing organization policy prevents new ones.",
    field_labels: { members: "Personal accounts" },
    uses: ["project.iam_policy"],
    reads: "cloudresourcemanager projects.getIamPolicy → bindings[].members (user:…@gmail.com)",
    evaluate: (inv) => {
      const policy = inv.project.iamPolicy
      if (policy === undefined) return []
      const personal = [...rolesByMember(policy).keys()].filter((m) => /^user:.+@(gmail|googlemail)\.com$/i.test(m))
      return [row(inv.projectId, "global", personal.length === 0, personal.length === 0 ? "Every member is a corporate identity or service account." : `Personal accounts: ${personal.join(", ")}.`, { members: personal })]
    },
  }),
  defineGcpCheck({
    id: "iam_sa_key_rotated_90_days",
    service: "iam",
    title: "User-managed service account keys should be rotated within 90 days",
    description: "Checks the age of every user-managed service account key (validAfterTime).",
    severity: "medium",
    cis: "1.7",
    remediation: "Create a new key, roll it out, then delete the old one (gcloud iam service-accounts keys create / delete); better, stop using user-managed keys.",
    field_labels: { service_account: "Service account", created: "Created", age_days: "Age (days)" },
    uses: ["iam.service_accounts", "iam.keys"],
    reads: "iam serviceAccounts.keys.list → keys[].validAfterTime",
    evaluate: (inv, env) =>
      (inv.iam.serviceAccounts ?? []).flatMap((sa) =>
        (sa.keys ?? []).map((k) => {
          const age = ageDays(k.validAfterTime, env.now)
          const ok = age !== undefined && age <= 90
          const id = k.name.slice(k.name.lastIndexOf("/") + 1)
          return row(id, "global", ok, age === undefined ? `Key ${id} has no creation time.` : `Key ${id} of ${sa.email} is ${age} days old.`, {
            service_account: sa.email,
            created: k.validAfterTime ?? null,
            age_days: age ?? null,
          })
        }),
      ),
  }),
  defineGcpCheck({
    id: "iam_sa_role_separation_of_duties",
    service: "iam",
    title: "Separation of duties should be enforced for service-account roles",
    description: "No member should hold both Service Account Admin and Service Account User on the project (Google-managed service agents are not judged).",
    severity: "medium",
    cis: "1.8",
    remediation: "Remove either roles/iam.serviceAccountAdmin or roles/iam.serviceAccountUser from each member that holds both.",
    field_labels: { members: "Members with both roles" },
    uses: ["project.iam_policy"],
    reads: "cloudresourcemanager projects.getIamPolicy → members of roles/iam.serviceAccountAdmin ∩ roles/iam.serviceAccountUser",
    evaluate: (inv) => {
      const policy = inv.project.iamPolicy
      if (policy === undefined) return []
      const roles = membersByRole(policy)
      const both = [...(roles.get("roles/iam.serviceAccountAdmin") ?? [])].filter((m) => !isServiceAgent(m) && roles.get("roles/iam.serviceAccountUser")?.has(m) === true)
      return [row(inv.projectId, "global", both.length === 0, both.length === 0 ? "No member holds both Service Account Admin and User." : `Members with both roles: ${both.join(", ")}.`, { members: both })]
    },
  }),
  defineGcpCheck({
    id: "iam_kms_role_separation_of_duties",
    service: "iam",
    title: "Separation of duties should be enforced for KMS roles",
    description: "No member should hold Cloud KMS Admin together with a CryptoKey Encrypter/Decrypter role on the project (Google-managed service agents are not judged).",
    severity: "medium",
    cis: "1.11",
    remediation: "Remove either roles/cloudkms.admin or the cryptoKey Encrypter/Decrypter roles from each member that holds both.",
    field_labels: { members: "Members with both roles" },
    uses: ["project.iam_policy"],
    reads: "cloudresourcemanager projects.getIamPolicy → members of roles/cloudkms.admin ∩ roles/cloudkms.cryptoKey{Encrypter,Decrypter,EncrypterDecrypter}",
    evaluate: (inv) => {
      const policy = inv.project.iamPolicy
      if (policy === undefined) return []
      const roles = membersByRole(policy)
      const both = [...(roles.get("roles/cloudkms.admin") ?? [])].filter((m) => !isServiceAgent(m) && KMS_CRYPTO_ROLES.some((r) => roles.get(r)?.has(m) === true))
      return [row(inv.projectId, "global", both.length === 0, both.length === 0 ? "No member holds both KMS Admin and an encrypt/decrypt role." : `Members with both roles: ${both.join(", ")}.`, { members: both })]
    },
  }),
  defineGcpCheck({
    id: "iam_essential_contacts_configured",
    service: "iam",
    title: "Essential Contacts should be configured for the organization",
    description: "Checks the contacts that apply to the project (its own and those inherited from folders and the organization) cover the Legal, Security, Suspension, Technical and Technical Incidents categories; contacts marked INVALID do not count.",
    severity: "low",
    cis: "1.16",
    remediation: "Add essential contacts at the organization (gcloud essential-contacts create --email=… --notification-categories=LEGAL,SECURITY,SUSPENSION,TECHNICAL,TECHNICAL_INCIDENTS --organization=ORG_ID).",
    field_labels: { missing_categories: "Missing categories", contacts: "Contacts" },
    uses: ["project.essential_contacts"],
    reads: "essentialcontacts projects.contacts.compute → contacts[].notificationCategorySubscriptions",
    evaluate: (inv) => {
      const contacts = inv.project.essentialContacts
      if (contacts === undefined) return []
      // A contact marked INVALID is not a correct recipient of the notifications: it covers nothing.
      const covered = new Set(contacts.filter((c) => c.validationState !== "INVALID").flatMap((c) => c.notificationCategorySubscriptions ?? []))
      const missing = covered.has("ALL") ? [] : CONTACT_CATEGORIES.filter((c) => !covered.has(c))
      return [
        row(inv.projectId, "global", missing.length === 0, missing.length === 0 ? "Essential contacts cover every required category." : `No essential contact for ${missing.join(", ")}.`, {
          missing_categories: missing,
          contacts: contacts.flatMap((c) => (c.email === undefined ? [] : [c.email])),
        }),
      ]
    },
  }),
]
