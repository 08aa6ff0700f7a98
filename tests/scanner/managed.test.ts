/** DMS, Amazon MQ, Cognito, Systems Manager and Transfer Family checks on moto. */
import { afterAll, beforeAll, describe, it } from "vitest"
import { CreateBrokerCommand } from "@aws-sdk/client-mq"
import { CreateUserPoolCommand } from "@aws-sdk/client-cognito-identity-provider"
import { CreateDocumentCommand, ModifyDocumentPermissionCommand, PutParameterCommand } from "@aws-sdk/client-ssm"
import { CreateServerCommand } from "@aws-sdk/client-transfer"
import type { ScanServiceResult } from "../../server/scanner/aws/scan-service.ts"
import { startMoto, type Moto } from "../support/moto.ts"
import { ACCOUNT, expectCases, scan, seedClients } from "./helpers.ts"

const E = "us-east-1"

describe("DMS, MQ, Cognito, SSM and Transfer Family on moto", () => {
  let moto: Moto
  const r: Record<string, ScanServiceResult> = {}
  const ids: Record<string, string> = {}
  const res = (k: string) => r[k] ?? (() => { throw new Error(k) })()
  const id = (k: string) => ids[k] ?? ""

  beforeAll(async () => {
    moto = await startMoto()
    const c = seedClients(moto)

    const mq = c.get("mq", E)
    const broker = { DeploymentMode: "SINGLE_INSTANCE" as const, EngineType: "ACTIVEMQ" as const, EngineVersion: "5.17.6", HostInstanceType: "mq.t3.micro", Users: [{ Username: "admin_user", Password: "Secret-Passw0rd-1" }] }
    await mq.send(new CreateBrokerCommand({ ...broker, BrokerName: "private-broker", PubliclyAccessible: false, AutoMinorVersionUpgrade: true, Logs: { Audit: true, General: true } }))
    await mq.send(new CreateBrokerCommand({ ...broker, BrokerName: "public-broker", PubliclyAccessible: true, AutoMinorVersionUpgrade: false }))

    const cognito = c.get("cognito", E)
    ids.strict = (
      await cognito.send(
        new CreateUserPoolCommand({
          PoolName: "strict-pool",
          MfaConfiguration: "ON",
          Policies: { PasswordPolicy: { MinimumLength: 16, RequireUppercase: true, RequireLowercase: true, RequireNumbers: true, RequireSymbols: true } },
          UserPoolAddOns: { AdvancedSecurityMode: "ENFORCED" },
          DeletionProtection: "ACTIVE",
        }),
      )
    ).UserPool?.Id ?? ""
    ids.loose = (await cognito.send(new CreateUserPoolCommand({ PoolName: "loose-pool", Policies: { PasswordPolicy: { MinimumLength: 8 } } }))).UserPool?.Id ?? ""

    const ssm = c.get("ssm", E)
    const content = JSON.stringify({ schemaVersion: "2.2", description: "noop", mainSteps: [{ action: "aws:runShellScript", name: "noop", inputs: { runCommand: ["true"] } }] })
    for (const name of ["private-doc", "public-doc"]) await ssm.send(new CreateDocumentCommand({ Name: name, Content: content, DocumentType: "Command" }))
    await ssm.send(new ModifyDocumentPermissionCommand({ Name: "public-doc", PermissionType: "Share", AccountIdsToAdd: ["all"] }))
    await ssm.send(new PutParameterCommand({ Name: "/app/db_password", Value: "hunter2", Type: "SecureString" }))
    await ssm.send(new PutParameterCommand({ Name: "/app/api_token", Value: "tok-123", Type: "String" }))
    await ssm.send(new PutParameterCommand({ Name: "/app/log_level", Value: "info", Type: "String" }))

    const transfer = c.get("transfer", E)
    ids.sftp = (await transfer.send(new CreateServerCommand({ Protocols: ["SFTP"], LoggingRole: `arn:aws:iam::${ACCOUNT}:role/transfer-logs` }))).ServerId ?? ""
    ids.ftp = (await transfer.send(new CreateServerCommand({ Protocols: ["FTP"], EndpointType: "VPC" }))).ServerId ?? ""
    c.destroy()

    for (const s of ["mq", "cognito", "ssm", "transfer"]) r[s] = await scan(moto, s, { regions: [E] })
    // moto's DMS answers carry timestamps the SDK cannot parse: the replication instances are stubbed.
    r.dms = await scan(moto, "dms", {
      regions: [E],
      stub: ({ command }) =>
        command === "DescribeReplicationInstancesCommand"
          ? {
              ReplicationInstances: [
                { ReplicationInstanceIdentifier: "private-dms", PubliclyAccessible: false, AutoMinorVersionUpgrade: true, MultiAZ: true },
                { ReplicationInstanceIdentifier: "public-dms", PubliclyAccessible: true, AutoMinorVersionUpgrade: false, MultiAZ: false },
              ],
            }
          : undefined,
    })
  })
  afterAll(async () => {
    await moto?.stop()
  })

  it("DMS replication instances", () => {
    for (const check of ["dms_replication_instance_not_public", "dms_replication_instance_minor_upgrades", "dms_replication_instance_multi_az"]) {
      expectCases(res("dms"), check, { compliant: ["private-dms"], nonCompliant: ["public-dms"] })
    }
  })

  it("Amazon MQ brokers", () => {
    for (const check of ["mq_broker_not_publicly_accessible", "mq_broker_auto_minor_version_upgrade", "mq_broker_audit_logging"]) {
      expectCases(res("mq"), check, { compliant: ["private-broker"], nonCompliant: ["public-broker"] })
    }
  })

  it("Cognito user pools", () => {
    for (const check of ["cognito_user_pool_mfa_enabled", "cognito_user_pool_password_min_length_14", "cognito_user_pool_advanced_security", "cognito_user_pool_deletion_protection"]) {
      expectCases(res("cognito"), check, { compliant: [id("strict")], nonCompliant: [id("loose")] })
    }
  })

  it("Systems Manager documents and parameters", () => {
    expectCases(res("ssm"), "ssm_document_not_public", { compliant: ["private-doc"], nonCompliant: ["public-doc"] })
    expectCases(res("ssm"), "ssm_parameter_secrets_are_secure_strings", { compliant: ["/app/db_password"], nonCompliant: ["/app/api_token"] })
  })

  it("Transfer Family servers", () => {
    expectCases(res("transfer"), "transfer_server_no_ftp", { compliant: [id("sftp")], nonCompliant: [id("ftp")] })
    expectCases(res("transfer"), "transfer_server_logging", { compliant: [id("sftp")], nonCompliant: [id("ftp")] })
  })
})
