/**
 * S3 checks (CIS AWS v3.0 2.1.x, FSBP S3.x). Publicness is computed here from policies, ACLs and public access
 * blocks (bucket and account), because GetBucketPolicyStatus is not available everywhere (moto fakes it).
 */
import { defineCheck, row } from "../define-check.ts"
import type { PublicAccessBlock, S3Bucket } from "../collectors/s3.ts"
import { deniesInsecureTransport, publicAllowStatements } from "../policy.ts"

const ALL_USERS = "http://acs.amazonaws.com/groups/global/AllUsers"
const AUTHENTICATED_USERS = "http://acs.amazonaws.com/groups/global/AuthenticatedUsers"

const pabComplete = (p: PublicAccessBlock | null | undefined) =>
  p !== null && p !== undefined && p.blockPublicAcls && p.ignorePublicAcls && p.blockPublicPolicy && p.restrictPublicBuckets

const pabFields = (p: PublicAccessBlock | null) => ({
  block_public_acls: p?.blockPublicAcls ?? false,
  ignore_public_acls: p?.ignorePublicAcls ?? false,
  block_public_policy: p?.blockPublicPolicy ?? false,
  restrict_public_buckets: p?.restrictPublicBuckets ?? false,
})

const pabLabels = {
  block_public_acls: "Block public ACLs",
  ignore_public_acls: "Ignore public ACLs",
  block_public_policy: "Block public policy",
  restrict_public_buckets: "Restrict public buckets",
}

const missingPabSettings = (p: PublicAccessBlock | null) =>
  p === null
    ? ["BlockPublicAcls", "IgnorePublicAcls", "BlockPublicPolicy", "RestrictPublicBuckets"]
    : [
        ...(p.blockPublicAcls ? [] : ["BlockPublicAcls"]),
        ...(p.ignorePublicAcls ? [] : ["IgnorePublicAcls"]),
        ...(p.blockPublicPolicy ? [] : ["BlockPublicPolicy"]),
        ...(p.restrictPublicBuckets ? [] : ["RestrictPublicBuckets"]),
      ]

const readActions = ["s3:GetObject", "s3:ListBucket", "s3:GetObjectVersion", "s3:GetBucketAcl"]
const writeActions = ["s3:PutObject", "s3:DeleteObject", "s3:PutBucketPolicy", "s3:PutBucketAcl", "s3:DeleteBucket"]
const readPermissions = new Set(["READ", "READ_ACP", "FULL_CONTROL"])
const writePermissions = new Set(["WRITE", "WRITE_ACP", "FULL_CONTROL"])

interface Exposure {
  readonly viaPolicy: boolean
  readonly viaAcl: ReadonlyArray<string>
  readonly blockedBy: ReadonlyArray<string>
}

/** Effective public exposure: policy/ACL grants to everyone, minus what the bucket or account block neutralises. */
function exposure(
  bucket: S3Bucket,
  account: PublicAccessBlock | null,
  actions: ReadonlyArray<string>,
  permissions: ReadonlySet<string>,
): Exposure | undefined {
  if (bucket.policy === undefined || bucket.acl === undefined || bucket.publicAccessBlock === undefined) return undefined
  const policyPublic = publicAllowStatements(bucket.policy ?? undefined, actions).length > 0
  const aclGrants = bucket.acl.grants
    .filter((g) => (g.granteeUri === ALL_USERS || g.granteeUri === AUTHENTICATED_USERS) && permissions.has(g.permission))
    .map((g) => `${g.granteeUri === ALL_USERS ? "AllUsers" : "AuthenticatedUsers"}:${g.permission}`)
  const restrictPolicy = bucket.publicAccessBlock?.restrictPublicBuckets === true || account?.restrictPublicBuckets === true
  const ignoreAcls = bucket.publicAccessBlock?.ignorePublicAcls === true || account?.ignorePublicAcls === true
  const blockedBy = [
    ...(policyPublic && restrictPolicy ? ["RestrictPublicBuckets"] : []),
    ...(aclGrants.length > 0 && ignoreAcls ? ["IgnorePublicAcls"] : []),
  ]
  return { viaPolicy: policyPublic && !restrictPolicy, viaAcl: ignoreAcls ? [] : aclGrants, blockedBy }
}

