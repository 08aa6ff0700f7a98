/**
 * IAM checks (CIS AWS v3.0 section 1 / v7.0 section 2, FSBP IAM.x). Age rules use the evaluation clock
 * (`env.now`), so they are testable by evaluating "in the future" instead of back-dating resources.
 */
import type { DetailRow } from "../../check.ts"
import type { CredentialReportRow, IamInventory, IamPrincipal, PasswordPolicy } from "../collectors/iam.ts"
import { defineCheck, row } from "../define-check.ts"
import { fullAdminStatements, privilegeEscalationSets, publicAllowStatements, unconditionedCrossAccountStatements } from "../policy.ts"

const DAY = 86_400_000
export const UNUSED_CREDENTIAL_DAYS = 45
export const KEY_ROTATION_DAYS = 90
export const ROOT_USAGE_DAYS = 30
const daysBetween = (from: Date, to: Date) => Math.floor((to.getTime() - from.getTime()) / DAY)
const iso = (d: Date | null | undefined) => (d === null || d === undefined ? null : d.toISOString())
const ROOT_ROW = "<root_account>"

const passwordPolicyCheck = (spec: {
  readonly id: string
  readonly title: string
  readonly description: string
  readonly cis: { readonly v3?: string; readonly v7?: string }
  readonly fsbp: string
  readonly remediation: string
  readonly label: string
  readonly value: (p: PasswordPolicy) => string | number | boolean | null
  readonly ok: (p: PasswordPolicy) => boolean
  readonly failReason: (p: PasswordPolicy) => string
}) =>
  defineCheck({
    id: spec.id,
    service: "iam",
    title: spec.title,
    description: spec.description,
    severity: "medium",
    cis: spec.cis,
    fsbp: spec.fsbp,
    remediation: spec.remediation,
    field_labels: { policy_set: "Password policy set", setting: spec.label },
    uses: ["iam.password_policy"],
    testedWith: "moto",
    evaluate: (inv) => {
      const p = inv.iam.passwordPolicy
      if (p === undefined) return []
      if (p === null) {
        return [row(inv.accountId, "global", false, "The account has no IAM password policy.", { policy_set: false, setting: null })]
      }
      const ok = spec.ok(p)
      return [row(inv.accountId, "global", ok, ok ? `The password policy meets the requirement (${spec.label}: ${String(spec.value(p))}).` : spec.failReason(p), { policy_set: true, setting: spec.value(p) })]
    },
  })

const passwordRemediation = (setting: string) =>
  `Update the account password policy (IAM > Account settings > Password policy, or aws iam update-account-password-policy) so that ${setting}.`

/** Principals (users, groups, roles) that have `policyArnSuffix` attached. */
const principalsWith = (iam: IamInventory, policyName: string): string[] =>
  [
    ...(iam.users ?? []).map((p) => ({ p, kind: "user" })),
    ...(iam.groups ?? []).map((p) => ({ p, kind: "group" })),
    ...(iam.roles ?? []).map((p) => ({ p, kind: "role" })),
  ]
    .filter(({ p }) => p.attached.some((a) => a.arn.endsWith(`:policy/${policyName}`) && a.arn.includes(":iam::aws:")))
    .map(({ p, kind }) => `${kind}/${p.name}`)

/** Every inline policy of the account's users, groups and roles, with its holder. */
const inlinePolicies = (iam: IamInventory) =>
  (["user", "group", "role"] as const).flatMap((kind) =>
    ((kind === "user" ? iam.users : kind === "group" ? iam.groups : iam.roles) ?? ([] as ReadonlyArray<IamPrincipal>)).flatMap((p) =>
      p.inline.map((policy) => ({ kind, principal: p.name, policy })),
    ),
  )

/** Customer managed policies attached to at least one user, group or role. */
const attachedCustomerPolicies = (iam: IamInventory) => (iam.customerPolicies ?? []).filter((p) => p.attachmentCount > 0)

const ASSUME_ACTIONS = ["sts:AssumeRole", "sts:AssumeRoleWithWebIdentity", "sts:AssumeRoleWithSAML"]
const escalationReason = (what: string, sets: ReadonlyArray<string>) =>
  sets.length === 0 ? `${what} allows no known privilege-escalation permission set.` : `${what} allows privilege escalation through ${sets.join(", ")}.`

