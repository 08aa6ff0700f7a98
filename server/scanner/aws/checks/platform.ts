/** ACM, Backup, CloudFormation, CodeBuild and EventBridge checks. */
import type { BuildProject, Certificate, EventBus, Stack } from "../collectors/platform.ts"
import { defineCheck, row } from "../define-check.ts"
import { flagChecks, itemCheck } from "../generic.ts"
import type { InventoryWith } from "../inventory.ts"
import { crossAccountAllowStatements, publicAllowStatements } from "../policy.ts"

const DAY = 86_400_000
const cert = flagChecks({ service: "acm", uses: ["acm.certificates"], regions: (inv: InventoryWith<"acm">) => inv.acm.regions, kind: "Certificate", idOf: (c: Certificate) => c.arn, nameOf: (c: Certificate) => c.domain })
const stack = flagChecks({ service: "cloudformation", uses: ["cloudformation.stacks"], regions: (inv: InventoryWith<"cloudformation">) => inv.cloudformation.regions, kind: "Stack", idOf: (s: Stack) => s.name })
const project = flagChecks({ service: "codebuild", uses: ["codebuild.projects"], regions: (inv: InventoryWith<"codebuild">) => inv.codebuild.regions, kind: "Project", idOf: (p: BuildProject) => p.name })

export const acmChecks = [
  itemCheck({
    id: "acm_certificate_not_expiring",
    service: "acm",
    title: "ACM certificates should not expire within 30 days",
    description: "Finds issued certificates that expire within 30 days (or have expired): imported ones never renew, and managed ones renew only when validation still works.",
    severity: "high",
    remediation: "Re-import a renewed certificate (aws acm import-certificate --certificate-arn ARN ...) or fix the DNS/email validation of the managed certificate so it renews.",
    field_labels: { domain: "Domain", not_after: "Expires", type: "Type" },
    uses: ["acm.certificates"],
    regions: (inv: InventoryWith<"acm">) => inv.acm.regions,
    judge: (c: Certificate, _region, _inv, env) => {
      if (c.notAfter === undefined || (c.status !== "ISSUED" && c.status !== "EXPIRED")) return undefined
      const days = Math.floor((c.notAfter.getTime() - env.now.getTime()) / DAY)
      const ok = days > 30
      return { id: c.arn, ok, reason: ok ? `Certificate for ${c.domain} is valid for ${days} more days.` : days < 0 ? `Certificate for ${c.domain} expired ${-days} day(s) ago.` : `Certificate for ${c.domain} expires in ${days} day(s).`, fields: { domain: c.domain, not_after: c.notAfter.toISOString(), type: c.type } }
    },
  }),
  cert({
    id: "acm_certificate_key_length",
    title: "ACM certificates should use RSA keys of at least 2048 bits or ECDSA keys",
    description: "Finds certificates with RSA-1024 keys.",
    severity: "high",
    fsbp: "ACM.2",
    remediation: "Request (or import) a replacement certificate with RSA-2048 or an ECDSA key and swap it in the load balancers and distributions that use it.",
    label: "Key algorithm",
    value: (c) => c.keyAlgorithm,
    ok: (c) => c.keyAlgorithm !== "RSA_1024" && c.keyAlgorithm !== "RSA-1024",
    pass: "uses a strong key",
    fail: "uses a 1024-bit RSA key",
  }),
  cert({
    id: "acm_certificate_transparency_logging",
    title: "ACM certificates should be logged to Certificate Transparency",
    description: "Finds Amazon-issued certificates with Certificate Transparency logging disabled, so a mis-issued certificate for the same name would go unnoticed by monitoring.",
    severity: "low",
    remediation: "aws acm update-certificate-options --certificate-arn ARN --options CertificateTransparencyLoggingPreference=ENABLED.",
    label: "Transparency logging",
    value: (c) => c.transparencyLogging,
    ok: (c) => c.transparencyLogging,
    applies: (c) => c.type === "AMAZON_ISSUED",
    testedWith: "sdk-mock",
    mockReason: "moto's ListCertificates fails (HTTP 500) once a certificate is requested with transparency logging disabled, so that case is a stubbed DescribeCertificate.",
    pass: "is logged to Certificate Transparency",
    fail: "is not logged to Certificate Transparency",
  }),
]

