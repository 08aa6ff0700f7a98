/**
 * AWS SDK v3 client factory for one scan (or one remediation): one client per (service, region), all sharing
 * one keep-alive HTTP handler (the scan's, shared with its other service jobs, when one is given: ./scan-share.ts), the
 * same credentials (static keys, or keys that assume a role with an external
 * id), adaptive retry with backoff on throttling, and a middleware that counts the HTTP requests sent (the
 * benchmark compares this against the emulator floor).
 *
 * Endpoint override (moto, LocalStack): `endpoint` or AWS_ENDPOINT_URL. With an override S3 uses path-style
 * addressing, and S3 Control gets a fixed endpoint provider because its endpoint rules prefix the host with
 * `{AccountId}.`, which breaks any custom endpoint (docs: shared/cloud/moto.md §3).
 */
import { AsyncLocalStorage } from "node:async_hooks"
import { Agent as HttpAgent } from "node:http"
import { Agent as HttpsAgent } from "node:https"
import { NodeHttpHandler } from "@smithy/node-http-handler"
import type { DeserializeMiddleware, InitializeMiddleware, MiddlewareStack } from "@smithy/types"
import { AccessAnalyzerClient } from "@aws-sdk/client-accessanalyzer"
import { AccountClient } from "@aws-sdk/client-account"
import { CloudTrailClient } from "@aws-sdk/client-cloudtrail"
import { CloudWatchClient } from "@aws-sdk/client-cloudwatch"
import { CloudWatchLogsClient } from "@aws-sdk/client-cloudwatch-logs"
import { ConfigServiceClient } from "@aws-sdk/client-config-service"
import { DynamoDBClient } from "@aws-sdk/client-dynamodb"
import { EC2Client } from "@aws-sdk/client-ec2"
import { ECRClient } from "@aws-sdk/client-ecr"
import { EFSClient } from "@aws-sdk/client-efs"
import { EKSClient } from "@aws-sdk/client-eks"
import { ElasticLoadBalancingV2Client } from "@aws-sdk/client-elastic-load-balancing-v2"
import { GuardDutyClient } from "@aws-sdk/client-guardduty"
import { IAMClient } from "@aws-sdk/client-iam"
import { KMSClient } from "@aws-sdk/client-kms"
import { LambdaClient } from "@aws-sdk/client-lambda"
import { RDSClient } from "@aws-sdk/client-rds"
import { S3Client } from "@aws-sdk/client-s3"
import { S3ControlClient } from "@aws-sdk/client-s3-control"
import { SecretsManagerClient } from "@aws-sdk/client-secrets-manager"
import { SecurityHubClient } from "@aws-sdk/client-securityhub"
import { SNSClient } from "@aws-sdk/client-sns"
import { SQSClient } from "@aws-sdk/client-sqs"
import { AssumeRoleCommand, STSClient } from "@aws-sdk/client-sts"
import { ElastiCacheClient } from "@aws-sdk/client-elasticache"
import { RedshiftClient } from "@aws-sdk/client-redshift"
import { OpenSearchClient } from "@aws-sdk/client-opensearch"
import { CloudFrontClient } from "@aws-sdk/client-cloudfront"
import { APIGatewayClient } from "@aws-sdk/client-api-gateway"
import { ApiGatewayV2Client } from "@aws-sdk/client-apigatewayv2"
import { ElasticLoadBalancingClient } from "@aws-sdk/client-elastic-load-balancing"
import { AutoScalingClient } from "@aws-sdk/client-auto-scaling"
import { ECSClient } from "@aws-sdk/client-ecs"
import { KinesisClient } from "@aws-sdk/client-kinesis"
import { FirehoseClient } from "@aws-sdk/client-firehose"
import { SFNClient } from "@aws-sdk/client-sfn"
import { GlueClient } from "@aws-sdk/client-glue"
import { AthenaClient } from "@aws-sdk/client-athena"
import { Route53Client } from "@aws-sdk/client-route-53"
import { ACMClient } from "@aws-sdk/client-acm"
import { BackupClient } from "@aws-sdk/client-backup"
import { SSMClient } from "@aws-sdk/client-ssm"
import { CodeBuildClient } from "@aws-sdk/client-codebuild"
import { CloudFormationClient } from "@aws-sdk/client-cloudformation"
import { CognitoIdentityProviderClient } from "@aws-sdk/client-cognito-identity-provider"
import { SageMakerClient } from "@aws-sdk/client-sagemaker"
import { EMRClient } from "@aws-sdk/client-emr"
import { WAFV2Client } from "@aws-sdk/client-wafv2"
import { OrganizationsClient } from "@aws-sdk/client-organizations"
import { EventBridgeClient } from "@aws-sdk/client-eventbridge"
import { KafkaClient } from "@aws-sdk/client-kafka"
import { MqClient } from "@aws-sdk/client-mq"
import { TransferClient } from "@aws-sdk/client-transfer"
import { SESv2Client } from "@aws-sdk/client-sesv2"
import { DatabaseMigrationServiceClient } from "@aws-sdk/client-database-migration-service"
import { httpStatus } from "./errors.ts"

