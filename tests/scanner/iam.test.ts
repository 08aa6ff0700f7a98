import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  AddUserToGroupCommand,
  AttachGroupPolicyCommand,
  AttachRolePolicyCommand,
  AttachUserPolicyCommand,
  CreateAccessKeyCommand,
  CreateGroupCommand,
  CreateLoginProfileCommand,
  CreatePolicyCommand,
  CreateRoleCommand,
  CreateUserCommand,
  CreateVirtualMFADeviceCommand,
  EnableMFADeviceCommand,
  PutUserPolicyCommand,
  UpdateAccountPasswordPolicyCommand,
  UploadServerCertificateCommand,
} from "@aws-sdk/client-iam"
import { GetCallerIdentityCommand, STSClient } from "@aws-sdk/client-sts"
import type { ScanServiceResult } from "../../server/scanner/aws/scan-service.ts"
import { startMoto, type Moto } from "../support/moto.ts"
import { ACCOUNT, expectCases, expectStatus, finding, OTHER_ACCOUNT, otherAccountKeys, rowFor, scan, seedClients, selfSignedCertificate } from "./helpers.ts"

const DAY = 86_400_000
const adminDoc = JSON.stringify({ Version: "2012-10-17", Statement: [{ Effect: "Allow", Action: "*", Resource: "*" }] })
const limitedDoc = JSON.stringify({ Version: "2012-10-17", Statement: [{ Effect: "Allow", Action: ["s3:GetObject"], Resource: "arn:aws:s3:::reports/*" }] })
const trust = JSON.stringify({ Version: "2012-10-17", Statement: [{ Effect: "Allow", Principal: { AWS: `arn:aws:iam::${ACCOUNT}:root` }, Action: "sts:AssumeRole" }] })
const awsPolicy = (name: string) => `arn:aws:iam::aws:policy/${name}`

/** The credential report line AWS writes for the root user (moto has none). */
const rootReport = (opts: { passwordLastUsed: string; key1Active: boolean }) =>
  [
    "user,arn,user_creation_time,password_enabled,password_last_used,password_last_changed,password_next_rotation,mfa_active,access_key_1_active,access_key_1_last_rotated,access_key_1_last_used_date,access_key_1_last_used_region,access_key_1_last_used_service,access_key_2_active,access_key_2_last_rotated,access_key_2_last_used_date,access_key_2_last_used_region,access_key_2_last_used_service,cert_1_active,cert_1_last_rotated,cert_2_active,cert_2_last_rotated",
    `<root_account>,arn:aws:iam::${ACCOUNT}:root,2020-01-01T00:00:00+00:00,not_supported,${opts.passwordLastUsed},not_supported,not_supported,true,${opts.key1Active},N/A,N/A,N/A,N/A,false,N/A,N/A,N/A,N/A,false,N/A,false,N/A`,
  ].join("\n")

