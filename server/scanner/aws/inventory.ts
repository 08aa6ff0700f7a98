/**
 * The scan inventory: one section per collector, filled once per scan, plus the collection errors. Checks
 * declare the inputs (`uses`, e.g. "s3.policy") they read; the engine runs exactly the collectors those inputs
 * belong to and hands the check an inventory in which those sections are present.
 */
import type { CollectionError } from "../check.ts"
import type { CollectContext } from "./context.ts"
import { collectAccount, accountResourceTypes, type AccountInventory } from "./collectors/account.ts"
import { collectAccessAnalyzer, accessanalyzerResourceTypes, type AccessAnalyzerInventory } from "./collectors/accessanalyzer.ts"
import { collectDynamoDb, dynamodbResourceTypes, type DynamoDbInventory } from "./collectors/dynamodb.ts"
import { collectEcr, ecrResourceTypes, type EcrInventory } from "./collectors/ecr.ts"
import { collectEfs, efsResourceTypes, type EfsInventory } from "./collectors/efs.ts"
import { collectEks, eksResourceTypes, type EksInventory } from "./collectors/eks.ts"
import { collectElbv2, elbv2ResourceTypes, type Elbv2Inventory } from "./collectors/elbv2.ts"
import { collectLambda, lambdaResourceTypes, type LambdaInventory } from "./collectors/lambda.ts"
import { collectRds, rdsResourceTypes, type RdsInventory } from "./collectors/rds.ts"
import { collectSecretsManager, secretsmanagerResourceTypes, type SecretsManagerInventory } from "./collectors/secretsmanager.ts"
import { cloudtrailResourceTypes, collectCloudTrail, type CloudTrailInventory } from "./collectors/cloudtrail.ts"
import { cloudwatchResourceTypes, collectCloudWatch, type CloudWatchInventory } from "./collectors/cloudwatch.ts"
import { collectConfig, configResourceTypes, type ConfigInventory } from "./collectors/config.ts"
import { collectEc2, ec2ResourceTypes, type Ec2Inventory } from "./collectors/ec2.ts"
import { collectGuardDuty, guarddutyResourceTypes, type GuardDutyInventory } from "./collectors/guardduty.ts"
import { collectIam, iamResourceTypes, type IamInventory } from "./collectors/iam.ts"
import { collectKms, kmsResourceTypes, type KmsInventory } from "./collectors/kms.ts"
import { collectLogs, logsResourceTypes, type LogsInventory } from "./collectors/logs.ts"
import { collectS3, s3ResourceTypes, type S3Inventory } from "./collectors/s3.ts"
import { collectSecurityHub, securityhubResourceTypes, type SecurityHubInventory } from "./collectors/securityhub.ts"
import { collectSns, snsResourceTypes, type SnsInventory } from "./collectors/sns.ts"
import { collectSqs, sqsResourceTypes, type SqsInventory } from "./collectors/sqs.ts"
import { collectCloudFront, cloudfrontResourceTypes, type CloudFrontInventory } from "./collectors/cloudfront.ts"
import { collectTransfer, transferResourceTypes, type TransferInventory } from "./collectors/managed.ts"
import { collectSsm, ssmResourceTypes, type SsmInventory } from "./collectors/managed.ts"
import { collectCognito, cognitoResourceTypes, type CognitoInventory } from "./collectors/managed.ts"
import { collectMq, mqResourceTypes, type MqInventory } from "./collectors/managed.ts"
import { collectDms, dmsResourceTypes, type DmsInventory } from "./collectors/managed.ts"
import { collectEmr, emrResourceTypes, type EmrInventory } from "./collectors/fleet.ts"
import { collectSageMaker, sagemakerResourceTypes, type SageMakerInventory } from "./collectors/fleet.ts"
import { collectEcs, ecsResourceTypes, type EcsInventory } from "./collectors/fleet.ts"
import { collectAutoScaling, autoscalingResourceTypes, type AutoScalingInventory } from "./collectors/fleet.ts"
import { collectElb, elbResourceTypes, type ElbInventory } from "./collectors/fleet.ts"
import { collectEventBridge, eventbridgeResourceTypes, type EventBridgeInventory } from "./collectors/platform.ts"
import { collectCodeBuild, codebuildResourceTypes, type CodeBuildInventory } from "./collectors/platform.ts"
import { collectCloudFormation, cloudformationResourceTypes, type CloudFormationInventory } from "./collectors/platform.ts"
import { collectBackup, backupResourceTypes, type BackupInventory } from "./collectors/platform.ts"
import { collectAcm, acmResourceTypes, type AcmInventory } from "./collectors/platform.ts"
import { collectGlue, glueResourceTypes, type GlueInventory } from "./collectors/analytics.ts"
import { collectAthena, athenaResourceTypes, type AthenaInventory } from "./collectors/analytics.ts"
import { collectSfn, sfnResourceTypes, type SfnInventory } from "./collectors/analytics.ts"
import { collectFirehose, firehoseResourceTypes, type FirehoseInventory } from "./collectors/analytics.ts"
import { collectKinesis, kinesisResourceTypes, type KinesisInventory } from "./collectors/analytics.ts"
import { collectRedshift, redshiftResourceTypes, type RedshiftInventory } from "./collectors/redshift.ts"
import { collectElastiCache, elasticacheResourceTypes, type ElastiCacheInventory } from "./collectors/elasticache.ts"
import { collectOpenSearch, opensearchResourceTypes, type OpenSearchInventory } from "./collectors/opensearch.ts"
import { collectApiGateway, apigatewayResourceTypes, type ApiGatewayInventory } from "./collectors/apigateway.ts"
import { collectRoute53, collectSes, collectWafv2, route53ResourceTypes, sesResourceTypes, wafv2ResourceTypes, type Route53Inventory, type SesInventory, type Wafv2Inventory } from "./collectors/edge.ts"
import { collectOrganizations, organizationsResourceTypes, type OrganizationsInventory } from "./collectors/governance.ts"
import { collectKafka, kafkaResourceTypes, type KafkaInventory } from "./collectors/kafka.ts"

