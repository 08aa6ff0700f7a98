/**
 * IAM-style policy documents (identity, bucket, key, queue, topic, function policies): decoding with
 * effect/Schema and the analyses the checks share (public principals, full admin, TLS-only deny). Pure.
 */
import { Option, Schema } from "effect"

const StringOrList = Schema.Union([Schema.String, Schema.Array(Schema.String)])
const PrincipalSchema = Schema.Union([Schema.String, Schema.Record(Schema.String, StringOrList)])
const StatementSchema = Schema.Struct({
  Sid: Schema.optionalKey(Schema.String),
  Effect: Schema.String,
  Principal: Schema.optionalKey(PrincipalSchema),
  NotPrincipal: Schema.optionalKey(PrincipalSchema),
  Action: Schema.optionalKey(StringOrList),
  NotAction: Schema.optionalKey(StringOrList),
  Resource: Schema.optionalKey(StringOrList),
  NotResource: Schema.optionalKey(StringOrList),
  Condition: Schema.optionalKey(Schema.Record(Schema.String, Schema.Record(Schema.String, Schema.Unknown))),
})
const PolicyDocumentSchema = Schema.Struct({
  Version: Schema.optionalKey(Schema.String),
  Statement: Schema.Union([StatementSchema, Schema.Array(StatementSchema)]),
})
const decodeDocument = Schema.decodeUnknownOption(PolicyDocumentSchema)

export type Principal = "*" | { readonly [kind: string]: ReadonlyArray<string> }

export interface Statement {
  readonly sid: string | undefined
  readonly effect: "Allow" | "Deny"
  readonly principal: Principal | undefined
  readonly notPrincipal: Principal | undefined
  readonly actions: ReadonlyArray<string> | undefined
  readonly notActions: ReadonlyArray<string> | undefined
  readonly resources: ReadonlyArray<string> | undefined
  readonly notResources: ReadonlyArray<string> | undefined
  /** operator -> condition key (lower-cased) -> values */
  readonly conditions: ReadonlyArray<{ readonly operator: string; readonly key: string; readonly values: ReadonlyArray<string> }>
}

export interface PolicyDocument {
  readonly statements: ReadonlyArray<Statement>
}

const list = (v: string | ReadonlyArray<string> | undefined): ReadonlyArray<string> | undefined =>
  v === undefined ? undefined : typeof v === "string" ? [v] : v

const principal = (p: typeof PrincipalSchema.Type | undefined): Principal | undefined => {
  if (p === undefined) return undefined
  if (typeof p === "string") return p === "*" ? "*" : { AWS: [p] }
  const out: Record<string, ReadonlyArray<string>> = {}
  for (const [k, v] of Object.entries(p)) out[k] = list(v) ?? []
  return out
}

const conditionValues = (v: unknown): ReadonlyArray<string> =>
  Array.isArray(v) ? v.map((x) => String(x)) : v === undefined || v === null ? [] : [String(v)]

/** Parses a policy JSON string (plain or URL-encoded, as IAM returns it); undefined when it is not a policy. */
export function parsePolicy(text: string | undefined | null): PolicyDocument | undefined {
  if (text === undefined || text === null || text.trim() === "") return undefined
  let json: unknown
  try {
    const raw = text.trimStart().startsWith("%") ? decodeURIComponent(text) : text
    json = JSON.parse(raw)
  } catch {
    return undefined
  }
  return Option.getOrUndefined(Option.map(decodeDocument(json), fromDecoded))
}

/** Accepts an already-parsed document object (e.g. from GetAccountAuthorizationDetails after decoding). */
export function policyFromObject(json: unknown): PolicyDocument | undefined {
  return Option.getOrUndefined(Option.map(decodeDocument(json), fromDecoded))
}

function fromDecoded(doc: typeof PolicyDocumentSchema.Type): PolicyDocument {
  const raw = Array.isArray(doc.Statement) ? doc.Statement : [doc.Statement as typeof StatementSchema.Type]
  return {
    statements: raw.map((s: typeof StatementSchema.Type) => ({
      sid: s.Sid,
      effect: s.Effect === "Deny" ? "Deny" : "Allow",
      principal: principal(s.Principal),
      notPrincipal: principal(s.NotPrincipal),
      actions: list(s.Action),
      notActions: list(s.NotAction),
      resources: list(s.Resource),
      notResources: list(s.NotResource),
      conditions: Object.entries(s.Condition ?? {}).flatMap(([operator, byKey]) =>
        Object.entries(byKey).map(([key, values]) => ({ operator, key: key.toLowerCase(), values: conditionValues(values) })),
      ),
    })),
  }
}

const globToRegExp = (pattern: string) =>
  new RegExp(`^${pattern.replace(/[.+^${}()|[\]\\]/g, "\\$&").replace(/\*/g, ".*").replace(/\?/g, ".")}$`, "i")

/** Whether an IAM action pattern (with * and ?) covers the action, case-insensitively. */
export function actionMatches(pattern: string, action: string): boolean {
  return globToRegExp(pattern).test(action)
}

