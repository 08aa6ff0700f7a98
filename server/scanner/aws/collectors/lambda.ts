/**
 * Lambda inventory per region: functions with runtime, role, tracing, dead-letter queue, VPC, environment variable
 * names, resource policy, function URL, code signing, asynchronous-invocation failure destination, and whether the
 * function's log group exists. Function URLs are read per function (GetFunctionUrlConfig): ListFunctionUrlConfigs is
 * not implemented by moto.
 */
import {
  GetFunctionCodeSigningConfigCommand,
  GetFunctionEventInvokeConfigCommand,
  GetFunctionUrlConfigCommand,
  GetPolicyCommand,
  ListFunctionsCommand,
} from "@aws-sdk/client-lambda"
import { DescribeLogGroupsCommand } from "@aws-sdk/client-cloudwatch-logs"
import type { CollectContext } from "../context.ts"
import { parsePolicy, type PolicyDocument } from "../policy.ts"

export const lambdaResourceTypes = ["lambda.functions", "lambda.policies", "lambda.urls", "lambda.log_groups", "lambda.code_signing", "lambda.event_invoke"] as const

export interface LambdaFunction {
  readonly name: string
  readonly arn: string
  readonly runtime: string | undefined
  readonly packageType: string
  readonly role: string
  readonly tracingMode: string
  readonly deadLetterArn: string | undefined
  readonly vpcId: string | undefined
  readonly envVars: ReadonlyArray<string>
  /** Variables whose value looks like a credential (names only are kept). */
  readonly secretLikeVars: ReadonlyArray<string>
  readonly logGroup: string
  readonly policy: PolicyDocument | null | undefined
  readonly url: { readonly url: string; readonly authType: string } | null | undefined
  /** Whether the log group exists; undefined when not read. */
  readonly logGroupExists: boolean | undefined
  readonly codeSigningConfigArn: string | null | undefined
  /** On-failure destination of asynchronous invocations (null: none configured). */
  readonly onFailureDestination: string | null | undefined
}

export interface LambdaInventory {
  readonly regions: ReadonlyArray<{ readonly region: string; readonly functions: ReadonlyArray<LambdaFunction> | undefined }>
}

const SECRET_NAME = /(secret|passw(or)?d|pwd|token|api_?key|private_?key|access_?key|credential)/i
/** A value that names a secret rather than holding one (ARN, SSM/Secrets Manager reference, empty). */
const REFERENCE = /^(arn:|\{\{resolve:|\/|ssm:|$)/

export async function collectLambda(ctx: CollectContext): Promise<LambdaInventory> {
  const regions = await ctx.perRegion(async (region) => {
    const lambda = ctx.clients.get("lambda", region)
    const [list, groups] = await Promise.all([
      ctx.paginate(
        { type: "lambda.functions", region, op: "lambda:ListFunctions" },
        (m, o) => lambda.send(new ListFunctionsCommand({ ...(m === undefined ? {} : { Marker: m }) }), o),
        (p) => ({ items: p.Functions, next: p.NextMarker }),
      ),
      ctx.wants("lambda.log_groups")
        ? ctx.paginate(
            { type: "lambda.log_groups", region, op: "logs:DescribeLogGroups" },
            (t, o) => ctx.clients.get("logs", region).send(new DescribeLogGroupsCommand({ logGroupNamePrefix: "/aws/lambda/", ...(t === undefined ? {} : { nextToken: t }) }), o),
            (p) => ({ items: p.logGroups, next: p.nextToken }),
          )
        : Promise.resolve(undefined),
    ])
    const known = groups === undefined ? undefined : new Set(groups.flatMap((g) => (g.logGroupName === undefined ? [] : [g.logGroupName])))
    const functions =
      list === undefined
        ? undefined
        : await ctx.map(list, async (f): Promise<LambdaFunction> => {
            const name = f.FunctionName ?? ""
            const id = (type: string, op: string) => ({ type, region, op, id: name })
            const notFound = ["ResourceNotFoundException"]
            const logGroup = f.LoggingConfig?.LogGroup ?? `/aws/lambda/${name}`
            const [policy, url, signing, invoke, customGroup] = await Promise.all([
              ctx.wants("lambda.policies") ? ctx.optional(id("lambda.policies", "lambda:GetPolicy"), notFound, (o) => lambda.send(new GetPolicyCommand({ FunctionName: name }), o)) : undefined,
              ctx.wants("lambda.urls") ? ctx.optional(id("lambda.urls", "lambda:GetFunctionUrlConfig"), notFound, (o) => lambda.send(new GetFunctionUrlConfigCommand({ FunctionName: name }), o)) : undefined,
              ctx.wants("lambda.code_signing")
                ? ctx.call(id("lambda.code_signing", "lambda:GetFunctionCodeSigningConfig"), (o) => lambda.send(new GetFunctionCodeSigningConfigCommand({ FunctionName: name }), o))
                : undefined,
              ctx.wants("lambda.event_invoke")
                ? ctx.optional(id("lambda.event_invoke", "lambda:GetFunctionEventInvokeConfig"), notFound, (o) => lambda.send(new GetFunctionEventInvokeConfigCommand({ FunctionName: name }), o))
                : undefined,
              // A custom log group (LoggingConfig) outside /aws/lambda/ is looked up by its own name.
              ctx.wants("lambda.log_groups") && !logGroup.startsWith("/aws/lambda/")
                ? ctx.call(id("lambda.log_groups", "logs:DescribeLogGroups"), (o) => ctx.clients.get("logs", region).send(new DescribeLogGroupsCommand({ logGroupNamePrefix: logGroup }), o))
                : undefined,
            ])
            const env = f.Environment?.Variables ?? {}
            return {
              name,
              arn: f.FunctionArn ?? "",
              runtime: f.Runtime,
              packageType: f.PackageType ?? "Zip",
              role: f.Role ?? "",
              tracingMode: f.TracingConfig?.Mode ?? "PassThrough",
              deadLetterArn: f.DeadLetterConfig?.TargetArn || undefined,
              vpcId: f.VpcConfig?.VpcId || ((f.VpcConfig?.SubnetIds ?? []).length > 0 ? "unknown" : undefined),
              envVars: Object.keys(env),
              secretLikeVars: Object.entries(env).filter(([k, v]) => SECRET_NAME.test(k) && !REFERENCE.test(v)).map(([k]) => k),
              logGroup,
              policy: policy === undefined ? undefined : policy === null ? null : (parsePolicy(policy.Policy) ?? null),
              url: url === undefined ? undefined : url === null ? null : { url: url.FunctionUrl ?? "", authType: url.AuthType ?? "" },
              logGroupExists: logGroup.startsWith("/aws/lambda/")
                ? known?.has(logGroup)
                : customGroup === undefined
                  ? undefined
                  : (customGroup.logGroups ?? []).some((g) => g.logGroupName === logGroup),
              codeSigningConfigArn: signing === undefined ? undefined : (signing.CodeSigningConfigArn || null),
              onFailureDestination: invoke === undefined ? undefined : (invoke?.DestinationConfig?.OnFailure?.Destination || null),
            }
          })
    ctx.countResources(functions?.length ?? 0)
    return { region, functions }
  })
  return { regions }
}
