/** Kinesis, Firehose, Step Functions, Athena, Glue, ACM, Backup, CloudFormation, CodeBuild and EventBridge checks on moto. */
import { execFileSync } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, it } from "vitest"
import { CreateStreamCommand, IncreaseStreamRetentionPeriodCommand, StartStreamEncryptionCommand } from "@aws-sdk/client-kinesis"
import { CreateDeliveryStreamCommand, StartDeliveryStreamEncryptionCommand } from "@aws-sdk/client-firehose"
import { CreateStateMachineCommand } from "@aws-sdk/client-sfn"
import { CreateWorkGroupCommand } from "@aws-sdk/client-athena"
import { CreateJobCommand, PutDataCatalogEncryptionSettingsCommand } from "@aws-sdk/client-glue"
import { ImportCertificateCommand, RequestCertificateCommand } from "@aws-sdk/client-acm"
import { CreateBackupPlanCommand, CreateBackupVaultCommand, PutBackupVaultLockConfigurationCommand } from "@aws-sdk/client-backup"
import { CreateStackCommand } from "@aws-sdk/client-cloudformation"
import { CreateProjectCommand } from "@aws-sdk/client-codebuild"
import { CreateEventBusCommand, PutPermissionCommand } from "@aws-sdk/client-eventbridge"
import { CreateKeyCommand } from "@aws-sdk/client-kms"
import { CreateTopicCommand } from "@aws-sdk/client-sns"
import type { ScanServiceResult } from "../../server/scanner/aws/scan-service.ts"
import { startMoto, type Moto } from "../support/moto.ts"
import { ACCOUNT, expectCases, OTHER_ACCOUNT, scan, seedClients, selfSignedCertificate } from "./helpers.ts"

const E = "us-east-1"
const W = "eu-west-1"
const role = `arn:aws:iam::${ACCOUNT}:role/service`

