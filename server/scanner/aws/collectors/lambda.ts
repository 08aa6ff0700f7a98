/**
 * Lambda inventory per region: functions with runtime, resource policy and function URL. Function URLs are read
 * per function (GetFunctionUrlConfig): ListFunctionUrlConfigs is not implemented by moto.
 */
import { GetFunctionUrlConfigCommand, GetPolicyCommand, ListFunctionsCommand } from "@aws-sdk/client-lambda"
import type { CollectContext } from "../context.ts"
import { parsePolicy, type PolicyDocument } from "../policy.ts"

export const lambdaResourceTypes = ["lambda.functions", "lambda.policies", "lambda.urls"] as const

export interface LambdaFunction {
  readonly name: string
  readonly arn: string
  readonly runtime: string | undefined
  readonly packageType: string
  readonly policy: PolicyDocument | null | undefined
  readonly url: { readonly url: string; readonly authType: string } | null | undefined
}

export interface LambdaInventory {
  readonly regions: ReadonlyArray<{ readonly region: string; readonly functions: ReadonlyArray<LambdaFunction> | undefined }>
}

export async function collectLambda(ctx: CollectContext): Promise<LambdaInventory> {
  const regions = await ctx.perRegion(async (region) => {
    const lambda = ctx.clients.get("lambda", region)
    const list = await ctx.paginate(
      { type: "lambda.functions", region, op: "lambda:ListFunctions" },
      (m, o) => lambda.send(new ListFunctionsCommand({ ...(m === undefined ? {} : { Marker: m }) }), o),
      (p) => ({ items: p.Functions, next: p.NextMarker }),
    )
    const functions =
      list === undefined
        ? undefined
        : await ctx.map(list, async (f): Promise<LambdaFunction> => {
            const name = f.FunctionName ?? ""
            const [policy, url] = await Promise.all([
              ctx.wants("lambda.policies")
                ? ctx.optional({ type: "lambda.policies", region, op: "lambda:GetPolicy", id: name }, ["ResourceNotFoundException"], (o) =>
                    lambda.send(new GetPolicyCommand({ FunctionName: name }), o),
                  )
                : Promise.resolve(undefined),
              ctx.wants("lambda.urls")
                ? ctx.optional({ type: "lambda.urls", region, op: "lambda:GetFunctionUrlConfig", id: name }, ["ResourceNotFoundException"], (o) =>
                    lambda.send(new GetFunctionUrlConfigCommand({ FunctionName: name }), o),
                  )
                : Promise.resolve(undefined),
            ])
            return {
              name,
              arn: f.FunctionArn ?? "",
              runtime: f.Runtime,
              packageType: f.PackageType ?? "Zip",
              policy: policy === undefined ? undefined : policy === null ? null : (parsePolicy(policy.Policy) ?? null),
              url: url === undefined ? undefined : url === null ? null : { url: url.FunctionUrl ?? "", authType: url.AuthType ?? "" },
            }
          })
    ctx.countResources(functions?.length ?? 0)
    return { region, functions }
  })
  return { regions }
}
