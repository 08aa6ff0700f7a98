/**
 * AWS fixer vocabulary. A fixer is a plan fixer (server/remediation/plan.ts): `read` answers the state it changes,
 * `plan` answers the SDK calls that fix it, their effects and their undo; `executeAwsCalls` sends exactly those calls,
 * and `renderAwsCli` / `renderAwsTerraform` show them. A fixer never decides success itself: `remediateFinding`
 * re-collects the resource and re-evaluates the check, and only a compliant row counts as remediated.
 *
 * The older shape (`apply` doing the calls itself) is still accepted while the remaining fixers are converted; such a
 * fixer has no preview and no undo.
 */
import type { DetailRow } from "../../scanner/check.ts"
import type { AwsClients, ClientName } from "../../scanner/aws/clients.ts"
import { errorCode } from "../../scanner/aws/errors.ts"
import { resolveRefs, shellQuote, showRefs, type AwsCall, type Json, type OutputRef, type PermissionCheck, type PlanFixer, type PlannedCall, type RefView } from "../plan.ts"

export interface FixContext {
  readonly clients: AwsClients
  readonly accountId: string
  readonly partition: string
  /** The row's region, or the home region for global rows. */
  readonly region: string
  readonly signal?: AbortSignal
}

/** The older fixer shape: applies the change itself; returns a sentence describing what was done. Throws on failure. */
export interface ApplyFixer {
  readonly checkIds: ReadonlyArray<string>
  /** What the fix changes, shown before the user confirms. */
  readonly description: string
  /** Set when the fix can cut someone's access (shown as a warning). */
  readonly cutsAccess?: string
  readonly apply: (ctx: FixContext, row: DetailRow) => Promise<string>
}

/** A fixer of the plan vocabulary: read + plan, executed by `executeAwsCalls`. */
export type AwsPlanFixer = PlanFixer<FixContext, DetailRow>

export type Fixer = ApplyFixer | AwsPlanFixer

export const isPlanFixer = (f: Fixer): f is AwsPlanFixer => "plan" in f

export class FixError extends Error {
  constructor(message: string) {
    super(message)
    this.name = "FixError"
  }
}

export const field = (row: DetailRow, name: string): string => {
  const v = row[name]
  if (typeof v !== "string" || v === "") throw new FixError(`The finding row has no ${name}`)
  return v
}

export const sendOptions = (ctx: FixContext) => (ctx.signal === undefined ? {} : { abortSignal: ctx.signal })

/** An AWS call of a plan (`provider` filled in). */
export const awsCall = (
  service: ClientName,
  operation: string,
  region: string,
  params: Readonly<Record<string, unknown>>,
  options: { readonly dryRun?: boolean; readonly action?: string } = {},
): AwsCall => ({ provider: "aws", service, operation, region, params, ...options })

/** The error codes AWS answers for a resource or setting that does not exist (read as "absent" by `read`). */
export const isAbsent = (error: unknown, ...codes: ReadonlyArray<string>): boolean => {
  const code = errorCode(error)
  return code !== undefined && codes.includes(code)
}

// ---------------------------------------------------------------------------------------------------
// The executor: every call goes through the SDK command of its operation.

