/**
 * The CloudFormation the organisation wizard offers (issue 31): the member role Cloud Audit assumes in every account of an
 * AWS Organization, trusting the product's principal (the management or delegated administrator account's credentials the
 * user entered, or the server's own AWS identity) on the condition of the workspace's external id
 * (`AccountsStore.externalIdFor`).
 *
 * - `memberRoleTemplate`: one account's stack — the IAM role (SecurityAudit + ViewOnlyAccess, one-hour sessions), output
 *   `RoleArn`.
 * - `organizationTemplate`: the stack deployed in the management account — the same role in that account (service-managed
 *   StackSets never deploy to the management account), and a SERVICE_MANAGED StackSet whose body is the member role
 *   template, auto-deployed to every account of the chosen root / OUs, in the stack's region (IAM is global: one region is
 *   enough). Deployed by a delegated administrator (`CallAs=DELEGATED_ADMIN`) the local role is left out, because the
 *   StackSet already reaches that account (a member) and two roles of one name would collide; the management account then
 *   needs the member role template on its own, which `awsCliDeployCommands` includes.
 * - `awsCliDeployCommands`: the same deployment as shell text for the AWS CLI (CloudShell), the template inlined.
 *
 * Pure: no I/O. Errors: every generator validates its input and throws `TemplateInputInvalid` (naming the field) rather
 * than emit a template AWS would reject or one that trusts a different principal than intended; `checkTemplateInput`
 * answers the same verdict as a `Result` for callers (the endpoint) that map it to a 400 without try/catch.
 * Invariants (tests/organizations/aws-template.test.ts, on moto with its cfn-lint validation): the role name and external
 * id in every template are exactly the inputs; the templates validate and the member role stack creates that role.
 */
import { Data, Result } from "effect"

/** The role name the product assumes in member accounts unless the workspace configures another. */
export const DEFAULT_MEMBER_ROLE_NAME = "CloudAuditMemberRole"
export const DEFAULT_ORGANIZATION_STACK_NAME = "cloud-audit-organization"
export const DEFAULT_STACK_SET_NAME = "cloud-audit-member-role"
/** The AWS managed policies the role holds, in the principal's partition (a role cannot trust across partitions). */
export const memberRolePolicyArns = (trustedPrincipalArn: string): ReadonlyArray<string> => {
  const partition = trustedPrincipalArn.split(":")[1] ?? "aws"
  return [`arn:${partition}:iam::aws:policy/SecurityAudit`, `arn:${partition}:iam::aws:policy/job-function/ViewOnlyAccess`]
}
/** The tag every resource carries, so an administrator can tell what created the role. */
export const PRODUCT_TAG = { Key: "ManagedBy", Value: "Cloud Audit" } as const

export type CallAs = "SELF" | "DELEGATED_ADMIN"

export interface MemberRoleTemplateInput {
  /** IAM role name, [\w+=,.@-]{1,64}. */
  readonly roleName: string
  /** The workspace's external id (sts:ExternalId: 2–1224 characters of [\w+=,.@:/-]). */
  readonly externalId: string
  /** "arn:aws:iam::<account>:root", or an IAM role / user ARN (not an sts assumed-role ARN: trust policies cannot name sessions). */
  readonly trustedPrincipalArn: string
}

export interface OrganizationTemplateInput extends MemberRoleTemplateInput {
  /** Default of the OrganizationalUnitIds parameter (the discovered root "r-…" or chosen "ou-…"); absent: the deployer must give them. */
  readonly organizationalUnitIds?: ReadonlyArray<string>
}

export interface DeployCommandsInput extends MemberRoleTemplateInput {
  readonly organizationalUnitIds: ReadonlyArray<string>
  /** The region the stack, and so the StackSet's instances, are deployed in. */
  readonly region: string
  readonly stackName?: string
  /** "DELEGATED_ADMIN" when the credentials are a delegated administrator's rather than the management account's. */
  readonly callAs?: CallAs
}

export type TemplateField = "roleName" | "externalId" | "trustedPrincipalArn" | "organizationalUnitIds" | "region" | "stackName"

export class TemplateInputInvalid extends Data.TaggedError("TemplateInputInvalid")<{
  readonly field: TemplateField
  readonly message: string
}> {}

/** A CloudFormation JSON template, as `JSON.stringify` writes it. */
export interface CloudFormationTemplate {
  readonly AWSTemplateFormatVersion: "2010-09-09"
  readonly Description: string
  readonly Parameters: Readonly<Record<string, CloudFormationParameter>>
  readonly Conditions?: Readonly<Record<string, unknown>>
  readonly Resources: Readonly<Record<string, { readonly Type: string; readonly Condition?: string; readonly Properties: Readonly<Record<string, unknown>> }>>
  readonly Outputs: Readonly<Record<string, { readonly Description: string; readonly Condition?: string; readonly Value: unknown }>>
}

