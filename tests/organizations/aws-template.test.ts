/**
 * The organisation wizard's CloudFormation (issue 31): what an administrator deploys must create exactly the role the
 * product then assumes — the workspace's external id, the product's principal, the two read-only policies. Checked on the
 * JSON, by property, and on moto (ValidateTemplate there runs cfn-lint against AWS's resource schemas; CreateStack creates
 * the IAM role; the generated CLI commands run against it when the AWS CLI is installed).
 */
import { execFileSync } from "node:child_process"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import {
  CloudFormationClient,
  CreateStackCommand,
  DeleteStackCommand,
  DescribeStackResourcesCommand,
  DescribeStacksCommand,
  ValidateTemplateCommand,
} from "@aws-sdk/client-cloudformation"
import { GetRoleCommand, IAMClient } from "@aws-sdk/client-iam"
import { Result } from "effect"
import fc from "fast-check"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  awsCliDeployCommands,
  checkTemplateInput,
  DEFAULT_MEMBER_ROLE_NAME,
  DEFAULT_ORGANIZATION_STACK_NAME,
  memberRoleTemplate,
  organizationTemplate,
  templateJson,
  TemplateInputInvalid,
  type CloudFormationTemplate,
  type MemberRoleTemplateInput,
} from "../../server/organizations/aws-template.ts"
import { MOTO_KEYS, startMoto, type Moto } from "../support/moto.ts"

const MANAGEMENT = "123456789012"
const input: MemberRoleTemplateInput = {
  roleName: DEFAULT_MEMBER_ROLE_NAME,
  externalId: "ca-Zk3_q9-x1Yb2W8vT0mNpQrS",
  trustedPrincipalArn: `arn:aws:iam::${MANAGEMENT}:root`,
}

// The JSON paths the product relies on, read the way CloudFormation reads them.
type Json = Record<string, any>
const role = (t: CloudFormationTemplate): Json => t.Resources["MemberRole"] as Json
const trustStatement = (t: CloudFormationTemplate): Json => role(t)["Properties"]["AssumeRolePolicyDocument"]["Statement"][0]
const stackSet = (t: CloudFormationTemplate): Json => (t.Resources["MemberRoleStackSet"] as Json)["Properties"]
/** The role name CloudFormation resolves when the deployer keeps the parameter's default. */
const resolvedRoleName = (t: CloudFormationTemplate): unknown =>
  role(t)["Properties"]["RoleName"]["Ref"] === "RoleName" ? t.Parameters["RoleName"]?.Default : role(t)["Properties"]["RoleName"]

const failure = (thunk: () => unknown): TemplateInputInvalid => {
  try {
    thunk()
  } catch (error) {
    if (error instanceof TemplateInputInvalid) return error
    throw error
  }
  throw new Error("expected TemplateInputInvalid")
}

// Inputs as IAM and STS accept them.
const roleNames = fc.stringMatching(/^[\w+=,.@-]{1,64}$/)
const externalIds = fc.stringMatching(/^[\w+=,.@:/-]{2,200}$/)
const accountIds = fc.stringMatching(/^\d{12}$/)
const principals = fc.oneof(
  accountIds.map((a) => `arn:aws:iam::${a}:root`),
  fc
    .tuple(accountIds, fc.constantFrom("role", "user"), fc.constantFrom("", "audit/", "org/security/"), roleNames)
    .map(([a, kind, path, name]) => `arn:aws:iam::${a}:${kind}/${path}${name}`),
)
const validInputs = fc.record({ roleName: roleNames, externalId: externalIds, trustedPrincipalArn: principals })