/** Whether the statement's Action/NotAction covers `action`. */
export function statementCovers(s: Statement, action: string): boolean {
  if (s.actions !== undefined) return s.actions.some((p) => actionMatches(p, action))
  if (s.notActions !== undefined) return !s.notActions.some((p) => actionMatches(p, action))
  return false
}

/** "arn:aws:iam::*:root": every account (EventBridge writes PutPermission's Principal "*" this way on some endpoints). */
const ANY_ACCOUNT_ROOT = /^arn:aws[\w-]*:iam::\*:root$/

export function isPublicPrincipal(p: Principal | undefined): boolean {
  if (p === undefined) return false
  if (p === "*") return true
  return Object.entries(p).some(([kind, values]) => (kind === "AWS" || kind === "CanonicalUser") && values.some((v) => v === "*" || ANY_ACCOUNT_ROOT.test(v)))
}

/**
 * Condition keys that pin a public principal to known callers (AWS's own "is this policy public" rule):
 * with one of them set to fixed values, the statement is not open to everyone.
 */
const restrictingKeys = new Set([
  "aws:sourcearn",
  "aws:sourceaccount",
  "aws:sourceowner",
  "aws:sourcevpc",
  "aws:sourcevpce",
  "aws:principalaccount",
  "aws:principalorgid",
  "aws:principalarn",
  "aws:userid",
  "aws:sourceip",
  "aws:principalorgpaths",
  "aws:sourceorgid",
  "kms:calleraccount",
  "kms:viaservice",
  "lambda:functionurlauthtype",
])

const restrictedByCondition = (s: Statement) =>
  s.conditions.some(
    (c) =>
      restrictingKeys.has(c.key) &&
      !/^StringNotLike|^StringNotEquals|^ArnNotLike|^ArnNotEquals|^NotIpAddress/i.test(c.operator) &&
      c.values.length > 0 &&
      c.values.every((v) => v !== "*" && v !== "0.0.0.0/0" && v !== "::/0"),
  )

/** Allow statements open to anyone (public principal without a restricting condition). */
export function publicAllowStatements(doc: PolicyDocument | undefined, actions?: ReadonlyArray<string>): Statement[] {
  if (doc === undefined) return []
  return doc.statements.filter(
    (s) =>
      s.effect === "Allow" &&
      isPublicPrincipal(s.principal) &&
      !restrictedByCondition(s) &&
      (actions === undefined || actions.some((a) => statementCovers(s, a))),
  )
}

/** Statements granting "Action": "*" on "Resource": "*" (full administrative privileges, CIS 1.16). */
export function fullAdminStatements(doc: PolicyDocument | undefined): Statement[] {
  if (doc === undefined) return []
  return doc.statements.filter(
    (s) =>
      s.effect === "Allow" &&
      s.actions !== undefined &&
      s.actions.some((a) => a === "*" || a === "*:*") &&
      s.resources !== undefined &&
      s.resources.includes("*") &&
      s.conditions.length === 0,
  )
}

/** A Deny for everyone on s3 actions when aws:SecureTransport is false (CIS 2.1.1). */
export function deniesInsecureTransport(doc: PolicyDocument | undefined): boolean {
  if (doc === undefined) return false
  return doc.statements.some(
    (s) =>
      s.effect === "Deny" &&
      isPublicPrincipal(s.principal) &&
      s.actions !== undefined &&
      s.actions.some((a) => a === "*" || a.toLowerCase() === "s3:*") &&
      s.conditions.some(
        (c) => c.operator.toLowerCase() === "bool" && c.key === "aws:securetransport" && c.values.some((v) => v.toLowerCase() === "false"),
      ),
  )
}

/** Account ids (or ARNs) of other accounts a policy grants to, for cross-account reporting. */
export function principalAccounts(doc: PolicyDocument | undefined): string[] {
  if (doc === undefined) return []
  const out = new Set<string>()
  for (const s of doc.statements) {
    if (s.effect !== "Allow" || s.principal === undefined || s.principal === "*") continue
    for (const v of s.principal["AWS"] ?? []) {
      const m = /^(?:arn:aws[\w-]*:iam::)?(\d{12})/.exec(v)
      if (m?.[1] !== undefined) out.add(m[1])
    }
  }
  return [...out]
}

const principalAccountIds = (p: Principal | undefined): { readonly anyone: boolean; readonly accounts: ReadonlyArray<string> } => {
  if (p === undefined) return { anyone: false, accounts: [] }
  if (p === "*") return { anyone: true, accounts: [] }
  const aws = p["AWS"] ?? []
  return {
    anyone: aws.some((v) => v === "*" || ANY_ACCOUNT_ROOT.test(v)),
    accounts: aws.flatMap((v) => {
      const m = /^(?:arn:aws[\w-]*:(?:iam|sts)::)?(\d{12})/.exec(v)
      return m?.[1] === undefined ? [] : [m[1]]
    }),
  }
}

/**
 * Allow statements that let principals outside `ownAccount` (another account, or anyone) use any of `actions`
 * without a condition pinning the callers (source account/ARN/organization/VPC/IP).
 */
