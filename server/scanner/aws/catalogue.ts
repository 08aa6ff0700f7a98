/**
 * The AWS check catalogue: every check, the scan services they belong to, and a metadata listing (no evaluate
 * functions) for the API/UI. Which checks the emulator cannot exercise is recorded per check (`testedWith`).
 */
import type { CheckMeta } from "../check.ts"
import type { AwsCheck } from "./define-check.ts"
import { accessanalyzerChecks, accountChecks } from "./checks/account.ts"
import { dynamodbChecks } from "./checks/dynamodb.ts"
import { ecrChecks } from "./checks/ecr.ts"
import { efsChecks } from "./checks/efs.ts"
import { eksChecks } from "./checks/eks.ts"
import { elbv2Checks } from "./checks/elbv2.ts"
import { lambdaChecks } from "./checks/lambda.ts"
import { rdsChecks } from "./checks/rds.ts"
import { documentdbChecks, neptuneChecks } from "./checks/neptune.ts"
import { secretsmanagerChecks } from "./checks/secretsmanager.ts"
import { cloudtrailChecks } from "./checks/cloudtrail.ts"
import { cloudwatchChecks } from "./checks/cloudwatch.ts"
import { configChecks } from "./checks/config.ts"
import { guarddutyChecks, securityhubChecks } from "./checks/detection.ts"
import { ec2Checks } from "./checks/ec2.ts"
import { iamChecks } from "./checks/iam.ts"
import { kmsChecks } from "./checks/kms.ts"
import { snsChecks, sqsChecks } from "./checks/messaging.ts"
import { s3Checks } from "./checks/s3.ts"
import { vpcChecks } from "./checks/vpc.ts"
import { cloudfrontChecks } from "./checks/cloudfront.ts"
import { transferChecks } from "./checks/managed.ts"
import { ssmChecks } from "./checks/managed.ts"
import { cognitoChecks } from "./checks/managed.ts"
import { mqChecks } from "./checks/managed.ts"
import { kafkaChecks, organizationsChecks, route53Checks, sesChecks, wafv2Checks } from "./checks/edge.ts"
import { dmsChecks } from "./checks/managed.ts"
import { emrChecks } from "./checks/fleet.ts"
import { sagemakerChecks } from "./checks/fleet.ts"
import { ecsChecks } from "./checks/fleet.ts"
import { autoscalingChecks } from "./checks/fleet.ts"
import { elbChecks } from "./checks/fleet.ts"
import { eventbridgeChecks } from "./checks/platform.ts"
import { codebuildChecks } from "./checks/platform.ts"
import { cloudformationChecks } from "./checks/platform.ts"
import { backupChecks } from "./checks/platform.ts"
import { acmChecks } from "./checks/platform.ts"
import { glueChecks } from "./checks/analytics.ts"
import { athenaChecks } from "./checks/analytics.ts"
import { sfnChecks } from "./checks/analytics.ts"
import { firehoseChecks } from "./checks/analytics.ts"
import { kinesisChecks } from "./checks/analytics.ts"
import { redshiftChecks } from "./checks/redshift.ts"
import { elasticacheChecks } from "./checks/elasticache.ts"
import { opensearchChecks } from "./checks/opensearch.ts"
import { apigatewayChecks } from "./checks/apigateway.ts"

export interface AwsServiceInfo {
  /** Scan service id (one scan job per service). */
  readonly id: string
  readonly name: string
  /** Global services are read once per scan, not per region. */
  readonly global: boolean
}

