/** SNS and SQS checks (FSBP SNS.1, SQS.1, SQS.3; public access via resource policies). */
import { defineCheck, row } from "../define-check.ts"
import { publicAllowStatements } from "../policy.ts"

export const snsChecks = [
  defineCheck({
    id: "sns_topics_kms_encryption_at_rest_enabled",
    service: "sns",
    title: "SNS topics should be encrypted at rest using AWS KMS",
    description: "Finds topics without a KMS key (KmsMasterKeyId).",
    severity: "medium",
    cis: {},
    fsbp: "SNS.1",
    remediation: "aws sns set-topic-attributes --topic-arn TOPIC --attribute-name KmsMasterKeyId --attribute-value alias/aws/sns (or a customer managed key).",
    field_labels: { kms_key: "KMS key" },
    uses: ["sns.topics"],
    testedWith: "moto",
    evaluate: (inv) =>
      inv.sns.regions.flatMap((r) =>
        (r.topics ?? []).map((t) =>
          row(t.arn, r.region, t.kmsKeyId !== undefined, t.kmsKeyId !== undefined ? `Topic ${t.name} is encrypted with ${t.kmsKeyId}.` : `Topic ${t.name} is not encrypted at rest.`, { kms_key: t.kmsKeyId ?? null }),
        ),
      ),
  }),
  defineCheck({
    id: "sns_topics_not_publicly_accessible",
    service: "sns",
    title: "SNS topic policies should not allow public access",
    description: "Finds topics whose access policy allows any principal without a restricting condition.",
    severity: "high",
    cis: {},
    remediation: "Edit the topic policy: replace Principal \"*\" with specific accounts/services, or add an aws:SourceAccount / aws:SourceArn condition.",
    field_labels: { public_statements: "Public statements" },
    uses: ["sns.topics"],
    testedWith: "moto",
    evaluate: (inv) =>
      inv.sns.regions.flatMap((r) =>
        (r.topics ?? []).map((t) => {
          const open = publicAllowStatements(t.policy)
          return row(t.arn, r.region, open.length === 0, open.length === 0 ? `Topic ${t.name} is not public.` : `Topic ${t.name}'s policy allows everyone.`, {
            public_statements: open.map((s, i) => s.sid ?? `#${i + 1}`),
          })
        }),
      ),
  }),
]

export const sqsChecks = [
  defineCheck({
    id: "sqs_queues_server_side_encryption_enabled",
    service: "sqs",
    title: "SQS queues should be encrypted at rest",
    description: "Finds queues with neither SQS-managed encryption (SSE-SQS) nor a KMS key (SSE-KMS).",
    severity: "medium",
    cis: {},
    fsbp: "SQS.1",
    remediation: "aws sqs set-queue-attributes --queue-url URL --attributes SqsManagedSseEnabled=true (or KmsMasterKeyId=KEY).",
    field_labels: { sse_sqs: "SSE-SQS", kms_key: "KMS key" },
    uses: ["sqs.queues"],
    testedWith: "moto",
    evaluate: (inv) =>
      inv.sqs.regions.flatMap((r) =>
        (r.queues ?? []).map((q) => {
          const ok = q.sqsManagedSse || q.kmsKeyId !== undefined
          return row(q.arn || q.url, r.region, ok, ok ? `Queue ${q.name} is encrypted (${q.kmsKeyId ?? "SSE-SQS"}).` : `Queue ${q.name} is not encrypted at rest.`, {
            sse_sqs: q.sqsManagedSse,
            kms_key: q.kmsKeyId ?? null,
          })
        }),
      ),
  }),
  defineCheck({
    id: "sqs_queues_not_publicly_accessible",
    service: "sqs",
    title: "SQS queue policies should not allow public access",
    description: "Finds queues whose access policy allows any principal without a restricting condition.",
    severity: "high",
    cis: {},
    fsbp: "SQS.3",
    remediation: "Edit the queue policy: replace Principal \"*\" with specific principals, or add an aws:SourceArn / aws:SourceAccount condition.",
    field_labels: { public_statements: "Public statements" },
    uses: ["sqs.queues"],
    testedWith: "moto",
    evaluate: (inv) =>
      inv.sqs.regions.flatMap((r) =>
        (r.queues ?? []).map((q) => {
          const open = publicAllowStatements(q.policy)
          return row(q.arn || q.url, r.region, open.length === 0, open.length === 0 ? `Queue ${q.name} is not public.` : `Queue ${q.name}'s policy allows everyone.`, {
            public_statements: open.map((s, i) => s.sid ?? `#${i + 1}`),
          })
        }),
      ),
  }),
]
