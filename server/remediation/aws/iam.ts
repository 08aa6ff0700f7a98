/**
 * IAM fixers (plan vocabulary, ./fixer.ts): account password policy (CIS baseline, never weakening current settings)
 * and deactivation of unused access keys. Undo writes the previous policy back (or deletes the policy when there was
 * none) and re-activates the keys that were active.
 */
import { GetAccessKeyLastUsedCommand, GetAccountPasswordPolicyCommand, GetLoginProfileCommand, ListAccessKeysCommand, ListUsersCommand, type PasswordPolicy } from "@aws-sdk/client-iam"
import { toJson, type Json } from "../plan.ts"
import { awsCall, field, FixError, isAbsent, registerTerraform, sendOptions, tfBlock, tfName, type AwsPlanFixer, type FixContext } from "./fixer.ts"

/** The strictest of the current policy and the CIS/FSBP baseline, setting by setting. */
export function strengthenPasswordPolicy(current: PasswordPolicy | undefined) {
  const maxAge = current?.ExpirePasswords === true && current.MaxPasswordAge !== undefined ? Math.min(current.MaxPasswordAge, 90) : 90
  return {
    MinimumPasswordLength: Math.max(current?.MinimumPasswordLength ?? 0, 14),
    RequireSymbols: true,
    RequireNumbers: true,
    RequireUppercaseCharacters: true,
    RequireLowercaseCharacters: true,
    AllowUsersToChangePassword: true,
    MaxPasswordAge: maxAge,
    PasswordReusePrevention: Math.max(current?.PasswordReusePrevention ?? 0, 24),
    ...(current?.HardExpiry === undefined ? {} : { HardExpiry: current.HardExpiry }),
  }
}

/** The UpdateAccountPasswordPolicy input that writes `policy` back as it was. */
const asUpdate = (p: PasswordPolicy) => ({
  ...(p.MinimumPasswordLength === undefined ? {} : { MinimumPasswordLength: p.MinimumPasswordLength }),
  RequireSymbols: p.RequireSymbols === true,
  RequireNumbers: p.RequireNumbers === true,
  RequireUppercaseCharacters: p.RequireUppercaseCharacters === true,
  RequireLowercaseCharacters: p.RequireLowercaseCharacters === true,
  AllowUsersToChangePassword: p.AllowUsersToChangePassword === true,
  ...(p.ExpirePasswords === true && p.MaxPasswordAge !== undefined ? { MaxPasswordAge: p.MaxPasswordAge } : {}),
  ...(p.PasswordReusePrevention === undefined ? {} : { PasswordReusePrevention: p.PasswordReusePrevention }),
  ...(p.HardExpiry === undefined ? {} : { HardExpiry: p.HardExpiry }),
})

/** Users with a console password older than `days` (read from IAM; at most the first 100 users). */
const passwordsOlderThan = async (ctx: FixContext, days: number): Promise<string[]> => {
  const iam = ctx.clients.get("iam", ctx.clients.homeRegion)
  const users = (await iam.send(new ListUsersCommand({ MaxItems: 100 }), sendOptions(ctx))).Users ?? []
  const old: string[] = []
  for (const u of users) {
    if (u.UserName === undefined) continue
    try {
      const profile = await iam.send(new GetLoginProfileCommand({ UserName: u.UserName }), sendOptions(ctx))
      const created = profile.LoginProfile?.CreateDate
      if (created !== undefined && Date.now() - new Date(created).getTime() > days * 86_400_000) old.push(u.UserName)
    } catch (error) {
      if (!isAbsent(error, "NoSuchEntity", "NoSuchEntityException")) throw error
    }
  }
  return old
}

interface KeyState {
  readonly UserName: string
  readonly Keys: ReadonlyArray<{ readonly AccessKeyId: string; readonly Status: string }>
}

const readKeys = async (ctx: FixContext, user: string, ids: ReadonlyArray<string>): Promise<Json> => {
  const out = await ctx.clients.get("iam", ctx.clients.homeRegion).send(new ListAccessKeysCommand({ UserName: user }), sendOptions(ctx))
  const keys = (out.AccessKeyMetadata ?? []).filter((k) => ids.includes(k.AccessKeyId ?? ""))
  if (keys.length === 0) throw new FixError(`User ${user} has none of the access keys ${ids.join(", ")} any more`)
  return toJson({ UserName: user, Keys: keys.map((k) => ({ AccessKeyId: k.AccessKeyId, Status: k.Status })).sort((a, b) => String(a.AccessKeyId).localeCompare(String(b.AccessKeyId))) })
}

/** Deactivates the listed keys that are active; undo re-activates them. */
const deactivatePlan = async (ctx: FixContext, state: Json, what: string) => {
  const s = state as unknown as KeyState
  const home = ctx.clients.homeRegion
  const active = s.Keys.filter((k) => k.Status === "Active")
  const effects: string[] = []
  for (const k of active) {
    const used = await ctx.clients.get("iam", home).send(new GetAccessKeyLastUsedCommand({ AccessKeyId: k.AccessKeyId }), sendOptions(ctx))
    const last = used.AccessKeyLastUsed?.LastUsedDate
    effects.push(`User ${s.UserName} loses programmatic access through key ${k.AccessKeyId} (${last === undefined ? "never used" : `last used ${new Date(last).toISOString().slice(0, 10)}${used.AccessKeyLastUsed?.ServiceName ? ` with ${used.AccessKeyLastUsed.ServiceName}` : ""}`}).`)
  }
  const call = (id: string, status: "Active" | "Inactive") => awsCall("iam", "UpdateAccessKey", home, { UserName: s.UserName, AccessKeyId: id, Status: status })
  return {
    calls: active.map((k) => call(k.AccessKeyId, "Inactive")),
    effects,
    summary: `Deactivated ${active.length} ${what} access key(s) of ${s.UserName}.`,
    ...(active.length === 0 ? { noop: `The keys of ${s.UserName} are already inactive.` } : {}),
    undo: { reversible: true as const, calls: active.map((k) => call(k.AccessKeyId, "Active")) },
  }
}

