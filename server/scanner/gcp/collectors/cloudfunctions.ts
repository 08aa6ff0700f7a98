/**
 * Cloud Functions (v2): every function of every location (projects.locations.functions.list with location "-"),
 * with its runtime service account, and who may invoke it: the function's IAM policy and, for a
 * 2nd gen function, the policy of the Cloud Run service behind it (serviceConfig.service), which is where
 * `gcloud functions add-invoker-policy-binding` grants roles/run.invoker.
 */
import { Schema } from "effect"
import { IamPolicy, listAll, Paged, type GcpCollectContext } from "../context.ts"

export const cloudfunctionsResourceTypes = ["cloudfunctions.functions", "cloudfunctions.function_policies"] as const

export const CloudFunction = Schema.Struct({
  name: Schema.String,
  environment: Schema.optionalKey(Schema.String),
  serviceConfig: Schema.optionalKey(
    Schema.Struct({
      service: Schema.optionalKey(Schema.String),
      serviceAccountEmail: Schema.optionalKey(Schema.String),
    }),
  ),
})
export type CloudFunction = typeof CloudFunction.Type

export const FunctionsPage = Paged({ functions: Schema.optionalKey(Schema.Array(CloudFunction)), unreachable: Schema.optionalKey(Schema.Array(Schema.String)) })

export interface FunctionWithPolicy extends CloudFunction {
  readonly location: string
  readonly policy: IamPolicy | undefined
}

export interface CloudFunctionsInventory {
  readonly functions: ReadonlyArray<FunctionWithPolicy> | undefined
}

/** "projects/p/locations/us-central1/functions/f" → "us-central1". */
export const functionLocation = (name: string): string => /\/locations\/([^/]+)\//.exec(name)?.[1] ?? "global"

export async function collectCloudFunctions(ctx: GcpCollectContext): Promise<CloudFunctionsInventory> {
  const base = ctx.endpoints.cloudfunctions
  const op = "cloudfunctions.projects.locations.functions.list"
  const unreachable = new Set<string>()
  const listed = await listAll(ctx, { type: "cloudfunctions.functions", region: "global", op }, `${base}/v2/projects/${ctx.projectId}/locations/-/functions?pageSize=1000`, FunctionsPage, (page) => {
    for (const u of page.unreachable ?? []) unreachable.add(u)
    return page.functions
  })
  // Locations the list could not reach: their functions are missing, so the checks must not pass on them.
  for (const u of unreachable) ctx.recordError({ resourceType: "cloudfunctions.functions", region: u, operation: op, kind: "error", code: "UNREACHABLE", message: `${u} could not be reached: its functions are missing from the answer` })
  if (listed === undefined) return { functions: undefined }
  ctx.countResources(listed.length)
  const wantPolicies = ctx.wants("cloudfunctions.function_policies")
  const functions = await ctx.map(listed, async (f): Promise<FunctionWithPolicy> => {
    const location = functionLocation(f.name)
    if (!wantPolicies) return { ...f, location, policy: undefined }
    const service = f.serviceConfig?.service
    const [own, run] = await Promise.all([
      ctx.get({ type: "cloudfunctions.function_policies", region: location, op: "cloudfunctions.projects.locations.functions.getIamPolicy", id: f.name }, { url: `${base}/v2/${f.name}:getIamPolicy` }, IamPolicy),
      service === undefined || service === ""
        ? Promise.resolve<IamPolicy | undefined>({})
        : ctx.get({ type: "cloudfunctions.function_policies", region: location, op: "run.projects.locations.services.getIamPolicy", id: service }, { url: `${ctx.endpoints.run}/v2/${service}:getIamPolicy` }, IamPolicy),
    ])
    // Both policies decide who may call the function; without either, the function is not judged (the error is recorded).
    const policy = own === undefined || run === undefined ? undefined : { bindings: [...(own.bindings ?? []), ...(run.bindings ?? [])] }
    return { ...f, location, policy }
  })
  return { functions }
}
