/** Secrets Manager checks (FSBP SecretsManager.1, SecretsManager.4). */
import { defineCheck, row } from "../define-check.ts"
import { crossAccountAllowStatements, publicAllowStatements } from "../policy.ts"

const DAY = 86_400_000
export const SECRET_ROTATION_DAYS = 90

export const secretsmanagerChecks = [
  defineCheck({
    id: "secretsmanager_automatic_rotation_enabled",
    service: "secretsmanager",
    title: "Secrets Manager secrets should have automatic rotation enabled",
    description: "Finds secrets without automatic rotation.",
    severity: "medium",
    cis: {},
    fsbp: "SecretsManager.1",
    remediation: "aws secretsmanager rotate-secret --secret-id S --rotation-lambda-arn ARN --rotation-rules AutomaticallyAfterDays=30 (or a managed rotation).",
    field_labels: { rotation_days: "Rotation interval (days)" },
    uses: ["secretsmanager.secrets"],
    testedWith: "moto",
    evaluate: (inv) =>
      inv.secretsmanager.regions.flatMap((r) =>
        (r.secrets ?? []).map((s) =>
          row(s.name, r.region, s.rotationEnabled, s.rotationEnabled ? `Secret ${s.name} rotates every ${s.rotationDays ?? "?"} days.` : `Secret ${s.name} has no automatic rotation.`, {
            rotation_days: s.rotationDays ?? null,
          }),
        ),
      ),
  }),
  defineCheck({
    id: "secretsmanager_secret_rotated_periodically",
    service: "secretsmanager",
    title: `Secrets Manager secrets should be rotated within ${SECRET_ROTATION_DAYS} days`,
    description: `Finds secrets last rotated (or, if never rotated, created) more than ${SECRET_ROTATION_DAYS} days ago.`,
    severity: "medium",
    cis: {},
    fsbp: "SecretsManager.4",
    remediation: "Rotate the secret now (aws secretsmanager rotate-secret --secret-id S) and enable automatic rotation.",
    field_labels: { last_rotated: "Last rotated", age_days: "Days since rotation" },
    uses: ["secretsmanager.secrets"],
    testedWith: "moto",
    evaluate: (inv, env) =>
      inv.secretsmanager.regions.flatMap((r) =>
        (r.secrets ?? []).map((s) => {
          const since = s.lastRotated ?? s.created ?? env.now
          const days = Math.floor((env.now.getTime() - since.getTime()) / DAY)
          const ok = days <= SECRET_ROTATION_DAYS
          return row(s.name, r.region, ok, ok ? `Secret ${s.name} was rotated or created ${days} day(s) ago.` : `Secret ${s.name} has not been rotated for ${days} days.`, {
            last_rotated: s.lastRotated?.toISOString() ?? null,
            age_days: days,
          })
        }),
      ),
  }),
  ...(["public", "cross_account"] as const).map((what) =>
    defineCheck({
      id: what === "public" ? "secretsmanager_secret_not_publicly_accessible" : "secretsmanager_secret_not_cross_account",
      service: "secretsmanager",
      title: what === "public" ? "Secrets Manager resource policies should not allow public access" : "Secrets Manager resource policies should not grant other accounts unconditioned access",
      description:
        what === "public"
          ? "Finds secrets whose resource policy lets any principal read or change them without a condition restricting the callers."
          : "Finds secrets whose resource policy lets principals of other accounts read or change them without a condition naming the callers.",
      severity: what === "public" ? "critical" : "high",
      cis: {},
      remediation: "Edit the resource policy (aws secretsmanager put-resource-policy --block-public-policy ...) to name the principals that need the secret and add aws:PrincipalOrgID / aws:SourceVpce conditions, or delete it.",
      field_labels: { statements: what === "public" ? "Public statements" : "Cross-account statements" },
      uses: ["secretsmanager.secrets", "secretsmanager.policies"],
      testedWith: "moto",
      evaluate: (inv) =>
        inv.secretsmanager.regions.flatMap((r) =>
          (r.secrets ?? [])
            .filter((s) => s.policy !== undefined)
            .map((s) => {
              const actions = ["secretsmanager:GetSecretValue", "secretsmanager:PutSecretValue", "secretsmanager:PutResourcePolicy", "secretsmanager:DeleteSecret", "secretsmanager:UpdateSecret"]
              const doc = s.policy ?? undefined
              const bad = (what === "public" ? publicAllowStatements(doc, actions) : crossAccountAllowStatements(doc, inv.accountId, actions)).map((x, i) => x.sid ?? `#${i + 1}`)
              return row(s.name, r.region, bad.length === 0, bad.length === 0 ? `Secret ${s.name}'s policy is scoped.` : `Secret ${s.name}'s policy is ${what === "public" ? "open to everyone" : "open to other accounts"} (${bad.join(", ")}).`, { statements: bad })
            }),
        ),
    }),
  ),
]