export interface CloudFormationParameter {
  readonly Type: "String" | "Number" | "CommaDelimitedList"
  readonly Description: string
  readonly Default?: string | number
  readonly AllowedPattern?: string
  readonly AllowedValues?: ReadonlyArray<string>
  readonly ConstraintDescription?: string
  readonly MinValue?: number
  readonly MaxValue?: number
}

// IAM's and STS's own patterns (CreateRole RoleName, AssumeRole ExternalId); the path of a role or user ARN is
// "/" or "/…/" of printable ASCII.
const ROLE_NAME = /^[\w+=,.@-]{1,64}$/
const EXTERNAL_ID = /^[\w+=,.@:/-]{2,1224}$/
const PRINCIPAL_ARN = /^arn:aws(?:-cn|-us-gov)?:iam::\d{12}:(?:root|(?:role|user)\/(?:[\x21-\x7E]{1,510}\/)?[\w+=,.@-]{1,64})$/
const UNIT_ID = /^(?:ou-[0-9a-z]{4,32}-[a-z0-9]{8,32}|r-[0-9a-z]{4,32})$/
const REGION = /^[a-z]{2}(?:-[a-z]+)+-\d{1,2}$/
// 117 leaves room for the "-management" suffix of the delegated administrator's second stack (stack names: 128).
const STACK_NAME = /^[a-zA-Z][-a-zA-Z0-9]{0,116}$/

// The same patterns as CloudFormation parameter constraints (Java regular expressions, matched against the whole value;
// for a CommaDelimitedList, against each item).
const ROLE_NAME_PARAMETER_PATTERN = "[\\w+=,.@-]{1,64}"
const UNIT_ID_PARAMETER_PATTERN = "^(ou-[0-9a-z]{4,32}-[a-z0-9]{8,32}|r-[0-9a-z]{4,32})$"
const STACK_SET_NAME_PARAMETER_PATTERN = "[a-zA-Z][-a-zA-Z0-9]{0,127}"

const invalid = (field: TemplateField, message: string) => new TemplateInputInvalid({ field, message })

const firstProblem = (input: MemberRoleTemplateInput & {
  readonly organizationalUnitIds?: ReadonlyArray<string>
  readonly region?: string
  readonly stackName?: string
}): TemplateInputInvalid | undefined => {
  if (!ROLE_NAME.test(input.roleName)) {
    return invalid("roleName", "The role name must be 1 to 64 letters, digits or + = , . @ _ - characters.")
  }
  if (!EXTERNAL_ID.test(input.externalId)) {
    return invalid("externalId", "The external id must be 2 to 1224 letters, digits or + = , . @ : / _ - characters.")
  }
  if (input.trustedPrincipalArn.startsWith("arn:") && input.trustedPrincipalArn.includes(":assumed-role/")) {
    return invalid(
      "trustedPrincipalArn",
      "A trust policy cannot name an assumed-role session: give the role's IAM ARN (arn:aws:iam::<account>:role/<name>) or the account root.",
    )
  }
  if (!PRINCIPAL_ARN.test(input.trustedPrincipalArn)) {
    return invalid(
      "trustedPrincipalArn",
      "The trusted principal must be an account root (arn:aws:iam::<account>:root) or an IAM role or user ARN.",
    )
  }
  if (input.organizationalUnitIds !== undefined) {
    if (input.organizationalUnitIds.length === 0) {
      return invalid("organizationalUnitIds", "Choose the organisation root or at least one organisational unit.")
    }
    const bad = input.organizationalUnitIds.find((id) => !UNIT_ID.test(id))
    if (bad !== undefined) {
      return invalid("organizationalUnitIds", `"${bad}" is not an organisation root (r-…) or organisational unit (ou-…) id.`)
    }
  }
  if (input.region !== undefined && !REGION.test(input.region)) {
    return invalid("region", `"${input.region}" is not an AWS region name.`)
  }
  if (input.stackName !== undefined && !STACK_NAME.test(input.stackName)) {
    return invalid("stackName", "The stack name must start with a letter and hold at most 117 letters, digits and hyphens.")
  }
  return undefined
}

/** The generators' verdict on an input, without throwing: `Result.fail(TemplateInputInvalid)` names the first bad field. */
export const checkTemplateInput = <I extends MemberRoleTemplateInput & Partial<Pick<DeployCommandsInput, "organizationalUnitIds" | "region" | "stackName">>>(
  input: I,
): Result.Result<I, TemplateInputInvalid> => {
  const problem = firstProblem(input)
  return problem === undefined ? Result.succeed(input) : Result.fail(problem)
}

const assertValid = (input: Parameters<typeof firstProblem>[0]): void => {
  const problem = firstProblem(input)
  if (problem !== undefined) throw problem
}

