/** Threat detection and posture services: Security Hub (CIS AWS v3.0 4.16 / v7.0 5.16) and GuardDuty (FSBP GuardDuty.1). */
import { defineCheck, row } from "../define-check.ts"

export const securityhubChecks = [
  defineCheck({
    id: "securityhub_enabled",
    service: "securityhub",
    title: "AWS Security Hub should be enabled",
    description: "Checks, for each scanned region, that the account is subscribed to Security Hub.",
    severity: "medium",
    cis: { v3: "4.16", v7: "5.16" },
    remediation: "aws securityhub enable-security-hub --enable-default-standards in every region (or centrally through a delegated administrator).",
    field_labels: { hub_arn: "Hub ARN" },
    uses: ["securityhub.hub"],
    testedWith: "moto",
    evaluate: (inv) =>
      inv.securityhub.regions.flatMap((r) =>
        r.hub === undefined
          ? []
          : [row(`${inv.accountId}/${r.region}`, r.region, r.hub !== null, r.hub !== null ? `Security Hub is enabled in ${r.region}.` : `Security Hub is not enabled in ${r.region}.`, { hub_arn: r.hub?.arn ?? null })],
      ),
  }),
]

export const guarddutyChecks = [
  defineCheck({
    id: "guardduty_is_enabled",
    service: "guardduty",
    title: "GuardDuty should be enabled",
    description: "Checks, for each scanned region, that an enabled GuardDuty detector exists.",
    severity: "high",
    cis: {},
    fsbp: "GuardDuty.1",
    remediation: "aws guardduty create-detector --enable in every region (or enable it organization-wide from the delegated administrator).",
    field_labels: { detectors: "Detectors" },
    uses: ["guardduty.detectors"],
    testedWith: "moto",
    evaluate: (inv) =>
      inv.guardduty.regions.flatMap((r) => {
        if (r.detectors === undefined) return []
        const enabled = r.detectors.filter((d) => d.status === "ENABLED")
        return [
          row(
            `${inv.accountId}/${r.region}`,
            r.region,
            enabled.length > 0,
            enabled.length > 0 ? `GuardDuty detector ${enabled.map((d) => d.id).join(", ")} is enabled in ${r.region}.` : r.detectors.length > 0 ? `GuardDuty is suspended in ${r.region}.` : `GuardDuty is not enabled in ${r.region}.`,
            { detectors: r.detectors.map((d) => `${d.id} (${d.status})`) },
          ),
        ]
      }),
  }),
]
