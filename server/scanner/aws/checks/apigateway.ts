/** API Gateway checks: unauthenticated methods and routes, public resource policies, stage logging, tracing, WAF, backend certificates, cache encryption (FSBP APIGateway.x). */
import type { RestApi, RestStage } from "../collectors/apigateway.ts"
import { itemCheck } from "../generic.ts"
import { publicAllowStatements } from "../policy.ts"
import type { InventoryWith } from "../inventory.ts"

type Inv = InventoryWith<"apigateway">
const restApis = (inv: Inv) => inv.apigateway.regions
const httpApis = (inv: Inv) => inv.apigateway.regions.map((r) => ({ region: r.region, items: r.httpApis }))
const stages = (inv: Inv) =>
  inv.apigateway.regions.map((r) => ({ region: r.region, items: r.items?.flatMap((api) => (api.stages ?? []).map((stage) => ({ api, stage }))) }))

const stageCheck = (spec: {
  readonly id: string
  readonly title: string
  readonly description: string
  readonly severity: "high" | "medium" | "low"
  readonly fsbp?: string
  readonly remediation: string
  readonly label: string
  readonly value: (s: RestStage) => string | boolean | null
  readonly ok: (s: RestStage) => boolean
  readonly applies?: (s: RestStage) => boolean
  readonly pass: string
  readonly fail: string
  readonly mockReason?: string
}) =>
  itemCheck({
    id: spec.id,
    service: "apigateway",
    title: spec.title,
    description: spec.description,
    severity: spec.severity,
    ...(spec.fsbp === undefined ? {} : { fsbp: spec.fsbp }),
    remediation: spec.remediation,
    field_labels: { api: "API", stage: "Stage", setting: spec.label },
    uses: ["apigateway.rest_apis", "apigateway.stages"],
    ...(spec.mockReason === undefined ? {} : { testedWith: "sdk-mock" as const, mockReason: spec.mockReason }),
    regions: stages,
    judge: ({ api, stage }: { api: RestApi; stage: RestStage }) => {
      if (spec.applies !== undefined && !spec.applies(stage)) return undefined
      const ok = spec.ok(stage)
      return { id: `${api.id}/${stage.name}`, ok, reason: `Stage ${stage.name} of ${api.name}: ${ok ? spec.pass : spec.fail}.`, fields: { api: api.name, stage: stage.name, setting: spec.value(stage) } }
    },
  })