export const awsServices: ReadonlyArray<AwsServiceInfo> = [
  { id: "iam", name: "IAM", global: true },
  { id: "account", name: "Account", global: true },
  { id: "accessanalyzer", name: "IAM Access Analyzer", global: false },
  { id: "s3", name: "S3", global: true },
  { id: "ec2", name: "EC2", global: false },
  { id: "vpc", name: "VPC", global: false },
  { id: "cloudtrail", name: "CloudTrail", global: false },
  { id: "config", name: "Config", global: false },
  { id: "kms", name: "KMS", global: false },
  { id: "cloudwatch", name: "CloudWatch", global: false },
  { id: "rds", name: "RDS", global: false },
  { id: "neptune", name: "Neptune", global: false },
  { id: "documentdb", name: "DocumentDB", global: false },
  { id: "efs", name: "EFS", global: false },
  { id: "lambda", name: "Lambda", global: false },
  { id: "elbv2", name: "ELB", global: false },
  { id: "sqs", name: "SQS", global: false },
  { id: "sns", name: "SNS", global: false },
  { id: "dynamodb", name: "DynamoDB", global: false },
  { id: "ecr", name: "ECR", global: false },
  { id: "eks", name: "EKS", global: false },
  { id: "secretsmanager", name: "Secrets Manager", global: false },
  { id: "guardduty", name: "GuardDuty", global: false },
  { id: "securityhub", name: "Security Hub", global: false },
  { id: "cloudfront", name: "CloudFront", global: true },
  { id: "transfer", name: "Transfer Family", global: false },
  { id: "ssm", name: "Systems Manager", global: false },
  { id: "cognito", name: "Cognito", global: false },
  { id: "mq", name: "Amazon MQ", global: false },
  { id: "dms", name: "Database Migration Service", global: false },
  { id: "emr", name: "EMR", global: false },
  { id: "sagemaker", name: "SageMaker", global: false },
  { id: "ecs", name: "ECS", global: false },
  { id: "autoscaling", name: "Auto Scaling", global: false },
  { id: "elb", name: "Classic Load Balancing", global: false },
  { id: "eventbridge", name: "EventBridge", global: false },
  { id: "codebuild", name: "CodeBuild", global: false },
  { id: "cloudformation", name: "CloudFormation", global: false },
  { id: "backup", name: "Backup", global: false },
  { id: "acm", name: "ACM", global: false },
  { id: "glue", name: "Glue", global: false },
  { id: "athena", name: "Athena", global: false },
  { id: "sfn", name: "Step Functions", global: false },
  { id: "firehose", name: "Data Firehose", global: false },
  { id: "kinesis", name: "Kinesis", global: false },
  { id: "redshift", name: "Redshift", global: false },
  { id: "elasticache", name: "ElastiCache", global: false },
  { id: "opensearch", name: "OpenSearch", global: false },
  { id: "apigateway", name: "API Gateway", global: false },
  { id: "organizations", name: "Organizations", global: true },
  { id: "route53", name: "Route 53", global: true },
  { id: "wafv2", name: "WAF", global: false },
  { id: "kafka", name: "MSK (Kafka)", global: false },
  { id: "ses", name: "SES", global: false },
]

export const awsChecks: ReadonlyArray<AwsCheck> = [
  ...iamChecks,
  ...s3Checks,
  ...ec2Checks,
  ...vpcChecks,
  ...cloudtrailChecks,
  ...configChecks,
  ...kmsChecks,
  ...cloudwatchChecks,
  ...securityhubChecks,
  ...guarddutyChecks,
  ...snsChecks,
  ...sqsChecks,
  ...rdsChecks,
  ...neptuneChecks,
  ...documentdbChecks,
  ...efsChecks,
  ...lambdaChecks,
  ...elbv2Checks,
  ...dynamodbChecks,
  ...ecrChecks,
  ...eksChecks,
  ...secretsmanagerChecks,
  ...accountChecks,
  ...accessanalyzerChecks,
  ...cloudfrontChecks,
  ...transferChecks,
  ...ssmChecks,
  ...cognitoChecks,
  ...mqChecks,
  ...organizationsChecks,
  ...route53Checks,
  ...wafv2Checks,
  ...kafkaChecks,
  ...sesChecks,
  ...dmsChecks,
  ...emrChecks,
  ...sagemakerChecks,
  ...ecsChecks,
  ...autoscalingChecks,
  ...elbChecks,
  ...eventbridgeChecks,
  ...codebuildChecks,
  ...cloudformationChecks,
  ...backupChecks,
  ...acmChecks,
  ...glueChecks,
  ...athenaChecks,
  ...sfnChecks,
  ...firehoseChecks,
  ...kinesisChecks,
  ...redshiftChecks,
  ...elasticacheChecks,
  ...opensearchChecks,
  ...apigatewayChecks,
]

export function checksForService(service: string): ReadonlyArray<AwsCheck> {
  return awsChecks.filter((c) => c.service === service)
}

/** Catalogue listing for the API/UI: metadata only. */
export function listAwsChecks(service?: string): ReadonlyArray<CheckMeta> {
  return awsChecks
    .filter((c) => service === undefined || c.service === service)
    .map(({ evaluate: _evaluate, ...meta }) => meta)
}

/** Services that have at least one check (what a full scan runs). */
export function scannableAwsServices(): ReadonlyArray<AwsServiceInfo> {
  return awsServices.filter((s) => awsChecks.some((c) => c.service === s.id))
}