export interface Inventories {
  readonly account: AccountInventory
  readonly accessanalyzer: AccessAnalyzerInventory
  readonly dynamodb: DynamoDbInventory
  readonly ecr: EcrInventory
  readonly efs: EfsInventory
  readonly eks: EksInventory
  readonly elbv2: Elbv2Inventory
  readonly lambda: LambdaInventory
  readonly rds: RdsInventory
  readonly secretsmanager: SecretsManagerInventory
  readonly cloudtrail: CloudTrailInventory
  readonly cloudwatch: CloudWatchInventory
  readonly config: ConfigInventory
  readonly ec2: Ec2Inventory
  readonly guardduty: GuardDutyInventory
  readonly iam: IamInventory
  readonly kms: KmsInventory
  readonly logs: LogsInventory
  readonly s3: S3Inventory
  readonly securityhub: SecurityHubInventory
  readonly sns: SnsInventory
  readonly apigateway: ApiGatewayInventory
  readonly opensearch: OpenSearchInventory
  readonly elasticache: ElastiCacheInventory
  readonly redshift: RedshiftInventory
  readonly kinesis: KinesisInventory
  readonly firehose: FirehoseInventory
  readonly sfn: SfnInventory
  readonly athena: AthenaInventory
  readonly glue: GlueInventory
  readonly acm: AcmInventory
  readonly backup: BackupInventory
  readonly cloudformation: CloudFormationInventory
  readonly codebuild: CodeBuildInventory
  readonly eventbridge: EventBridgeInventory
  readonly elb: ElbInventory
  readonly autoscaling: AutoScalingInventory
  readonly ecs: EcsInventory
  readonly sagemaker: SageMakerInventory
  readonly emr: EmrInventory
  readonly dms: DmsInventory
  readonly mq: MqInventory
  readonly cognito: CognitoInventory
  readonly ssm: SsmInventory
  readonly transfer: TransferInventory
  readonly cloudfront: CloudFrontInventory
  readonly sqs: SqsInventory
  readonly route53: Route53Inventory
  readonly wafv2: Wafv2Inventory
  readonly ses: SesInventory
  readonly organizations: OrganizationsInventory
  readonly kafka: KafkaInventory
}

export type CollectorKey = keyof Inventories