export const backupChecks = [
  itemCheck({
    id: "backup_vault_encrypted_with_cmk",
    service: "backup",
    title: "AWS Backup vaults should be encrypted with a customer managed key",
    description: "Finds backup vaults encrypted with the AWS managed aws/backup key (or no key reported), whose recovery points cannot be protected by a key policy of your own.",
    severity: "low",
    remediation: "Create a new vault with --encryption-key-arn CUSTOMER_KEY and point the backup plans at it (a vault's key cannot change).",
    field_labels: { kms_key: "KMS key" },
    uses: ["backup.vaults"],
    regions: (inv: InventoryWith<"backup">) => inv.backup.regions.map((r) => ({ region: r.region, items: r.vaults })),
    judge: (v) => {
      const ok = v.kmsKey !== undefined && !/alias\/aws\/backup/.test(v.kmsKey)
      return { id: v.name, ok, reason: ok ? `Vault ${v.name} is encrypted with ${v.kmsKey}.` : `Vault ${v.name} is not encrypted with a customer managed key.`, fields: { kms_key: v.kmsKey ?? null } }
    },
  }),
  itemCheck({
    id: "backup_vault_lock_enabled",
    service: "backup",
    title: "AWS Backup vaults should have Vault Lock",
    description: "Finds backup vaults without Vault Lock, whose recovery points can be deleted early by anyone with backup:DeleteRecoveryPoint (ransomware, a compromised admin).",
    severity: "medium",
    remediation: "aws backup put-backup-vault-lock-configuration --backup-vault-name NAME --min-retention-days 7 --max-retention-days 365 (add --changeable-for-days to enter compliance mode).",
    field_labels: { locked: "Vault Lock" },
    uses: ["backup.vaults"],
    regions: (inv: InventoryWith<"backup">) => inv.backup.regions.map((r) => ({ region: r.region, items: r.vaults })),
    judge: (v) => ({ id: v.name, ok: v.locked, reason: v.locked ? `Vault ${v.name} is locked.` : `Vault ${v.name} has no Vault Lock.`, fields: { locked: v.locked } }),
  }),
  defineCheck({
    id: "backup_plans_exist",
    service: "backup",
    title: "At least one AWS Backup plan should exist in each region",
    description: "Checks, per scanned region, that an AWS Backup plan schedules backups.",
    severity: "low",
    cis: {},
    remediation: "Create a backup plan (aws backup create-backup-plan) with a daily rule and a resource selection (tags or resource types).",
    field_labels: { plans: "Backup plans" },
    uses: ["backup.plans"],
    testedWith: "moto",
    evaluate: (inv) =>
      inv.backup.regions.flatMap((r) =>
        r.plans === undefined ? [] : [row(`${inv.accountId}/${r.region}`, r.region, r.plans > 0, r.plans > 0 ? `${r.plans} backup plan(s) in ${r.region}.` : `No backup plan in ${r.region}.`, { plans: r.plans })],
      ),
  }),
]

export const cloudformationChecks = [
  stack({
    id: "cloudformation_stack_termination_protection",
    title: "CloudFormation stacks should have termination protection",
    description: "Finds stacks that can be deleted (with every resource they manage) in one call.",
    severity: "low",
    remediation: "aws cloudformation update-termination-protection --stack-name NAME --enable-termination-protection.",
    label: "Termination protection",
    value: (s) => s.terminationProtection,
    ok: (s) => s.terminationProtection,
    applies: (s) => !s.status.startsWith("DELETE"),
    pass: "has termination protection",
    fail: "has no termination protection",
  }),
  stack({
    id: "cloudformation_stack_outputs_no_secrets",
    title: "CloudFormation stack outputs should not expose secrets",
    description: "Finds stacks with outputs named like credentials (password, secret, token, keys) whose value is not an ARN: outputs are readable by anyone with cloudformation:DescribeStacks.",
    severity: "high",
    remediation: "Remove the output (or output the secret's ARN instead), store the value in Secrets Manager, and rotate it.",
    label: "Suspicious outputs",
    value: (s) => s.secretOutputs,
    ok: (s) => s.secretOutputs.length === 0,
    pass: "exposes no credential-like output",
    fail: "exposes credential-like outputs",
  }),
  stack({
    id: "cloudformation_stack_notifications",
    title: "CloudFormation stacks should notify an SNS topic of stack events",
    description: "Finds stacks without notification topics, so unexpected updates and deletions go unnoticed.",
    severity: "low",
    fsbp: "CloudFormation.1",
    remediation: "aws cloudformation update-stack --stack-name NAME --use-previous-template --notification-arns TOPIC_ARN (repeat the parameters).",
    label: "Notification topics",
    value: (s) => s.notifications,
    ok: (s) => s.notifications > 0,
    pass: "notifies a topic",
    fail: "notifies no topic",
  }),
]