describe("member role template", () => {
  it("is the read-only audit role trusting the principal with the external id", () => {
    const t = memberRoleTemplate(input)
    expect(role(t)["Type"]).toBe("AWS::IAM::Role")
    expect(trustStatement(t)).toEqual({
      Sid: "CloudAuditAssumeRole",
      Effect: "Allow",
      Principal: { AWS: `arn:aws:iam::${MANAGEMENT}:root` },
      Action: "sts:AssumeRole",
      Condition: { StringEquals: { "sts:ExternalId": input.externalId } },
    })
    expect(role(t)["Properties"]["ManagedPolicyArns"]).toEqual([
      "arn:aws:iam::aws:policy/SecurityAudit",
      "arn:aws:iam::aws:policy/job-function/ViewOnlyAccess",
    ])
    expect(role(t)["Properties"]["MaxSessionDuration"]).toBe(3600)
    expect(role(t)["Properties"]["Tags"]).toContainEqual({ Key: "ManagedBy", Value: "Cloud Audit" })
    expect(resolvedRoleName(t)).toBe(DEFAULT_MEMBER_ROLE_NAME)
    expect(t.Outputs["RoleArn"]?.Value).toEqual({ "Fn::GetAtt": ["MemberRole", "Arn"] })
  })

  it("property: any valid role name, external id and principal come out exactly as given", () => {
    fc.assert(
      fc.property(validInputs, (i) => {
        for (const t of [memberRoleTemplate(i), organizationTemplate(i)]) {
          expect(resolvedRoleName(t)).toBe(i.roleName)
          expect(trustStatement(t)["Condition"]).toEqual({ StringEquals: { "sts:ExternalId": i.externalId } })
          expect(trustStatement(t)["Principal"]).toEqual({ AWS: i.trustedPrincipalArn })
          // The parameter's own constraint accepts the default it carries (CloudFormation matches the whole value).
          expect(new RegExp(`^(?:${t.Parameters["RoleName"]?.AllowedPattern})$`).test(i.roleName)).toBe(true)
        }
        // What the StackSet deploys to members is the same template, with the same role name passed through.
        const body = JSON.parse(stackSet(organizationTemplate(i))["TemplateBody"])
        expect(body).toEqual(memberRoleTemplate(i))
        expect(JSON.parse(templateJson(memberRoleTemplate(i)))).toEqual(body)
      }),
    )
  })

  it.each([
    ["roleName", { roleName: "" }],
    ["roleName", { roleName: "a".repeat(65) }],
    ["roleName", { roleName: "audit role" }],
    ["roleName", { roleName: "audit/role" }],
    ["externalId", { externalId: "x" }],
    ["externalId", { externalId: "ca-abc def" }],
    ["externalId", { externalId: "ca-'; rm" }],
    ["trustedPrincipalArn", { trustedPrincipalArn: "*" }],
    ["trustedPrincipalArn", { trustedPrincipalArn: "123456789012" }],
    ["trustedPrincipalArn", { trustedPrincipalArn: "arn:aws:iam::12345:root" }],
    ["trustedPrincipalArn", { trustedPrincipalArn: "arn:aws:iam::123456789012:role/*" }],
    ["trustedPrincipalArn", { trustedPrincipalArn: "arn:aws:iam::123456789012:group/admins" }],
    ["trustedPrincipalArn", { trustedPrincipalArn: "arn:aws:sts::123456789012:assumed-role/Admin/alice" }],
    ["trustedPrincipalArn", { trustedPrincipalArn: "arn:aws:s3:::bucket" }],
  ] as const)("refuses a bad %s (%j) with a typed error naming the field", (field, change) => {
    const bad = { ...input, ...change }
    for (const generate of [memberRoleTemplate, organizationTemplate]) {
      expect(failure(() => generate(bad)).field).toBe(field)
    }
    const checked = checkTemplateInput(bad)
    expect(Result.isFailure(checked) && checked.failure.field).toBe(field)
  })

  it("accepts the principal shapes the product can have (account root, role or user with a path, GovCloud and China)", () => {
    for (const arn of [
      "arn:aws:iam::123456789012:root",
      "arn:aws:iam::123456789012:role/CloudAudit",
      "arn:aws:iam::123456789012:role/service-role/org/CloudAudit",
      "arn:aws:iam::123456789012:user/auditor@example.com",
      "arn:aws-us-gov:iam::123456789012:root",
      "arn:aws-cn:iam::123456789012:role/CloudAudit",
    ]) {
      expect(Result.isSuccess(checkTemplateInput({ ...input, trustedPrincipalArn: arn }))).toBe(true)
      const t = memberRoleTemplate({ ...input, trustedPrincipalArn: arn })
      expect(trustStatement(t)["Principal"]).toEqual({ AWS: arn })
      // The managed policies live in the principal's partition (arn:aws-cn:iam::aws:policy/… in China).
      const partition = arn.split(":")[1]
      expect(role(t)["Properties"]["ManagedPolicyArns"]).toEqual([
        `arn:${partition}:iam::aws:policy/SecurityAudit`,
        `arn:${partition}:iam::aws:policy/job-function/ViewOnlyAccess`,
      ])
    }
  })

  it("property: a role name outside IAM's alphabet or length is refused", () => {
    const badNames = fc.oneof(
      fc.string({ minLength: 1, maxLength: 80 }).filter((s) => !/^[\w+=,.@-]{1,64}$/.test(s)),
      fc.stringMatching(/^[\w+=,.@-]{65,80}$/),
    )
    fc.assert(
      fc.property(badNames, (roleName) => {
        expect(failure(() => memberRoleTemplate({ ...input, roleName })).field).toBe("roleName")
      }),
    )
  })
})