export const apigatewayChecks = [
  itemCheck({
    id: "apigateway_restapi_methods_authorized",
    service: "apigateway",
    title: "API Gateway REST API methods should require authorization",
    description: "Finds REST APIs (other than private ones) with methods callable by anyone on the internet: authorization NONE and no API key (OPTIONS preflight methods excepted).",
    severity: "high",
    remediation: "Set an authorizer on each method (AWS_IAM, a Cognito user pool or a Lambda authorizer), require an API key with a usage plan, or make the API PRIVATE behind a VPC endpoint; then redeploy the stage.",
    field_labels: { endpoint_types: "Endpoint types", open_methods: "Unauthenticated methods" },
    uses: ["apigateway.rest_apis", "apigateway.methods"],
    regions: restApis,
    judge: (api: RestApi) => {
      if (api.openMethods === undefined) return undefined
      const privateOnly = api.endpointTypes.length > 0 && api.endpointTypes.every((t) => t === "PRIVATE")
      const ok = privateOnly || api.openMethods.length === 0
      return {
        id: api.id,
        ok,
        reason: ok ? `REST API ${api.name} has no unauthenticated public method.` : `REST API ${api.name} lets anyone call ${api.openMethods.join(", ")}.`,
        fields: { endpoint_types: api.endpointTypes, open_methods: api.openMethods },
      }
    },
  }),
  itemCheck({
    id: "apigateway_restapi_policy_not_public",
    service: "apigateway",
    title: "API Gateway resource policies should not allow everyone to invoke the API",
    description: "Finds REST APIs whose resource policy allows execute-api:Invoke to any principal without a condition restricting the source (IP range, VPC endpoint, organization).",
    severity: "medium",
    remediation: "Restrict the Allow statement with aws:SourceIp, aws:SourceVpce or aws:PrincipalOrgID conditions (or name the principals), then redeploy.",
    field_labels: { public_statements: "Public statements" },
    uses: ["apigateway.rest_apis"],
    regions: restApis,
    judge: (api: RestApi) => {
      if (api.policy === undefined) return undefined
      const open = publicAllowStatements(api.policy, ["execute-api:Invoke"]).map((s, i) => s.sid ?? `#${i + 1}`)
      return { id: api.id, ok: open.length === 0, reason: open.length === 0 ? `REST API ${api.name}'s policy is scoped.` : `REST API ${api.name}'s policy lets anyone invoke it.`, fields: { public_statements: open } }
    },
  }),
  itemCheck({
    id: "apigatewayv2_routes_authorized",
    service: "apigateway",
    title: "API Gateway HTTP and WebSocket API routes should require authorization",
    description: "Finds HTTP/WebSocket APIs with routes whose authorization type is NONE (OPTIONS routes excepted), callable by anyone who knows the URL.",
    severity: "high",
    remediation: "Attach a JWT, Lambda or IAM authorizer to each route: aws apigatewayv2 update-route --api-id ID --route-id ROUTE --authorization-type JWT --authorizer-id AUTH.",
    field_labels: { protocol: "Protocol", open_routes: "Unauthenticated routes" },
    uses: ["apigateway.http_apis"],
    regions: httpApis,
    judge: (api) => {
      if (api.openRoutes === undefined) return undefined
      const ok = api.openRoutes.length === 0
      return { id: api.id, ok, reason: ok ? `API ${api.name} has no unauthenticated route.` : `API ${api.name} lets anyone call ${api.openRoutes.join(", ")}.`, fields: { protocol: api.protocol, open_routes: api.openRoutes } }
    },
  }),
  itemCheck({
    id: "apigatewayv2_stage_access_logging",
    service: "apigateway",
    title: "API Gateway HTTP and WebSocket API stages should have access logging",
    description: "Finds stages of HTTP/WebSocket APIs without an access log destination.",
    severity: "medium",
    fsbp: "APIGateway.9",
    remediation: "aws apigatewayv2 update-stage --api-id ID --stage-name STAGE --access-log-settings DestinationArn=LOG_GROUP_ARN,Format='$context.requestId ...'.",
    field_labels: { api: "API", stage: "Stage" },
    uses: ["apigateway.http_apis"],
    regions: (inv: Inv) => inv.apigateway.regions.map((r) => ({ region: r.region, items: r.httpApis?.flatMap((api) => (api.stages ?? []).map((stage) => ({ api, stage }))) })),
    judge: ({ api, stage }) => ({
      id: `${api.id}/${stage.name}`,
      ok: stage.accessLogs,
      reason: stage.accessLogs ? `Stage ${stage.name} of ${api.name} writes access logs.` : `Stage ${stage.name} of ${api.name} writes no access logs.`,
      fields: { api: api.name, stage: stage.name },
    }),
  }),
  stageCheck({
    id: "apigateway_restapi_stage_logging_enabled",
    title: "API Gateway REST API stages should have execution logging enabled",
    description: "Finds REST API stages whose default method settings do not log (logging level OFF).",
    severity: "medium",
    fsbp: "APIGateway.1",
    remediation: "aws apigateway update-stage --rest-api-id ID --stage-name STAGE --patch-operations op=replace,path=/*/*/logging/loglevel,value=ERROR (the account needs a CloudWatch Logs role).",
    label: "Logging level",
    value: (s) => s.loggingLevel ?? "OFF",
    ok: (s) => s.loggingLevel === "ERROR" || s.loggingLevel === "INFO",
    pass: "execution logging is on",
    fail: "execution logging is off",
  }),
  stageCheck({
    id: "apigateway_restapi_stage_xray_tracing",
    title: "API Gateway REST API stages should have X-Ray tracing enabled",
    description: "Finds REST API stages without active X-Ray tracing.",
    severity: "low",
    fsbp: "APIGateway.3",
    remediation: "aws apigateway update-stage --rest-api-id ID --stage-name STAGE --patch-operations op=replace,path=/tracingEnabled,value=true.",
    label: "Tracing",
    value: (s) => s.tracing,
    ok: (s) => s.tracing,
    pass: "X-Ray tracing is on",
    fail: "X-Ray tracing is off",
  }),
  stageCheck({
    id: "apigateway_restapi_stage_waf_attached",
    title: "API Gateway REST API stages should be protected by AWS WAF",
    description: "Finds REST API stages without a WAF web ACL.",
    severity: "medium",
    fsbp: "APIGateway.4",
    remediation: "aws wafv2 associate-web-acl --web-acl-arn ACL_ARN --resource-arn arn:aws:apigateway:REGION::/restapis/ID/stages/STAGE.",
    label: "Web ACL",
    value: (s) => s.webAclArn ?? null,
    ok: (s) => s.webAclArn !== undefined,
    pass: "a WAF web ACL is attached",
    fail: "no WAF web ACL is attached",
  }),
  stageCheck({
    id: "apigateway_restapi_stage_client_certificate",
    title: "API Gateway REST API stages should use a client certificate for backend authentication",
    description: "Finds REST API stages without a client certificate, so backends cannot verify that requests come from API Gateway.",
    severity: "medium",
    fsbp: "APIGateway.2",
    remediation: "aws apigateway generate-client-certificate, then aws apigateway update-stage --patch-operations op=replace,path=/clientCertificateId,value=CERT_ID; make the backend verify it.",
    label: "Client certificate",
    value: (s) => s.clientCertificateId ?? null,
    ok: (s) => s.clientCertificateId !== undefined,
    mockReason: "moto's API Gateway stages have no clientCertificateId (UpdateStage ignores it), so the compliant case needs a stubbed GetStages.",
    pass: "a client certificate authenticates it to the backend",
    fail: "no client certificate authenticates it to the backend",
  }),
  stageCheck({
    id: "apigateway_restapi_stage_cache_encrypted",
    title: "API Gateway REST API cache data should be encrypted at rest",
    description: "Finds REST API stages with caching enabled whose cache data is not encrypted.",
    severity: "medium",
    fsbp: "APIGateway.5",
    remediation: "aws apigateway update-stage --rest-api-id ID --stage-name STAGE --patch-operations op=replace,path=/*/*/caching/dataEncrypted,value=true.",
    label: "Cache encrypted",
    value: (s) => s.cacheEncrypted,
    ok: (s) => s.cacheEncrypted,
    applies: (s) => s.cacheEnabled,
    pass: "the cache is encrypted",
    fail: "the cache is not encrypted",
  }),
  stageCheck({
    id: "apigateway_restapi_stage_access_logging",
    title: "API Gateway REST API stages should have access logging",
    description: "Finds REST API stages without an access log destination (who called what, from where).",
    severity: "medium",
    remediation: "aws apigateway update-stage --rest-api-id ID --stage-name STAGE --patch-operations op=replace,path=/accessLogSettings/destinationArn,value=LOG_GROUP_ARN.",
    label: "Access logs",
    value: (s) => s.accessLogs,
    ok: (s) => s.accessLogs,
    pass: "access logs are written",
    fail: "no access logs are written",
  }),
]