/** The SDK package of each client name (server/scanner/aws/clients.ts). */
const PACKAGES: Readonly<Record<string, string>> = {
  accessanalyzer: "@aws-sdk/client-accessanalyzer", account: "@aws-sdk/client-account", cloudtrail: "@aws-sdk/client-cloudtrail",
  cloudwatch: "@aws-sdk/client-cloudwatch", logs: "@aws-sdk/client-cloudwatch-logs", config: "@aws-sdk/client-config-service",
  dynamodb: "@aws-sdk/client-dynamodb", ec2: "@aws-sdk/client-ec2", ecr: "@aws-sdk/client-ecr", efs: "@aws-sdk/client-efs",
  eks: "@aws-sdk/client-eks", elbv2: "@aws-sdk/client-elastic-load-balancing-v2", guardduty: "@aws-sdk/client-guardduty",
  iam: "@aws-sdk/client-iam", kms: "@aws-sdk/client-kms", lambda: "@aws-sdk/client-lambda", rds: "@aws-sdk/client-rds",
  s3: "@aws-sdk/client-s3", s3control: "@aws-sdk/client-s3-control", secretsmanager: "@aws-sdk/client-secrets-manager",
  securityhub: "@aws-sdk/client-securityhub", sns: "@aws-sdk/client-sns", sqs: "@aws-sdk/client-sqs", sts: "@aws-sdk/client-sts",
  elasticache: "@aws-sdk/client-elasticache", redshift: "@aws-sdk/client-redshift", opensearch: "@aws-sdk/client-opensearch",
  cloudfront: "@aws-sdk/client-cloudfront", apigateway: "@aws-sdk/client-api-gateway", apigatewayv2: "@aws-sdk/client-apigatewayv2",
  elb: "@aws-sdk/client-elastic-load-balancing", autoscaling: "@aws-sdk/client-auto-scaling", ecs: "@aws-sdk/client-ecs",
  kinesis: "@aws-sdk/client-kinesis", firehose: "@aws-sdk/client-firehose", sfn: "@aws-sdk/client-sfn", glue: "@aws-sdk/client-glue",
  athena: "@aws-sdk/client-athena", route53: "@aws-sdk/client-route-53", acm: "@aws-sdk/client-acm", backup: "@aws-sdk/client-backup",
  ssm: "@aws-sdk/client-ssm", codebuild: "@aws-sdk/client-codebuild", cloudformation: "@aws-sdk/client-cloudformation",
  cognito: "@aws-sdk/client-cognito-identity-provider", sagemaker: "@aws-sdk/client-sagemaker", emr: "@aws-sdk/client-emr",
  wafv2: "@aws-sdk/client-wafv2", organizations: "@aws-sdk/client-organizations", eventbridge: "@aws-sdk/client-eventbridge",
  kafka: "@aws-sdk/client-kafka", mq: "@aws-sdk/client-mq", transfer: "@aws-sdk/client-transfer", sesv2: "@aws-sdk/client-sesv2",
  dms: "@aws-sdk/client-database-migration-service",
}

type CommandClass = new (input: unknown) => unknown

const commandOf = async (call: AwsCall): Promise<CommandClass> => {
  const pkg = PACKAGES[call.service]
  if (pkg === undefined) throw new FixError(`No AWS client for service ${call.service}`)
  const mod = (await import(pkg)) as Record<string, unknown>
  const Command = mod[`${call.operation}Command`]
  if (typeof Command !== "function") throw new FixError(`${call.service} has no operation ${call.operation}`)
  return Command as CommandClass
}

const sendCall = async (ctx: FixContext, call: AwsCall, params: unknown): Promise<unknown> => {
  const Command = await commandOf(call)
  const client = ctx.clients.get(call.service as ClientName, call.region) as unknown as { send: (c: unknown, o: object) => Promise<unknown> }
  const out = await client.send(new Command(params), sendOptions(ctx))
  // The SDK's $metadata (request ids) is not part of the answer a later call may refer to.
  if (typeof out === "object" && out !== null) {
    const { $metadata: _m, ...rest } = out as Record<string, unknown>
    return rest
  }
  return out
}

/**
 * Sends `calls` in order, each through the SDK command of its operation, with references resolved from `previous`
 * (the apply's outputs, for an undo) followed by the outputs of this run. Answers every call's output (JSON).
 * Stops at the first error (thrown, with how many calls had succeeded in `completed`).
 */
export async function executeAwsCalls(ctx: FixContext, calls: ReadonlyArray<PlannedCall>, previous: ReadonlyArray<unknown> = []): Promise<Json[]> {
  const outputs: Json[] = []
  for (const [i, call] of calls.entries()) {
    if (call.provider !== "aws") throw new FixError(`Call ${i + 1} is not an AWS call`)
    try {
      const params = resolveRefs(call.params, [...previous, ...outputs])
      outputs.push(JSON.parse(JSON.stringify((await sendCall(ctx, call, params)) ?? null)) as Json)
    } catch (error) {
      throw Object.assign(error instanceof Error ? error : new Error(String(error)), { completed: outputs })
    }
  }
  return outputs
}

// ---------------------------------------------------------------------------------------------------
// Permissions: EC2 DryRun where the plan marks it, else IAM policy simulation for the caller.