/** Long-lived keys, optionally used to assume `roleArn` (cross-account audit role, with `externalId`). */
export interface AwsCredentialsInput {
  readonly accessKeyId: string
  readonly secretAccessKey: string
  readonly sessionToken?: string
  readonly roleArn?: string
  readonly externalId?: string
  readonly roleSessionName?: string
}

interface ResolvedCredentials {
  readonly accessKeyId: string
  readonly secretAccessKey: string
  readonly sessionToken?: string
  readonly expiration?: Date
}

/** A command the stub answers instead of the network (emulator gaps in tests). */
export interface StubCall {
  readonly client: string
  readonly command: string
  readonly region: string
  readonly input: unknown
}
/** Returns the command's output, throws an SDK-like error, or returns undefined to let the call through. */
export type CommandStub = (call: StubCall) => Record<string, unknown> | undefined

export interface AwsClientOptions {
  readonly credentials: AwsCredentialsInput
  /** Custom endpoint for every service (moto); default AWS_ENDPOINT_URL, else the real AWS endpoints. */
  readonly endpoint?: string
  /** Region for global services and STS. */
  readonly homeRegion?: string
  /** SDK attempts per call, including the first (default 5). */
  readonly maxAttempts?: number
  readonly maxSockets?: number
  readonly requestTimeoutMs?: number
  /**
   * The HTTP handler to send through, owned by the caller (the scan's, so its service jobs reuse each other's
   * keep-alive connections instead of each opening its own: ./scan-share.ts); `maxSockets` and `requestTimeoutMs` are
   * then the handler's. Default: one of this client set's own, closed by `destroy()`.
   */
  readonly requestHandler?: NodeHttpHandler
  readonly stub?: CommandStub
  /**
   * Answers of these `Client.Command` reads are kept in `shared.reads` and reused by every client set built with the
   * same map (the service jobs of one scan: ./scan-share.ts). Only the first asker sends the request.
   */
  readonly shared?: { readonly commands: ReadonlySet<string>; readonly reads: Map<string, Promise<unknown>> }
}