export const collectors: { readonly [K in CollectorKey]: (ctx: CollectContext) => Promise<Inventories[K]> } = {
  account: collectAccount,
  accessanalyzer: collectAccessAnalyzer,
  dynamodb: collectDynamoDb,
  ecr: collectEcr,
  efs: collectEfs,
  eks: collectEks,
  elbv2: collectElbv2,
  lambda: collectLambda,
  rds: collectRds,
  secretsmanager: collectSecretsManager,
  cloudtrail: collectCloudTrail,
  cloudwatch: collectCloudWatch,
  config: collectConfig,
  ec2: collectEc2,
  guardduty: collectGuardDuty,
  iam: collectIam,
  kms: collectKms,
  logs: collectLogs,
  s3: collectS3,
  securityhub: collectSecurityHub,
  sns: collectSns,
  apigateway: collectApiGateway,
  opensearch: collectOpenSearch,
  elasticache: collectElastiCache,
  redshift: collectRedshift,
  kinesis: collectKinesis,
  firehose: collectFirehose,
  sfn: collectSfn,
  athena: collectAthena,
  glue: collectGlue,
  acm: collectAcm,
  backup: collectBackup,
  cloudformation: collectCloudFormation,
  codebuild: collectCodeBuild,
  eventbridge: collectEventBridge,
  elb: collectElb,
  autoscaling: collectAutoScaling,
  ecs: collectEcs,
  sagemaker: collectSageMaker,
  emr: collectEmr,
  dms: collectDms,
  mq: collectMq,
  cognito: collectCognito,
  ssm: collectSsm,
  transfer: collectTransfer,
  cloudfront: collectCloudFront,
  sqs: collectSqs,
  route53: collectRoute53,
  wafv2: collectWafv2,
  ses: collectSes,
  organizations: collectOrganizations,
  kafka: collectKafka,
}

export const resourceTypes = [
  ...accountResourceTypes,
  ...accessanalyzerResourceTypes,
  ...dynamodbResourceTypes,
  ...ecrResourceTypes,
  ...efsResourceTypes,
  ...eksResourceTypes,
  ...elbv2ResourceTypes,
  ...lambdaResourceTypes,
  ...rdsResourceTypes,
  ...secretsmanagerResourceTypes,
  ...cloudtrailResourceTypes,
  ...cloudwatchResourceTypes,
  ...configResourceTypes,
  ...ec2ResourceTypes,
  ...guarddutyResourceTypes,
  ...iamResourceTypes,
  ...kmsResourceTypes,
  ...logsResourceTypes,
  ...s3ResourceTypes,
  ...securityhubResourceTypes,
  ...snsResourceTypes,
  ...apigatewayResourceTypes,
  ...opensearchResourceTypes,
  ...elasticacheResourceTypes,
  ...redshiftResourceTypes,
  ...kinesisResourceTypes,
  ...firehoseResourceTypes,
  ...sfnResourceTypes,
  ...athenaResourceTypes,
  ...glueResourceTypes,
  ...acmResourceTypes,
  ...backupResourceTypes,
  ...cloudformationResourceTypes,
  ...codebuildResourceTypes,
  ...eventbridgeResourceTypes,
  ...elbResourceTypes,
  ...autoscalingResourceTypes,
  ...ecsResourceTypes,
  ...sagemakerResourceTypes,
  ...emrResourceTypes,
  ...dmsResourceTypes,
  ...mqResourceTypes,
  ...cognitoResourceTypes,
  ...ssmResourceTypes,
  ...transferResourceTypes,
  ...cloudfrontResourceTypes,
  ...sqsResourceTypes,
  ...route53ResourceTypes,
  ...wafv2ResourceTypes,
  ...sesResourceTypes,
  ...organizationsResourceTypes,
  ...kafkaResourceTypes,
] as const

export type ResourceType = (typeof resourceTypes)[number]

export type CollectorOf<R extends string> = R extends `${infer C}.${string}` ? (C extends CollectorKey ? C : never) : never

export interface ScanInventory extends Partial<Inventories> {
  readonly accountId: string
  readonly partition: string
  readonly regions: ReadonlyArray<string>
  readonly homeRegion: string
  readonly collectedAt: Date
  readonly errors: ReadonlyArray<CollectionError>
}

export type InventoryWith<K extends CollectorKey> = ScanInventory & { readonly [P in K]: Inventories[P] }

export function collectorOf(resourceType: string): CollectorKey {
  const key = resourceType.slice(0, resourceType.indexOf("."))
  if (!(key in collectors)) throw new Error(`Unknown inventory input ${resourceType}`)
  return key as CollectorKey
}