const roleNameParameter = (roleName: string): CloudFormationParameter => ({
  Type: "String",
  Description: "Name of the role Cloud Audit assumes (the workspace's organisation settings must name the same role).",
  Default: roleName,
  AllowedPattern: ROLE_NAME_PARAMETER_PATTERN,
  ConstraintDescription: "1 to 64 letters, digits or + = , . @ _ - characters.",
})

/** The role resource, its name taken from the RoleName parameter; trust and policies fixed by the inputs. */
const memberRole = (input: MemberRoleTemplateInput, condition?: string) => ({
  Type: "AWS::IAM::Role",
  ...(condition === undefined ? {} : { Condition: condition }),
  Properties: {
    RoleName: { Ref: "RoleName" },
    Description: "Read-only security audit access for Cloud Audit (SecurityAudit and ViewOnlyAccess).",
    AssumeRolePolicyDocument: {
      Version: "2012-10-17",
      Statement: [
        {
          Sid: "CloudAuditAssumeRole",
          Effect: "Allow",
          Principal: { AWS: input.trustedPrincipalArn },
          Action: "sts:AssumeRole",
          Condition: { StringEquals: { "sts:ExternalId": input.externalId } },
        },
      ],
    },
    ManagedPolicyArns: memberRolePolicyArns(input.trustedPrincipalArn),
    MaxSessionDuration: 3600,
    Tags: [PRODUCT_TAG, { Key: "Purpose", Value: "Read-only security audit" }],
  },
})

/** One account's stack: the member role Cloud Audit assumes with the workspace's external id. Throws `TemplateInputInvalid`. */
export const memberRoleTemplate = (input: MemberRoleTemplateInput): CloudFormationTemplate => {
  assertValid(input)
  return {
    AWSTemplateFormatVersion: "2010-09-09",
    Description: "Cloud Audit member role: read-only security audit access, assumable only with this workspace's external id.",
    Parameters: { RoleName: roleNameParameter(input.roleName) },
    Resources: { MemberRole: memberRole(input) },
    Outputs: { RoleArn: { Description: "ARN of the role Cloud Audit assumes", Value: { "Fn::GetAtt": ["MemberRole", "Arn"] } } },
  }
}

/**
 * The management account's stack: its own member role, and a service-managed StackSet deploying the member role template
 * to every account of the chosen root / OUs, now and as accounts join. Throws `TemplateInputInvalid`.
 */
export const organizationTemplate = (input: OrganizationTemplateInput): CloudFormationTemplate => {
  assertValid(input)
  const unitsDefault = input.organizationalUnitIds === undefined ? {} : { Default: input.organizationalUnitIds.join(",") }
  return {
    AWSTemplateFormatVersion: "2010-09-09",
    Description:
      "Cloud Audit organisation onboarding: the member role in this account and, through a service-managed StackSet, in every account of the chosen organisational units.",
    Parameters: {
      RoleName: roleNameParameter(input.roleName),
      OrganizationalUnitIds: {
        Type: "CommaDelimitedList",
        Description: "The organisation root (r-…) or the organisational units (ou-…) whose accounts receive the role, comma-separated.",
        ...unitsDefault,
        AllowedPattern: UNIT_ID_PARAMETER_PATTERN,
        ConstraintDescription: "Each item must be a root id (r-…) or an organisational unit id (ou-…).",
      },
      CallAs: {
        Type: "String",
        Description: "SELF from the management account; DELEGATED_ADMIN from a CloudFormation StackSets delegated administrator account.",
        Default: "SELF",
        AllowedValues: ["SELF", "DELEGATED_ADMIN"],
      },
      StackSetName: {
        Type: "String",
        Description: "Name of the StackSet that deploys the role to member accounts.",
        Default: DEFAULT_STACK_SET_NAME,
        AllowedPattern: STACK_SET_NAME_PARAMETER_PATTERN,
        ConstraintDescription: "A letter, then at most 127 letters, digits and hyphens.",
      },
      FailureTolerancePercentage: {
        Type: "Number",
        Description: "Percentage of accounts that may fail (e.g. a service control policy denies IAM) before the deployment stops.",
        Default: 10,
        MinValue: 0,
        MaxValue: 100,
      },
      MaxConcurrentPercentage: {
        Type: "Number",
        Description: "Percentage of accounts deployed to at once.",
        Default: 25,
        MinValue: 1,
        MaxValue: 100,
      },
    },
    Conditions: { InManagementAccount: { "Fn::Equals": [{ Ref: "CallAs" }, "SELF"] } },
    Resources: {
      MemberRole: memberRole(input, "InManagementAccount"),
      MemberRoleStackSet: {
        Type: "AWS::CloudFormation::StackSet",
        Properties: {
          StackSetName: { Ref: "StackSetName" },
          Description: "Cloud Audit member role in every account of the organisation's chosen units.",
          PermissionModel: "SERVICE_MANAGED",
          CallAs: { Ref: "CallAs" },
          AutoDeployment: { Enabled: true, RetainStacksOnAccountRemoval: false },
          Capabilities: ["CAPABILITY_NAMED_IAM"],
          OperationPreferences: {
            FailureTolerancePercentage: { Ref: "FailureTolerancePercentage" },
            MaxConcurrentPercentage: { Ref: "MaxConcurrentPercentage" },
          },
          Parameters: [{ ParameterKey: "RoleName", ParameterValue: { Ref: "RoleName" } }],
          StackInstancesGroup: [
            {
              DeploymentTargets: { OrganizationalUnitIds: { Ref: "OrganizationalUnitIds" } },
              Regions: [{ Ref: "AWS::Region" }],
            },
          ],
          TemplateBody: JSON.stringify(memberRoleTemplate(input)),
          Tags: [PRODUCT_TAG],
        },
      },
    },
    Outputs: {
      RoleArn: {
        Description: "ARN of the role Cloud Audit assumes in this (management) account",
        Condition: "InManagementAccount",
        Value: { "Fn::GetAtt": ["MemberRole", "Arn"] },
      },
      StackSetId: { Description: "The StackSet deploying the role to member accounts", Value: { Ref: "MemberRoleStackSet" } },
    },
  }
}

