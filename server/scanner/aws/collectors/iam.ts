/**
 * IAM inventory (global, read once from the home region): password policy, account summary (root MFA/keys),
 * credential report (password and root usage), users/groups/roles/customer policies with their attached and
 * inline policies (GetAccountAuthorizationDetails), the attached AWS-managed policies' documents, access keys
 * with last use, virtual MFA devices and server certificates.
 */
import {
  GenerateCredentialReportCommand,
  GetAccessKeyLastUsedCommand,
  GetAccountAuthorizationDetailsCommand,
  GetAccountPasswordPolicyCommand,
  GetAccountSummaryCommand,
  GetCredentialReportCommand,
  GetPolicyVersionCommand,
  ListAccessKeysCommand,
  ListPoliciesCommand,
  ListServerCertificatesCommand,
  ListVirtualMFADevicesCommand,
  type AttachedPolicy,
  type PolicyDetail,
} from "@aws-sdk/client-iam"
import type { CollectContext } from "../context.ts"
import { parsePolicy, type PolicyDocument } from "../policy.ts"

export const iamResourceTypes = [
  "iam.password_policy",
  "iam.account_summary",
  "iam.credential_report",
  "iam.authorization_details",
  "iam.access_keys",
  "iam.aws_managed_policies",
  "iam.virtual_mfa",
  "iam.server_certificates",
  "iam.root_credentials",
] as const

export interface PasswordPolicy {
  readonly minimumLength: number
  readonly requireSymbols: boolean
  readonly requireNumbers: boolean
  readonly requireUppercase: boolean
  readonly requireLowercase: boolean
  readonly expirePasswords: boolean
  readonly maxPasswordAge: number | null
  readonly reusePrevention: number | null
}

export interface NamedPolicy {
  readonly name: string
  readonly arn: string
}

export interface InlinePolicy {
  readonly name: string
  readonly document: PolicyDocument | undefined
}

export interface IamPrincipal {
  readonly name: string
  readonly arn: string
  readonly createdAt: Date | undefined
  readonly attached: ReadonlyArray<NamedPolicy>
  readonly inline: ReadonlyArray<InlinePolicy>
}

export interface IamUser extends IamPrincipal {
  readonly groups: ReadonlyArray<string>
}

export interface IamRole extends IamPrincipal {
  readonly trustPolicy: PolicyDocument | undefined
  readonly instanceProfiles: ReadonlyArray<string>
}

export interface ManagedPolicy extends NamedPolicy {
  readonly attachmentCount: number
  readonly document: PolicyDocument | undefined
}

export interface AccessKey {
  readonly userName: string
  readonly id: string
  readonly status: string
  readonly createdAt: Date | undefined
  /** null: never used; undefined: could not be read. */
  readonly lastUsedAt: Date | null | undefined
}

/** One credential report line; dates are null for "N/A"/"no_information"/"not_supported". */
export interface CredentialReportRow {
  readonly user: string
  readonly arn: string
  readonly userCreationTime: Date | null
  readonly passwordEnabled: boolean
  readonly passwordLastUsed: Date | null
  readonly passwordLastChanged: Date | null
  readonly mfaActive: boolean
  readonly accessKey1Active: boolean
  readonly accessKey1LastRotated: Date | null
  readonly accessKey1LastUsed: Date | null
  readonly accessKey2Active: boolean
  readonly accessKey2LastRotated: Date | null
  readonly accessKey2LastUsed: Date | null
}

