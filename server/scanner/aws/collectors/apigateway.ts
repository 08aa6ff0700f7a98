/**
 * API Gateway inventory per region: REST APIs (v1) with their methods' authorization, resource policy, endpoint type
 * and stages; HTTP/WebSocket APIs (v2) with their routes' authorization and stages.
 */
import { GetResourcesCommand, GetRestApisCommand, GetStagesCommand } from "@aws-sdk/client-api-gateway"
import { GetApisCommand, GetRoutesCommand, GetStagesCommand as GetV2StagesCommand } from "@aws-sdk/client-apigatewayv2"
import type { CollectContext } from "../context.ts"
import type { RegionItems } from "./per-region.ts"
import { parsePolicy, type PolicyDocument } from "../policy.ts"

export const apigatewayResourceTypes = ["apigateway.rest_apis", "apigateway.methods", "apigateway.stages", "apigateway.http_apis"] as const

export interface RestStage {
  readonly name: string
  readonly loggingLevel: string | undefined
  readonly tracing: boolean
  readonly webAclArn: string | undefined
  readonly clientCertificateId: string | undefined
  readonly cacheEnabled: boolean
  readonly cacheEncrypted: boolean
  readonly accessLogs: boolean
}

export interface RestApi {
  readonly id: string
  readonly name: string
  readonly endpointTypes: ReadonlyArray<string>
  readonly policy: PolicyDocument | undefined
  /** "GET /pets" for each method callable without IAM, Cognito, a Lambda authorizer or an API key. */
  readonly openMethods: ReadonlyArray<string> | undefined
  readonly stages: ReadonlyArray<RestStage> | undefined
}

export interface HttpApi {
  readonly id: string
  readonly name: string
  readonly protocol: string
  readonly openRoutes: ReadonlyArray<string> | undefined
  readonly stages: ReadonlyArray<{ readonly name: string; readonly accessLogs: boolean }> | undefined
}

export interface ApiGatewayInventory {
  readonly regions: ReadonlyArray<RegionItems<RestApi> & { readonly httpApis: ReadonlyArray<HttpApi> | undefined }>
}

export async function collectApiGateway(ctx: CollectContext): Promise<ApiGatewayInventory> {
  const regions = await ctx.perRegion(async (region) => {
    const v1 = ctx.clients.get("apigateway", region)
    const v2 = ctx.clients.get("apigatewayv2", region)
    const [rest, http] = await Promise.all([
      ctx.wants("apigateway.rest_apis")
        ? ctx.paginate(
            { type: "apigateway.rest_apis", region, op: "apigateway:GetRestApis" },
            (t, o) => v1.send(new GetRestApisCommand({ limit: 500, ...(t === undefined ? {} : { position: t }) }), o),
            (p) => ({ items: p.items, next: p.position }),
          )
        : undefined,
      ctx.wants("apigateway.http_apis")
        ? ctx.paginate(
            { type: "apigateway.http_apis", region, op: "apigateway:GetApis" },
            (t, o) => v2.send(new GetApisCommand({ ...(t === undefined ? {} : { NextToken: t }) }), o),
            (p) => ({ items: p.Items, next: p.NextToken }),
          )
        : undefined,
    ])
    const items =
      rest === undefined
        ? undefined
        : await ctx.map(rest, async (a): Promise<RestApi> => {
            const id = a.id ?? ""
            const [resources, stages] = await Promise.all([
              ctx.wants("apigateway.methods")
                ? ctx.paginate(
                    { type: "apigateway.methods", region, op: "apigateway:GetResources", id },
                    (t, o) => v1.send(new GetResourcesCommand({ restApiId: id, embed: ["methods"], limit: 500, ...(t === undefined ? {} : { position: t }) }), o),
                    (p) => ({ items: p.items, next: p.position }),
                  )
                : undefined,
              ctx.wants("apigateway.stages") ? ctx.call({ type: "apigateway.stages", region, op: "apigateway:GetStages", id }, (o) => v1.send(new GetStagesCommand({ restApiId: id }), o)) : undefined,
            ])
            return {
              id,
              name: a.name ?? "",
              endpointTypes: a.endpointConfiguration?.types ?? [],
              policy: parsePolicy(a.policy?.replace(/\\"/g, '"')),
              openMethods: resources?.flatMap((r) =>
                Object.entries(r.resourceMethods ?? {})
                  .filter(([verb, m]) => verb !== "OPTIONS" && (m.authorizationType ?? "NONE") === "NONE" && m.apiKeyRequired !== true)
                  .map(([verb]) => `${verb} ${r.path ?? "/"}`),
              ),
              stages: stages?.item?.map((s) => {
                const all = s.methodSettings?.["*/*"]
                return {
                  name: s.stageName ?? "",
                  loggingLevel: all?.loggingLevel,
                  tracing: s.tracingEnabled === true,
                  webAclArn: s.webAclArn || undefined,
                  clientCertificateId: s.clientCertificateId || undefined,
                  cacheEnabled: s.cacheClusterEnabled === true,
                  cacheEncrypted: all?.cacheDataEncrypted === true,
                  accessLogs: (s.accessLogSettings?.destinationArn ?? "") !== "",
                }
              }),
            }
          })
    const httpApis =
      http === undefined
        ? undefined
        : await ctx.map(http, async (a): Promise<HttpApi> => {
            const id = a.ApiId ?? ""
            const [routes, stages] = await Promise.all([
              ctx.paginate(
                { type: "apigateway.http_apis", region, op: "apigateway:GetRoutes", id },
                (t, o) => v2.send(new GetRoutesCommand({ ApiId: id, ...(t === undefined ? {} : { NextToken: t }) }), o),
                (p) => ({ items: p.Items, next: p.NextToken }),
              ),
              ctx.paginate(
                { type: "apigateway.http_apis", region, op: "apigateway:GetStages", id },
                (t, o) => v2.send(new GetV2StagesCommand({ ApiId: id, ...(t === undefined ? {} : { NextToken: t }) }), o),
                (p) => ({ items: p.Items, next: p.NextToken }),
              ),
            ])
            return {
              id,
              name: a.Name ?? "",
              protocol: a.ProtocolType ?? "HTTP",
              openRoutes: routes?.filter((r) => (r.AuthorizationType ?? "NONE") === "NONE" && r.ApiKeyRequired !== true && !r.RouteKey?.startsWith("OPTIONS ")).map((r) => r.RouteKey ?? ""),
              stages: stages?.map((s) => ({ name: s.StageName ?? "", accessLogs: (s.AccessLogSettings?.DestinationArn ?? "") !== "" })),
            }
          })
    ctx.countResources((items?.length ?? 0) + (httpApis?.length ?? 0))
    return { region, items, httpApis }
  })
  return { regions }
}
