/** Secrets Manager checks (FSBP SecretsManager.1, SecretsManager.4). */
import { defineCheck, row } from "../define-check.ts"

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
]
