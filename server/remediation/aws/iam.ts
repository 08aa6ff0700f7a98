/** IAM fixers: account password policy (CIS baseline, never weakening current settings) and deactivation of unused access keys. */
import { GetAccountPasswordPolicyCommand, UpdateAccessKeyCommand, UpdateAccountPasswordPolicyCommand, type PasswordPolicy } from "@aws-sdk/client-iam"
import { errorCode } from "../../scanner/aws/errors.ts"
import { field, FixError, sendOptions, type Fixer } from "./fixer.ts"

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

export const iamFixers: ReadonlyArray<Fixer> = [
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
    apply: async (ctx) => {
      const iam = ctx.clients.get("iam", ctx.clients.homeRegion)
      let current: PasswordPolicy | undefined
      try {
        current = (await iam.send(new GetAccountPasswordPolicyCommand({}), sendOptions(ctx))).PasswordPolicy
      } catch (error) {
        if (errorCode(error) !== "NoSuchEntity" && errorCode(error) !== "NoSuchEntityException") throw error
      }
      const next = strengthenPasswordPolicy(current)
      await iam.send(new UpdateAccountPasswordPolicyCommand(next), sendOptions(ctx))
      return `Password policy set: minimum length ${next.MinimumPasswordLength}, ${next.PasswordReusePrevention} remembered, expiry ${next.MaxPasswordAge} days, all character classes required.`
    },
  },
  {
    checkIds: ["iam_user_accesskey_unused"],
    description: "Deactivates the unused access key (it can be re-activated; delete it once nothing breaks).",
    cutsAccess: "Any program still using this key is denied.",
    apply: async (ctx, row) => {
      const user = field(row, "user_name")
      await ctx.clients.get("iam", ctx.clients.homeRegion).send(new UpdateAccessKeyCommand({ UserName: user, AccessKeyId: row.resource_id, Status: "Inactive" }), sendOptions(ctx))
      return `Deactivated access key ${row.resource_id} of ${user}.`
    },
  },
  {
    checkIds: ["iam_user_no_setup_initial_access_key"],
    description: "Deactivates the console user's access keys that have never been used.",
    cutsAccess: "Keys that were handed out but not used yet stop working.",
    apply: async (ctx, row) => {
      const keys = row["unused_keys"]
      if (!Array.isArray(keys) || keys.length === 0) throw new FixError("The finding row lists no unused keys")
      const iam = ctx.clients.get("iam", ctx.clients.homeRegion)
      for (const key of keys) await iam.send(new UpdateAccessKeyCommand({ UserName: row.resource_id, AccessKeyId: key, Status: "Inactive" }), sendOptions(ctx))
      return `Deactivated ${keys.length} never-used access key(s) of ${row.resource_id}.`
    },
  },
]