/** The IAM service prefix of each client name that differs from it. */
const IAM_PREFIX: Readonly<Record<string, string>> = { s3control: "s3", elbv2: "elasticloadbalancing", elb: "elasticloadbalancing", cognito: "cognito-idp", eventbridge: "events", opensearch: "es", dms: "dms" }

export const awsAction = (call: PlannedCall): string => call.action ?? `${call.provider === "aws" ? (IAM_PREFIX[call.service] ?? call.service) : call.service}:${call.operation}`

/** The IAM principal to simulate for a caller ARN (an assumed-role session is simulated as its role). */
export const principalOf = (callerArn: string): string => {
  const m = /^arn:([^:]+):sts::(\d+):assumed-role\/([^/]+)\//.exec(callerArn)
  return m === null ? callerArn : `arn:${m[1]}:iam::${m[2]}:role/${m[3]}`
}

/**
 * Whether the credentials may make each call. Calls marked `dryRun` are sent with DryRun=true (DryRunOperation means
 * allowed, UnauthorizedOperation denied; nothing changes); the others are simulated with iam:SimulatePrincipalPolicy
 * for the caller. When neither answers, the status is "unknown" with the reason.
 */
export async function checkAwsPermissions(ctx: FixContext, calls: ReadonlyArray<PlannedCall>, callerArn: string): Promise<PermissionCheck[]> {
  const byAction = new Map<string, PermissionCheck>()
  const simulate: string[] = []
  for (const call of calls) {
    const action = awsAction(call)
    if (byAction.has(action)) continue
    if (call.provider === "aws" && call.dryRun === true) {
      try {
        await sendCall(ctx, call, { ...(showRefs(call.params) as object), DryRun: true })
        // An answer without DryRunOperation would mean the operation ignored DryRun: never mark such a call dryRun.
        byAction.set(action, { action, status: "unknown", how: "EC2 DryRun answered without deciding" })
      } catch (error) {
        const code = errorCode(error)
        byAction.set(
          action,
          code === "DryRunOperation"
            ? { action, status: "allowed", how: "EC2 DryRun" }
            : code === "UnauthorizedOperation" || code === "AccessDenied"
              ? { action, status: "denied", how: "EC2 DryRun" }
              : { action, status: "unknown", how: `EC2 DryRun did not decide: ${whyUndecided(error)}` },
        )
      }
    } else {
      byAction.set(action, { action, status: "unknown", how: "" })
      simulate.push(action)
    }
  }
  if (simulate.length > 0) {
    try {
      const { SimulatePrincipalPolicyCommand } = await import("@aws-sdk/client-iam")
      const out = await ctx.clients.get("iam", ctx.clients.homeRegion).send(new SimulatePrincipalPolicyCommand({ PolicySourceArn: principalOf(callerArn), ActionNames: simulate }), sendOptions(ctx))
      for (const r of out.EvaluationResults ?? []) {
        if (r.EvalActionName === undefined) continue
        byAction.set(r.EvalActionName, { action: r.EvalActionName, status: r.EvalDecision === "allowed" ? "allowed" : "denied", how: "IAM policy simulation" })
      }
    } catch (error) {
      const reason = `IAM policy simulation unavailable: ${whyUndecided(error)}`
      for (const a of simulate) byAction.set(a, { action: a, status: "unknown", how: reason })
    }
  }
  return [...byAction.values()]
}

/**
 * What the cloud answered when a permission check could not decide: its error code and message (an emulator's or an
 * SDK's generic "Error" code alone says nothing), kept to one short line.
 */
const whyUndecided = (error: unknown): string => {
  const code = errorCode(error)
  const status = (error as { readonly $metadata?: { readonly httpStatusCode?: number } } | null)?.$metadata?.httpStatusCode
  const raw = (error instanceof Error ? error.message : String(error)).replace(/\s+/g, " ").trim()
  // The SDK could not read the answer at all (an emulator's HTML error page, say): its parser's words help nobody.
  const message = /Deserialization error/i.test(raw) ? `HTTP ${status ?? "error"} with an answer that is not an AWS error document` : raw
  const said = code === undefined || code === "Error" || message.includes(code) ? message || (code ?? "no answer") : `${code}: ${message}`
  return said.length > 160 ? `${said.slice(0, 157)}…` : said
}

// ---------------------------------------------------------------------------------------------------
// Renderers, generated from the calls.

