/** Cloud KMS checks (CIS GCP v4.0 1.9, 1.10). */
import { durationSeconds, row } from "../../rest/engine.ts"
import { publicGrants } from "../context.ts"
import { defineGcpCheck } from "../define-check.ts"

const NINETY_DAYS_S = 90 * 86_400

export const kmsChecks = [
  defineGcpCheck({
    id: "kms_key_not_publicly_accessible",
    service: "kms",
    title: "Cloud KMS keys should not be anonymously or publicly accessible",
    description: "Flags crypto keys whose IAM policy grants a role to allUsers or allAuthenticatedUsers.",
    severity: "critical",
    cis: "1.9",
    remediation: "Remove the allUsers and allAuthenticatedUsers bindings (gcloud kms keys remove-iam-policy-binding KEY --member=allUsers --role=ROLE …).",
    field_labels: { public_grants: "Public grants" },
    uses: ["kms.keys", "kms.key_policies"],
    reads: "cloudkms cryptoKeys.getIamPolicy → bindings[].members ∋ allUsers|allAuthenticatedUsers",
    evaluate: (inv) =>
      (inv.kms.keys ?? []).flatMap((k) => {
        if (k.policy === undefined) return []
        const grants = publicGrants(k.policy)
        return [row(k.name, k.location, grants.length === 0, grants.length === 0 ? "The key is not shared publicly." : `The key is public: ${grants.join(", ")}.`, { public_grants: grants })]
      }),
  }),
  defineGcpCheck({
    id: "kms_key_rotation_90_days",
    service: "kms",
    title: "Cloud KMS symmetric keys should rotate within 90 days",
    description: "Checks every symmetric encryption key (purpose ENCRYPT_DECRYPT) has automatic rotation with a period of at most 90 days and a scheduled next rotation.",
    severity: "medium",
    cis: "1.10",
    remediation: "Set a rotation schedule: gcloud kms keys update KEY --keyring=RING --location=LOC --rotation-period=90d --next-rotation-time=…",
    field_labels: { rotation_period_days: "Rotation period (days)", next_rotation: "Next rotation" },
    uses: ["kms.keys"],
    reads: "cloudkms cryptoKeys.list → rotationPeriod ≤ 7776000s, nextRotationTime",
    evaluate: (inv, env) =>
      (inv.kms.keys ?? [])
        .filter((k) => (k.purpose ?? "ENCRYPT_DECRYPT") === "ENCRYPT_DECRYPT" && k.primary?.state !== "DESTROYED" && k.primary?.state !== "DESTROY_SCHEDULED")
        .map((k) => {
          const period = durationSeconds(k.rotationPeriod)
          const next = k.nextRotationTime === undefined ? undefined : Date.parse(k.nextRotationTime)
          const ok = period !== undefined && period <= NINETY_DAYS_S && next !== undefined && !Number.isNaN(next) && next - env.now.getTime() <= NINETY_DAYS_S * 1000
          const reason =
            period === undefined
              ? "Automatic rotation is not configured."
              : period > NINETY_DAYS_S
                ? `The rotation period is ${Math.round(period / 86_400)} days.`
                : ok
                  ? `The key rotates every ${Math.round(period / 86_400)} days.`
                  : "No rotation is scheduled within 90 days."
          return row(k.name, k.location, ok, reason, { rotation_period_days: period === undefined ? null : Math.round(period / 86_400), next_rotation: k.nextRotationTime ?? null })
        }),
  }),
]