const clientConstructors = {
  accessanalyzer: AccessAnalyzerClient,
  account: AccountClient,
  cloudtrail: CloudTrailClient,
  cloudwatch: CloudWatchClient,
  logs: CloudWatchLogsClient,
  config: ConfigServiceClient,
  dynamodb: DynamoDBClient,
  ec2: EC2Client,
  ecr: ECRClient,
  efs: EFSClient,
  eks: EKSClient,
  elbv2: ElasticLoadBalancingV2Client,
  guardduty: GuardDutyClient,
  iam: IAMClient,
  kms: KMSClient,
  lambda: LambdaClient,
  rds: RDSClient,
  s3: S3Client,
  s3control: S3ControlClient,
  secretsmanager: SecretsManagerClient,
  securityhub: SecurityHubClient,
  sns: SNSClient,
  sqs: SQSClient,
  sts: STSClient,
  elasticache: ElastiCacheClient,
  redshift: RedshiftClient,
  opensearch: OpenSearchClient,
  cloudfront: CloudFrontClient,
  apigateway: APIGatewayClient,
  apigatewayv2: ApiGatewayV2Client,
  elb: ElasticLoadBalancingClient,
  autoscaling: AutoScalingClient,
  ecs: ECSClient,
  kinesis: KinesisClient,
  firehose: FirehoseClient,
  sfn: SFNClient,
  glue: GlueClient,
  athena: AthenaClient,
  route53: Route53Client,
  acm: ACMClient,
  backup: BackupClient,
  ssm: SSMClient,
  codebuild: CodeBuildClient,
  cloudformation: CloudFormationClient,
  cognito: CognitoIdentityProviderClient,
  sagemaker: SageMakerClient,
  emr: EMRClient,
  wafv2: WAFV2Client,
  organizations: OrganizationsClient,
  eventbridge: EventBridgeClient,
  kafka: KafkaClient,
  mq: MqClient,
  transfer: TransferClient,
  sesv2: SESv2Client,
  dms: DatabaseMigrationServiceClient,
} as const

export type ClientName = keyof typeof clientConstructors
export type ClientOf<N extends ClientName> = InstanceType<(typeof clientConstructors)[N]>

export interface ApiCallStats {
  /** HTTP requests sent, retries included. */
  readonly total: number
  /** Requests per `Client.Command` (e.g. `S3Client.GetBucketPolicyCommand`). */
  readonly byOperation: Readonly<Record<string, number>>
}

/**
 * The calls of one job when several jobs share a client set (a scan's service jobs: ./scan-share.ts): `countCalls`
 * runs the job with its own counts, and every HTTP request a client sends on the job's behalf (the job's code started
 * it) is counted there too, beside the client set's own `stats()`.
 */
const jobCalls = new AsyncLocalStorage<{ total: number; byOperation: Record<string, number> }>()

/** Runs `job`, counting the HTTP requests its calls send through any client set (see jobCalls). */
export async function countCalls<A>(job: () => Promise<A>): Promise<{ readonly result: A; readonly calls: ApiCallStats }> {
  const calls = { total: 0, byOperation: {} as Record<string, number> }
  const result = await jobCalls.run(calls, job)
  return { result, calls: { total: calls.total, byOperation: { ...calls.byOperation } } }
}

/** The calls counted so far for the job running this code (inside `countCalls`), else undefined. */
export function callsSoFar(): ApiCallStats | undefined {
  const calls = jobCalls.getStore()
  return calls === undefined ? undefined : { total: calls.total, byOperation: { ...calls.byOperation } }
}

export interface AwsClients {
  get<N extends ClientName>(name: N, region: string): ClientOf<N>
  readonly homeRegion: string
  readonly endpoint: string | undefined
  stats(): ApiCallStats
  /** Closes every socket of its own handler (not of a caller's `requestHandler`); the factory is unusable afterwards. */
  destroy(): void
}

/** Credentials provider that assumes the role once and again 5 minutes before the session expires. */
function roleProvider(
  input: AwsCredentialsInput & { readonly roleArn: string },
  sts: STSClient,
): () => Promise<ResolvedCredentials> {
  let cached: ResolvedCredentials | undefined
  let pending: Promise<ResolvedCredentials> | undefined
  const refresh = async (): Promise<ResolvedCredentials> => {
    const out = await sts.send(
      new AssumeRoleCommand({
        RoleArn: input.roleArn,
        RoleSessionName: input.roleSessionName ?? "cloud-audit-scanner",
        ...(input.externalId === undefined ? {} : { ExternalId: input.externalId }),
        DurationSeconds: 3600,
      }),
    )
    const c = out.Credentials
    if (c?.AccessKeyId === undefined || c.SecretAccessKey === undefined) {
      throw new Error(`AssumeRole ${input.roleArn} returned no credentials`)
    }
    return {
      accessKeyId: c.AccessKeyId,
      secretAccessKey: c.SecretAccessKey,
      ...(c.SessionToken === undefined ? {} : { sessionToken: c.SessionToken }),
      ...(c.Expiration === undefined ? {} : { expiration: c.Expiration }),
    }
  }
  return async () => {
    const fresh = cached !== undefined && (cached.expiration === undefined || cached.expiration.getTime() - Date.now() > 5 * 60_000)
    if (fresh && cached !== undefined) return cached
    pending ??= refresh().finally(() => {
      pending = undefined
    })
    cached = await pending
    return cached
  }
}