/** The file text of a template (what the wizard offers for download and the CLI commands inline). */
export const templateJson = (template: CloudFormationTemplate): string => `${JSON.stringify(template, null, 2)}\n`

export const ORGANIZATION_TEMPLATE_FILE = "cloud-audit-organization.json"
export const MEMBER_ROLE_TEMPLATE_FILE = "cloud-audit-member-role.json"
const HEREDOC_END = "CLOUD_AUDIT_TEMPLATE"

// Every value below passed validation, whose alphabets hold no quote; single quotes keep the shell from reading them.
const heredoc = (file: string, template: CloudFormationTemplate) => [`cat > ${file} <<'${HEREDOC_END}'`, templateJson(template).trimEnd(), HEREDOC_END]

/**
 * The AWS CLI commands (bash, e.g. AWS CloudShell in the management or delegated administrator account) that write the
 * organisation template and deploy it with `aws cloudformation deploy … --capabilities CAPABILITY_NAMED_IAM`. As a delegated
 * administrator they also deploy the member role template, to be run once with the management account's credentials.
 * Throws `TemplateInputInvalid`.
 */
export const awsCliDeployCommands = (input: DeployCommandsInput): string => {
  const stackName = input.stackName ?? DEFAULT_ORGANIZATION_STACK_NAME
  const callAs = input.callAs ?? "SELF"
  assertValid({ ...input, stackName })
  const units = input.organizationalUnitIds.join(",")
  const lines = [
    `# Cloud Audit: the role '${input.roleName}' in every account of ${units} (StackSet instances in ${input.region}).`,
    callAs === "SELF"
      ? "# Run with the organisation's management account credentials. First, let CloudFormation StackSets act for the organisation:"
      : "# Run with the CloudFormation StackSets delegated administrator account's credentials.",
    ...(callAs === "SELF" ? [`aws cloudformation activate-organizations-access --region ${input.region}`] : []),
    ...heredoc(ORGANIZATION_TEMPLATE_FILE, organizationTemplate(input)),
    [
      "aws cloudformation deploy",
      `--region ${input.region}`,
      `--stack-name ${stackName}`,
      `--template-file ${ORGANIZATION_TEMPLATE_FILE}`,
      "--capabilities CAPABILITY_NAMED_IAM",
      "--no-fail-on-empty-changeset",
      `--parameter-overrides 'RoleName=${input.roleName}' 'OrganizationalUnitIds=${units}' 'CallAs=${callAs}'`,
    ].join(" \\\n  "),
    `aws cloudformation describe-stacks --region ${input.region} --stack-name ${stackName} --query 'Stacks[0].Outputs' --output table`,
  ]
  if (callAs === "DELEGATED_ADMIN") {
    lines.push(
      "# StackSets never deploy to the management account: run these with the management account's credentials.",
      ...heredoc(MEMBER_ROLE_TEMPLATE_FILE, memberRoleTemplate(input)),
      [
        "aws cloudformation deploy",
        `--region ${input.region}`,
        `--stack-name ${stackName}-management`,
        `--template-file ${MEMBER_ROLE_TEMPLATE_FILE}`,
        "--capabilities CAPABILITY_NAMED_IAM",
        "--no-fail-on-empty-changeset",
        `--parameter-overrides 'RoleName=${input.roleName}'`,
      ].join(" \\\n  "),
    )
  }
  return `${lines.join("\n")}\n`
}