export const codebuildChecks = [
  project({
    id: "codebuild_project_no_privileged_mode",
    title: "CodeBuild projects should not run in privileged mode",
    description: "Finds projects whose build container runs privileged (root on the Docker daemon), which lets a malicious build step escape to the host.",
    severity: "medium",
    fsbp: "CodeBuild.5",
    remediation: "aws codebuild update-project --name NAME --environment type=...,image=...,computeType=...,privilegedMode=false (only image builds need privileged mode).",
    label: "Privileged mode",
    value: (p) => p.privileged,
    ok: (p) => !p.privileged,
    pass: "does not run privileged",
    fail: "runs in privileged mode",
  }),
  project({
    id: "codebuild_project_no_plaintext_secrets",
    title: "CodeBuild projects should not keep credentials in plaintext environment variables",
    description: "Finds projects with PLAINTEXT environment variables named like credentials, readable by anyone who can view the project.",
    severity: "critical",
    fsbp: "CodeBuild.2",
    remediation: "Store the values in Secrets Manager or Parameter Store and reference them (type SECRETS_MANAGER / PARAMETER_STORE); rotate the exposed credentials.",
    label: "Plaintext secrets",
    value: (p) => p.plaintextSecrets,
    ok: (p) => p.plaintextSecrets.length === 0,
    pass: "keeps no credential in plaintext variables",
    fail: "keeps credentials in plaintext variables",
  }),
  project({
    id: "codebuild_project_logging_enabled",
    title: "CodeBuild projects should keep build logs",
    description: "Finds projects with both CloudWatch Logs and S3 build logs disabled.",
    severity: "medium",
    fsbp: "CodeBuild.4",
    remediation: "aws codebuild update-project --name NAME --logs-config cloudWatchLogs={status=ENABLED}.",
    label: "Logging",
    value: (p) => p.logging,
    ok: (p) => p.logging,
    pass: "keeps build logs",
    fail: "keeps no build logs",
  }),
  project({
    id: "codebuild_project_artifacts_encrypted",
    title: "CodeBuild project artifacts should be encrypted",
    description: "Finds projects whose S3 artifacts are written with encryption disabled.",
    severity: "medium",
    fsbp: "CodeBuild.7",
    remediation: "aws codebuild update-project --name NAME --artifacts type=S3,location=BUCKET,encryptionDisabled=false.",
    label: "Artifacts encrypted",
    value: (p) => p.artifactsEncrypted,
    ok: (p) => p.artifactsEncrypted,
    pass: "encrypts its artifacts",
    fail: "writes unencrypted artifacts",
  }),
]

export const eventbridgeChecks = [
  ...(["public", "cross_account"] as const).map((what) =>
    itemCheck({
      id: what === "public" ? "eventbridge_bus_not_publicly_accessible" : "eventbridge_bus_not_cross_account",
      service: "eventbridge",
      title: what === "public" ? "EventBridge event bus policies should not allow anyone to put events" : "EventBridge event bus policies should not grant other accounts unconditioned access",
      description:
        what === "public"
          ? "Finds event buses whose resource policy lets any principal put events without a condition (aws:PrincipalOrgID, aws:SourceAccount)."
          : "Finds event buses whose resource policy lets principals of other accounts put events or manage rules without a condition naming them.",
      severity: what === "public" ? "high" : "medium",
      remediation: "aws events remove-permission --event-bus-name NAME --statement-id SID, or replace the statement with one conditioned on aws:PrincipalOrgID.",
      field_labels: { statements: what === "public" ? "Public statements" : "Cross-account statements" },
      uses: ["eventbridge.buses"],
      regions: (inv: InventoryWith<"eventbridge">) => inv.eventbridge.regions,
      judge: (b: EventBus, _region, inv) => {
        const actions = ["events:PutEvents", "events:PutRule", "events:PutTargets"]
        const bad = (what === "public" ? publicAllowStatements(b.policy, actions) : crossAccountAllowStatements(b.policy, inv.accountId, actions)).map((s, i) => s.sid ?? `#${i + 1}`)
        return { id: b.name, ok: bad.length === 0, reason: bad.length === 0 ? `Event bus ${b.name}'s policy is scoped.` : `Event bus ${b.name}'s policy is ${what === "public" ? "open to everyone" : "open to other accounts"} (${bad.join(", ")}).`, fields: { statements: bad } }
      },
    }),
  ),
]