export interface IamInventory {
  readonly passwordPolicy: PasswordPolicy | null | undefined
  readonly summary: { readonly accountMfaEnabled: boolean; readonly accountAccessKeysPresent: boolean } | undefined
  readonly credentialReport: ReadonlyArray<CredentialReportRow> | undefined
  readonly users: ReadonlyArray<IamUser> | undefined
  readonly groups: ReadonlyArray<IamPrincipal> | undefined
  readonly roles: ReadonlyArray<IamRole> | undefined
  readonly customerPolicies: ReadonlyArray<ManagedPolicy> | undefined
  readonly awsManagedPolicies: ReadonlyArray<ManagedPolicy> | undefined
  readonly accessKeys: ReadonlyArray<AccessKey> | undefined
  readonly virtualMfaDevices: ReadonlyArray<{ readonly serial: string; readonly userArn: string | undefined }> | undefined
  readonly serverCertificates: ReadonlyArray<{ readonly name: string; readonly arn: string; readonly expiration: Date | undefined }> | undefined
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

const reportDate = (v: string | undefined): Date | null => {
  if (v === undefined || v === "" || v === "N/A" || v === "no_information" || v === "not_supported") return null
  const d = new Date(v)
  return Number.isNaN(d.getTime()) ? null : d
}

/** Parses the credential report CSV (no quoted fields in this format). */
export function parseCredentialReport(csv: string): CredentialReportRow[] {
  const lines = csv.split(/\r?\n/).filter((l) => l.trim() !== "")
  const header = (lines[0] ?? "").split(",")
  return lines.slice(1).map((line) => {
    const cells = line.split(",")
    const get = (name: string) => cells[header.indexOf(name)]
    return {
      user: get("user") ?? "",
      arn: get("arn") ?? "",
      userCreationTime: reportDate(get("user_creation_time")),
      passwordEnabled: get("password_enabled") === "true",
      passwordLastUsed: reportDate(get("password_last_used")),
      passwordLastChanged: reportDate(get("password_last_changed")),
      mfaActive: get("mfa_active") === "true",
      accessKey1Active: get("access_key_1_active") === "true",
      accessKey1LastRotated: reportDate(get("access_key_1_last_rotated")),
      accessKey1LastUsed: reportDate(get("access_key_1_last_used_date")),
      accessKey2Active: get("access_key_2_active") === "true",
      accessKey2LastRotated: reportDate(get("access_key_2_last_rotated")),
      accessKey2LastUsed: reportDate(get("access_key_2_last_used_date")),
    }
  })
}

const named = (list: ReadonlyArray<AttachedPolicy> | undefined): NamedPolicy[] =>
  (list ?? []).flatMap((p) => (p.PolicyName === undefined || p.PolicyArn === undefined ? [] : [{ name: p.PolicyName, arn: p.PolicyArn }]))

const inline = (list: ReadonlyArray<PolicyDetail> | undefined): InlinePolicy[] =>
  (list ?? []).map((p) => ({ name: p.PolicyName ?? "", document: parsePolicy(p.PolicyDocument) }))

export async function collectIam(ctx: CollectContext): Promise<IamInventory> {
  const region = ctx.homeRegion
  const iam = ctx.clients.get("iam", region)
  const spec = (type: (typeof iamResourceTypes)[number], op: string, id?: string) => ({ type, region: "global", op, ...(id === undefined ? {} : { id }) })

  const skip = Promise.resolve(undefined)
  const want = (type: (typeof iamResourceTypes)[number]) => ctx.wants(type)
  const passwordPolicyP = !want("iam.password_policy")
    ? skip
    : ctx.optional(spec("iam.password_policy", "iam:GetAccountPasswordPolicy"), ["NoSuchEntity", "NoSuchEntityException"], (o) =>
    iam.send(new GetAccountPasswordPolicyCommand({}), o),
  )
  const summaryP = !want("iam.account_summary")
    ? skip
    : ctx.call(spec("iam.account_summary", "iam:GetAccountSummary"), (o) => iam.send(new GetAccountSummaryCommand({}), o))
  const reportP = (async (): Promise<CredentialReportRow[] | undefined> => {
    if (!want("iam.credential_report") && !want("iam.root_credentials")) return undefined
    let delay = 100
    for (let i = 0; i < 12; i++) {
      const gen = await ctx.call(spec("iam.credential_report", "iam:GenerateCredentialReport"), (o) => iam.send(new GenerateCredentialReportCommand({}), o))
      if (gen === undefined) return undefined
      if (gen.State === "COMPLETE") break
      await sleep(delay)
      delay = Math.min(delay * 2, 2000)
    }
    const report = await ctx.call(spec("iam.credential_report", "iam:GetCredentialReport"), (o) => iam.send(new GetCredentialReportCommand({}), o))
    if (report?.Content === undefined) return undefined
    const rows = parseCredentialReport(Buffer.from(report.Content).toString("utf8"))
    if (!rows.some((r) => r.user === "<root_account>")) {
      // AWS always reports the root user; emulators do not. Root-usage rules cannot be evaluated then.
      ctx.recordError({
        resourceType: "iam.root_credentials",
        region: "global",
        operation: "iam:GetCredentialReport",
        kind: "unsupported",
        code: "NoRootAccountRow",
        message: "The credential report has no <root_account> row",
      })
    }
    return rows
  })()
  // Users are also needed to list their access keys.
  const detailsP = !want("iam.authorization_details") && !want("iam.access_keys")
    ? skip
    : ctx.paginate(
    spec("iam.authorization_details", "iam:GetAccountAuthorizationDetails"),
    (marker, o) =>
      iam.send(new GetAccountAuthorizationDetailsCommand({ Filter: ["User", "Role", "Group", "LocalManagedPolicy"], ...(marker === undefined ? {} : { Marker: marker }) }), o),
    (page) => ({ items: [page], next: page.IsTruncated === true ? page.Marker : undefined }),
  )
  const awsPoliciesP = (async (): Promise<ManagedPolicy[] | undefined> => {
    if (!want("iam.aws_managed_policies")) return undefined
    const listed = await ctx.paginate(
      spec("iam.aws_managed_policies", "iam:ListPolicies"),
      (marker, o) => iam.send(new ListPoliciesCommand({ Scope: "AWS", OnlyAttached: true, ...(marker === undefined ? {} : { Marker: marker }) }), o),
      (page) => ({ items: page.Policies, next: page.IsTruncated === true ? page.Marker : undefined }),
    )
    if (listed === undefined) return undefined
    const out = await ctx.map(listed, async (p): Promise<ManagedPolicy | undefined> => {
      if (p.Arn === undefined || p.DefaultVersionId === undefined) return undefined
      const v = await ctx.call(spec("iam.aws_managed_policies", "iam:GetPolicyVersion", p.Arn), (o) =>
        iam.send(new GetPolicyVersionCommand({ PolicyArn: p.Arn, VersionId: p.DefaultVersionId }), o),
      )
      return { name: p.PolicyName ?? "", arn: p.Arn, attachmentCount: p.AttachmentCount ?? 0, document: parsePolicy(v?.PolicyVersion?.Document) }
    })
    return out.filter((p): p is ManagedPolicy => p !== undefined)
  })()
  const mfaP = !want("iam.virtual_mfa")
    ? skip
    : ctx.paginate(
    spec("iam.virtual_mfa", "iam:ListVirtualMFADevices"),
    (marker, o) => iam.send(new ListVirtualMFADevicesCommand({ AssignmentStatus: "Any", ...(marker === undefined ? {} : { Marker: marker }) }), o),
    (page) => ({ items: page.VirtualMFADevices, next: page.IsTruncated === true ? page.Marker : undefined }),
  )
  const certsP = !want("iam.server_certificates")
    ? skip
    : ctx.paginate(
    spec("iam.server_certificates", "iam:ListServerCertificates"),
    (marker, o) => iam.send(new ListServerCertificatesCommand({ ...(marker === undefined ? {} : { Marker: marker }) }), o),
    (page) => ({ items: page.ServerCertificateMetadataList, next: page.IsTruncated === true ? page.Marker : undefined }),
  )

  const details = await detailsP
  const users: IamUser[] | undefined = details?.flatMap((page) =>
    (page.UserDetailList ?? []).map((u) => ({
      name: u.UserName ?? "",
      arn: u.Arn ?? "",
      createdAt: u.CreateDate,
      groups: u.GroupList ?? [],
      attached: named(u.AttachedManagedPolicies),
      inline: inline(u.UserPolicyList),
    })),
  )
  const groups: IamPrincipal[] | undefined = details?.flatMap((page) =>
    (page.GroupDetailList ?? []).map((g) => ({
      name: g.GroupName ?? "",
      arn: g.Arn ?? "",
      createdAt: g.CreateDate,
      attached: named(g.AttachedManagedPolicies),
      inline: inline(g.GroupPolicyList),
    })),
  )
  const roles: IamRole[] | undefined = details?.flatMap((page) =>
    (page.RoleDetailList ?? []).map((r) => ({
      name: r.RoleName ?? "",
      arn: r.Arn ?? "",
      createdAt: r.CreateDate,
      attached: named(r.AttachedManagedPolicies),
      inline: inline(r.RolePolicyList),
      trustPolicy: parsePolicy(r.AssumeRolePolicyDocument),
      instanceProfiles: (r.InstanceProfileList ?? []).flatMap((p) => (p.Arn === undefined ? [] : [p.Arn])),
    })),
  )
  const customerPolicies: ManagedPolicy[] | undefined = details?.flatMap((page) =>
    (page.Policies ?? []).map((p) => ({
      // moto omits PolicyName here; the ARN's last path segment is the name.
      name: p.PolicyName ?? p.Arn?.slice(p.Arn.lastIndexOf("/") + 1) ?? "",
      arn: p.Arn ?? "",
      attachmentCount: p.AttachmentCount ?? 0,
      document: parsePolicy((p.PolicyVersionList ?? []).find((v) => v.IsDefaultVersion === true)?.Document),
    })),
  )

  // Access keys per user, with last use (the credential report has no key ids, which remediation needs).
  const accessKeys =
    users === undefined || !want("iam.access_keys")
      ? undefined
      : (
          await ctx.map(users, async (u) => {
            const keys = await ctx.paginate(
              spec("iam.access_keys", "iam:ListAccessKeys", u.name),
              (marker, o) => iam.send(new ListAccessKeysCommand({ UserName: u.name, ...(marker === undefined ? {} : { Marker: marker }) }), o),
              (page) => ({ items: page.AccessKeyMetadata, next: page.IsTruncated === true ? page.Marker : undefined }),
            )
            if (keys === undefined) return undefined
            return ctx.map(keys, async (k): Promise<AccessKey> => {
              const id = k.AccessKeyId ?? ""
              const used = await ctx.call(spec("iam.access_keys", "iam:GetAccessKeyLastUsed", id), (o) =>
                iam.send(new GetAccessKeyLastUsedCommand({ AccessKeyId: id }), o),
              )
              return {
                userName: u.name,
                id,
                status: k.Status ?? "Active",
                createdAt: k.CreateDate,
                lastUsedAt: used === undefined ? undefined : (used.AccessKeyLastUsed?.LastUsedDate ?? null),
              }
            })
          })
        ).flatMap((keys) => keys ?? [])

  const [passwordPolicy, summary, credentialReport, awsManagedPolicies, mfa, certs] = await Promise.all([
    passwordPolicyP,
    summaryP,
    reportP,
    awsPoliciesP,
    mfaP,
    certsP,
  ])
  const p = passwordPolicy?.PasswordPolicy
  ctx.countResources((users?.length ?? 0) + (groups?.length ?? 0) + (roles?.length ?? 0) + (customerPolicies?.length ?? 0) + (accessKeys?.length ?? 0))
  return {
    passwordPolicy:
      passwordPolicy === undefined
        ? undefined
        : passwordPolicy === null || p === undefined
          ? null
          : {
              minimumLength: p.MinimumPasswordLength ?? 0,
              requireSymbols: p.RequireSymbols === true,
              requireNumbers: p.RequireNumbers === true,
              requireUppercase: p.RequireUppercaseCharacters === true,
              requireLowercase: p.RequireLowercaseCharacters === true,
              expirePasswords: p.ExpirePasswords === true,
              maxPasswordAge: p.MaxPasswordAge ?? null,
              reusePrevention: p.PasswordReusePrevention ?? null,
            },
    summary:
      summary === undefined
        ? undefined
        : {
            accountMfaEnabled: (summary.SummaryMap?.["AccountMFAEnabled"] ?? 0) > 0,
            accountAccessKeysPresent: (summary.SummaryMap?.["AccountAccessKeysPresent"] ?? 0) > 0,
          },
    credentialReport,
    users,
    groups,
    roles,
    customerPolicies,
    awsManagedPolicies,
    accessKeys: users === undefined ? undefined : accessKeys,
    virtualMfaDevices: mfa?.map((d) => ({ serial: d.SerialNumber ?? "", userArn: d.User?.Arn })),
    serverCertificates: certs?.map((c) => ({ name: c.ServerCertificateName ?? "", arn: c.Arn ?? "", expiration: c.Expiration })),
  }
}
