/** Kinesis, Firehose, Step Functions, Athena and Glue checks: encryption at rest, retention, logging, tracing, enforced workgroup settings. */
import type { DeliveryStream, KinesisStream, StateMachine, WorkGroup } from "../collectors/analytics.ts"
import { defineCheck, row } from "../define-check.ts"
import { flagChecks } from "../generic.ts"
import type { InventoryWith } from "../inventory.ts"

const stream = flagChecks({ service: "kinesis", uses: ["kinesis.streams"], regions: (inv: InventoryWith<"kinesis">) => inv.kinesis.regions, kind: "Stream", idOf: (s: KinesisStream) => s.name })
const delivery = flagChecks({ service: "firehose", uses: ["firehose.streams"], regions: (inv: InventoryWith<"firehose">) => inv.firehose.regions, kind: "Delivery stream", idOf: (s: DeliveryStream) => s.name })
const machine = flagChecks({ service: "sfn", uses: ["sfn.state_machines"], regions: (inv: InventoryWith<"sfn">) => inv.sfn.regions, kind: "State machine", idOf: (m: StateMachine) => m.name })
const workgroup = flagChecks({ service: "athena", uses: ["athena.workgroups"], regions: (inv: InventoryWith<"athena">) => inv.athena.regions, kind: "Workgroup", idOf: (w: WorkGroup) => w.name })

export const kinesisChecks = [
  stream({
    id: "kinesis_stream_encrypted_at_rest",
    title: "Kinesis data streams should be encrypted at rest",
    description: "Finds streams without server-side encryption with a KMS key.",
    severity: "medium",
    fsbp: "Kinesis.1",
    remediation: "aws kinesis start-stream-encryption --stream-name NAME --encryption-type KMS --key-id alias/aws/kinesis (or a customer managed key).",
    label: "Encryption",
    value: (s) => s.encryption,
    ok: (s) => s.encryption === "KMS",
    pass: "is encrypted with KMS",
    fail: "is not encrypted at rest",
  }),
  stream({
    id: "kinesis_stream_retention_7_days",
    title: "Kinesis data streams should retain records for at least 7 days",
    description: "Finds streams whose retention period is under 168 hours, leaving little time to replay records after a consumer failure or an incident.",
    severity: "low",
    fsbp: "Kinesis.3",
    remediation: "aws kinesis increase-stream-retention-period --stream-name NAME --retention-period-hours 168.",
    label: "Retention (hours)",
    value: (s) => s.retentionHours,
    ok: (s) => s.retentionHours >= 168,
    pass: "keeps records for 7 days or more",
    fail: "keeps records for less than 7 days",
  }),
]

export const firehoseChecks = [
  delivery({
    id: "firehose_stream_encrypted_at_rest",
    title: "Firehose delivery streams should be encrypted at rest",
    description: "Finds delivery streams without server-side encryption of the buffered data.",
    severity: "medium",
    fsbp: "DataFirehose.1",
    remediation: "aws firehose start-delivery-stream-encryption --delivery-stream-name NAME --delivery-stream-encryption-configuration-input KeyType=AWS_OWNED_CMK (or CUSTOMER_MANAGED_CMK with a key).",
    label: "Encryption",
    value: (s) => s.encryption,
    ok: (s) => s.encryption === "ENABLED" || s.encryption === "ENABLING",
    pass: "encrypts data at rest",
    fail: "does not encrypt data at rest",
  }),
]

export const sfnChecks = [
  machine({
    id: "stepfunctions_state_machine_logging_enabled",
    title: "Step Functions state machines should log executions",
    description: "Finds state machines with logging level OFF, so failed and suspicious executions leave no history once they age out.",
    severity: "medium",
    fsbp: "StepFunctions.1",
    remediation: "aws stepfunctions update-state-machine --state-machine-arn ARN --logging-configuration level=ERROR,includeExecutionData=false,destinations=[{cloudWatchLogsLogGroup={logGroupArn=ARN}}].",
    label: "Logging level",
    value: (m) => m.loggingLevel,
    ok: (m) => m.loggingLevel !== "OFF",
    pass: "logs executions",
    fail: "does not log executions",
  }),
  machine({
    id: "stepfunctions_state_machine_tracing_enabled",
    title: "Step Functions state machines should have X-Ray tracing",
    description: "Finds state machines without X-Ray tracing.",
    severity: "low",
    remediation: "aws stepfunctions update-state-machine --state-machine-arn ARN --tracing-configuration enabled=true.",
    label: "Tracing",
    value: (m) => m.tracing,
    ok: (m) => m.tracing,
    pass: "is traced",
    fail: "is not traced",
  }),
]