describe("organisation template", () => {
  it("deploys the role here and, through a service-managed StackSet, to every account of the chosen units", () => {
    const t = organizationTemplate(input)
    const s = stackSet(t)
    expect(t.Resources["MemberRoleStackSet"]?.Type).toBe("AWS::CloudFormation::StackSet")
    expect(s["PermissionModel"]).toBe("SERVICE_MANAGED")
    expect(s["AutoDeployment"]).toEqual({ Enabled: true, RetainStacksOnAccountRemoval: false })
    expect(s["Capabilities"]).toEqual(["CAPABILITY_NAMED_IAM"])
    expect(s["CallAs"]).toEqual({ Ref: "CallAs" })
    expect(s["StackInstancesGroup"]).toEqual([
      { DeploymentTargets: { OrganizationalUnitIds: { Ref: "OrganizationalUnitIds" } }, Regions: [{ Ref: "AWS::Region" }] },
    ])
    expect(s["OperationPreferences"]).toEqual({
      FailureTolerancePercentage: { Ref: "FailureTolerancePercentage" },
      MaxConcurrentPercentage: { Ref: "MaxConcurrentPercentage" },
    })
    expect(s["Parameters"]).toEqual([{ ParameterKey: "RoleName", ParameterValue: { Ref: "RoleName" } }])
    expect(JSON.parse(s["TemplateBody"])).toEqual(memberRoleTemplate(input))
    // The local role only where the StackSet cannot reach: the management account (CallAs SELF).
    expect(t.Resources["MemberRole"]?.Condition).toBe("InManagementAccount")
    expect(t.Conditions).toEqual({ InManagementAccount: { "Fn::Equals": [{ Ref: "CallAs" }, "SELF"] } })
    expect(t.Parameters["CallAs"]).toMatchObject({ Default: "SELF", AllowedValues: ["SELF", "DELEGATED_ADMIN"] })
    expect(t.Parameters["FailureTolerancePercentage"]).toMatchObject({ Type: "Number", MinValue: 0, MaxValue: 100 })
    expect(t.Parameters["MaxConcurrentPercentage"]).toMatchObject({ Type: "Number", MinValue: 1, MaxValue: 100 })
  })

  it("takes the units as a comma-delimited list of root or OU ids, with the wizard's choice as default", () => {
    const units = organizationTemplate(input).Parameters["OrganizationalUnitIds"]
    expect(units?.Type).toBe("CommaDelimitedList")
    expect(units?.Default).toBeUndefined()
    const pattern = new RegExp(units?.AllowedPattern ?? "")
    for (const ok of ["r-ab12", "ou-ab12-34cd5678", "ou-a1b2c3d4-e5f6g7h8i9"]) expect(pattern.test(ok)).toBe(true)
    for (const bad of ["", "ab12", "r-AB12", "ou-ab12", "ou-ab12-34cd5678,r-ab12", "123456789012", "r-ab12 "]) {
      expect(pattern.test(bad)).toBe(false)
    }
    const chosen = organizationTemplate({ ...input, organizationalUnitIds: ["r-ab12", "ou-ab12-34cd5678"] })
    expect(chosen.Parameters["OrganizationalUnitIds"]?.Default).toBe("r-ab12,ou-ab12-34cd5678")
    expect(failure(() => organizationTemplate({ ...input, organizationalUnitIds: ["ou-nope"] })).field).toBe("organizationalUnitIds")
    expect(failure(() => organizationTemplate({ ...input, organizationalUnitIds: [] })).field).toBe("organizationalUnitIds")
  })
})

