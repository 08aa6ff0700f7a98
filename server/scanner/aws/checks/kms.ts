/** KMS checks (CIS AWS v3.0 3.6 / v7.0 4.6, FSBP KMS.3, KMS.4, KMS.5). Only customer managed keys are evaluated. */
import { defineCheck, row } from "../define-check.ts"
import { crossAccountAllowStatements as crossAccount, publicAllowStatements } from "../policy.ts"

const label = (k: { readonly id: string; readonly aliases: ReadonlyArray<string> }) => (k.aliases.length > 0 ? `${k.id} (${k.aliases.join(", ")})` : k.id)

export const kmsChecks = [
  defineCheck({
    id: "kms_cmk_rotation_enabled",
    service: "kms",
    title: "Rotation should be enabled for customer created symmetric KMS keys",
    description: "Checks that automatic yearly key material rotation is on for every enabled customer managed symmetric key.",
    severity: "medium",
    cis: { v3: "3.6", v7: "4.6" },
    fsbp: "KMS.4",
    remediation: "aws kms enable-key-rotation --key-id KEY (optionally --rotation-period-in-days).",
    field_labels: { aliases: "Aliases", rotation: "Rotation enabled" },
    uses: ["kms.keys", "kms.rotation"],
    testedWith: "moto",
    evaluate: (inv) =>
      inv.kms.regions.flatMap((r) =>
        (r.keys ?? [])
          .filter((k) => k.customerManaged && k.spec === "SYMMETRIC_DEFAULT" && k.state === "Enabled" && k.rotationEnabled !== undefined)
          .map((k) =>
            row(k.id, r.region, k.rotationEnabled === true, k.rotationEnabled === true ? `Key ${label(k)} rotates automatically.` : `Key ${label(k)} does not rotate.`, {
              aliases: k.aliases,
              rotation: k.rotationEnabled === true,
            }),
          ),
      ),
  }),
  defineCheck({
    id: "kms_cmk_not_scheduled_for_deletion",
    service: "kms",
    title: "KMS keys should not be scheduled for deletion unintentionally",
    description: "Finds customer managed keys pending deletion: data encrypted with them becomes unrecoverable once deleted.",
    severity: "critical",
    cis: {},
    fsbp: "KMS.3",
    remediation: "If the deletion was not intended: aws kms cancel-key-deletion --key-id KEY, then aws kms enable-key --key-id KEY.",
    field_labels: { aliases: "Aliases", state: "State", deletion_date: "Deletion date" },
    uses: ["kms.keys"],
    testedWith: "moto",
    evaluate: (inv) =>
      inv.kms.regions.flatMap((r) =>
        (r.keys ?? [])
          .filter((k) => k.customerManaged)
          .map((k) => {
            const pending = k.state === "PendingDeletion"
            return row(k.id, r.region, !pending, pending ? `Key ${label(k)} is scheduled for deletion on ${k.deletionDate?.toISOString() ?? "an unknown date"}.` : `Key ${label(k)} is ${k.state}.`, {
              aliases: k.aliases,
              state: k.state,
              deletion_date: k.deletionDate?.toISOString() ?? null,
            })
          }),
      ),
  }),
  defineCheck({
    id: "kms_key_not_publicly_accessible",
    service: "kms",
    title: "KMS key policies should not allow public access",
    description: "Finds customer managed keys whose key policy allows any principal (\"*\") without a restricting condition.",
    severity: "critical",
    cis: {},
    fsbp: "KMS.5",
    remediation: "Edit the key policy: replace Principal \"*\" with the specific account or role ARNs, or add conditions such as kms:CallerAccount / aws:PrincipalOrgID.",
    field_labels: { aliases: "Aliases", public_statements: "Public statements" },
    uses: ["kms.keys", "kms.policies"],
    testedWith: "moto",
    evaluate: (inv) =>
      inv.kms.regions.flatMap((r) =>
        (r.keys ?? [])
          .filter((k) => k.customerManaged && k.policy !== undefined)
          .map((k) => {
            const open = publicAllowStatements(k.policy ?? undefined)
            return row(k.id, r.region, open.length === 0, open.length === 0 ? `Key ${label(k)} is not public.` : `Key ${label(k)}'s policy allows everyone.`, {
              aliases: k.aliases,
              public_statements: open.map((s, i) => s.sid ?? `#${i + 1}`),
            })
          }),
      ),
  }),
  defineCheck({
    id: "kms_key_policy_not_cross_account",
    service: "kms",
    title: "KMS key policies should not let other accounts use or manage keys without conditions",
    description: "Finds customer managed keys whose policy grants principals of other accounts decrypt, data-key, re-encrypt or key-management actions without a condition naming the callers or the calling service.",
    severity: "high",
    cis: {},
    remediation: "Remove the other accounts from the key policy or add kms:ViaService / kms:CallerAccount / aws:PrincipalOrgID conditions (aws kms put-key-policy --key-id KEY --policy-name default --policy file://policy.json).",
    field_labels: { statements: "Cross-account statements" },
    uses: ["kms.keys", "kms.policies"],
    testedWith: "moto",
    evaluate: (inv) =>
      inv.kms.regions.flatMap((r) =>
        (r.keys ?? [])
          .filter((k) => k.customerManaged && k.policy !== undefined && k.policy !== null)
          .map((k) => {
            const bad = crossAccount(k.policy ?? undefined, inv.accountId, ["kms:Decrypt", "kms:GenerateDataKey", "kms:ReEncryptFrom", "kms:PutKeyPolicy", "kms:ScheduleKeyDeletion", "kms:CreateGrant"]).map((s, i) => s.sid ?? `#${i + 1}`)
            return row(k.id, r.region, bad.length === 0, bad.length === 0 ? `Key ${k.id} is only usable by its own account or named callers.` : `Key ${k.id}'s policy lets other accounts use it without conditions (${bad.join(", ")}).`, { statements: bad })
          }),
      ),
  }),
]