export function crossAccountAllowStatements(doc: PolicyDocument | undefined, ownAccount: string, actions?: ReadonlyArray<string>): Statement[] {
  if (doc === undefined) return []
  return doc.statements.filter((s) => {
    if (s.effect !== "Allow" || restrictedByCondition(s)) return false
    const p = principalAccountIds(s.principal)
    const outside = p.anyone || p.accounts.some((a) => a !== ownAccount)
    return outside && (actions === undefined || actions.some((a) => statementCovers(s, a)))
  })
}

/** Allow statements granting every action of the service ("*" or "<service>:*"). */
export function wildcardActionStatements(doc: PolicyDocument | undefined, service: string): Statement[] {
  if (doc === undefined) return []
  return doc.statements.filter((s) => s.effect === "Allow" && (s.actions ?? []).some((a) => a === "*" || a.toLowerCase() === `${service.toLowerCase()}:*`))
}

/**
 * Allow statements that let principals of another account (or every account) act without any condition at all — for
 * role trust policies, where an external id, MFA, organization or source condition is what keeps a trusted account's
 * every principal from assuming the role.
 */
export function unconditionedCrossAccountStatements(doc: PolicyDocument | undefined, ownAccount: string): Statement[] {
  if (doc === undefined) return []
  return doc.statements.filter((s) => {
    if (s.effect !== "Allow" || s.conditions.length > 0) return false
    const p = principalAccountIds(s.principal)
    return p.anyone || p.accounts.some((a) => a !== ownAccount)
  })
}

/**
 * Permission sets that let a principal raise its own privileges (create or switch a policy version, attach or write
 * policies, create credentials for others, pass a role to compute it then controls, rewrite a role's trust or a
 * function's code). Each set escalates only when every action in it is allowed.
 */
export const PRIVILEGE_ESCALATION_SETS: ReadonlyArray<{ readonly name: string; readonly actions: ReadonlyArray<string> }> = [
  { name: "CreatePolicyVersion", actions: ["iam:CreatePolicyVersion"] },
  { name: "SetDefaultPolicyVersion", actions: ["iam:SetDefaultPolicyVersion"] },
  { name: "CreateAccessKey", actions: ["iam:CreateAccessKey"] },
  { name: "CreateLoginProfile", actions: ["iam:CreateLoginProfile"] },
  { name: "UpdateLoginProfile", actions: ["iam:UpdateLoginProfile"] },
  { name: "AttachUserPolicy", actions: ["iam:AttachUserPolicy"] },
  { name: "AttachGroupPolicy", actions: ["iam:AttachGroupPolicy"] },
  { name: "AttachRolePolicy", actions: ["iam:AttachRolePolicy", "sts:AssumeRole"] },
  { name: "PutUserPolicy", actions: ["iam:PutUserPolicy"] },
  { name: "PutGroupPolicy", actions: ["iam:PutGroupPolicy"] },
  { name: "PutRolePolicy", actions: ["iam:PutRolePolicy", "sts:AssumeRole"] },
  { name: "AddUserToGroup", actions: ["iam:AddUserToGroup"] },
  { name: "UpdateAssumeRolePolicy", actions: ["iam:UpdateAssumeRolePolicy", "sts:AssumeRole"] },
  { name: "PassRole+EC2", actions: ["iam:PassRole", "ec2:RunInstances"] },
  { name: "PassRole+Lambda", actions: ["iam:PassRole", "lambda:CreateFunction", "lambda:InvokeFunction"] },
  { name: "PassRole+LambdaEventSource", actions: ["iam:PassRole", "lambda:CreateFunction", "lambda:CreateEventSourceMapping"] },
  { name: "UpdateFunctionCode", actions: ["lambda:UpdateFunctionCode"] },
  { name: "PassRole+Glue", actions: ["iam:PassRole", "glue:CreateDevEndpoint"] },
  { name: "UpdateDevEndpoint", actions: ["glue:UpdateDevEndpoint"] },
  { name: "PassRole+CloudFormation", actions: ["iam:PassRole", "cloudformation:CreateStack"] },
  { name: "PassRole+DataPipeline", actions: ["iam:PassRole", "datapipeline:CreatePipeline", "datapipeline:PutPipelineDefinition"] },
  { name: "PassRole+CodeBuild", actions: ["iam:PassRole", "codebuild:CreateProject", "codebuild:StartBuild"] },
  { name: "PassRole+SageMaker", actions: ["iam:PassRole", "sagemaker:CreateNotebookInstance", "sagemaker:CreatePresignedNotebookInstanceUrl"] },
]

/**
 * The escalation sets a policy allows in full (an action counts when an Allow statement covers it and no unconditional
 * Deny on every resource takes it back).
 */
export function privilegeEscalationSets(doc: PolicyDocument | undefined): string[] {
  if (doc === undefined) return []
  const allowed = (action: string) =>
    doc.statements.some((s) => s.effect === "Allow" && statementCovers(s, action)) &&
    !doc.statements.some((s) => s.effect === "Deny" && s.conditions.length === 0 && (s.resources ?? []).includes("*") && statementCovers(s, action))
  return PRIVILEGE_ESCALATION_SETS.filter((set) => set.actions.every(allowed)).map((set) => set.name)
}
