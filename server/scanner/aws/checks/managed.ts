/** DMS, Amazon MQ, Cognito, Systems Manager and Transfer Family checks. */
import type { Broker, ReplicationInstance, TransferServer, UserPool } from "../collectors/managed.ts"
import { secretLikeName } from "../collectors/managed.ts"
import { flagChecks, itemCheck } from "../generic.ts"
import type { InventoryWith } from "../inventory.ts"

const dms = flagChecks({ service: "dms", uses: ["dms.replication_instances"], regions: (inv: InventoryWith<"dms">) => inv.dms.regions, kind: "Replication instance", idOf: (i: ReplicationInstance) => i.id })
const broker = flagChecks({ service: "mq", uses: ["mq.brokers"], regions: (inv: InventoryWith<"mq">) => inv.mq.regions, kind: "Broker", idOf: (b: Broker) => b.name })
const pool = flagChecks({ service: "cognito", uses: ["cognito.user_pools"], regions: (inv: InventoryWith<"cognito">) => inv.cognito.regions, kind: "User pool", idOf: (p: UserPool) => p.id, nameOf: (p: UserPool) => p.name })
const server = flagChecks({ service: "transfer", uses: ["transfer.servers"], regions: (inv: InventoryWith<"transfer">) => inv.transfer.regions, kind: "Server", idOf: (s: TransferServer) => s.id })

const DMS_MOCK = "moto answers DMS replication instances with timestamps the SDK cannot parse (Create/DescribeReplicationInstances fail to deserialize), so both cases are stubbed DescribeReplicationInstances answers."

export const dmsChecks = [
  dms({
    id: "dms_replication_instance_not_public",
    title: "DMS replication instances should not be publicly accessible",
    description: "Finds replication instances with a public IP address, reachable from the internet and holding credentials of both source and target databases.",
    severity: "critical",
    fsbp: "DMS.1",
    remediation: "Public access is set at creation: create a private replication instance (--no-publicly-accessible), move the tasks and delete the public one.",
    label: "Publicly accessible",
    value: (i) => i.publiclyAccessible,
    ok: (i) => !i.publiclyAccessible,
    pass: "is private",
    fail: "is publicly accessible",
  }),
  dms({
    id: "dms_replication_instance_minor_upgrades",
    title: "DMS replication instances should upgrade minor versions automatically",
    description: "Finds replication instances with automatic minor version upgrade off.",
    severity: "medium",
    fsbp: "DMS.6",
    remediation: "aws dms modify-replication-instance --replication-instance-arn ARN --auto-minor-version-upgrade --apply-immediately.",
    label: "Auto minor version upgrade",
    value: (i) => i.autoMinorVersionUpgrade,
    ok: (i) => i.autoMinorVersionUpgrade,
    pass: "upgrades minor versions automatically",
    fail: "has auto minor version upgrade disabled",
  }),
  dms({
    id: "dms_replication_instance_multi_az",
    title: "DMS replication instances should be Multi-AZ",
    description: "Finds replication instances without a standby in another Availability Zone.",
    severity: "medium",
    remediation: "aws dms modify-replication-instance --replication-instance-arn ARN --multi-az --apply-immediately.",
    label: "Multi-AZ",
    value: (i) => i.multiAz,
    ok: (i) => i.multiAz,
    pass: "is Multi-AZ",
    fail: "runs in a single Availability Zone",
  }),
].map((c) => ({ ...c, testedWith: "sdk-mock" as const, mockReason: DMS_MOCK }))

export const mqChecks = [
  broker({
    id: "mq_broker_not_publicly_accessible",
    title: "Amazon MQ brokers should not be publicly accessible",
    description: "Finds brokers with a public endpoint, whose consoles and messaging ports answer the internet.",
    severity: "high",
    fsbp: "MQ.5",
    remediation: "Public accessibility is set at creation: create a private broker in the VPC, migrate producers and consumers, delete the public one.",
    label: "Publicly accessible",
    value: (b) => b.publiclyAccessible,
    ok: (b) => !b.publiclyAccessible,
    pass: "is private",
    fail: "is publicly accessible",
  }),
  broker({
    id: "mq_broker_auto_minor_version_upgrade",
    title: "Amazon MQ brokers should upgrade minor versions automatically",
    description: "Finds brokers with automatic minor version upgrade off.",
    severity: "low",
    fsbp: "MQ.3",
    remediation: "aws mq update-broker --broker-id ID --auto-minor-version-upgrade.",
    label: "Auto minor version upgrade",
    value: (b) => b.autoMinorVersionUpgrade,
    ok: (b) => b.autoMinorVersionUpgrade,
    pass: "upgrades minor versions automatically",
    fail: "has auto minor version upgrade disabled",
  }),
  broker({
    id: "mq_broker_audit_logging",
    title: "ActiveMQ brokers should stream audit logs to CloudWatch",
    description: "Finds ActiveMQ brokers without audit logging (management actions by users).",
    severity: "medium",
    fsbp: "MQ.2",
    remediation: "aws mq update-broker --broker-id ID --logs Audit=true,General=true.",
    label: "Audit logs",
    value: (b) => b.auditLogs,
    ok: (b) => b.auditLogs,
    applies: (b) => b.engine.toUpperCase() === "ACTIVEMQ",
    pass: "logs audit events",
    fail: "does not log audit events",
  }),
]