export const iamFixers: ReadonlyArray<AwsPlanFixer> = [
  {
    checkIds: [
      "iam_password_policy_minimum_length_14",
      "iam_password_policy_reuse_24",
      "iam_password_policy_uppercase",
      "iam_password_policy_lowercase",
      "iam_password_policy_number",
      "iam_password_policy_symbol",
      "iam_password_policy_expires_passwords_within_90_days_or_less",
    ],
    description: "Sets the account password policy to at least 14 characters with upper/lower case, numbers and symbols, 24 remembered passwords and a 90-day maximum age (stricter current settings are kept).",
    cutsAccess: "Existing passwords keep working until they expire; users whose password is older than 90 days must change it at next sign-in.",
    read: async (ctx) => {
      try {
        const out = await ctx.clients.get("iam", ctx.clients.homeRegion).send(new GetAccountPasswordPolicyCommand({}), sendOptions(ctx))
        return toJson({ PasswordPolicy: out.PasswordPolicy ?? null })
      } catch (error) {
        if (isAbsent(error, "NoSuchEntity", "NoSuchEntityException")) return { PasswordPolicy: null }
        throw error
      }
    },
    plan: async (ctx, _row, state) => {
      const current = (state as { PasswordPolicy: PasswordPolicy | null }).PasswordPolicy
      const next = strengthenPasswordPolicy(current ?? undefined)
      const old = await passwordsOlderThan(ctx, next.MaxPasswordAge)
      const home = ctx.clients.homeRegion
      return {
        calls: [awsCall("iam", "UpdateAccountPasswordPolicy", home, next)],
        effects: [
          "Every IAM user's next password change must meet the new rules; current passwords keep working until they expire.",
          old.length === 0
            ? `No console password is older than ${next.MaxPasswordAge} days now.`
            : `${old.length} user(s) whose console password is older than ${next.MaxPasswordAge} days must change it at their next sign-in${next.HardExpiry === true ? " (hard expiry: an administrator must reset it)" : ""}: ${old.slice(0, 20).join(", ")}${old.length > 20 ? ", …" : ""}.`,
        ],
        summary: `Password policy set: minimum length ${next.MinimumPasswordLength}, ${next.PasswordReusePrevention} remembered, expiry ${next.MaxPasswordAge} days, all character classes required.`,
        undo: {
          reversible: true,
          calls: [current === null ? awsCall("iam", "DeleteAccountPasswordPolicy", home, {}) : awsCall("iam", "UpdateAccountPasswordPolicy", home, asUpdate(current))],
          note: "Passwords changed under the stricter policy stay as they are.",
        },
      }
    },
  },
  {
    checkIds: ["iam_user_accesskey_unused"],
    description: "Deactivates the unused access key (it can be re-activated; delete it once nothing breaks).",
    cutsAccess: "Any program still using this key is denied.",
    read: (ctx, row) => readKeys(ctx, field(row, "user_name"), [row.resource_id]),
    plan: (ctx, _row, state) => deactivatePlan(ctx, state, "unused"),
  },
  {
    checkIds: ["iam_user_no_setup_initial_access_key"],
    description: "Deactivates the console user's access keys that have never been used.",
    cutsAccess: "Keys that were handed out but not used yet stop working.",
    read: (ctx, row) => {
      const keys = row["unused_keys"]
      if (!Array.isArray(keys) || keys.length === 0) throw new FixError("The finding row lists no unused keys")
      return readKeys(ctx, row.resource_id, keys.map(String))
    },
    plan: (ctx, _row, state) => deactivatePlan(ctx, state, "never-used"),
  },
]

registerTerraform("iam", "UpdateAccountPasswordPolicy", (call) =>
  tfBlock(
    "resource",
    "aws_iam_account_password_policy",
    "this",
    Object.entries(call.params).map(([k, v]) => [
      ({ MinimumPasswordLength: "minimum_password_length", RequireSymbols: "require_symbols", RequireNumbers: "require_numbers", RequireUppercaseCharacters: "require_uppercase_characters", RequireLowercaseCharacters: "require_lowercase_characters", AllowUsersToChangePassword: "allow_users_to_change_password", MaxPasswordAge: "max_password_age", PasswordReusePrevention: "password_reuse_prevention", HardExpiry: "hard_expiry" } as Record<string, string>)[k] ?? k,
      v,
    ] as const),
  ),
)
registerTerraform("iam", "UpdateAccessKey", (call) =>
  [`# The aws_iam_access_key resource of ${String(call.params["AccessKeyId"])}:`, tfBlock("resource", "aws_iam_access_key", tfName(String(call.params["AccessKeyId"])), [["user", call.params["UserName"]], ["status", call.params["Status"]]])].join("\n"),
)
