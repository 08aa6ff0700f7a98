/** Secret Manager checks (beyond CIS GCP Foundations): rotation scheduled, no public access. */
import { durationSeconds, row } from "../../rest/engine.ts"
import { publicGrants } from "../context.ts"
import { defineGcpCheck } from "../define-check.ts"

const NINETY_DAYS_S = 90 * 86_400
const secretId = (name: string) => name.slice(name.lastIndexOf("/") + 1)

export const secretmanagerChecks = [
  defineGcpCheck({
    id: "secretmanager_secret_rotation_scheduled",
    service: "secretmanager",
    title: "Secrets should have a rotation scheduled within 90 days",
    description: "Checks each secret has a rotation schedule (rotation.nextRotationTime) due within 90 days, with a rotation period of at most 90 days when the answer includes it: Secret Manager then notifies the rotation topic so the value is renewed. Without rotation (absent) a leaked value stays valid.",
    severity: "medium",
    remediation: "gcloud secrets update SECRET --next-rotation-time=… --rotation-period=90d --topics=projects/P/topics/T (and a subscriber that adds a new version).",
    field_labels: { next_rotation: "Next rotation", rotation_period_days: "Rotation period (days)" },
    uses: ["secretmanager.secrets"],
    reads: "secretmanager projects.secrets.list → rotation.nextRotationTime, rotation.rotationPeriod (input only: may be absent)",
    evaluate: (inv, env) =>
      (inv.secretmanager.secrets ?? []).map((s) => {
        const next = s.rotation?.nextRotationTime === undefined ? undefined : Date.parse(s.rotation.nextRotationTime)
        const period = durationSeconds(s.rotation?.rotationPeriod)
        const due = next !== undefined && !Number.isNaN(next) && next - env.now.getTime() <= NINETY_DAYS_S * 1000
        const ok = due && (period === undefined || period <= NINETY_DAYS_S)
        const reason = next === undefined ? "No rotation is scheduled." : !due ? "The next rotation is more than 90 days away." : !ok ? `The rotation period is ${Math.round((period ?? 0) / 86_400)} days.` : "A rotation is scheduled within 90 days."
        return row(secretId(s.name), "global", ok, reason, { next_rotation: s.rotation?.nextRotationTime ?? null, rotation_period_days: period === undefined ? null : Math.round(period / 86_400) })
      }),
  }),
  defineGcpCheck({
    id: "secretmanager_secret_not_public",
    service: "secretmanager",
    title: "Secrets should not be anonymously or publicly accessible",
    description: "Flags secrets whose IAM policy grants a role to allUsers or allAuthenticatedUsers.",
    severity: "critical",
    remediation: "gcloud secrets remove-iam-policy-binding SECRET --member=allUsers --role=ROLE (and allAuthenticatedUsers).",
    field_labels: { public_grants: "Public grants" },
    uses: ["secretmanager.secrets", "secretmanager.secret_policies"],
    reads: "secretmanager secrets.getIamPolicy → bindings[].members ∋ allUsers|allAuthenticatedUsers",
    evaluate: (inv) =>
      (inv.secretmanager.secrets ?? []).flatMap((s) => {
        if (s.policy === undefined) return []
        const grants = publicGrants(s.policy)
        return [row(secretId(s.name), "global", grants.length === 0, grants.length === 0 ? "The secret is not shared publicly." : `The secret is public: ${grants.join(", ")}.`, { public_grants: grants })]
      }),
  }),
]
