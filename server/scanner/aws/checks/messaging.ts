/** SNS and SQS checks (FSBP SNS.1, SQS.1, SQS.3; public access via resource policies). */
import { defineCheck, row } from "../define-check.ts"
import { crossAccountAllowStatements, publicAllowStatements } from "../policy.ts"

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
  defineCheck({
    id: "sns_topics_not_cross_account",
    service: "sns",
    title: "SNS topic policies should not grant other accounts unconditioned access",
    description: "Finds topics whose policy lets principals of other accounts (or anyone) publish, subscribe or change the topic without a condition naming the callers.",
    severity: "medium",
    cis: {},
    remediation: "Limit the topic policy to the accounts and services that need it and add aws:SourceArn / aws:SourceAccount / aws:PrincipalOrgID conditions.",
    field_labels: { statements: "Cross-account statements" },
    uses: ["sns.topics"],
    testedWith: "moto",
    evaluate: (inv) =>
      inv.sns.regions.flatMap((r) =>
        (r.topics ?? []).map((t) => {
          const open = crossAccountAllowStatements(t.policy, inv.accountId, ["sns:Publish", "sns:Subscribe", "sns:SetTopicAttributes", "sns:AddPermission", "sns:DeleteTopic"])
          const sids = open.map((s, i) => s.sid ?? `#${i + 1}`)
          return row(t.arn, r.region, sids.length === 0, sids.length === 0 ? `Topic ${t.name} is only open to its own account or to named callers.` : `Topic ${t.name} grants other accounts unconditioned access (${sids.join(", ")}).`, { statements: sids })
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
  defineCheck({
    id: "sqs_queues_dead_letter_queue_configured",
    service: "sqs",
    title: "SQS queues should have a dead-letter queue",
    description: "Finds queues without a redrive policy: a message that can never be processed is retried until it expires and is lost, and a poison message can block consumers. Queues that are themselves another queue's dead-letter queue are not judged.",
    severity: "low",
    cis: {},
    remediation: "Create a dead-letter queue and aws sqs set-queue-attributes --queue-url URL --attributes '{\"RedrivePolicy\":\"{\\\"deadLetterTargetArn\\\":\\\"DLQ_ARN\\\",\\\"maxReceiveCount\\\":\\\"5\\\"}\"}'.",
    field_labels: { dead_letter_queue: "Dead-letter queue" },
    uses: ["sqs.queues"],
    testedWith: "moto",
    evaluate: (inv) => {
      const dlqs = new Set(inv.sqs.regions.flatMap((r) => (r.queues ?? []).flatMap((q) => (q.deadLetterTarget === undefined ? [] : [q.deadLetterTarget]))))
      return inv.sqs.regions.flatMap((r) =>
        (r.queues ?? [])
          .filter((q) => !dlqs.has(q.arn))
          .map((q) =>
            row(q.arn, r.region, q.deadLetterTarget !== undefined, q.deadLetterTarget !== undefined ? `Queue ${q.name} moves failed messages to ${q.deadLetterTarget}.` : `Queue ${q.name} has no dead-letter queue.`, {
              dead_letter_queue: q.deadLetterTarget ?? null,
            }),
          ),
      )
    },
  }),
  defineCheck({
    id: "sqs_queues_encrypted_with_cmk",
    service: "sqs",
    title: "SQS queues should be encrypted with a customer managed KMS key",
    description: "Finds queues encrypted with SSE-SQS or the AWS managed aws/sqs key (or not at all) instead of a customer managed key whose policy controls who can read the messages.",
    severity: "low",
    cis: {},
    remediation: "aws sqs set-queue-attributes --queue-url URL --attributes KmsMasterKeyId=KEY_ARN (producers and consumers need kms:GenerateDataKey / kms:Decrypt on the key).",
    field_labels: { kms_key: "KMS key", sse_sqs: "SSE-SQS" },
    uses: ["sqs.queues", "sqs.kms"],
    testedWith: "moto",
    evaluate: (inv) =>
      inv.sqs.regions.flatMap((r) =>
        (r.queues ?? [])
          .filter((q) => q.kmsKeyId === undefined || q.kmsManager !== undefined)
          .map((q) => {
            const ok = q.kmsManager === "CUSTOMER"
            return row(q.arn, r.region, ok, ok ? `Queue ${q.name} is encrypted with the customer managed key ${q.kmsKeyId}.` : q.kmsKeyId !== undefined ? `Queue ${q.name} uses the AWS managed key ${q.kmsKeyId}.` : `Queue ${q.name} is not encrypted with a KMS key${q.sqsManagedSse ? " (SSE-SQS only)" : ""}.`, {
              kms_key: q.kmsKeyId ?? null,
              sse_sqs: q.sqsManagedSse,
            })
          }),
      ),
  }),
  defineCheck({
    id: "sqs_queues_not_cross_account",
    service: "sqs",
    title: "SQS queue policies should not grant other accounts unconditioned access",
    description: "Finds queues whose policy lets principals of other accounts (or anyone) send, receive, delete or purge messages without a condition naming the callers.",
    severity: "medium",
    cis: {},
    remediation: "Limit the policy to the accounts that need the queue and add aws:SourceArn / aws:SourceAccount / aws:PrincipalOrgID conditions.",
    field_labels: { statements: "Cross-account statements" },
    uses: ["sqs.queues"],
    testedWith: "moto",
    evaluate: (inv) =>
      inv.sqs.regions.flatMap((r) =>
        (r.queues ?? []).map((q) => {
          const open = crossAccountAllowStatements(q.policy, inv.accountId, ["sqs:SendMessage", "sqs:ReceiveMessage", "sqs:DeleteMessage", "sqs:PurgeQueue", "sqs:SetQueueAttributes"])
          const sids = open.map((s, i) => s.sid ?? `#${i + 1}`)
          return row(q.arn, r.region, sids.length === 0, sids.length === 0 ? `Queue ${q.name} is only open to its own account or to named callers.` : `Queue ${q.name} grants other accounts unconditioned access (${sids.join(", ")}).`, { statements: sids })
        }),
      ),
  }),
]
