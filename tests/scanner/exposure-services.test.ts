/**
 * Internet exposure and hardening of API Gateway (REST and HTTP APIs), OpenSearch, ElastiCache, Redshift, Secrets
 * Manager resource policies and KMS key policies, each check with a compliant and a non-compliant resource on moto.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { CreateDeploymentCommand, CreateRestApiCommand, GetResourcesCommand, PutMethodCommand, UpdateStageCommand, PutIntegrationCommand } from "@aws-sdk/client-api-gateway"
import { CreateApiCommand, CreateAuthorizerCommand, CreateRouteCommand, CreateStageCommand } from "@aws-sdk/client-apigatewayv2"
import { CreateDomainCommand } from "@aws-sdk/client-opensearch"
import { CreateCacheClusterCommand, CreateCacheSubnetGroupCommand, CreateReplicationGroupCommand } from "@aws-sdk/client-elasticache"
import { CreateClusterCommand, CreateClusterParameterGroupCommand, EnableLoggingCommand } from "@aws-sdk/client-redshift"
import { CreateSecretCommand, PutResourcePolicyCommand } from "@aws-sdk/client-secrets-manager"
import { CreateKeyCommand } from "@aws-sdk/client-kms"
import { AssociateWebACLCommand, CreateWebACLCommand } from "@aws-sdk/client-wafv2"
import { DescribeSubnetsCommand } from "@aws-sdk/client-ec2"
import type { ScanServiceResult } from "../../server/scanner/aws/scan-service.ts"
import { startMoto, type Moto } from "../support/moto.ts"
import { ACCOUNT, expectCases, OTHER_ACCOUNT, scan, seedClients } from "./helpers.ts"

const E = "us-east-1"
const doc = (statements: unknown[]) => JSON.stringify({ Version: "2012-10-17", Statement: statements })

describe("API Gateway, OpenSearch, ElastiCache, Redshift, Secrets Manager and KMS exposure on moto", () => {
  let moto: Moto
  const r: Record<string, ScanServiceResult> = {}
  const ids: Record<string, string> = {}
  const res = (k: string) => r[k] ?? (() => { throw new Error(k) })()
  const id = (k: string) => ids[k] ?? ""

  beforeAll(async () => {
    moto = await startMoto()
    const c = seedClients(moto)
    const subnets = (await c.get("ec2", E).send(new DescribeSubnetsCommand({ Filters: [{ Name: "default-for-az", Values: ["true"] }] }))).Subnets ?? []
    const subnetIds = subnets.slice(0, 2).flatMap((s) => (s.SubnetId === undefined ? [] : [s.SubnetId]))

    const gw = c.get("apigateway", E)
    const restApi = async (name: string, auth: "NONE" | "AWS_IAM", types: ("REGIONAL" | "PRIVATE")[], policy?: string) => {
      const api = await gw.send(new CreateRestApiCommand({ name, endpointConfiguration: { types }, ...(policy === undefined ? {} : { policy }) }))
      const root = (await gw.send(new GetResourcesCommand({ restApiId: api.id }))).items?.find((x) => x.path === "/")?.id
      await gw.send(new PutMethodCommand({ restApiId: api.id, resourceId: root, httpMethod: "GET", authorizationType: auth }))
      await gw.send(new PutMethodCommand({ restApiId: api.id, resourceId: root, httpMethod: "OPTIONS", authorizationType: "NONE" }))
      await gw.send(new PutIntegrationCommand({ restApiId: api.id, resourceId: root, httpMethod: "GET", type: "MOCK" }))
      ids[name] = api.id ?? ""
      return api.id ?? ""
    }
    const everyoneInvoke = doc([{ Sid: "Everyone", Effect: "Allow", Principal: "*", Action: "execute-api:Invoke", Resource: "*" }])
    const officeOnly = doc([{ Sid: "Office", Effect: "Allow", Principal: "*", Action: "execute-api:Invoke", Resource: "*", Condition: { IpAddress: { "aws:SourceIp": ["203.0.113.0/24"] } } }])
    await restApi("open-api", "NONE", ["REGIONAL"], everyoneInvoke)
    const authApi = await restApi("auth-api", "AWS_IAM", ["REGIONAL"], officeOnly)
    await restApi("private-api", "NONE", ["PRIVATE"])
    for (const [api, stage] of [[authApi, "prod"], [id("open-api"), "dev"]] as const) await gw.send(new CreateDeploymentCommand({ restApiId: api, stageName: stage }))
    await gw.send(
      new UpdateStageCommand({
        restApiId: authApi,
        stageName: "prod",
        patchOperations: [
          { op: "replace", path: "/tracingEnabled", value: "true" },
          { op: "replace", path: "/*/*/logging/loglevel", value: "ERROR" },
          { op: "replace", path: "/accessLogSettings/destinationArn", value: `arn:aws:logs:${E}:${ACCOUNT}:log-group:api-access` },
          { op: "replace", path: "/cacheClusterEnabled", value: "true" },
          { op: "replace", path: "/*/*/caching/dataEncrypted", value: "true" },
        ],
      }),
    )
    const acl = await c.get("wafv2", E).send(new CreateWebACLCommand({ Name: "api", Scope: "REGIONAL", DefaultAction: { Allow: {} }, VisibilityConfig: { SampledRequestsEnabled: true, CloudWatchMetricsEnabled: true, MetricName: "api" } }))
    await c.get("wafv2", E).send(new AssociateWebACLCommand({ WebACLArn: acl.Summary?.ARN, ResourceArn: `arn:aws:apigateway:${E}::/restapis/${authApi}/stages/prod` }))
    await gw.send(new UpdateStageCommand({ restApiId: id("open-api"), stageName: "dev", patchOperations: [{ op: "replace", path: "/cacheClusterEnabled", value: "true" }] }))

    const v2 = c.get("apigatewayv2", E)
    const open = await v2.send(new CreateApiCommand({ Name: "open-http", ProtocolType: "HTTP" }))
    await v2.send(new CreateRouteCommand({ ApiId: open.ApiId, RouteKey: "GET /items", AuthorizationType: "NONE" }))
    await v2.send(new CreateStageCommand({ ApiId: open.ApiId, StageName: "dev" }))
    const jwt = await v2.send(new CreateApiCommand({ Name: "jwt-http", ProtocolType: "HTTP" }))
    const authz = await v2.send(new CreateAuthorizerCommand({ ApiId: jwt.ApiId, Name: "cognito", AuthorizerType: "JWT", IdentitySource: ["$request.header.Authorization"], JwtConfiguration: { Audience: ["app"], Issuer: "https://issuer.example.com" } }))
    await v2.send(new CreateRouteCommand({ ApiId: jwt.ApiId, RouteKey: "GET /items", AuthorizationType: "JWT", AuthorizerId: authz.AuthorizerId }))
    await v2.send(new CreateRouteCommand({ ApiId: jwt.ApiId, RouteKey: "OPTIONS /items", AuthorizationType: "NONE" }))
    await v2.send(new CreateStageCommand({ ApiId: jwt.ApiId, StageName: "prod", AccessLogSettings: { DestinationArn: `arn:aws:logs:${E}:${ACCOUNT}:log-group:http-access`, Format: "$context.requestId" } }))
    ids.openHttp = open.ApiId ?? ""
    ids.jwtHttp = jwt.ApiId ?? ""

    const os = c.get("opensearch", E)
    await os.send(
      new CreateDomainCommand({
        DomainName: "good-domain",
        EngineVersion: "OpenSearch_2.11",
        VPCOptions: { SubnetIds: subnetIds },
        EncryptionAtRestOptions: { Enabled: true },
        NodeToNodeEncryptionOptions: { Enabled: true },
        DomainEndpointOptions: { EnforceHTTPS: true, TLSSecurityPolicy: "Policy-Min-TLS-1-2-2019-07" },
        LogPublishingOptions: {
          AUDIT_LOGS: { Enabled: true, CloudWatchLogsLogGroupArn: `arn:aws:logs:${E}:${ACCOUNT}:log-group:os-audit` },
          ES_APPLICATION_LOGS: { Enabled: true, CloudWatchLogsLogGroupArn: `arn:aws:logs:${E}:${ACCOUNT}:log-group:os-app` },
        },
        AdvancedSecurityOptions: { Enabled: true, InternalUserDatabaseEnabled: false, MasterUserOptions: { MasterUserARN: `arn:aws:iam::${ACCOUNT}:role/os-admin` } },
        ClusterConfig: { InstanceCount: 3, ZoneAwarenessEnabled: true, DedicatedMasterEnabled: true, DedicatedMasterCount: 3 },
      }),
    )
    await os.send(new CreateDomainCommand({ DomainName: "open-domain", AccessPolicies: doc([{ Effect: "Allow", Principal: { AWS: "*" }, Action: "es:*", Resource: `arn:aws:es:${E}:${ACCOUNT}:domain/open-domain/*` }]) }))

    const ec = c.get("elasticache", E)
    await ec.send(new CreateCacheSubnetGroupCommand({ CacheSubnetGroupName: "private-cache", CacheSubnetGroupDescription: "private", SubnetIds: subnetIds }))
    await ec.send(
      new CreateReplicationGroupCommand({
        ReplicationGroupId: "good-redis",
        ReplicationGroupDescription: "good",
        Engine: "redis",
        CacheNodeType: "cache.t3.micro",
        NumCacheClusters: 2,
        AtRestEncryptionEnabled: true,
        TransitEncryptionEnabled: true,
        AuthToken: "a-very-long-auth-token-123456",
        AutomaticFailoverEnabled: true,
        MultiAZEnabled: true,
        SnapshotRetentionLimit: 7,
      }),
    )
    await ec.send(new CreateReplicationGroupCommand({ ReplicationGroupId: "bad-redis", ReplicationGroupDescription: "bad", Engine: "redis", CacheNodeType: "cache.t3.micro", NumCacheClusters: 1 }))
    await ec.send(new CreateCacheClusterCommand({ CacheClusterId: "good-memcached", Engine: "memcached", CacheNodeType: "cache.t3.micro", NumCacheNodes: 1, AutoMinorVersionUpgrade: true, CacheSubnetGroupName: "private-cache", TransitEncryptionEnabled: true }))
    await ec.send(new CreateCacheClusterCommand({ CacheClusterId: "bad-memcached", Engine: "memcached", CacheNodeType: "cache.t3.micro", NumCacheNodes: 1, AutoMinorVersionUpgrade: false }))

    const rs = c.get("redshift", E)
    await rs.send(new CreateClusterParameterGroupCommand({ ParameterGroupName: "tls-only", ParameterGroupFamily: "redshift-1.0", Description: "tls" }))
    await rs.send(
      new CreateClusterCommand({
        ClusterIdentifier: "good-dw",
        NodeType: "ra3.xlplus",
        MasterUsername: "dw_owner",
        MasterUserPassword: "Secret-Passw0rd",
        PubliclyAccessible: false,
        Encrypted: true,
        EnhancedVpcRouting: true,
        AllowVersionUpgrade: true,
        AutomatedSnapshotRetentionPeriod: 7,
        Port: 5440,
        ClusterParameterGroupName: "tls-only",
      }),
    )
    await rs.send(new EnableLoggingCommand({ ClusterIdentifier: "good-dw", BucketName: "dw-audit-logs" }))
    await rs.send(
      new CreateClusterCommand({ ClusterIdentifier: "bad-dw", NodeType: "ra3.xlplus", MasterUsername: "awsuser", MasterUserPassword: "Secret-Passw0rd", PubliclyAccessible: true, AllowVersionUpgrade: false, AutomatedSnapshotRetentionPeriod: 1 }),
    )

    const sm = c.get("secretsmanager", E)
    const secretPolicy = (principal: unknown) => doc([{ Sid: "Read", Effect: "Allow", Principal: principal, Action: "secretsmanager:GetSecretValue", Resource: "*" }])
    for (const [name, principal] of [["own-secret", { AWS: `arn:aws:iam::${ACCOUNT}:role/app` }], ["public-secret", "*"], ["partner-secret", { AWS: `arn:aws:iam::${OTHER_ACCOUNT}:root` }]] as const) {
      await sm.send(new CreateSecretCommand({ Name: name, SecretString: "s3cr3t" }))
      await sm.send(new PutResourcePolicyCommand({ SecretId: name, ResourcePolicy: secretPolicy(principal) }))
    }

    const kms = c.get("kms", E)
    const keyPolicy = (extra: unknown[]) => doc([{ Sid: "Root", Effect: "Allow", Principal: { AWS: `arn:aws:iam::${ACCOUNT}:root` }, Action: "kms:*", Resource: "*" }, ...extra])
    ids.ownKey = (await kms.send(new CreateKeyCommand({ Policy: keyPolicy([]) }))).KeyMetadata?.KeyId ?? ""
    ids.sharedKey = (await kms.send(new CreateKeyCommand({ Policy: keyPolicy([{ Sid: "Partner", Effect: "Allow", Principal: { AWS: `arn:aws:iam::${OTHER_ACCOUNT}:root` }, Action: ["kms:Decrypt", "kms:GenerateDataKey"], Resource: "*" }]) }))).KeyMetadata?.KeyId ?? ""
    ids.viaServiceKey = (
      await kms.send(
        new CreateKeyCommand({ Policy: keyPolicy([{ Sid: "PartnerViaS3", Effect: "Allow", Principal: { AWS: `arn:aws:iam::${OTHER_ACCOUNT}:root` }, Action: "kms:Decrypt", Resource: "*", Condition: { StringEquals: { "kms:ViaService": `s3.${E}.amazonaws.com` } } }]) }),
      )
    ).KeyMetadata?.KeyId ?? ""
    c.destroy()

    for (const s of ["apigateway", "opensearch", "elasticache", "redshift", "secretsmanager", "kms"]) r[s] = await scan(moto, s, { regions: [E] })
    // moto's API Gateway stages have no client certificate field at all: the compliant stage is stubbed.
    r.apiCert = await scan(moto, "apigateway", {
      regions: [E],
      checkIds: ["apigateway_restapi_stage_client_certificate"],
      stub: ({ command }) => (command === "GetStagesCommand" ? { item: [{ stageName: "prod", clientCertificateId: "cert-1" }] } : undefined),
    })
    // moto has no ModifyClusterParameterGroup and answers the default parameters for every group: the TLS-only group is stubbed.
    r.redshiftSsl = await scan(moto, "redshift", {
      regions: [E],
      checkIds: ["redshift_cluster_require_ssl"],
      stub: ({ command, input }) =>
        command === "DescribeClusterParametersCommand"
          ? { Parameters: [{ ParameterName: "require_ssl", ParameterValue: (input as { ParameterGroupName?: string }).ParameterGroupName === "tls-only" ? "true" : "false" }] }
          : undefined,
    })
  })
  afterAll(async () => {
    await moto?.stop()
  })

  it("API Gateway: unauthenticated methods and routes, public policy", () => {
    expectCases(res("apigateway"), "apigateway_restapi_methods_authorized", { compliant: [id("auth-api"), id("private-api")], nonCompliant: [id("open-api")] })
    expectCases(res("apigateway"), "apigateway_restapi_policy_not_public", { compliant: [id("auth-api")], nonCompliant: [id("open-api")] })
    expectCases(res("apigateway"), "apigatewayv2_routes_authorized", { compliant: [id("jwtHttp")], nonCompliant: [id("openHttp")] })
    expectCases(res("apigateway"), "apigatewayv2_stage_access_logging", { compliant: [`${id("jwtHttp")}/prod`], nonCompliant: [`${id("openHttp")}/dev`] })
  })

  it("API Gateway REST stages", () => {
    expectCases(res("apigateway"), "apigateway_restapi_stage_client_certificate", { nonCompliant: [`${id("auth-api")}/prod`, `${id("open-api")}/dev`] })
    expectCases(res("apiCert"), "apigateway_restapi_stage_client_certificate", { compliant: [`${id("auth-api")}/prod`] })
    for (const check of ["apigateway_restapi_stage_logging_enabled", "apigateway_restapi_stage_xray_tracing", "apigateway_restapi_stage_waf_attached", "apigateway_restapi_stage_cache_encrypted", "apigateway_restapi_stage_access_logging"]) {
      expectCases(res("apigateway"), check, { compliant: [`${id("auth-api")}/prod`], nonCompliant: [`${id("open-api")}/dev`] })
    }
  })

  it("OpenSearch domains", () => {
    for (const check of ["opensearch_domain_not_publicly_accessible", "opensearch_domain_in_vpc", "opensearch_domain_encryption_at_rest", "opensearch_domain_node_to_node_encryption", "opensearch_domain_https_tls12", "opensearch_domain_audit_logging", "opensearch_domain_error_logging", "opensearch_domain_fine_grained_access_control", "opensearch_domain_dedicated_master", "opensearch_domain_fault_tolerant"]) {
      expectCases(res("opensearch"), check, { compliant: ["good-domain"], nonCompliant: ["open-domain"] })
    }
  })

  it("ElastiCache replication groups and clusters", () => {
    for (const check of ["elasticache_replication_group_encrypted_at_rest", "elasticache_replication_group_encrypted_in_transit", "elasticache_replication_group_auth_enabled", "elasticache_replication_group_automatic_failover", "elasticache_replication_group_backup_enabled"]) {
      expectCases(res("elasticache"), check, { compliant: ["good-redis"], nonCompliant: ["bad-redis"] })
    }
    for (const check of ["elasticache_cluster_auto_minor_version_upgrade", "elasticache_cluster_not_default_subnet_group", "elasticache_memcached_cluster_encrypted_in_transit"]) {
      expectCases(res("elasticache"), check, { compliant: ["good-memcached"], nonCompliant: ["bad-memcached"] })
    }
  })

  it("Redshift clusters", () => {
    for (const check of ["redshift_cluster_public_access", "redshift_cluster_encrypted_at_rest", "redshift_cluster_automatic_upgrades", "redshift_cluster_automated_snapshots", "redshift_cluster_enhanced_vpc_routing", "redshift_cluster_default_admin_username", "redshift_cluster_default_port", "redshift_cluster_audit_logging"]) {
      expectCases(res("redshift"), check, { compliant: ["good-dw"], nonCompliant: ["bad-dw"] })
    }
    expectCases(res("redshift"), "redshift_cluster_require_ssl", { nonCompliant: ["good-dw", "bad-dw"] })
    expectCases(res("redshiftSsl"), "redshift_cluster_require_ssl", { compliant: ["good-dw"], nonCompliant: ["bad-dw"] })
  })

  it("Secrets Manager and KMS resource policies", () => {
    expectCases(res("secretsmanager"), "secretsmanager_secret_not_publicly_accessible", { compliant: ["own-secret", "partner-secret"], nonCompliant: ["public-secret"] })
    expectCases(res("secretsmanager"), "secretsmanager_secret_not_cross_account", { compliant: ["own-secret"], nonCompliant: ["partner-secret", "public-secret"] })
    expectCases(res("kms"), "kms_key_policy_not_cross_account", { compliant: [id("ownKey"), id("viaServiceKey")], nonCompliant: [id("sharedKey")] })
    expect(res("kms").errors).toEqual([])
  })
})