/** The AWS CLI command group of each client name that differs from it. */
const CLI_SERVICE: Readonly<Record<string, string>> = { s3: "s3api", cognito: "cognito-idp", eventbridge: "events", config: "configservice", sfn: "stepfunctions" }

/** PutPublicAccessBlock → put-public-access-block; DBInstanceIdentifier → db-instance-identifier. */
export const kebab = (s: string): string =>
  s
    .replace(/([a-z0-9])([A-Z])/g, "$1-$2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1-$2")
    .toLowerCase()

const cliValue = (v: unknown): string =>
  typeof v === "string" ? shellQuote(v) : typeof v === "number" ? String(v) : shellQuote(JSON.stringify(v))

/**
 * The AWS CLI command of one call: scalars as options, booleans as --x / --no-x, structures as JSON. `view`: the call is
 * an undo's (plan.ts `showRefs`).
 */
export function renderAwsCli(call: AwsCall, view?: RefView): string {
  const parts = ["aws", CLI_SERVICE[call.service] ?? call.service, kebab(call.operation), "--region", call.region]
  for (const [k, raw] of Object.entries(showRefs(call.params, view) as Record<string, unknown>)) {
    if (raw === undefined) continue
    const name = `--${kebab(k)}`
    if (typeof raw === "boolean") parts.push(raw ? name : `--no-${kebab(k)}`)
    else if (Array.isArray(raw) && raw.every((x) => typeof x === "string" || typeof x === "number")) parts.push(name, ...raw.map(cliValue))
    else parts.push(name, cliValue(raw))
  }
  return parts.join(" ")
}

/** Terraform name of a resource id (letters, digits, underscores). */
export const tfName = (id: string): string => {
  const s = id.replace(/[^A-Za-z0-9_]/g, "_")
  return /^[A-Za-z_]/.test(s) ? s : `r_${s}`
}

const hcl = (v: unknown, indent = "  "): string => {
  if (typeof v === "string") return JSON.stringify(v)
  if (typeof v === "number" || typeof v === "boolean") return String(v)
  if (Array.isArray(v)) return `[${v.map((x) => hcl(x, indent)).join(", ")}]`
  if (typeof v === "object" && v !== null) {
    const inner = Object.entries(v).map(([k, x]) => `${indent}  ${k} = ${hcl(x, `${indent}  `)}`)
    return `{\n${inner.join("\n")}\n${indent}}`
  }
  return "null"
}

/** A Terraform block from attribute pairs (nested blocks as [name, attrs] entries). */
export const tfBlock = (kind: string, type: string, name: string, body: ReadonlyArray<readonly [string, unknown]>, indent = ""): string => {
  const inner = `${indent}  `
  const lines = body.map(([k, v]) =>
    Array.isArray(v) && v[0] === "__block__" ? tfBlock("", k, "", v[1] as ReadonlyArray<readonly [string, unknown]>, inner) : `${inner}${k} = ${hcl(v, inner)}`,
  )
  const head = kind === "" ? `${indent}${type} {` : `${indent}${kind} ${JSON.stringify(type)} ${JSON.stringify(name)} {`
  return [head, ...lines, `${indent}}`].join("\n")
}

/** A nested block value for tfBlock. */
export const nested = (body: ReadonlyArray<readonly [string, unknown]>): unknown => ["__block__", body]

/** Per-operation Terraform: the resource that expresses the call's end state (registered by the fixer modules). */
export type TerraformRenderer = (call: AwsCall) => string
const terraformRenderers = new Map<string, TerraformRenderer>()

export const registerTerraform = (service: string, operation: string, render: TerraformRenderer): void => {
  terraformRenderers.set(`${service}:${operation}`, render)
}

/** Terraform for a plan: each call's resource, or a comment naming a call Terraform has no resource for. */
export function renderAwsTerraform(calls: ReadonlyArray<PlannedCall>): string {
  return calls
    .map((call) => {
      if (call.provider !== "aws") return `# ${call.operation}: not an AWS call`
      const render = terraformRenderers.get(`${call.service}:${call.operation}`)
      return render === undefined ? `# ${call.service} ${call.operation}: no Terraform resource manages this call; run the AWS CLI command instead` : render({ ...call, params: showRefs(call.params) as Record<string, unknown> })
    })
    .join("\n\n")
}

export type { OutputRef }