describe("AWS CLI commands", () => {
  const deploy = { ...input, organizationalUnitIds: ["r-ab12", "ou-ab12-34cd5678"], region: "eu-west-1" }
  /** The templates the commands write, in order (each `cat > file <<'…'` heredoc). */
  const heredocs = (text: string): Array<{ file: string; body: unknown }> =>
    [...text.matchAll(/^cat > (\S+) <<'(\w+)'\n([\s\S]*?)\n\2$/gm)].map((m) => ({ file: m[1]!, body: JSON.parse(m[3]!) }))

  it("write the organisation template generated from the same inputs and deploy it with named IAM capabilities", () => {
    const text = awsCliDeployCommands(deploy)
    expect(heredocs(text)).toEqual([{ file: "cloud-audit-organization.json", body: organizationTemplate(deploy) }])
    expect(text).toContain("aws cloudformation activate-organizations-access --region eu-west-1")
    expect(text).toMatch(/aws cloudformation deploy[^\n]*\\\n(?:\s+--[^\n]*\n?)+/)
    expect(text).toContain("--capabilities CAPABILITY_NAMED_IAM")
    expect(text).toContain(`--stack-name ${DEFAULT_ORGANIZATION_STACK_NAME}`)
    expect(text).toContain("--parameter-overrides 'RoleName=CloudAuditMemberRole' 'OrganizationalUnitIds=r-ab12,ou-ab12-34cd5678' 'CallAs=SELF'")
  })

  it("as a delegated administrator, pass CallAs and add the management account's own role stack", () => {
    const text = awsCliDeployCommands({ ...deploy, callAs: "DELEGATED_ADMIN", stackName: "audit-org" })
    expect(text).not.toContain("activate-organizations-access")
    expect(text).toContain("'CallAs=DELEGATED_ADMIN'")
    expect(heredocs(text)).toEqual([
      { file: "cloud-audit-organization.json", body: organizationTemplate(deploy) },
      { file: "cloud-audit-member-role.json", body: memberRoleTemplate(deploy) },
    ])
    expect(text).toContain("--stack-name audit-org-management")
  })

  it.each([
    ["region", { region: "Europe" }],
    ["stackName", { stackName: "1-stack" }],
    ["stackName", { stackName: `s${"x".repeat(117)}` }],
    ["organizationalUnitIds", { organizationalUnitIds: ["r-ab12;echo"] }],
    ["roleName", { roleName: "x'y" }],
  ] as const)("refuse a bad %s (%j)", (field, change) => {
    expect(failure(() => awsCliDeployCommands({ ...deploy, ...change })).field).toBe(field)
  })
})