/** A keep-alive HTTP handler for AWS clients (`maxSockets` per host, default 32; every call times out after 60 s). */
export function makeHttpHandler(options: { readonly maxSockets?: number; readonly requestTimeoutMs?: number } = {}): NodeHttpHandler {
  const maxSockets = options.maxSockets ?? 32
  return new NodeHttpHandler({
    httpAgent: new HttpAgent({ keepAlive: true, maxSockets }),
    httpsAgent: new HttpsAgent({ keepAlive: true, maxSockets }),
    connectionTimeout: 5_000,
    requestTimeout: options.requestTimeoutMs ?? 60_000,
  })
}

/**
 * The SDK settings a client would otherwise resolve on its own from the environment and the shared config files
 * (~/.aws/config), resolved once per process. Each client resolves them lazily through a chain of providers whose
 * misses throw and catch an error apiece; a scan builds a client per (service, region) and a fleet scan a set per
 * member, so that chain cost more CPU than the client's first call itself (bench/sdk-floor.ts). The product never
 * reads profiles (credentials come from the account), so only the environment counts here: AWS_USE_FIPS_ENDPOINT and
 * AWS_USE_DUALSTACK_ENDPOINT keep their documented meaning. Checksums are computed and validated only where an
 * operation requires them (the SDK's "WHEN_REQUIRED"): a scanner's reads carry no payload to protect.
 */
let settings: Record<string, unknown> | undefined
const envFlag = (name: string): boolean => (process.env[name] ?? "").toLowerCase() === "true"
export const processSettings = (): Record<string, unknown> =>
  (settings ??= {
    defaultsMode: "legacy",
    useFipsEndpoint: envFlag("AWS_USE_FIPS_ENDPOINT"),
    useDualstackEndpoint: envFlag("AWS_USE_DUALSTACK_ENDPOINT"),
    authSchemePreference: [],
    userAgentAppId: "cloud-audit-scanner",
    requestChecksumCalculation: "WHEN_REQUIRED",
    responseChecksumValidation: "WHEN_REQUIRED",
    useArnRegion: false,
  })