const consoleUsers = (report: ReadonlyArray<CredentialReportRow>) => report.filter((r) => r.user !== ROOT_ROW && r.passwordEnabled)

export const iamChecks = [
  passwordPolicyCheck({
    id: "iam_password_policy_minimum_length_14",
    title: "IAM password policy should require a minimum length of 14 or greater",
    description: "Checks that the account password policy requires passwords of at least 14 characters.",
    cis: { v3: "1.8", v7: "2.8" },
    fsbp: "IAM.15",
    remediation: passwordRemediation("the minimum password length is 14 or more"),
    label: "Minimum length",
    value: (p) => p.minimumLength,
    ok: (p) => p.minimumLength >= 14,
    failReason: (p) => `The password policy allows passwords of ${p.minimumLength} characters (14 required).`,
  }),
  passwordPolicyCheck({
    id: "iam_password_policy_reuse_24",
    title: "IAM password policy should prevent password reuse",
    description: "Checks that the password policy remembers the last 24 passwords.",
    cis: { v3: "1.9", v7: "2.9" },
    fsbp: "IAM.16",
    remediation: passwordRemediation("'Prevent password reuse' remembers 24 passwords"),
    label: "Passwords remembered",
    value: (p) => p.reusePrevention,
    ok: (p) => (p.reusePrevention ?? 0) >= 24,
    failReason: (p) => `The password policy remembers ${p.reusePrevention ?? 0} previous passwords (24 required).`,
  }),
  passwordPolicyCheck({
    id: "iam_password_policy_uppercase",
    title: "IAM password policy should require at least one uppercase letter",
    description: "Checks that the password policy requires an uppercase letter.",
    cis: {},
    fsbp: "IAM.7",
    remediation: passwordRemediation("at least one uppercase letter is required"),
    label: "Requires uppercase",
    value: (p) => p.requireUppercase,
    ok: (p) => p.requireUppercase,
    failReason: () => "The password policy does not require an uppercase letter.",
  }),
  passwordPolicyCheck({
    id: "iam_password_policy_lowercase",
    title: "IAM password policy should require at least one lowercase letter",
    description: "Checks that the password policy requires a lowercase letter.",
    cis: {},
    fsbp: "IAM.7",
    remediation: passwordRemediation("at least one lowercase letter is required"),
    label: "Requires lowercase",
    value: (p) => p.requireLowercase,
    ok: (p) => p.requireLowercase,
    failReason: () => "The password policy does not require a lowercase letter.",
  }),
  passwordPolicyCheck({
    id: "iam_password_policy_number",
    title: "IAM password policy should require at least one number",
    description: "Checks that the password policy requires a digit.",
    cis: {},
    fsbp: "IAM.7",
    remediation: passwordRemediation("at least one number is required"),
    label: "Requires numbers",
    value: (p) => p.requireNumbers,
    ok: (p) => p.requireNumbers,
    failReason: () => "The password policy does not require a number.",
  }),
  passwordPolicyCheck({
    id: "iam_password_policy_symbol",
    title: "IAM password policy should require at least one symbol",
    description: "Checks that the password policy requires a non-alphanumeric character.",
    cis: {},
    fsbp: "IAM.7",
    remediation: passwordRemediation("at least one symbol is required"),
    label: "Requires symbols",
    value: (p) => p.requireSymbols,
    ok: (p) => p.requireSymbols,
    failReason: () => "The password policy does not require a symbol.",
  }),
  passwordPolicyCheck({
    id: "iam_password_policy_expires_passwords_within_90_days_or_less",
    title: "IAM password policy should expire passwords within 90 days or less",
    description: "Checks that passwords expire after at most 90 days.",
    cis: {},
    fsbp: "IAM.7",
    remediation: passwordRemediation("passwords expire after 90 days or less"),
    label: "Maximum password age (days)",
    value: (p) => p.maxPasswordAge,
    ok: (p) => p.expirePasswords && p.maxPasswordAge !== null && p.maxPasswordAge <= 90,
    failReason: (p) => (p.maxPasswordAge === null ? "Passwords never expire." : `Passwords expire after ${p.maxPasswordAge} days (90 or less required).`),
  }),
  defineCheck({
    id: "iam_root_mfa_enabled",
    service: "iam",
    title: "MFA should be enabled for the root user",
    description: "Checks that the account's root user signs in with multi-factor authentication (IAM account summary AccountMFAEnabled).",
    severity: "critical",
    cis: { v3: "1.5", v7: "2.5" },
    fsbp: "IAM.9",
    remediation: "Sign in as the root user, open Security credentials and assign an MFA device (preferably hardware).",
    field_labels: { root_mfa: "Root MFA enabled" },
    uses: ["iam.account_summary"],
    testedWith: "sdk-mock",
    mockReason: "moto hard-codes AccountMFAEnabled to 0, so only the failing case is reachable on the emulator.",
    evaluate: (inv) =>
      inv.iam.summary === undefined
        ? []
        : [
            row(inv.accountId, "global", inv.iam.summary.accountMfaEnabled, inv.iam.summary.accountMfaEnabled ? "The root user has MFA enabled." : "The root user has no MFA device.", {
              root_mfa: inv.iam.summary.accountMfaEnabled,
            }),
          ],
  }),
  defineCheck({
    id: "iam_root_hardware_mfa_enabled",
    service: "iam",
    title: "Hardware MFA should be enabled for the root user",
    description: "Checks that root MFA is enabled and is not a virtual (software) MFA device.",
    severity: "critical",
    cis: { v3: "1.6", v7: "2.6" },
    fsbp: "IAM.6",
    remediation: "Replace the root user's virtual MFA device with a hardware MFA device or a FIDO security key.",
    field_labels: { root_mfa: "Root MFA enabled", virtual_mfa: "Virtual MFA device" },
    uses: ["iam.account_summary", "iam.virtual_mfa"],
    testedWith: "sdk-mock",
    mockReason: "moto hard-codes AccountMFAEnabled to 0; the compliant case needs a stubbed account summary.",
    evaluate: (inv) => {
      const s = inv.iam.summary
      const devices = inv.iam.virtualMfaDevices
      if (s === undefined || devices === undefined) return []
      const virtual = devices.find((d) => d.serial.endsWith(":mfa/root-account-mfa-device") || (d.userArn ?? "").endsWith(":root"))
      const ok = s.accountMfaEnabled && virtual === undefined
      return [
        row(
          inv.accountId,
          "global",
          ok,
          !s.accountMfaEnabled ? "The root user has no MFA device." : virtual !== undefined ? `The root user uses a virtual MFA device (${virtual.serial}).` : "The root user uses a hardware MFA device.",
          { root_mfa: s.accountMfaEnabled, virtual_mfa: virtual?.serial ?? null },
        ),
      ]
    },
  }),
  defineCheck({
    id: "iam_no_root_access_key",
    service: "iam",
    title: "The root user should have no access keys",
    description: "Checks that no access key exists for the root user (account summary AccountAccessKeysPresent and the credential report).",
    severity: "critical",
    cis: { v3: "1.4", v7: "2.4" },
    fsbp: "IAM.4",
    remediation: "Sign in as the root user, open Security credentials and delete every access key; use IAM roles instead.",
    field_labels: { root_access_keys: "Root access keys present" },
    uses: ["iam.account_summary", "iam.credential_report"],
    testedWith: "sdk-mock",
    mockReason: "moto hard-codes AccountAccessKeysPresent to 0 and has no <root_account> report row, so only the compliant case is reachable.",
    evaluate: (inv) => {
      const s = inv.iam.summary
      if (s === undefined) return []
      const root = inv.iam.credentialReport?.find((r) => r.user === ROOT_ROW)
      const present = s.accountAccessKeysPresent || root?.accessKey1Active === true || root?.accessKey2Active === true
      return [row(inv.accountId, "global", !present, present ? "The root user has an access key." : "The root user has no access keys.", { root_access_keys: present })]
    },
  }),
  defineCheck({
    id: "iam_avoid_root_usage",
    service: "iam",
    title: "The root user should not be used for everyday tasks",
    description: `Checks the credential report for root password or access-key use in the last ${ROOT_USAGE_DAYS} days.`,
    severity: "high",
    cis: { v3: "1.7", v7: "2.7" },
    remediation: "Create IAM users or IAM Identity Center users with least-privilege roles for daily work; keep the root credentials locked away and monitor root sign-ins (CIS 4.3).",
    field_labels: { password_last_used: "Password last used", access_key_last_used: "Access key last used" },
    uses: ["iam.credential_report", "iam.root_credentials"],
    testedWith: "sdk-mock",
    mockReason: "moto's credential report has no <root_account> row.",
    evaluate: (inv, env) => {
      const root = inv.iam.credentialReport?.find((r) => r.user === ROOT_ROW)
      if (root === undefined) return []
      const keyUse = [root.accessKey1LastUsed, root.accessKey2LastUsed].filter((d): d is Date => d !== null).sort((a, b) => b.getTime() - a.getTime())[0] ?? null
      const uses = [root.passwordLastUsed, keyUse].filter((d): d is Date => d !== null)
      const recent = uses.filter((d) => daysBetween(d, env.now) < ROOT_USAGE_DAYS)
      const last = uses.sort((a, b) => b.getTime() - a.getTime())[0]
      return [
        row(
          inv.accountId,
          "global",
          recent.length === 0,
          recent.length > 0
            ? `The root user was used ${daysBetween(recent[0] as Date, env.now)} day(s) ago.`
            : last === undefined
              ? "The root user has no recorded use."
              : `The root user was last used ${daysBetween(last, env.now)} days ago.`,
          { password_last_used: iso(root.passwordLastUsed), access_key_last_used: iso(keyUse) },
        ),
      ]
    },
  }),
  defineCheck({
    id: "iam_user_mfa_enabled_console_access",
    service: "iam",
    title: "IAM users with a console password should have MFA enabled",
    description: "Checks the credential report: every user with a console password must have an active MFA device.",
    severity: "high",
    cis: { v3: "1.10", v7: "2.10" },
    fsbp: "IAM.5",
    remediation: "Assign an MFA device to each console user (IAM > Users > Security credentials > Assign MFA device), or remove the console password of users who do not need it.",
    field_labels: { mfa_active: "MFA active" },
    uses: ["iam.credential_report"],
    testedWith: "moto",
    evaluate: (inv) =>
      consoleUsers(inv.iam.credentialReport ?? []).map((u) =>
        row(u.user, "global", u.mfaActive, u.mfaActive ? `User ${u.user} has MFA enabled.` : `User ${u.user} has a console password but no MFA.`, { mfa_active: u.mfaActive }),
      ),
  }),
  defineCheck({
    id: "iam_user_no_setup_initial_access_key",
    service: "iam",
    title: "Access keys should not be created during initial setup of console users",
    description: "Finds console users with an active access key that has never been used, the sign of a key created by default with the user.",
    severity: "medium",
    cis: { v3: "1.11" },
    remediation: "Delete access keys that were created with the user and never used; create keys only when a user needs programmatic access.",
    field_labels: { unused_keys: "Never-used active keys" },
    uses: ["iam.credential_report", "iam.access_keys"],
    testedWith: "moto",
    evaluate: (inv) =>
      consoleUsers(inv.iam.credentialReport ?? []).flatMap((u) => {
        const keys = (inv.iam.accessKeys ?? []).filter((k) => k.userName === u.user && k.status === "Active")
        if (keys.some((k) => k.lastUsedAt === undefined)) return []
        const unused = keys.filter((k) => k.lastUsedAt === null).map((k) => k.id)
        return [
          row(u.user, "global", unused.length === 0, unused.length === 0 ? `User ${u.user} has no never-used active access key.` : `User ${u.user} has ${unused.length} active access key(s) that were never used.`, {
            unused_keys: unused,
          }),
        ]
      }),
  }),
  defineCheck({
    id: "iam_user_accesskey_unused",
    service: "iam",
    title: `Access keys unused for ${UNUSED_CREDENTIAL_DAYS} days or more should be disabled`,
    description: `Finds active access keys not used in the last ${UNUSED_CREDENTIAL_DAYS} days (or never used and older than that); inactive keys pass.`,
    severity: "medium",
    cis: { v3: "1.12", v7: "2.11" },
    fsbp: "IAM.8",
    remediation: "Deactivate (then delete) access keys that are no longer used: aws iam update-access-key --status Inactive --user-name USER --access-key-id KEY.",
    field_labels: { user_name: "User", created_at: "Created", last_used_at: "Last used", days_unused: "Days unused" },
    uses: ["iam.access_keys"],
    testedWith: "moto",
    evaluate: (inv, env) =>
      (inv.iam.accessKeys ?? [])
        .filter((k) => k.lastUsedAt !== undefined)
        .map((k) => {
          if (k.status !== "Active") {
            return row(k.id, "global", true, `Access key ${k.id} of ${k.userName} is inactive.`, {
              user_name: k.userName,
              created_at: iso(k.createdAt),
              last_used_at: iso(k.lastUsedAt),
              days_unused: null,
            })
          }
          const since = k.lastUsedAt ?? k.createdAt ?? env.now
          const days = daysBetween(since, env.now)
          const ok = days < UNUSED_CREDENTIAL_DAYS
          return row(k.id, "global", ok, ok ? `Access key ${k.id} of ${k.userName} was used or created ${days} day(s) ago.` : `Access key ${k.id} of ${k.userName} has not been used for ${days} days.`, {
            user_name: k.userName,
            created_at: iso(k.createdAt),
            last_used_at: iso(k.lastUsedAt),
            days_unused: days,
          })
        }),
  }),
  defineCheck({
    id: "iam_user_console_access_unused",
    service: "iam",
    title: `Console passwords unused for ${UNUSED_CREDENTIAL_DAYS} days or more should be disabled`,
    description: `Finds users whose console password has not been used in the last ${UNUSED_CREDENTIAL_DAYS} days (or never, when set longer ago).`,
    severity: "medium",
    cis: { v3: "1.12", v7: "2.11" },
    fsbp: "IAM.8",
    remediation: "Remove the console password of inactive users (IAM > Users > Security credentials > Manage console access > Disable).",
    field_labels: { password_last_used: "Password last used", days_unused: "Days unused" },
    uses: ["iam.credential_report"],
    testedWith: "moto",
    evaluate: (inv, env) =>
      consoleUsers(inv.iam.credentialReport ?? []).map((u) => {
        const since = u.passwordLastUsed ?? u.passwordLastChanged ?? u.userCreationTime ?? env.now
        const days = daysBetween(since, env.now)
        const ok = days < UNUSED_CREDENTIAL_DAYS
        return row(u.user, "global", ok, ok ? `User ${u.user}'s console password was used or set ${days} day(s) ago.` : `User ${u.user}'s console password has not been used for ${days} days.`, {
          password_last_used: iso(u.passwordLastUsed),
          days_unused: days,
        })
      }),
  }),
  defineCheck({
    id: "iam_user_two_active_access_key",
    service: "iam",
    title: "IAM users should have at most one active access key",
    description: "Finds users with two active access keys.",
    severity: "medium",
    cis: { v3: "1.13" },
    remediation: "Keep one active access key per user: deactivate and delete the other after rotating clients to the remaining key.",
    field_labels: { active_keys: "Active keys" },
    uses: ["iam.authorization_details", "iam.access_keys"],
    testedWith: "moto",
    evaluate: (inv) => {
      const keys = inv.iam.accessKeys
      if (keys === undefined) return []
      return (inv.iam.users ?? []).map((u) => {
        const active = keys.filter((k) => k.userName === u.name && k.status === "Active").map((k) => k.id)
        return row(u.name, "global", active.length <= 1, active.length <= 1 ? `User ${u.name} has ${active.length} active access key(s).` : `User ${u.name} has ${active.length} active access keys.`, {
          active_keys: active,
        })
      })
    },
  }),
  defineCheck({
    id: "iam_rotate_access_key_90_days",
    service: "iam",
    title: `Access keys should be rotated every ${KEY_ROTATION_DAYS} days or less`,
    description: `Finds active access keys created more than ${KEY_ROTATION_DAYS} days ago; inactive keys pass.`,
    severity: "medium",
    cis: { v3: "1.14", v7: "2.12" },
    fsbp: "IAM.3",
    remediation: "Create a new access key, move clients to it, then deactivate and delete the old key.",
    field_labels: { user_name: "User", created_at: "Created", age_days: "Age (days)" },
    uses: ["iam.access_keys"],
    testedWith: "moto",
    evaluate: (inv, env) =>
      (inv.iam.accessKeys ?? [])
        .filter((k) => k.createdAt !== undefined)
        .map((k) => {
          const age = daysBetween(k.createdAt as Date, env.now)
          if (k.status !== "Active") {
            return row(k.id, "global", true, `Access key ${k.id} of ${k.userName} is inactive.`, { user_name: k.userName, created_at: iso(k.createdAt), age_days: age })
          }
          const ok = age <= KEY_ROTATION_DAYS
          return row(k.id, "global", ok, ok ? `Access key ${k.id} of ${k.userName} is ${age} day(s) old.` : `Access key ${k.id} of ${k.userName} is ${age} days old.`, {
            user_name: k.userName,
            created_at: iso(k.createdAt),
            age_days: age,
          })
        }),
  }),
  defineCheck({
    id: "iam_policy_attached_only_to_group_or_roles",
    service: "iam",
    title: "IAM users should receive permissions only through groups",
    description: "Finds users with managed or inline policies attached directly to them.",
    severity: "low",
    cis: { v3: "1.15", v7: "2.13" },
    fsbp: "IAM.2",
    remediation: "Move the user's permissions into a group (or role) with the same policies, add the user to it, and detach the user's own policies.",
    field_labels: { attached_policies: "Attached policies", inline_policies: "Inline policies" },
    uses: ["iam.authorization_details"],
    testedWith: "moto",
    evaluate: (inv) =>
      (inv.iam.users ?? []).map((u) => {
        const ok = u.attached.length === 0 && u.inline.length === 0
        return row(u.name, "global", ok, ok ? `User ${u.name} has no policies of its own.` : `User ${u.name} has ${u.attached.length + u.inline.length} policy(ies) attached directly.`, {
          attached_policies: u.attached.map((a) => a.name),
          inline_policies: u.inline.map((i) => i.name),
        })
      }),
  }),
  defineCheck({
    id: "iam_aws_attached_policy_no_administrative_privileges",
    service: "iam",
    title: "Attached AWS-managed policies should not grant full \"*:*\" administrative privileges",
    description: "Finds AWS-managed policies in use (e.g. AdministratorAccess) that allow Action \"*\" on Resource \"*\".",
    severity: "high",
    cis: { v3: "1.16", v7: "2.14" },
    remediation: "Detach AdministratorAccess-style policies from users, groups and roles; grant least-privilege policies instead and keep break-glass access separate.",
    field_labels: { policy_arn: "Policy ARN", attachments: "Attachments" },
    uses: ["iam.aws_managed_policies"],
    testedWith: "moto",
    evaluate: (inv) =>
      (inv.iam.awsManagedPolicies ?? []).map((p) => {
        const admin = fullAdminStatements(p.document).length > 0
        return row(p.name, "global", !admin, admin ? `Policy ${p.name} grants full administrative privileges and is attached ${p.attachmentCount} time(s).` : `Policy ${p.name} does not grant "*:*".`, {
          policy_arn: p.arn,
          attachments: p.attachmentCount,
        })
      }),
  }),
  defineCheck({
    id: "iam_customer_attached_policy_no_administrative_privileges",
    service: "iam",
    title: "Attached customer managed policies should not grant full \"*:*\" administrative privileges",
    description: "Finds customer managed policies in use that allow Action \"*\" on Resource \"*\".",
    severity: "high",
    cis: { v3: "1.16", v7: "2.14" },
    fsbp: "IAM.1",
    remediation: "Rewrite the policy to list only the actions and resources needed, or detach it from every principal.",
    field_labels: { policy_arn: "Policy ARN", attachments: "Attachments" },
    uses: ["iam.authorization_details"],
    testedWith: "moto",
    evaluate: (inv) =>
      attachedCustomerPolicies(inv.iam).map((p) => {
          const admin = fullAdminStatements(p.document).length > 0
          return row(p.name, "global", !admin, admin ? `Policy ${p.name} grants full administrative privileges.` : `Policy ${p.name} does not grant "*:*".`, {
            policy_arn: p.arn,
            attachments: p.attachmentCount,
          })
        }),
  }),
  defineCheck({
    id: "iam_inline_policy_no_administrative_privileges",
    service: "iam",
    title: "Inline policies should not grant full \"*:*\" administrative privileges",
    description: "Finds inline policies of users, groups and roles that allow Action \"*\" on Resource \"*\".",
    severity: "high",
    cis: { v3: "1.16", v7: "2.14" },
    remediation: "Replace the inline policy with a least-privilege managed policy, or delete it.",
    field_labels: { principal: "Principal", policy_name: "Policy" },
    uses: ["iam.authorization_details"],
    testedWith: "moto",
    evaluate: (inv) =>
      inlinePolicies(inv.iam).map(({ kind, principal, policy }) => {
        const admin = fullAdminStatements(policy.document).length > 0
        return row(`${kind}/${principal}/${policy.name}`, "global", !admin, admin ? `Inline policy ${policy.name} of ${kind} ${principal} grants full administrative privileges.` : `Inline policy ${policy.name} of ${kind} ${principal} does not grant "*:*".`, {
          principal: `${kind}/${principal}`,
          policy_name: policy.name,
        })
      }),
  }),
  defineCheck({
    id: "iam_support_role_created",
    service: "iam",
    title: "A support role should exist to manage incidents with AWS Support",
    description: "Checks that the AWS-managed policy AWSSupportAccess is attached to at least one user, group or role.",
    severity: "medium",
    cis: { v3: "1.17", v7: "2.15" },
    fsbp: "IAM.18",
    remediation: "Create a role (trusted by your administrators' accounts) and attach arn:aws:iam::aws:policy/AWSSupportAccess to it.",
    field_labels: { attached_to: "Attached to" },
    uses: ["iam.authorization_details"],
    testedWith: "moto",
    evaluate: (inv) => {
      const holders = principalsWith(inv.iam, "AWSSupportAccess")
      return [
        row(inv.accountId, "global", holders.length > 0, holders.length > 0 ? `AWSSupportAccess is attached to ${holders.join(", ")}.` : "No user, group or role has AWSSupportAccess.", {
          attached_to: holders,
        }),
      ]
    },
  }),
  defineCheck({
    id: "iam_no_expired_server_certificates_stored",
    service: "iam",
    title: "Expired SSL/TLS certificates stored in IAM should be removed",
    description: "Finds IAM server certificates whose expiration date has passed.",
    severity: "medium",
    cis: { v3: "1.19", v7: "2.17" },
    fsbp: "IAM.26",
    remediation: "Delete expired certificates: aws iam delete-server-certificate --server-certificate-name NAME (move endpoints to ACM certificates first).",
    field_labels: { expiration: "Expires" },
    uses: ["iam.server_certificates"],
    testedWith: "sdk-mock",
    mockReason: "moto does not parse uploaded certificates: every one reports the fixed expiration 2012-05-08, so the valid case needs a stubbed listing.",
    evaluate: (inv, env) =>
      (inv.iam.serverCertificates ?? []).map((c) => {
        const expired = c.expiration !== undefined && c.expiration.getTime() <= env.now.getTime()
        return row(c.name, "global", !expired, expired ? `Certificate ${c.name} expired on ${iso(c.expiration)}.` : `Certificate ${c.name} is valid until ${iso(c.expiration) ?? "an unknown date"}.`, {
          expiration: iso(c.expiration),
        })
      }),
  }),
  defineCheck({
    id: "iam_policy_cloudshell_admin_not_attached",
    service: "iam",
    title: "Access to AWSCloudShellFullAccess should be restricted",
    description: "Finds users, groups and roles with the AWS-managed AWSCloudShellFullAccess policy, which allows file upload/download through CloudShell.",
    severity: "medium",
    cis: { v3: "1.22", v7: "2.20" },
    fsbp: "IAM.27",
    remediation: "Detach AWSCloudShellFullAccess and grant a CloudShell policy without file transfer (deny cloudshell:GetFileDownloadUrls and cloudshell:GetFileUploadUrls).",
    field_labels: { attached_to: "Attached to" },
    uses: ["iam.authorization_details"],
    testedWith: "moto",
    evaluate: (inv) => {
      const holders = principalsWith(inv.iam, "AWSCloudShellFullAccess")
      if (holders.length === 0) return [row(inv.accountId, "global", true, "No user, group or role has AWSCloudShellFullAccess.", { attached_to: [] })]
      return holders.map((h) => row(h, "global", false, `${h} has AWSCloudShellFullAccess attached.`, { attached_to: [h] }))
    },
  }),
  defineCheck({
    id: "iam_role_trust_not_public",
    service: "iam",
    title: "Role trust policies should not let anyone assume the role",
    description: "Finds roles whose trust policy allows Principal \"*\" (or every account's root) to assume them without a condition that pins the caller's account, organization or source.",
    severity: "critical",
    cis: {},
    remediation: "Name the trusted accounts or roles in the trust policy's Principal, or add a condition on aws:PrincipalOrgID / aws:PrincipalAccount; an external id alone is not a secret.",
    field_labels: { role_arn: "Role ARN", statements: "Open statements" },
    uses: ["iam.authorization_details"],
    testedWith: "moto",
    evaluate: (inv) =>
      (inv.iam.roles ?? []).map((r) => {
        const open = publicAllowStatements(r.trustPolicy, ASSUME_ACTIONS)
        return row(r.name, "global", open.length === 0, open.length === 0 ? `Only named principals may assume role ${r.name}.` : `Anyone may assume role ${r.name} (${open.length} statement(s) with a public principal).`, {
          role_arn: r.arn,
          statements: open.map((st) => st.sid ?? "(no Sid)"),
        })
      }),
  }),
  defineCheck({
    id: "iam_role_cross_account_trust_with_condition",
    service: "iam",
    title: "Roles trusted by other accounts should require a condition",
    description: "Finds roles whose trust policy lets principals of another account assume them with no condition at all (no external id, MFA, organization or source condition).",
    severity: "high",
    cis: {},
    remediation: "Add a condition to the trust statement: sts:ExternalId for a third party, aws:MultiFactorAuthPresent for people, aws:PrincipalOrgID or aws:PrincipalArn for your own organization; or name the exact role instead of the account root.",
    field_labels: { role_arn: "Role ARN", trusted_accounts: "Trusted accounts" },
    uses: ["iam.authorization_details"],
    testedWith: "moto",
    evaluate: (inv) =>
      (inv.iam.roles ?? []).map((r) => {
        const open = unconditionedCrossAccountStatements(r.trustPolicy, inv.accountId)
        const accounts = [...new Set(open.flatMap((st) => (st.principal === "*" ? ["*"] : (st.principal?.["AWS"] ?? []))))]
        return row(r.name, "global", open.length === 0, open.length === 0 ? `No other account may assume role ${r.name} without a condition.` : `Principals of ${accounts.join(", ")} may assume role ${r.name} without any condition.`, {
          role_arn: r.arn,
          trusted_accounts: accounts,
        })
      }),
  }),
  defineCheck({
    id: "iam_policy_allows_privilege_escalation",
    service: "iam",
    title: "Customer managed policies in use should not allow privilege escalation",
    description: "Finds attached customer managed policies that allow a known privilege-escalation permission set (new policy versions, attaching or writing policies, credentials for other users, passing a role to compute the holder controls, rewriting a role's trust or a function's code).",
    severity: "high",
    cis: {},
    remediation: "Remove the escalation actions, or scope them to resources the holder may not use against itself (specific policy, user and role ARNs; iam:PassRole limited with iam:PassedToService and exact role ARNs).",
    field_labels: { policy_arn: "Policy ARN", escalation: "Escalation through" },
    uses: ["iam.authorization_details"],
    testedWith: "moto",
    evaluate: (inv) =>
      attachedCustomerPolicies(inv.iam).map((p) => {
          const sets = privilegeEscalationSets(p.document)
          return row(p.name, "global", sets.length === 0, escalationReason(`Policy ${p.name}`, sets), { policy_arn: p.arn, escalation: sets })
        }),
  }),
  defineCheck({
    id: "iam_inline_policy_allows_privilege_escalation",
    service: "iam",
    title: "Inline policies should not allow privilege escalation",
    description: "Finds inline policies of users, groups and roles that allow a known privilege-escalation permission set.",
    severity: "high",
    cis: {},
    remediation: "Remove the escalation actions from the inline policy or scope them to resources the holder may not use against itself; prefer a reviewed managed policy.",
    field_labels: { principal: "Principal", policy_name: "Policy", escalation: "Escalation through" },
    uses: ["iam.authorization_details"],
    testedWith: "moto",
    evaluate: (inv) =>
      inlinePolicies(inv.iam).map(({ kind, principal, policy }) => {
        const sets = privilegeEscalationSets(policy.document)
        return row(`${kind}/${principal}/${policy.name}`, "global", sets.length === 0, escalationReason(`Inline policy ${policy.name} of ${kind} ${principal}`, sets), {
          principal: `${kind}/${principal}`,
          policy_name: policy.name,
          escalation: sets,
        })
      }),
  }),
]