describe("on moto", () => {
  let moto: Moto
  let cfn: CloudFormationClient
  let iam: IAMClient

  beforeAll(async () => {
    moto = await startMoto()
    const config = {
      endpoint: moto.endpoint,
      region: "us-east-1",
      maxAttempts: 1,
      credentials: { accessKeyId: MOTO_KEYS.access_key, secretAccessKey: MOTO_KEYS.secret_key },
    }
    cfn = new CloudFormationClient(config)
    iam = new IAMClient(config)
  })
  afterAll(async () => {
    cfn?.destroy()
    iam?.destroy()
    await moto?.stop()
  })

  const roleIn = async (roleName: string) => {
    const got = await iam.send(new GetRoleCommand({ RoleName: roleName }))
    return {
      name: got.Role?.RoleName,
      trust: JSON.parse(decodeURIComponent(got.Role?.AssumeRolePolicyDocument ?? "")),
      maxSession: got.Role?.MaxSessionDuration,
      productTag: got.Role?.Tags?.find((t) => t.Key === "ManagedBy")?.Value,
    }
  }
  const roleGone = async (roleName: string) =>
    iam.send(new GetRoleCommand({ RoleName: roleName })).then(
      () => false,
      (error: { name?: string }) => error.name === "NoSuchEntityException" || Promise.reject(error),
    )
  // moto 5.2 creates an AWS::IAM::Role from RoleName, AssumeRolePolicyDocument, Path, PermissionsBoundary, Description,
  // Tags, MaxSessionDuration and inline Policies, and ignores ManagedPolicyArns: ListAttachedRolePolicies answers [] for
  // a stack-made role whatever the template says. The two policies are checked on the template (above) and by cfn-lint's
  // schema here; reading them back needs real AWS.
  const expectAuditRole = async (roleName: string, i: MemberRoleTemplateInput) => {
    expect(await roleIn(roleName)).toEqual({
      name: roleName,
      trust: {
        Version: "2012-10-17",
        Statement: [
          {
            Sid: "CloudAuditAssumeRole",
            Effect: "Allow",
            Principal: { AWS: i.trustedPrincipalArn },
            Action: "sts:AssumeRole",
            Condition: { StringEquals: { "sts:ExternalId": i.externalId } },
          },
        ],
      },
      maxSession: 3600,
      productTag: "Cloud Audit",
    })
  }

  // Each ValidateTemplate runs cfn-lint in the emulator (seconds each): the StackSet's body is the member role template
  // (asserted above), so two templates and one counter-example cover it.
  it("ValidateTemplate (cfn-lint against AWS's schemas) accepts both templates", { timeout: 120_000 }, async () => {
    for (const body of [templateJson(memberRoleTemplate(input)), templateJson(organizationTemplate({ ...input, organizationalUnitIds: ["r-ab12"] }))]) {
      const validated = await cfn.send(new ValidateTemplateCommand({ TemplateBody: body }))
      expect(validated.Description).toContain("Cloud Audit")
    }
    // The check has teeth: a tag value outside AWS's alphabet is refused.
    const t = memberRoleTemplate(input)
    const broken = { ...t, Resources: { MemberRole: { ...role(t), Properties: { ...role(t)["Properties"], Tags: [{ Key: "Purpose", Value: "audit (read-only)" }] } } } }
    await expect(cfn.send(new ValidateTemplateCommand({ TemplateBody: JSON.stringify(broken) }))).rejects.toThrow(/does not match/)
  })

  it("CreateStack of the member role template creates the role trusting the principal with the external id", async () => {
    const principal = { ...input, trustedPrincipalArn: `arn:aws:iam::${MANAGEMENT}:role/security/CloudAuditScanner` }
    await cfn.send(new CreateStackCommand({ StackName: "member-role", TemplateBody: templateJson(memberRoleTemplate(principal)), Capabilities: ["CAPABILITY_NAMED_IAM"] }))
    try {
      await expectAuditRole(DEFAULT_MEMBER_ROLE_NAME, principal)
      const stack = await cfn.send(new DescribeStacksCommand({ StackName: "member-role" }))
      expect(stack.Stacks?.[0]?.Outputs).toEqual([
        expect.objectContaining({ OutputKey: "RoleArn", OutputValue: `arn:aws:iam::${MANAGEMENT}:role/${DEFAULT_MEMBER_ROLE_NAME}` }),
      ])
    } finally {
      await cfn.send(new DeleteStackCommand({ StackName: "member-role" }))
    }
    expect(await roleGone(DEFAULT_MEMBER_ROLE_NAME)).toBe(true)
  })

  it("property: the deployed role carries exactly the generated role name and external id", async () => {
    await fc.assert(
      fc.asyncProperty(validInputs, async (i) => {
        await cfn.send(new CreateStackCommand({ StackName: "member-role-property", TemplateBody: templateJson(memberRoleTemplate(i)), Capabilities: ["CAPABILITY_NAMED_IAM"] }))
        try {
          await expectAuditRole(i.roleName, i)
        } finally {
          await cfn.send(new DeleteStackCommand({ StackName: "member-role-property" }))
        }
      }),
      { numRuns: 8 },
    )
  })

  it("the organisation stack creates the management account's role only when deployed from the management account", async () => {
    const body = templateJson(organizationTemplate({ ...input, organizationalUnitIds: ["r-ab12"] }))
    await cfn.send(new CreateStackCommand({ StackName: "org-self", TemplateBody: body, Capabilities: ["CAPABILITY_NAMED_IAM"] }))
    try {
      await expectAuditRole(DEFAULT_MEMBER_ROLE_NAME, input)
    } finally {
      await cfn.send(new DeleteStackCommand({ StackName: "org-self" }))
    }
    await cfn.send(
      new CreateStackCommand({
        StackName: "org-delegated",
        TemplateBody: body,
        Capabilities: ["CAPABILITY_NAMED_IAM"],
        Parameters: [{ ParameterKey: "CallAs", ParameterValue: "DELEGATED_ADMIN" }],
      }),
    )
    try {
      const resources = await cfn.send(new DescribeStackResourcesCommand({ StackName: "org-delegated" }))
      expect((resources.StackResources ?? []).map((r) => r.LogicalResourceId)).not.toContain("MemberRole")
      expect(await roleGone(DEFAULT_MEMBER_ROLE_NAME)).toBe(true)
    } finally {
      await cfn.send(new DeleteStackCommand({ StackName: "org-delegated" }))
    }
  })

  const awsCli = (() => {
    try {
      execFileSync("aws", ["--version"], { stdio: "ignore" })
      return true
    } catch {
      return false
    }
  })()

  // The deploy waits on CloudFormation waiters (5 s polls).
  it.skipIf(!awsCli)("the generated commands, run by bash with the AWS CLI, deploy the role", { timeout: 120_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), "cloud-audit-cfn-"))
    const run = (script: string) => {
      writeFileSync(join(dir, "deploy.sh"), script)
      // The emulator lacks ActivateOrganizationsAccess; that one command fails and the script goes on, as bash does.
      return execFileSync("bash", ["deploy.sh"], {
        cwd: dir,
        encoding: "utf8",
        stdio: ["ignore", "pipe", "pipe"],
        env: {
          PATH: process.env["PATH"],
          HOME: dir,
          AWS_ENDPOINT_URL: moto.endpoint,
          AWS_ACCESS_KEY_ID: MOTO_KEYS.access_key,
          AWS_SECRET_ACCESS_KEY: MOTO_KEYS.secret_key,
          AWS_MAX_ATTEMPTS: "1",
        },
      })
    }
    try {
      const deploy = { ...input, roleName: "AuditFromCli", organizationalUnitIds: ["r-ab12"], region: "us-east-1" }
      expect(run(awsCliDeployCommands(deploy))).toContain(`Successfully created/updated stack - ${DEFAULT_ORGANIZATION_STACK_NAME}`)
      await expectAuditRole("AuditFromCli", deploy)
    } finally {
      await cfn.send(new DeleteStackCommand({ StackName: DEFAULT_ORGANIZATION_STACK_NAME }))
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