export const athenaChecks = [
  workgroup({
    id: "athena_workgroup_encryption",
    title: "Athena workgroups should encrypt query results",
    description: "Finds enabled workgroups whose query results are written to S3 without encryption.",
    severity: "medium",
    fsbp: "Athena.4",
    remediation: "aws athena update-work-group --work-group NAME --configuration-updates ResultConfigurationUpdates={EncryptionConfiguration={EncryptionOption=SSE_KMS,KmsKey=KEY}}.",
    label: "Encryption",
    value: (w) => w.encryption ?? null,
    ok: (w) => w.encryption !== undefined,
    applies: (w) => w.state === "ENABLED",
    pass: "encrypts query results",
    fail: "does not encrypt query results",
  }),
  workgroup({
    id: "athena_workgroup_enforce_configuration",
    title: "Athena workgroups should enforce their configuration",
    description: "Finds enabled workgroups that let each query override the workgroup's result location and encryption.",
    severity: "medium",
    remediation: "aws athena update-work-group --work-group NAME --configuration-updates EnforceWorkGroupConfiguration=true.",
    label: "Enforced",
    value: (w) => w.enforced,
    ok: (w) => w.enforced,
    applies: (w) => w.state === "ENABLED",
    pass: "enforces its configuration",
    fail: "lets queries override its configuration",
  }),
]

export const glueChecks = [
  ...(["catalog", "passwords"] as const).map((what) =>
    defineCheck({
      id: what === "catalog" ? "glue_data_catalog_encrypted" : "glue_data_catalog_connection_passwords_encrypted",
      service: "glue",
      title: what === "catalog" ? "The Glue Data Catalog should be encrypted at rest" : "Glue connection passwords should be encrypted",
      description:
        what === "catalog"
          ? "Checks, per region, that the Data Catalog (databases, tables, partitions) is encrypted with a KMS key."
          : "Checks, per region, that passwords stored in Glue connections are returned encrypted with a KMS key.",
      severity: "medium",
      cis: {},
      remediation:
        what === "catalog"
          ? "aws glue put-data-catalog-encryption-settings --data-catalog-encryption-settings EncryptionAtRest={CatalogEncryptionMode=SSE-KMS,SseAwsKmsKeyId=KEY}."
          : "aws glue put-data-catalog-encryption-settings --data-catalog-encryption-settings ConnectionPasswordEncryption={ReturnConnectionPasswordEncrypted=true,AwsKmsKeyId=KEY}.",
      field_labels: { setting: what === "catalog" ? "Catalog encryption" : "Passwords encrypted" },
      uses: ["glue.catalog"],
      testedWith: "moto",
      evaluate: (inv) =>
        inv.glue.regions.flatMap((r) => {
          const c = r.catalog
          if (c === undefined) return []
          const ok = what === "catalog" ? c.encryptionMode !== "DISABLED" : c.passwordsEncrypted
          const reason =
            what === "catalog"
              ? `The Data Catalog in ${r.region} ${ok ? "is" : "is not"} encrypted.`
              : `Connection passwords in ${r.region} ${ok ? "are" : "are not"} returned encrypted.`
          return [row(`${inv.accountId}/${r.region}`, r.region, ok, reason, {
            setting: what === "catalog" ? c.encryptionMode : c.passwordsEncrypted,
          })]
        }),
    }),
  ),
  defineCheck({
    id: "glue_job_security_configuration",
    service: "glue",
    title: "Glue jobs should use a security configuration",
    description: "Finds ETL jobs without a security configuration, so their S3 output, CloudWatch logs and job bookmarks are not encrypted with a KMS key.",
    severity: "medium",
    cis: {},
    remediation: "Create a security configuration with S3, CloudWatch and job-bookmark encryption (aws glue create-security-configuration) and set it on the job (aws glue update-job ... SecurityConfiguration=NAME).",
    field_labels: { security_configuration: "Security configuration" },
    uses: ["glue.jobs"],
    testedWith: "moto",
    evaluate: (inv) =>
      inv.glue.regions.flatMap((r) =>
        (r.jobs ?? []).map((j) =>
          row(j.name, r.region, j.securityConfiguration !== undefined, j.securityConfiguration !== undefined ? `Job ${j.name} uses ${j.securityConfiguration}.` : `Job ${j.name} has no security configuration.`, {
            security_configuration: j.securityConfiguration ?? null,
          }),
        ),
      ),
  }),
]