export function makeAwsClients(options: AwsClientOptions): AwsClients {
  const endpoint = options.endpoint ?? (process.env["AWS_ENDPOINT_URL"] || undefined)
  const homeRegion = options.homeRegion ?? "us-east-1"
  const ownHandler = options.requestHandler === undefined
  const requestHandler =
    options.requestHandler ??
    makeHttpHandler({
      ...(options.maxSockets === undefined ? {} : { maxSockets: options.maxSockets }),
      ...(options.requestTimeoutMs === undefined ? {} : { requestTimeoutMs: options.requestTimeoutMs }),
    })
  let total = 0
  const byOperation: Record<string, number> = {}
  const cache = new Map<string, ClientOf<ClientName>>()

  const staticCredentials: ResolvedCredentials = {
    accessKeyId: options.credentials.accessKeyId,
    secretAccessKey: options.credentials.secretAccessKey,
    ...(options.credentials.sessionToken === undefined ? {} : { sessionToken: options.credentials.sessionToken }),
  }

  const baseConfig = (region: string, credentials: ResolvedCredentials | (() => Promise<ResolvedCredentials>)) => ({
    region,
    credentials,
    requestHandler,
    maxAttempts: options.maxAttempts ?? 5,
    retryMode: "adaptive",
    ...processSettings(),
    ...(endpoint === undefined ? {} : { endpoint }),
  })

  const instrument = (client: ClientOf<ClientName>, region: string) => {
    const stack = client.middlewareStack as unknown as MiddlewareStack<object, object>
    // Innermost middleware (deserialize step, low priority): runs once per HTTP attempt, after retries are decided.
    const counter: DeserializeMiddleware<object, object> = (next, context) => async (args) => {
      total++
      const key = `${String(context.clientName)}.${String(context.commandName)}`
      byOperation[key] = (byOperation[key] ?? 0) + 1
      const job = jobCalls.getStore()
      if (job !== undefined) {
        job.total++
        job.byOperation[key] = (job.byOperation[key] ?? 0) + 1
      }
      return next(args)
    }
    stack.add(counter, { step: "deserialize", priority: "low", name: "cloudAuditApiCallCounter" })
    const shared = options.shared
    if (shared !== undefined) {
      const memo: InitializeMiddleware<object, object> = (next, context) => async (args) => {
        const command = `${String(context.clientName)}.${String(context.commandName)}`
        if (!shared.commands.has(command)) return next(args)
        const key = `${region}|${command}|${JSON.stringify(args.input)}`
        const known = shared.reads.get(key)
        if (known !== undefined) {
          try {
            return { output: (await known) as object, response: undefined }
          } catch (error) {
            // The asker's own call was aborted (its job ended): this caller is still running, so it asks itself.
            if (error instanceof Error && error.name === "AbortError") return next(args)
            throw error
          }
        }
        const pending = next(args)
        const answer = pending.then((r) => r.output)
        shared.reads.set(key, answer)
        // A failed read is not kept: the next asker tries again (each waiting caller still gets this failure). A 404
        // ("no Object Lock configuration", "no such policy") is the answer itself and is kept.
        answer.catch((error: unknown) => {
          if (httpStatus(error) !== 404 && shared.reads.get(key) === answer) shared.reads.delete(key)
        })
        return pending
      }
      // Added before the stub, so it wraps it: stubbed answers (emulator gaps) are shared like real ones.
      stack.add(memo, { step: "initialize", priority: "high", name: "cloudAuditSharedReads" })
    }
    const stub = options.stub
    if (stub !== undefined) {
      const stubMiddleware: InitializeMiddleware<object, object> = (next, context) => async (args) => {
        const output = stub({
          client: String(context.clientName),
          command: String(context.commandName),
          region,
          input: args.input,
        })
        if (output === undefined) return next(args)
        return { output: { $metadata: { httpStatusCode: 200 }, ...output }, response: undefined }
      }
      stack.add(stubMiddleware, { step: "initialize", priority: "high", name: "cloudAuditCommandStub" })
    }
    return client
  }

  const makeClient = (name: ClientName, region: string, credentials: ResolvedCredentials | (() => Promise<ResolvedCredentials>)) => {
    const config = baseConfig(region, credentials)
    switch (name) {
      case "s3":
        return instrument(new S3Client({ ...config, forcePathStyle: endpoint !== undefined }), region)
      case "s3control":
        return instrument(
          new S3ControlClient(
            endpoint === undefined ? config : { ...config, endpointProvider: () => ({ url: new URL(endpoint) }) },
          ),
          region,
        )
      default: {
        const Ctor = clientConstructors[name] as new (c: typeof config) => ClientOf<ClientName>
        return instrument(new Ctor(config), region)
      }
    }
  }

  const { roleArn } = options.credentials
  const credentials =
    roleArn === undefined
      ? staticCredentials
      : roleProvider({ ...options.credentials, roleArn }, makeClient("sts", homeRegion, staticCredentials) as STSClient)

  return {
    homeRegion,
    endpoint,
    get<N extends ClientName>(name: N, region: string): ClientOf<N> {
      const key = `${name}:${region}`
      let client = cache.get(key)
      if (client === undefined) {
        client = makeClient(name, region, credentials)
        cache.set(key, client)
      }
      return client as ClientOf<N>
    },
    stats: () => ({ total, byOperation: { ...byOperation } }),
    destroy: () => {
      if (ownHandler) requestHandler.destroy()
      cache.clear()
    },
  }
}