export const cognitoChecks = [
  pool({
    id: "cognito_user_pool_mfa_enabled",
    title: "Cognito user pools should require or offer MFA",
    description: "Finds user pools with MFA off.",
    severity: "medium",
    remediation: "aws cognito-idp set-user-pool-mfa-config --user-pool-id ID --mfa-configuration ON --software-token-mfa-configuration Enabled=true.",
    label: "MFA",
    value: (p) => p.mfa,
    ok: (p) => p.mfa !== "OFF",
    pass: "uses MFA",
    fail: "has MFA off",
  }),
  pool({
    id: "cognito_user_pool_password_min_length_14",
    title: "Cognito user pool passwords should be at least 14 characters",
    description: "Finds user pools whose password policy allows passwords shorter than 14 characters.",
    severity: "medium",
    remediation: "aws cognito-idp update-user-pool --user-pool-id ID --policies PasswordPolicy={MinimumLength=14,RequireUppercase=true,RequireLowercase=true,RequireNumbers=true,RequireSymbols=true}.",
    label: "Minimum length",
    value: (p) => p.minLength,
    ok: (p) => p.minLength >= 14,
    pass: "requires 14+ character passwords",
    fail: "allows short passwords",
  }),
  pool({
    id: "cognito_user_pool_advanced_security",
    title: "Cognito user pools should enforce threat protection",
    description: "Finds user pools whose advanced security (compromised-credential and adaptive authentication checks) is not ENFORCED.",
    severity: "medium",
    fsbp: "Cognito.1",
    remediation: "aws cognito-idp update-user-pool --user-pool-id ID --user-pool-add-ons AdvancedSecurityMode=ENFORCED.",
    label: "Advanced security",
    value: (p) => p.advancedSecurity,
    ok: (p) => p.advancedSecurity === "ENFORCED",
    pass: "enforces threat protection",
    fail: "does not enforce threat protection",
  }),
  pool({
    id: "cognito_user_pool_deletion_protection",
    title: "Cognito user pools should have deletion protection",
    description: "Finds user pools that can be deleted, with every user in them, in one call.",
    severity: "medium",
    fsbp: "Cognito.6",
    remediation: "aws cognito-idp update-user-pool --user-pool-id ID --deletion-protection ACTIVE.",
    label: "Deletion protection",
    value: (p) => p.deletionProtection,
    ok: (p) => p.deletionProtection,
    pass: "has deletion protection",
    fail: "has no deletion protection",
  }),
]

export const ssmChecks = [
  itemCheck({
    id: "ssm_document_not_public",
    service: "ssm",
    title: "Systems Manager documents should not be public",
    description: "Finds the account's SSM documents shared with all AWS accounts, which exposes the scripts, and often internal names and paths, they contain.",
    severity: "critical",
    fsbp: "SSM.4",
    remediation: "aws ssm modify-document-permission --name NAME --permission-type Share --account-ids-to-remove All (share with named accounts instead), and turn on the account's block public sharing setting.",
    field_labels: { public: "Public" },
    uses: ["ssm.documents"],
    regions: (inv: InventoryWith<"ssm">) => inv.ssm.regions.map((r) => ({ region: r.region, items: r.documents })),
    judge: (d) => ({ id: d.name, ok: !d.public, reason: d.public ? `Document ${d.name} is shared with every AWS account.` : `Document ${d.name} is not public.`, fields: { public: d.public } }),
  }),
  itemCheck({
    id: "ssm_parameter_secrets_are_secure_strings",
    service: "ssm",
    title: "Systems Manager parameters holding secrets should be SecureString",
    description: "Finds String/StringList parameters named like credentials (password, secret, token, keys), stored unencrypted and readable with ssm:GetParameter alone.",
    severity: "high",
    remediation: "Recreate the parameter as SecureString (aws ssm put-parameter --name NAME --type SecureString --overwrite --value ...) and rotate the value.",
    field_labels: { type: "Type" },
    uses: ["ssm.parameters"],
    regions: (inv: InventoryWith<"ssm">) => inv.ssm.regions.map((r) => ({ region: r.region, items: r.parameters?.filter((p) => secretLikeName(p.name)) })),
    judge: (p) => ({ id: p.name, ok: p.type === "SecureString", reason: p.type === "SecureString" ? `Parameter ${p.name} is a SecureString.` : `Parameter ${p.name} looks like a secret but is a ${p.type}.`, fields: { type: p.type } }),
  }),
]

export const transferChecks = [
  server({
    id: "transfer_server_no_ftp",
    title: "Transfer Family servers should not accept plain FTP",
    description: "Finds servers with the FTP protocol enabled, which sends credentials and files in clear text.",
    severity: "high",
    fsbp: "Transfer.2",
    remediation: "aws transfer update-server --server-id ID --protocols SFTP (or FTPS with a certificate).",
    label: "Protocols",
    value: (s) => s.protocols,
    ok: (s) => !s.protocols.includes("FTP"),
    pass: "does not accept plain FTP",
    fail: "accepts plain FTP",
  }),
  server({
    id: "transfer_server_logging",
    title: "Transfer Family servers should log user activity",
    description: "Finds servers without a CloudWatch logging role, so uploads, downloads and logins leave no trace.",
    severity: "medium",
    remediation: "aws transfer update-server --server-id ID --logging-role ROLE_ARN (a role allowing logs:CreateLogStream and logs:PutLogEvents).",
    label: "Logging role",
    value: (s) => s.loggingRole ?? null,
    ok: (s) => s.loggingRole !== undefined,
    pass: "logs user activity",
    fail: "does not log user activity",
  }),
]