describe("IAM checks on moto", () => {
  let moto: Moto
  let a: ScanServiceResult
  let aLater: ScanServiceResult
  let b: ScanServiceResult
  let rootGood: ScanServiceResult
  let rootBad: ScanServiceResult
  let certValid: ScanServiceResult
  let certValidLater: ScanServiceResult
  let bobKeys: string[] = []
  let aliceKey = ""

  beforeAll(async () => {
    moto = await startMoto()
    const c = seedClients(moto)
    const iam = c.get("iam", "us-east-1")
    await iam.send(
      new UpdateAccountPasswordPolicyCommand({
        MinimumPasswordLength: 14,
        RequireSymbols: true,
        RequireNumbers: true,
        RequireUppercaseCharacters: true,
        RequireLowercaseCharacters: true,
        MaxPasswordAge: 90,
        PasswordReusePrevention: 24,
      }),
    )
    await iam.send(new CreateGroupCommand({ GroupName: "admins" }))
    await iam.send(new AttachGroupPolicyCommand({ GroupName: "admins", PolicyArn: awsPolicy("AWSSupportAccess") }))
    await iam.send(new AttachGroupPolicyCommand({ GroupName: "admins", PolicyArn: awsPolicy("ReadOnlyAccess") }))
    // alice: console + MFA, permissions via group only, one key that has been used.
    await iam.send(new CreateUserCommand({ UserName: "alice" }))
    await iam.send(new CreateLoginProfileCommand({ UserName: "alice", Password: "Correct-Horse-Battery-9" }))
    const device = await iam.send(new CreateVirtualMFADeviceCommand({ VirtualMFADeviceName: "alice-mfa" }))
    await iam.send(
      new EnableMFADeviceCommand({ UserName: "alice", SerialNumber: device.VirtualMFADevice?.SerialNumber, AuthenticationCode1: "123456", AuthenticationCode2: "654321" }),
    )
    await iam.send(new AddUserToGroupCommand({ GroupName: "admins", UserName: "alice" }))
    const ak = await iam.send(new CreateAccessKeyCommand({ UserName: "alice" }))
    aliceKey = ak.AccessKey?.AccessKeyId ?? ""
    const sts = new STSClient({
      endpoint: moto.endpoint,
      region: "us-east-1",
      maxAttempts: 1,
      credentials: { accessKeyId: aliceKey, secretAccessKey: ak.AccessKey?.SecretAccessKey ?? "" },
    })
    await sts.send(new GetCallerIdentityCommand({}))
    sts.destroy()
    // bob: console without MFA, two never-used keys, an inline admin policy.
    await iam.send(new CreateUserCommand({ UserName: "bob" }))
    await iam.send(new CreateLoginProfileCommand({ UserName: "bob", Password: "Correct-Horse-Battery-8" }))
    for (let i = 0; i < 2; i++) bobKeys.push((await iam.send(new CreateAccessKeyCommand({ UserName: "bob" }))).AccessKey?.AccessKeyId ?? "")
    await iam.send(new PutUserPolicyCommand({ UserName: "bob", PolicyName: "everything", PolicyDocument: adminDoc }))
    // carol: programmatic only, a customer policy and CloudShell attached directly.
    await iam.send(new CreateUserCommand({ UserName: "carol" }))
    const limited = await iam.send(new CreatePolicyCommand({ PolicyName: "limited", PolicyDocument: limitedDoc }))
    await iam.send(new AttachUserPolicyCommand({ UserName: "carol", PolicyArn: limited.Policy?.Arn }))
    await iam.send(new AttachUserPolicyCommand({ UserName: "carol", PolicyArn: awsPolicy("AWSCloudShellFullAccess") }))
    // roles: AWS AdministratorAccess, and a customer full-admin policy.
    await iam.send(new CreateRoleCommand({ RoleName: "breakglass", AssumeRolePolicyDocument: trust }))
    await iam.send(new AttachRolePolicyCommand({ RoleName: "breakglass", PolicyArn: awsPolicy("AdministratorAccess") }))
    const fullAdmin = await iam.send(new CreatePolicyCommand({ PolicyName: "full-admin", PolicyDocument: adminDoc }))
    await iam.send(new CreateRoleCommand({ RoleName: "ops", AssumeRolePolicyDocument: trust }))
    await iam.send(new AttachRolePolicyCommand({ RoleName: "ops", PolicyArn: fullAdmin.Policy?.Arn }))
    const { cert, key } = selfSignedCertificate(2)
    await iam.send(new UploadServerCertificateCommand({ ServerCertificateName: "web", CertificateBody: cert, PrivateKey: key }))
    c.destroy()

    // Account 111122223333: an empty IAM (no password policy, no support role).
    const other = seedClients(moto, otherAccountKeys)
    await other.get("iam", "us-east-1").send(new CreateUserCommand({ UserName: "dave" }))
    other.destroy()

    a = await scan(moto, "iam")
    aLater = await scan(moto, "iam", { now: new Date(Date.now() + 100 * DAY) })
    b = await scan(moto, "iam", { credentials: otherAccountKeys })
    const certStub = ({ command }: { command: string }) =>
      command === "ListServerCertificatesCommand"
        ? {
            ServerCertificateMetadataList: [
              { Path: "/", ServerCertificateName: "web", ServerCertificateId: "ASCA1", Arn: `arn:aws:iam::${ACCOUNT}:server-certificate/web`, Expiration: new Date(Date.now() + 2 * DAY) },
            ],
            IsTruncated: false,
          }
        : undefined
    certValid = await scan(moto, "iam", { checkIds: ["iam_no_expired_server_certificates_stored"], stub: certStub })
    certValidLater = await scan(moto, "iam", { checkIds: ["iam_no_expired_server_certificates_stored"], stub: certStub, now: new Date(Date.now() + 3 * DAY) })
    const rootChecks = ["iam_root_mfa_enabled", "iam_root_hardware_mfa_enabled", "iam_no_root_access_key", "iam_avoid_root_usage"]
    // moto hard-codes the root flags in the account summary and has no root report row (moto.md §7).
    rootGood = await scan(moto, "iam", {
      checkIds: rootChecks,
      stub: ({ command }) =>
        command === "GetAccountSummaryCommand"
          ? { SummaryMap: { AccountMFAEnabled: 1, AccountAccessKeysPresent: 0 } }
          : command === "GetCredentialReportCommand"
            ? { Content: new TextEncoder().encode(rootReport({ passwordLastUsed: "2019-01-01T00:00:00+00:00", key1Active: false })), ReportFormat: "text/csv" }
            : undefined,
    })
    rootBad = await scan(moto, "iam", {
      checkIds: rootChecks,
      stub: ({ command }) =>
        command === "GetAccountSummaryCommand"
          ? { SummaryMap: { AccountMFAEnabled: 1, AccountAccessKeysPresent: 1 } }
          : command === "GetCredentialReportCommand"
            ? { Content: new TextEncoder().encode(rootReport({ passwordLastUsed: new Date(Date.now() - 2 * DAY).toISOString(), key1Active: true })), ReportFormat: "text/csv" }
            : command === "ListVirtualMFADevicesCommand"
              ? { VirtualMFADevices: [{ SerialNumber: `arn:aws:iam::${ACCOUNT}:mfa/root-account-mfa-device`, User: { Arn: `arn:aws:iam::${ACCOUNT}:root` } }], IsTruncated: false }
              : undefined,
    })
  })
  afterAll(async () => {
    await moto?.stop()
  })

  it("password policy checks pass with a strong policy and fail without one", () => {
    const ids = [
      "iam_password_policy_minimum_length_14",
      "iam_password_policy_reuse_24",
      "iam_password_policy_uppercase",
      "iam_password_policy_lowercase",
      "iam_password_policy_number",
      "iam_password_policy_symbol",
      "iam_password_policy_expires_passwords_within_90_days_or_less",
    ]
    for (const id of ids) {
      expectCases(a, id, { compliant: [ACCOUNT] })
      expectStatus(a, id, "pass")
      expectCases(b, id, { nonCompliant: [OTHER_ACCOUNT] })
    }
    expect(rowFor(a, "iam_password_policy_minimum_length_14", ACCOUNT).setting).toBe(14)
    expect(rowFor(b, "iam_password_policy_reuse_24", OTHER_ACCOUNT).reason).toBe("The account has no IAM password policy.")
  })

  it("iam_user_mfa_enabled_console_access", () => {
    expectCases(a, "iam_user_mfa_enabled_console_access", { compliant: ["alice"], nonCompliant: ["bob"] })
    expect(finding(a, "iam_user_mfa_enabled_console_access").details.map((r) => r.resource_id).sort()).toEqual(["alice", "bob"])
  })

  it("iam_user_no_setup_initial_access_key", () => {
    expectCases(a, "iam_user_no_setup_initial_access_key", { compliant: ["alice"], nonCompliant: ["bob"] })
  })

  it("iam_user_two_active_access_key", () => {
    expectCases(a, "iam_user_two_active_access_key", { compliant: ["alice", "carol"], nonCompliant: ["bob"] })
  })

  it("age rules: keys and passwords are fresh now and stale 100 days later", () => {
    expectCases(a, "iam_rotate_access_key_90_days", { compliant: [aliceKey, ...bobKeys] })
    expectCases(aLater, "iam_rotate_access_key_90_days", { nonCompliant: [aliceKey, ...bobKeys] })
    expectCases(a, "iam_user_accesskey_unused", { compliant: [aliceKey, ...bobKeys] })
    expectCases(aLater, "iam_user_accesskey_unused", { nonCompliant: [aliceKey, ...bobKeys] })
    expect(rowFor(aLater, "iam_user_accesskey_unused", aliceKey).last_used_at).not.toBeNull()
    expectCases(a, "iam_user_console_access_unused", { compliant: ["alice", "bob"] })
    expectCases(aLater, "iam_user_console_access_unused", { nonCompliant: ["alice", "bob"] })
  })

  it("iam_no_expired_server_certificates_stored (moto reports a fixed 2012 expiry: valid case via stub)", () => {
    expectCases(a, "iam_no_expired_server_certificates_stored", { nonCompliant: ["web"] })
    expectCases(certValid, "iam_no_expired_server_certificates_stored", { compliant: ["web"] })
    expectCases(certValidLater, "iam_no_expired_server_certificates_stored", { nonCompliant: ["web"] })
  })

  it("iam_policy_attached_only_to_group_or_roles", () => {
    expectCases(a, "iam_policy_attached_only_to_group_or_roles", { compliant: ["alice"], nonCompliant: ["bob", "carol"] })
    expect(rowFor(a, "iam_policy_attached_only_to_group_or_roles", "carol").attached_policies).toEqual(expect.arrayContaining(["limited", "AWSCloudShellFullAccess"]))
  })

  it("administrative privilege checks (AWS-managed, customer managed, inline)", () => {
    expectCases(a, "iam_aws_attached_policy_no_administrative_privileges", { compliant: ["ReadOnlyAccess", "AWSSupportAccess"], nonCompliant: ["AdministratorAccess"] })
    expectCases(a, "iam_customer_attached_policy_no_administrative_privileges", { compliant: ["limited"], nonCompliant: ["full-admin"] })
    expectCases(a, "iam_inline_policy_no_administrative_privileges", { nonCompliant: ["user/bob/everything"] })
    expectStatus(b, "iam_inline_policy_no_administrative_privileges", "pass")
  })

  it("iam_support_role_created and iam_policy_cloudshell_admin_not_attached", () => {
    expectCases(a, "iam_support_role_created", { compliant: [ACCOUNT] })
    expect(rowFor(a, "iam_support_role_created", ACCOUNT).attached_to).toEqual(["group/admins"])
    expectCases(b, "iam_support_role_created", { nonCompliant: [OTHER_ACCOUNT] })
    expectCases(a, "iam_policy_cloudshell_admin_not_attached", { nonCompliant: ["user/carol"] })
    expectCases(b, "iam_policy_cloudshell_admin_not_attached", { compliant: [OTHER_ACCOUNT] })
  })

  it("root checks: moto's fixed flags and the stubbed AWS answers", () => {
    // On moto itself: AccountMFAEnabled=0 (fail), no root keys (pass), no root report row (error, reason attached).
    expectCases(a, "iam_root_mfa_enabled", { nonCompliant: [ACCOUNT] })
    expectCases(a, "iam_no_root_access_key", { compliant: [ACCOUNT] })
    expectStatus(a, "iam_avoid_root_usage", "error")
    expect(finding(a, "iam_avoid_root_usage").errors[0]?.code).toBe("NoRootAccountRow")

    for (const id of ["iam_root_mfa_enabled", "iam_root_hardware_mfa_enabled", "iam_no_root_access_key", "iam_avoid_root_usage"]) {
      expectCases(rootGood, id, { compliant: [ACCOUNT] })
      expectStatus(rootGood, id, "pass")
    }
    expectCases(rootBad, "iam_root_hardware_mfa_enabled", { nonCompliant: [ACCOUNT] })
    expectCases(rootBad, "iam_no_root_access_key", { nonCompliant: [ACCOUNT] })
    expectCases(rootBad, "iam_avoid_root_usage", { nonCompliant: [ACCOUNT] })
  })

  it("reads IAM once (global) with a bounded number of calls", () => {
    expect(a.regions).toEqual(["us-east-1", "eu-west-1"])
    expect(a.errors.filter((e) => e.code !== "NoRootAccountRow")).toEqual([])
    expect(a.apiCalls).toBeLessThan(40)
  })
})