const publicCheck = (kind: "read" | "write") => {
  const actions = kind === "read" ? readActions : writeActions
  const permissions = kind === "read" ? readPermissions : writePermissions
  return defineCheck({
    id: `s3_bucket_public_${kind}_access`,
    service: "s3",
    title: `S3 buckets should prohibit public ${kind} access`,
    description: `Finds buckets whose bucket policy or ACL lets anyone (or any AWS user) ${
      kind === "read" ? "list or read objects" : "write, delete or re-permission objects"
    }, after applying the bucket's and the account's Block Public Access settings.`,
    severity: "critical",
    cis: {},
    fsbp: kind === "read" ? "S3.2" : "S3.3",
    remediation:
      "Remove the public grants from the bucket policy (statements with Principal \"*\" and no restricting condition) and the ACL (AllUsers/AuthenticatedUsers), or enable Block Public Access (RestrictPublicBuckets and IgnorePublicAcls) on the bucket or account.",
    field_labels: { public_via_policy: "Public via policy", public_acl_grants: "Public ACL grants", neutralised_by: "Neutralised by" },
    uses: ["s3.buckets", "s3.policy", "s3.acl", "s3.public_access_block", "s3.account_public_access_block"],
    testedWith: "moto",
    evaluate: (inv) => {
      const account = inv.s3.accountPublicAccessBlock ?? null
      return (inv.s3.buckets ?? []).flatMap((b) => {
        const e = exposure(b, account, actions, permissions)
        if (e === undefined) return []
        const open = e.viaPolicy || e.viaAcl.length > 0
        const reason = open
          ? `Bucket ${b.name} allows public ${kind} access${e.viaPolicy ? " through its bucket policy" : ""}${
              e.viaPolicy && e.viaAcl.length > 0 ? " and" : ""
            }${e.viaAcl.length > 0 ? ` through ACL grants ${e.viaAcl.join(", ")}` : ""}.`
          : e.blockedBy.length > 0
            ? `Bucket ${b.name} has public ${kind} grants, neutralised by ${e.blockedBy.join(" and ")}.`
            : `Bucket ${b.name} does not allow public ${kind} access.`
        return [row(b.name, b.region, !open, reason, { public_via_policy: e.viaPolicy, public_acl_grants: e.viaAcl, neutralised_by: e.blockedBy })]
      })
    },
  })
}