function rsaCertificate(bits: number, days: number): { cert: string; key: string } {
  const dir = mkdtempSync(join(tmpdir(), "acm-cert-"))
  try {
    execFileSync("openssl", ["req", "-x509", "-newkey", `rsa:${bits}`, "-nodes", "-keyout", join(dir, "k.pem"), "-out", join(dir, "c.pem"), "-days", String(days), "-subj", "/CN=legacy.example.com"], { stdio: "ignore" })
    return { cert: readFileSync(join(dir, "c.pem"), "utf8"), key: readFileSync(join(dir, "k.pem"), "utf8") }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

describe("analytics and platform services on moto", () => {
  let moto: Moto
  const r: Record<string, ScanServiceResult> = {}
  const ids: Record<string, string> = {}
  const res = (k: string) => r[k] ?? (() => { throw new Error(k) })()
  const id = (k: string) => ids[k] ?? ""

  beforeAll(async () => {
    moto = await startMoto()
    const c = seedClients(moto)
    const kinesis = c.get("kinesis", E)
    for (const name of ["enc-stream", "plain-stream"]) await kinesis.send(new CreateStreamCommand({ StreamName: name, ShardCount: 1 }))
    await kinesis.send(new StartStreamEncryptionCommand({ StreamName: "enc-stream", EncryptionType: "KMS", KeyId: "alias/aws/kinesis" }))
    await kinesis.send(new IncreaseStreamRetentionPeriodCommand({ StreamName: "enc-stream", RetentionPeriodHours: 168 }))

    const s3dest = { RoleARN: role, BucketARN: "arn:aws:s3:::firehose-dest" }
    await c.get("firehose", E).send(new CreateDeliveryStreamCommand({ DeliveryStreamName: "enc-delivery", ExtendedS3DestinationConfiguration: s3dest }))
    await c.get("firehose", E).send(new StartDeliveryStreamEncryptionCommand({ DeliveryStreamName: "enc-delivery", DeliveryStreamEncryptionConfigurationInput: { KeyType: "AWS_OWNED_CMK" } }))
    await c.get("firehose", E).send(new CreateDeliveryStreamCommand({ DeliveryStreamName: "plain-delivery", ExtendedS3DestinationConfiguration: s3dest }))

    const definition = JSON.stringify({ StartAt: "Done", States: { Done: { Type: "Succeed" } } })
    await c.get("sfn", E).send(
      new CreateStateMachineCommand({
        name: "logged-machine",
        definition,
        roleArn: role,
        loggingConfiguration: { level: "ERROR", includeExecutionData: false, destinations: [{ cloudWatchLogsLogGroup: { logGroupArn: `arn:aws:logs:${E}:${ACCOUNT}:log-group:sfn:*` } }] },
        tracingConfiguration: { enabled: true },
      }),
    )
    await c.get("sfn", E).send(new CreateStateMachineCommand({ name: "quiet-machine", definition, roleArn: role }))

    const athena = c.get("athena", E)
    await athena.send(new CreateWorkGroupCommand({ Name: "secure-wg", Configuration: { EnforceWorkGroupConfiguration: true, ResultConfiguration: { OutputLocation: "s3://athena-results/", EncryptionConfiguration: { EncryptionOption: "SSE_S3" } } } }))
    await athena.send(new CreateWorkGroupCommand({ Name: "loose-wg", Configuration: { EnforceWorkGroupConfiguration: false, ResultConfiguration: { OutputLocation: "s3://athena-results/" } } }))

    const glue = c.get("glue", E)
    await glue.send(new PutDataCatalogEncryptionSettingsCommand({ DataCatalogEncryptionSettings: { EncryptionAtRest: { CatalogEncryptionMode: "SSE-KMS", SseAwsKmsKeyId: "alias/aws/glue" }, ConnectionPasswordEncryption: { ReturnConnectionPasswordEncrypted: true, AwsKmsKeyId: "alias/aws/glue" } } }))
    await glue.send(new CreateJobCommand({ Name: "secure-job", Role: role, Command: { Name: "glueetl", ScriptLocation: "s3://scripts/job.py" }, SecurityConfiguration: "encrypted" }))
    await glue.send(new CreateJobCommand({ Name: "plain-job", Role: role, Command: { Name: "glueetl", ScriptLocation: "s3://scripts/job.py" } }))

    const acm = c.get("acm", E)
    const good = selfSignedCertificate(365)
    const soon = selfSignedCertificate(10)
    ids.goodCert = (await acm.send(new ImportCertificateCommand({ Certificate: Buffer.from(good.cert), PrivateKey: Buffer.from(good.key) }))).CertificateArn ?? ""
    ids.soonCert = (await acm.send(new ImportCertificateCommand({ Certificate: Buffer.from(soon.cert), PrivateKey: Buffer.from(soon.key) }))).CertificateArn ?? ""
    const weak = rsaCertificate(1024, 365)
    ids.weakCert = (await acm.send(new ImportCertificateCommand({ Certificate: Buffer.from(weak.cert), PrivateKey: Buffer.from(weak.key) }))).CertificateArn ?? ""
    ids.ctOn = (await acm.send(new RequestCertificateCommand({ DomainName: "logged.example.com" }))).CertificateArn ?? ""

    const backup = c.get("backup", E)
    const cmk = (await c.get("kms", E).send(new CreateKeyCommand({}))).KeyMetadata?.Arn ?? ""
    await backup.send(new CreateBackupVaultCommand({ BackupVaultName: "cmk-vault", EncryptionKeyArn: cmk }))
    await backup.send(new PutBackupVaultLockConfigurationCommand({ BackupVaultName: "cmk-vault", MinRetentionDays: 7 }))
    await backup.send(new CreateBackupVaultCommand({ BackupVaultName: "plain-vault" }))
    await backup.send(new CreateBackupPlanCommand({ BackupPlan: { BackupPlanName: "daily", Rules: [{ RuleName: "daily", TargetBackupVaultName: "cmk-vault", ScheduleExpression: "cron(0 5 ? * * *)" }] } }))

    const topic = (await c.get("sns", E).send(new CreateTopicCommand({ Name: "stack-events" }))).TopicArn ?? ""
    const template = (output: string, value: string) => JSON.stringify({ Resources: { Topic: { Type: "AWS::SNS::Topic" } }, Outputs: { [output]: { Value: value } } })
    const cf = c.get("cloudformation", E)
    await cf.send(new CreateStackCommand({ StackName: "protected-stack", TemplateBody: template("DbSecretArn", `arn:aws:secretsmanager:${E}:${ACCOUNT}:secret:db`), EnableTerminationProtection: true, NotificationARNs: [topic] }))
    await cf.send(new CreateStackCommand({ StackName: "open-stack", TemplateBody: template("DbPassword", "hunter2-hunter2") }))

    const cb = c.get("codebuild", E)
    const env = (privileged: boolean, vars: { name: string; value: string; type: "PLAINTEXT" | "SECRETS_MANAGER" }[]) => ({ type: "LINUX_CONTAINER" as const, image: "aws/codebuild/standard:7.0", computeType: "BUILD_GENERAL1_SMALL" as const, privilegedMode: privileged, environmentVariables: vars })
    await cb.send(
      new CreateProjectCommand({
        name: "safe-build",
        source: { type: "S3", location: "build-sources/src.zip" },
        artifacts: { type: "S3", location: "build-artifacts" },
        environment: env(false, [{ name: "DB_PASSWORD", value: "prod/db", type: "SECRETS_MANAGER" }]),
        serviceRole: role,
        logsConfig: { cloudWatchLogs: { status: "ENABLED" } },
      }),
    )
    await cb.send(
      new CreateProjectCommand({
        name: "risky-build",
        source: { type: "S3", location: "build-sources/src.zip" },
        artifacts: { type: "S3", location: "build-artifacts", encryptionDisabled: true },
        environment: env(true, [{ name: "GITHUB_TOKEN", value: "ghp_plaintext", type: "PLAINTEXT" }]),
        serviceRole: role,
        logsConfig: { cloudWatchLogs: { status: "DISABLED" }, s3Logs: { status: "DISABLED" } },
      }),
    )

    const ev = c.get("eventbridge", E)
    for (const name of ["own-bus", "partner-bus", "public-bus", "org-bus"]) await ev.send(new CreateEventBusCommand({ Name: name }))
    await ev.send(new PutPermissionCommand({ EventBusName: "own-bus", Action: "events:PutEvents", Principal: ACCOUNT, StatementId: "self" }))
    await ev.send(new PutPermissionCommand({ EventBusName: "partner-bus", Action: "events:PutEvents", Principal: OTHER_ACCOUNT, StatementId: "partner" }))
    await ev.send(new PutPermissionCommand({ EventBusName: "public-bus", Action: "events:PutEvents", Principal: "*", StatementId: "everyone" }))
    await ev.send(new PutPermissionCommand({ EventBusName: "org-bus", Action: "events:PutEvents", Principal: "*", StatementId: "org", Condition: { Type: "StringEquals", Key: "aws:PrincipalOrgID", Value: "o-abc123" } }))
    c.destroy()

    for (const s of ["kinesis", "firehose", "sfn", "athena", "acm", "backup", "cloudformation", "codebuild", "eventbridge"]) r[s] = await scan(moto, s, { regions: [E] })
    r.glue = await scan(moto, "glue")
    // moto's ACM listing fails (HTML 500) once a certificate is requested with transparency logging disabled: that answer is stubbed.
    r.acmWeak = await scan(moto, "acm", {
      regions: [E],
      checkIds: ["acm_certificate_transparency_logging"],
      stub: ({ command, input }) => {
        const arn = (input as { CertificateArn?: string }).CertificateArn
        if (command !== "DescribeCertificateCommand") return undefined
        if (arn === id("ctOn")) return { Certificate: { CertificateArn: arn, DomainName: "logged.example.com", Status: "ISSUED", Type: "AMAZON_ISSUED", KeyAlgorithm: "RSA_2048", Options: { CertificateTransparencyLoggingPreference: "DISABLED" } } }
        return undefined
      },
    })
  })
  afterAll(async () => {
    await moto?.stop()
  })

  it("Kinesis and Firehose", () => {
    expectCases(res("kinesis"), "kinesis_stream_encrypted_at_rest", { compliant: ["enc-stream"], nonCompliant: ["plain-stream"] })
    expectCases(res("kinesis"), "kinesis_stream_retention_7_days", { compliant: ["enc-stream"], nonCompliant: ["plain-stream"] })
    expectCases(res("firehose"), "firehose_stream_encrypted_at_rest", { compliant: ["enc-delivery"], nonCompliant: ["plain-delivery"] })
  })

  it("Step Functions and Athena", () => {
    expectCases(res("sfn"), "stepfunctions_state_machine_logging_enabled", { compliant: ["logged-machine"], nonCompliant: ["quiet-machine"] })
    expectCases(res("sfn"), "stepfunctions_state_machine_tracing_enabled", { compliant: ["logged-machine"], nonCompliant: ["quiet-machine"] })
    expectCases(res("athena"), "athena_workgroup_encryption", { compliant: ["secure-wg"], nonCompliant: ["loose-wg"] })
    expectCases(res("athena"), "athena_workgroup_enforce_configuration", { compliant: ["secure-wg"], nonCompliant: ["loose-wg"] })
  })

  it("Glue catalog encryption per region, job security configuration", () => {
    expectCases(res("glue"), "glue_data_catalog_encrypted", { compliant: [`${ACCOUNT}/${E}`], nonCompliant: [`${ACCOUNT}/${W}`] })
    expectCases(res("glue"), "glue_data_catalog_connection_passwords_encrypted", { compliant: [`${ACCOUNT}/${E}`], nonCompliant: [`${ACCOUNT}/${W}`] })
    expectCases(res("glue"), "glue_job_security_configuration", { compliant: ["secure-job"], nonCompliant: ["plain-job"] })
  })

  it("ACM certificates", () => {
    expectCases(res("acm"), "acm_certificate_not_expiring", { compliant: [id("goodCert")], nonCompliant: [id("soonCert")] })
    expectCases(res("acm"), "acm_certificate_key_length", { compliant: [id("goodCert"), id("ctOn")], nonCompliant: [id("weakCert")] })
    expectCases(res("acm"), "acm_certificate_transparency_logging", { compliant: [id("ctOn")] })
    expectCases(res("acmWeak"), "acm_certificate_transparency_logging", { nonCompliant: [id("ctOn")] })
  })

  it("Backup vaults and plans", () => {
    expectCases(res("backup"), "backup_vault_encrypted_with_cmk", { compliant: ["cmk-vault"], nonCompliant: ["plain-vault"] })
    expectCases(res("backup"), "backup_vault_lock_enabled", { compliant: ["cmk-vault"], nonCompliant: ["plain-vault"] })
    expectCases(res("backup"), "backup_plans_exist", { compliant: [`${ACCOUNT}/${E}`] })
  })

  it("CloudFormation stacks and CodeBuild projects", () => {
    for (const check of ["cloudformation_stack_termination_protection", "cloudformation_stack_outputs_no_secrets", "cloudformation_stack_notifications"]) {
      expectCases(res("cloudformation"), check, { compliant: ["protected-stack"], nonCompliant: ["open-stack"] })
    }
    for (const check of ["codebuild_project_no_privileged_mode", "codebuild_project_no_plaintext_secrets", "codebuild_project_logging_enabled", "codebuild_project_artifacts_encrypted"]) {
      expectCases(res("codebuild"), check, { compliant: ["safe-build"], nonCompliant: ["risky-build"] })
    }
  })

  it("EventBridge bus policies", () => {
    expectCases(res("eventbridge"), "eventbridge_bus_not_publicly_accessible", { compliant: ["own-bus", "partner-bus", "org-bus"], nonCompliant: ["public-bus"] })
    expectCases(res("eventbridge"), "eventbridge_bus_not_cross_account", { compliant: ["own-bus", "org-bus"], nonCompliant: ["partner-bus", "public-bus"] })
  })
})