export const s3Checks = [
  defineCheck({
    id: "s3_bucket_secure_transport_policy",
    service: "s3",
    title: "S3 bucket policies should deny HTTP requests",
    description:
      "Checks that every bucket policy has a Deny statement for all principals on s3:* when aws:SecureTransport is false, so data is only accepted and served over TLS.",
    severity: "medium",
    cis: { v3: "2.1.1", v7: "3.1.1" },
    fsbp: "S3.5",
    remediation:
      'Add to the bucket policy: {"Effect":"Deny","Principal":"*","Action":"s3:*","Resource":["arn:aws:s3:::BUCKET","arn:aws:s3:::BUCKET/*"],"Condition":{"Bool":{"aws:SecureTransport":"false"}}}.',
    field_labels: { has_policy: "Has bucket policy", denies_http: "Denies HTTP" },
    uses: ["s3.buckets", "s3.policy"],
    testedWith: "moto",
    evaluate: (inv) =>
      (inv.s3.buckets ?? []).flatMap((b) => {
        if (b.policy === undefined) return []
        const denies = deniesInsecureTransport(b.policy ?? undefined)
        return [
          row(
            b.name,
            b.region,
            denies,
            denies
              ? `Bucket ${b.name} denies requests without TLS.`
              : b.policy === null
                ? `Bucket ${b.name} has no bucket policy, so HTTP requests are not denied.`
                : `Bucket ${b.name}'s policy does not deny requests where aws:SecureTransport is false.`,
            { has_policy: b.policy !== null, denies_http: denies },
          ),
        ]
      }),
  }),
  defineCheck({
    id: "s3_bucket_level_public_access_block",
    service: "s3",
    title: "S3 buckets should have all Block Public Access settings enabled",
    description: "Checks that each bucket's public access block enables BlockPublicAcls, IgnorePublicAcls, BlockPublicPolicy and RestrictPublicBuckets.",
    severity: "high",
    cis: { v3: "2.1.4", v7: "3.1.4" },
    fsbp: "S3.8",
    remediation: "Enable all four Block Public Access settings on the bucket (S3 console > bucket > Permissions > Block public access), or at account level.",
    field_labels: pabLabels,
    uses: ["s3.buckets", "s3.public_access_block"],
    testedWith: "moto",
    evaluate: (inv) =>
      (inv.s3.buckets ?? []).flatMap((b) => {
        if (b.publicAccessBlock === undefined) return []
        const missing = missingPabSettings(b.publicAccessBlock)
        return [
          row(
            b.name,
            b.region,
            missing.length === 0,
            missing.length === 0
              ? `Bucket ${b.name} blocks all public access.`
              : b.publicAccessBlock === null
                ? `Bucket ${b.name} has no public access block configuration.`
                : `Bucket ${b.name} does not enable ${missing.join(", ")}.`,
            pabFields(b.publicAccessBlock),
          ),
        ]
      }),
  }),
  defineCheck({
    id: "s3_account_level_public_access_blocks",
    service: "s3",
    title: "S3 account-level Block Public Access should be enabled",
    description: "Checks that the account-wide S3 public access block enables all four settings, which applies to every current and future bucket.",
    severity: "high",
    cis: { v3: "2.1.4", v7: "3.1.4" },
    fsbp: "S3.1",
    remediation: "Enable all four settings under S3 > Block Public Access settings for this account (s3control PutPublicAccessBlock).",
    field_labels: pabLabels,
    uses: ["s3.account_public_access_block"],
    testedWith: "moto",
    evaluate: (inv) => {
      const p = inv.s3.accountPublicAccessBlock
      if (p === undefined) return []
      const missing = missingPabSettings(p)
      return [
        row(
          inv.accountId,
          "global",
          missing.length === 0,
          missing.length === 0
            ? `Account ${inv.accountId} blocks public access for all buckets.`
            : p === null
              ? `Account ${inv.accountId} has no account-level public access block.`
              : `Account ${inv.accountId} does not enable ${missing.join(", ")}.`,
          pabFields(p),
        ),
      ]
    },
  }),
  defineCheck({
    id: "s3_bucket_no_mfa_delete",
    service: "s3",
    title: "S3 buckets should have MFA Delete enabled",
    description: "Checks that versioned buckets require MFA to delete object versions or change the versioning state.",
    severity: "medium",
    cis: { v3: "2.1.2", v7: "3.1.2" },
    remediation:
      "As the root user with an MFA device: aws s3api put-bucket-versioning --bucket BUCKET --versioning-configuration Status=Enabled,MFADelete=Enabled --mfa 'SERIAL CODE'.",
    field_labels: { versioning: "Versioning", mfa_delete: "MFA Delete" },
    uses: ["s3.buckets", "s3.versioning"],
    testedWith: "sdk-mock",
    mockReason: "moto accepts MFADelete=Enabled but never stores it, so the compliant case needs a stubbed GetBucketVersioning.",
    evaluate: (inv) =>
      (inv.s3.buckets ?? []).flatMap((b) => {
        if (b.versioning === undefined) return []
        const on = b.versioning.mfaDelete === "Enabled"
        return [
          row(b.name, b.region, on, on ? `Bucket ${b.name} requires MFA to delete versions.` : `Bucket ${b.name} does not have MFA Delete enabled.`, {
            versioning: b.versioning.status ?? "Never enabled",
            mfa_delete: b.versioning.mfaDelete ?? "Disabled",
          }),
        ]
      }),
  }),
  defineCheck({
    id: "s3_bucket_default_encryption",
    service: "s3",
    title: "S3 buckets should have default server-side encryption enabled",
    description: "Checks that each bucket has a default encryption rule (SSE-S3, SSE-KMS or DSSE-KMS).",
    severity: "medium",
    cis: {},
    fsbp: "S3.4",
    remediation: "Set default encryption on the bucket (Properties > Default encryption), preferably SSE-KMS with an S3 Bucket Key.",
    field_labels: { algorithm: "Algorithm" },
    uses: ["s3.buckets", "s3.encryption"],
    testedWith: "moto",
    evaluate: (inv) =>
      (inv.s3.buckets ?? []).flatMap((b) => {
        if (b.encryption === undefined) return []
        const algorithm = b.encryption?.[0]?.algorithm ?? null
        const ok = algorithm !== null && algorithm !== ""
        return [
          row(b.name, b.region, ok, ok ? `Bucket ${b.name} encrypts new objects with ${algorithm}.` : `Bucket ${b.name} has no default encryption.`, {
            algorithm,
          }),
        ]
      }),
  }),
  defineCheck({
    id: "s3_bucket_kms_encryption",
    service: "s3",
    title: "S3 buckets should be encrypted at rest with AWS KMS keys",
    description: "Checks that each bucket's default encryption uses SSE-KMS or DSSE-KMS, which adds key-level access control and audit.",
    severity: "low",
    cis: {},
    fsbp: "S3.17",
    remediation: "Set the bucket's default encryption to SSE-KMS (aws:kms) with a customer managed key and enable the S3 Bucket Key.",
    field_labels: { algorithm: "Algorithm", kms_key: "KMS key" },
    uses: ["s3.buckets", "s3.encryption"],
    testedWith: "moto",
    evaluate: (inv) =>
      (inv.s3.buckets ?? []).flatMap((b) => {
        if (b.encryption === undefined) return []
        const rule = b.encryption?.[0]
        const ok = rule !== undefined && (rule.algorithm === "aws:kms" || rule.algorithm === "aws:kms:dsse")
        return [
          row(
            b.name,
            b.region,
            ok,
            ok ? `Bucket ${b.name} uses ${rule?.algorithm} encryption.` : `Bucket ${b.name} does not use KMS encryption${rule === undefined ? "" : ` (uses ${rule.algorithm})`}.`,
            { algorithm: rule?.algorithm ?? null, kms_key: rule?.kmsKeyId ?? null },
          ),
        ]
      }),
  }),
  defineCheck({
    id: "s3_bucket_versioning_enabled",
    service: "s3",
    title: "S3 buckets should have versioning enabled",
    description: "Checks that versioning is enabled, so overwritten or deleted objects can be recovered.",
    severity: "medium",
    cis: {},
    fsbp: "S3.14",
    remediation: "Enable versioning on the bucket (Properties > Bucket Versioning > Enable), and add lifecycle rules for noncurrent versions.",
    field_labels: { versioning: "Versioning" },
    uses: ["s3.buckets", "s3.versioning"],
    testedWith: "moto",
    evaluate: (inv) =>
      (inv.s3.buckets ?? []).flatMap((b) => {
        if (b.versioning === undefined) return []
        const on = b.versioning.status === "Enabled"
        return [
          row(b.name, b.region, on, on ? `Bucket ${b.name} has versioning enabled.` : `Bucket ${b.name} versioning is ${b.versioning.status ?? "not enabled"}.`, {
            versioning: b.versioning.status ?? "Never enabled",
          }),
        ]
      }),
  }),
  defineCheck({
    id: "s3_bucket_server_access_logging_enabled",
    service: "s3",
    title: "S3 buckets should have server access logging enabled",
    description: "Checks that server access logging is enabled, recording each request made to the bucket.",
    severity: "medium",
    cis: {},
    fsbp: "S3.9",
    remediation: "Enable server access logging on the bucket, targeting a dedicated log bucket in the same region.",
    field_labels: { target_bucket: "Log bucket", target_prefix: "Log prefix" },
    uses: ["s3.buckets", "s3.logging"],
    testedWith: "moto",
    evaluate: (inv) =>
      (inv.s3.buckets ?? []).flatMap((b) => {
        if (b.logging === undefined) return []
        return [
          row(
            b.name,
            b.region,
            b.logging !== null,
            b.logging !== null ? `Bucket ${b.name} logs access to ${b.logging.targetBucket}.` : `Bucket ${b.name} has server access logging disabled.`,
            { target_bucket: b.logging?.targetBucket ?? null, target_prefix: b.logging?.targetPrefix ?? null },
          ),
        ]
      }),
  }),
  publicCheck("read"),
  publicCheck("write"),
  defineCheck({
    id: "s3_bucket_acl_prohibited",
    service: "s3",
    title: "S3 access control lists should be disabled",
    description: "Checks that each bucket enforces bucket-owner object ownership (BucketOwnerEnforced), which disables ACLs entirely.",
    severity: "medium",
    cis: {},
    fsbp: "S3.12",
    remediation: "Set Object Ownership to 'Bucket owner enforced' (PutBucketOwnershipControls ObjectOwnership=BucketOwnerEnforced) after moving any ACL grants into the bucket policy.",
    field_labels: { object_ownership: "Object ownership" },
    uses: ["s3.buckets", "s3.ownership"],
    testedWith: "moto",
    evaluate: (inv) =>
      (inv.s3.buckets ?? []).flatMap((b) => {
        if (b.ownership === undefined) return []
        const ok = b.ownership === "BucketOwnerEnforced"
        return [
          row(b.name, b.region, ok, ok ? `Bucket ${b.name} has ACLs disabled.` : `Bucket ${b.name} still honours ACLs (object ownership ${b.ownership ?? "not set"}).`, {
            object_ownership: b.ownership,
          }),
        ]
      }),
  }),
  defineCheck({
    id: "s3_bucket_lifecycle_configured",
    service: "s3",
    title: "S3 buckets should have lifecycle configurations",
    description: "Checks that each bucket has at least one lifecycle rule, so old objects and versions expire or move to cheaper storage.",
    severity: "low",
    cis: {},
    fsbp: "S3.13",
    remediation: "Add a lifecycle configuration with at least one enabled rule (expiration or transition) to the bucket.",
    field_labels: { lifecycle_rules: "Lifecycle rules" },
    uses: ["s3.buckets", "s3.lifecycle"],
    testedWith: "moto",
    evaluate: (inv) =>
      (inv.s3.buckets ?? []).flatMap((b) => {
        if (b.lifecycleRules === undefined) return []
        const n = b.lifecycleRules ?? 0
        return [row(b.name, b.region, n > 0, n > 0 ? `Bucket ${b.name} has ${n} lifecycle rule(s).` : `Bucket ${b.name} has no lifecycle rules.`, { lifecycle_rules: n })]
      }),
  }),
  defineCheck({
    id: "s3_bucket_object_lock",
    service: "s3",
    title: "S3 buckets should have Object Lock enabled",
    description: "Finds buckets without S3 Object Lock, whose objects can be deleted or overwritten by anyone with write access (ransomware, a leaked key, a mistaken lifecycle rule).",
    severity: "low",
    cis: {},
    remediation: "aws s3api put-object-lock-configuration --bucket BUCKET --object-lock-configuration '{\"ObjectLockEnabled\":\"Enabled\"}' (versioning must be on), with a default retention for buckets holding records.",
    field_labels: { object_lock: "Object Lock", mode: "Default retention mode" },
    uses: ["s3.buckets", "s3.object_lock"],
    testedWith: "moto",
    evaluate: (inv) =>
      (inv.s3.buckets ?? [])
        .filter((b) => b.objectLock !== undefined)
        .map((b) =>
          row(b.name, b.region, b.objectLock !== null, b.objectLock !== null ? `Bucket ${b.name} has Object Lock enabled.` : `Bucket ${b.name} has no Object Lock.`, {
            object_lock: b.objectLock !== null,
            mode: b.objectLock?.mode ?? null,
          }),
        ),
  }),
]
