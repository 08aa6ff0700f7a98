/**
 * Seeds moto with `perService` resources in every service the AWS scanner covers that moto can emulate (one region),
 * for bench/scan-breadth.ts. Straight against moto (not through the counting proxy). Each service seeds on its own:
 * when moto refuses a service's seed, the error is kept and reported, and the other services still seed.
 * Per-account or per-region settings (account contact, Config recorder, GuardDuty detector, Security Hub, EMR block
 * public access, Glue catalog encryption, the organization) are one resource each.
 * The resource shapes follow the per-service moto tests in tests/scanner (fleet, analytics-platform, edge, managed,
 * services, exposure-services, cloudfront, rds, logging).
 */
import { performance } from "node:perf_hooks"
import { ImportCertificateCommand, RequestCertificateCommand } from "@aws-sdk/client-acm"
import { PutAlternateContactCommand } from "@aws-sdk/client-account"
import { CreateDeploymentCommand, CreateRestApiCommand, GetResourcesCommand, PutIntegrationCommand, PutMethodCommand } from "@aws-sdk/client-api-gateway"
import { CreateApiCommand, CreateStageCommand } from "@aws-sdk/client-apigatewayv2"
import { CreateWorkGroupCommand } from "@aws-sdk/client-athena"
import { CreateAutoScalingGroupCommand, CreateLaunchConfigurationCommand } from "@aws-sdk/client-auto-scaling"
import { CreateBackupPlanCommand, CreateBackupVaultCommand } from "@aws-sdk/client-backup"
import { CreateStackCommand } from "@aws-sdk/client-cloudformation"
import { CreateDistributionCommand } from "@aws-sdk/client-cloudfront"
import { CreateTrailCommand } from "@aws-sdk/client-cloudtrail"
import { PutMetricAlarmCommand } from "@aws-sdk/client-cloudwatch"
import { CreateLogGroupCommand } from "@aws-sdk/client-cloudwatch-logs"
import { CreateProjectCommand } from "@aws-sdk/client-codebuild"
import { CreateUserPoolCommand } from "@aws-sdk/client-cognito-identity-provider"
import { PutConfigurationRecorderCommand, PutDeliveryChannelCommand, StartConfigurationRecorderCommand } from "@aws-sdk/client-config-service"
import { CreateTableCommand } from "@aws-sdk/client-dynamodb"
import { AuthorizeSecurityGroupIngressCommand, CreateSecurityGroupCommand, CreateVpcCommand, DescribeSubnetsCommand } from "@aws-sdk/client-ec2"
import { CreateRepositoryCommand } from "@aws-sdk/client-ecr"
import { CreateClusterCommand as CreateEcsClusterCommand, RegisterTaskDefinitionCommand } from "@aws-sdk/client-ecs"
import { CreateFileSystemCommand } from "@aws-sdk/client-efs"
import { CreateClusterCommand as CreateEksClusterCommand } from "@aws-sdk/client-eks"
import { CreateLoadBalancerCommand as CreateClassicLoadBalancerCommand } from "@aws-sdk/client-elastic-load-balancing"
import { CreateListenerCommand, CreateLoadBalancerCommand, CreateTargetGroupCommand } from "@aws-sdk/client-elastic-load-balancing-v2"
import { CreateReplicationGroupCommand } from "@aws-sdk/client-elasticache"
import { PutBlockPublicAccessConfigurationCommand } from "@aws-sdk/client-emr"
import { CreateEventBusCommand } from "@aws-sdk/client-eventbridge"
import { CreateDeliveryStreamCommand } from "@aws-sdk/client-firehose"
import { CreateJobCommand, PutDataCatalogEncryptionSettingsCommand } from "@aws-sdk/client-glue"
import { CreateDetectorCommand } from "@aws-sdk/client-guardduty"
import { CreateRoleCommand, CreateUserCommand } from "@aws-sdk/client-iam"
import { CreateStreamCommand } from "@aws-sdk/client-kinesis"
import { CreateKeyCommand } from "@aws-sdk/client-kms"
import { CreateFunctionCommand } from "@aws-sdk/client-lambda"
import { CreateBrokerCommand } from "@aws-sdk/client-mq"
import { CreateDomainCommand } from "@aws-sdk/client-opensearch"
import { CreateOrganizationCommand, CreatePolicyCommand } from "@aws-sdk/client-organizations"
import { CreateDBClusterCommand, CreateDBInstanceCommand } from "@aws-sdk/client-rds"
import { CreateClusterCommand as CreateRedshiftClusterCommand } from "@aws-sdk/client-redshift"
import { CreateHostedZoneCommand } from "@aws-sdk/client-route-53"
import { CreateBucketCommand } from "@aws-sdk/client-s3"
import { CreateNotebookInstanceCommand } from "@aws-sdk/client-sagemaker"
import { CreateSecretCommand } from "@aws-sdk/client-secrets-manager"
import { EnableSecurityHubCommand } from "@aws-sdk/client-securityhub"
import { CreateStateMachineCommand } from "@aws-sdk/client-sfn"
import { CreateTopicCommand } from "@aws-sdk/client-sns"
import { CreateQueueCommand } from "@aws-sdk/client-sqs"
import { PutParameterCommand } from "@aws-sdk/client-ssm"
import { CreateServerCommand } from "@aws-sdk/client-transfer"
import { CreateWebACLCommand } from "@aws-sdk/client-wafv2"
import type { AwsClients } from "../../server/scanner/aws/clients.ts"
import { mapConcurrent } from "../../server/scanner/pool.ts"
import { selfSignedCertificate } from "../../tests/scanner/helpers.ts"

const ACCOUNT = "123456789012"
const AMI = "ami-12c6146b"
const EMPTY_ZIP = new Uint8Array(Buffer.from(`504b0506${"00".repeat(18)}`, "hex"))

/** Scan services moto cannot seed (or whose seeded resources the scanner cannot read back from moto), and why. */
export const UNSEEDABLE: Readonly<Record<string, string>> = {
  accessanalyzer: "moto has no IAM Access Analyzer service (tests stub ListAnalyzers)",
  documentdb: "moto rejects the docdb engine in CreateDBCluster (tests stub the clusters)",
  kafka: "moto writes MSK cluster creation times the SDK cannot parse, so a seeded cluster makes ListClustersV2 unreadable (tests stub it)",
  dms: "moto's DescribeReplicationInstances carries timestamps the SDK cannot parse, so seeded instances make the read fail (tests stub it)",
  ses: "moto does not serve SESv2 ListEmailIdentities (POST /v2/email/list-identities): seeded identities cannot be listed (tests stub the list)",
}

export interface SeedOutcome {
  /** Resources seeded per scan service ("service: label" → count). */
  readonly seeded: Record<string, { readonly service: string; readonly count: number; readonly seconds: number }>
  /** Scan services whose seed moto refused, with moto's answer. */
  readonly failed: Record<string, string>
}

/** A step: `count` resources of one kind in one scan service, made with `make(i)`. */
interface Step {
  readonly service: string
  readonly label: string
  readonly count: number
  readonly make: (i: number) => Promise<unknown>
}

export const seedBreadth = async (aws: AwsClients, region: string, perService: number): Promise<SeedOutcome> => {
  const c = <N extends Parameters<AwsClients["get"]>[0]>(name: N) => aws.get(name, region)
  const N = perService
  const az = (i: number) => `${region}${"abc"[i % 3]}`
  const roleArn = `arn:aws:iam::${ACCOUNT}:role/bench-service`
  const seeded: Record<string, { service: string; count: number; seconds: number }> = {}
  const failed: Record<string, string> = {}

  // Shared inputs: the default VPC's subnets, a role, a log bucket, a server certificate.
  const subnets = (await c("ec2").send(new DescribeSubnetsCommand({ Filters: [{ Name: "default-for-az", Values: ["true"] }] }))).Subnets ?? []
  const subnetIds = subnets.slice(0, 2).flatMap((s) => (s.SubnetId === undefined ? [] : [s.SubnetId]))
  const vpcId = subnets[0]?.VpcId
  await c("iam").send(
    new CreateRoleCommand({
      RoleName: "bench-service",
      AssumeRolePolicyDocument: JSON.stringify({ Version: "2012-10-17", Statement: [{ Effect: "Allow", Principal: { Service: "lambda.amazonaws.com" }, Action: "sts:AssumeRole" }] }),
    }),
  )
  await c("s3").send(new CreateBucketCommand({ Bucket: "bench-breadth-logs" }))
  const pem = selfSignedCertificate(365)
  const definition = JSON.stringify({ StartAt: "Done", States: { Done: { Type: "Succeed" } } })
  const template = JSON.stringify({ Resources: { Handle: { Type: "AWS::CloudFormation::WaitConditionHandle" } } })
  const broker = { DeploymentMode: "SINGLE_INSTANCE" as const, EngineType: "ACTIVEMQ" as const, EngineVersion: "5.17.6", HostInstanceType: "mq.t3.micro", Users: [{ Username: "admin_user", Password: "Secret-Passw0rd-1" }] }
  const visibility = (name: string) => ({ SampledRequestsEnabled: true, CloudWatchMetricsEnabled: true, MetricName: name })
  const one = 1

  const steps: ReadonlyArray<Step> = [
    // Older services (bench/scan.ts seeds the first ten of these at a larger scale).
    { service: "iam", label: "IAM users", count: N, make: (i) => c("iam").send(new CreateUserCommand({ UserName: `breadth-user-${i}` })) },
    { service: "account", label: "alternate security contact", count: one, make: () => c("account").send(new PutAlternateContactCommand({ AlternateContactType: "SECURITY", Name: "SecOps", Title: "Security", EmailAddress: "secops@example.com", PhoneNumber: "+1-555-0100" })) },
    { service: "s3", label: "S3 buckets", count: N, make: (i) => c("s3").send(new CreateBucketCommand({ Bucket: `breadth-bucket-${i}` })) },
    {
      service: "ec2",
      label: "EC2 security groups",
      count: N,
      make: async (i) => {
        const sg = await c("ec2").send(new CreateSecurityGroupCommand({ GroupName: `breadth-sg-${i}`, Description: "bench" }))
        if (i % 3 === 0) {
          await c("ec2").send(new AuthorizeSecurityGroupIngressCommand({ GroupId: sg.GroupId!, IpPermissions: [{ IpProtocol: "tcp", FromPort: 22, ToPort: 22, IpRanges: [{ CidrIp: "0.0.0.0/0" }] }] }))
        }
      },
    },
    { service: "vpc", label: "VPCs", count: N, make: (i) => c("ec2").send(new CreateVpcCommand({ CidrBlock: `10.${(i % 250) + 1}.0.0/16` })) },
    { service: "cloudtrail", label: "CloudTrail trails", count: N, make: (i) => c("cloudtrail").send(new CreateTrailCommand({ Name: `breadth-trail-${i}`, S3BucketName: "bench-breadth-logs" })) },
    {
      service: "config",
      label: "Config recorder",
      count: one,
      make: async () => {
        await c("config").send(new PutConfigurationRecorderCommand({ ConfigurationRecorder: { name: "default", roleARN: roleArn, recordingGroup: { allSupported: true, includeGlobalResourceTypes: true } } }))
        await c("config").send(new PutDeliveryChannelCommand({ DeliveryChannel: { name: "default", s3BucketName: "bench-breadth-logs" } }))
        await c("config").send(new StartConfigurationRecorderCommand({ ConfigurationRecorderName: "default" }))
      },
    },
    { service: "kms", label: "KMS keys", count: N, make: () => c("kms").send(new CreateKeyCommand({ Description: "breadth" })) },
    {
      service: "cloudwatch",
      label: "CloudWatch alarms",
      count: N,
      make: (i) => c("cloudwatch").send(new PutMetricAlarmCommand({ AlarmName: `breadth-alarm-${i}`, MetricName: "Errors", Namespace: "Bench", Statistic: "Sum", Period: 300, EvaluationPeriods: 1, Threshold: 1, ComparisonOperator: "GreaterThanOrEqualToThreshold" })),
    },
    { service: "cloudwatch", label: "CloudWatch log groups", count: N, make: (i) => c("logs").send(new CreateLogGroupCommand({ logGroupName: `/breadth/group-${i}` })) },
    {
      service: "rds",
      label: "RDS instances",
      count: N,
      make: (i) => c("rds").send(new CreateDBInstanceCommand({ DBInstanceIdentifier: `breadth-db-${i}`, DBInstanceClass: "db.t3.micro", Engine: "postgres", AllocatedStorage: 20, MasterUsername: "dbadmin", MasterUserPassword: "Secret-Passw0rd", StorageEncrypted: i % 2 === 0 })),
    },
    { service: "neptune", label: "Neptune clusters", count: N, make: (i) => c("rds").send(new CreateDBClusterCommand({ DBClusterIdentifier: `breadth-np-${i}`, Engine: "neptune", StorageEncrypted: i % 2 === 0 })) },
    { service: "efs", label: "EFS file systems", count: N, make: (i) => c("efs").send(new CreateFileSystemCommand({ CreationToken: `breadth-fs-${i}`, Encrypted: i % 2 === 0 })) },
    {
      service: "lambda",
      label: "Lambda functions",
      count: N,
      make: (i) => c("lambda").send(new CreateFunctionCommand({ FunctionName: `breadth-fn-${i}`, Runtime: "python3.12", Role: `arn:aws:iam::${ACCOUNT}:role/bench-service`, Handler: "index.handler", Code: { ZipFile: EMPTY_ZIP } })),
    },
    {
      service: "elbv2",
      label: "application load balancers",
      count: N,
      make: async (i) => {
        const lb = await c("elbv2").send(new CreateLoadBalancerCommand({ Name: `breadth-alb-${i}`, Subnets: subnetIds, Type: "application", Scheme: "internet-facing" }))
        const tg = await c("elbv2").send(new CreateTargetGroupCommand({ Name: `breadth-tg-${i}`, Protocol: "HTTP", Port: 80, VpcId: vpcId }))
        await c("elbv2").send(
          new CreateListenerCommand({ LoadBalancerArn: lb.LoadBalancers?.[0]?.LoadBalancerArn, Protocol: "HTTP", Port: 80, DefaultActions: [{ Type: "forward", TargetGroupArn: tg.TargetGroups?.[0]?.TargetGroupArn }] }),
        )
      },
    },
    { service: "sqs", label: "SQS queues", count: N, make: (i) => c("sqs").send(new CreateQueueCommand({ QueueName: `breadth-queue-${i}` })) },
    { service: "sns", label: "SNS topics", count: N, make: (i) => c("sns").send(new CreateTopicCommand({ Name: `breadth-topic-${i}` })) },
    {
      service: "dynamodb",
      label: "DynamoDB tables",
      count: N,
      make: (i) =>
        c("dynamodb").send(new CreateTableCommand({ TableName: `breadth-table-${i}`, AttributeDefinitions: [{ AttributeName: "pk", AttributeType: "S" }], KeySchema: [{ AttributeName: "pk", KeyType: "HASH" }], BillingMode: "PAY_PER_REQUEST" })),
    },
    { service: "ecr", label: "ECR repositories", count: N, make: (i) => c("ecr").send(new CreateRepositoryCommand({ repositoryName: `breadth-repo-${i}` })) },
    { service: "eks", label: "EKS clusters", count: N, make: (i) => c("eks").send(new CreateEksClusterCommand({ name: `breadth-eks-${i}`, roleArn, resourcesVpcConfig: { subnetIds } })) },
    { service: "secretsmanager", label: "secrets", count: N, make: (i) => c("secretsmanager").send(new CreateSecretCommand({ Name: `breadth-secret-${i}`, SecretString: "x" })) },
    { service: "guardduty", label: "GuardDuty detector", count: one, make: () => c("guardduty").send(new CreateDetectorCommand({ Enable: true })) },
    { service: "securityhub", label: "Security Hub", count: one, make: () => c("securityhub").send(new EnableSecurityHubCommand({})) },

    // Services added for issue 16.
    {
      service: "cloudfront",
      label: "CloudFront distributions",
      count: N,
      make: (i) =>
        c("cloudfront").send(
          new CreateDistributionCommand({
            DistributionConfig: {
              CallerReference: `breadth-${i}`,
              Comment: `breadth-${i}`,
              Enabled: true,
              Origins: { Quantity: 1, Items: [{ Id: "api", DomainName: "api.example.com", CustomOriginConfig: { HTTPPort: 80, HTTPSPort: 443, OriginProtocolPolicy: i % 2 === 0 ? "https-only" : "http-only" } }] },
              DefaultCacheBehavior: { TargetOriginId: "api", ViewerProtocolPolicy: i % 2 === 0 ? "redirect-to-https" : "allow-all", CachePolicyId: "658327ea-f89d-4fab-a63d-7e88639e58f6" },
            },
          }),
        ),
    },
    { service: "transfer", label: "Transfer servers", count: N, make: (i) => c("transfer").send(new CreateServerCommand({ Protocols: [i % 2 === 0 ? "SFTP" : "FTP"], ...(i % 2 === 0 ? {} : { EndpointType: "VPC" as const }) })) },
    { service: "ssm", label: "SSM parameters", count: N, make: (i) => c("ssm").send(new PutParameterCommand({ Name: `/breadth/param-${i}`, Value: "v", Type: i % 2 === 0 ? "SecureString" : "String" })) },
    { service: "cognito", label: "Cognito user pools", count: N, make: (i) => c("cognito").send(new CreateUserPoolCommand({ PoolName: `breadth-pool-${i}`, Policies: { PasswordPolicy: { MinimumLength: i % 2 === 0 ? 16 : 8 } } })) },
    { service: "mq", label: "MQ brokers", count: N, make: (i) => c("mq").send(new CreateBrokerCommand({ ...broker, BrokerName: `breadth-broker-${i}`, PubliclyAccessible: i % 2 === 1, AutoMinorVersionUpgrade: true })) },
    {
      service: "emr",
      label: "EMR block public access",
      count: one,
      make: () => c("emr").send(new PutBlockPublicAccessConfigurationCommand({ BlockPublicAccessConfiguration: { BlockPublicSecurityGroupRules: true, PermittedPublicSecurityGroupRuleRanges: [{ MinRange: 22, MaxRange: 22 }] } })),
    },
    {
      service: "sagemaker",
      label: "SageMaker notebooks",
      count: N,
      make: (i) => c("sagemaker").send(new CreateNotebookInstanceCommand({ NotebookInstanceName: `breadth-nb-${i}`, InstanceType: "ml.t3.medium", RoleArn: roleArn, ...(i % 2 === 0 ? { DirectInternetAccess: "Disabled" as const, RootAccess: "Disabled" as const } : {}) })),
    },
    { service: "ecs", label: "ECS clusters", count: N, make: (i) => c("ecs").send(new CreateEcsClusterCommand({ clusterName: `breadth-cluster-${i}` })) },
    {
      service: "ecs",
      label: "ECS task definitions",
      count: N,
      make: (i) => c("ecs").send(new RegisterTaskDefinitionCommand({ family: `breadth-task-${i}`, networkMode: "awsvpc", containerDefinitions: [{ name: "app", image: "nginx", memory: 256, privileged: i % 2 === 1 }] })),
    },
    {
      service: "autoscaling",
      label: "launch configurations",
      count: N,
      make: (i) => c("autoscaling").send(new CreateLaunchConfigurationCommand({ LaunchConfigurationName: `breadth-lc-${i}`, ImageId: AMI, InstanceType: "t3.micro", AssociatePublicIpAddress: i % 2 === 1 })),
    },
    {
      service: "autoscaling",
      label: "Auto Scaling groups",
      count: N,
      make: (i) => c("autoscaling").send(new CreateAutoScalingGroupCommand({ AutoScalingGroupName: `breadth-asg-${i}`, LaunchConfigurationName: `breadth-lc-${i}`, MinSize: 0, MaxSize: 2, AvailabilityZones: [az(i)] })),
    },
    {
      service: "elb",
      label: "classic load balancers",
      count: N,
      make: (i) => c("elb").send(new CreateClassicLoadBalancerCommand({ LoadBalancerName: `breadth-clb-${i}`, Listeners: [{ Protocol: "HTTP", LoadBalancerPort: 80, InstanceProtocol: "HTTP", InstancePort: 8080 }], AvailabilityZones: [az(i)] })),
    },
    { service: "eventbridge", label: "event buses", count: N, make: (i) => c("eventbridge").send(new CreateEventBusCommand({ Name: `breadth-bus-${i}` })) },
    {
      service: "codebuild",
      label: "CodeBuild projects",
      count: N,
      make: (i) =>
        c("codebuild").send(
          new CreateProjectCommand({
            name: `breadth-build-${i}`,
            source: { type: "S3", location: "build-sources/src.zip" },
            artifacts: { type: "S3", location: "build-artifacts" },
            environment: { type: "LINUX_CONTAINER", image: "aws/codebuild/standard:7.0", computeType: "BUILD_GENERAL1_SMALL", privilegedMode: i % 2 === 1 },
            serviceRole: roleArn,
          }),
        ),
    },
    { service: "cloudformation", label: "CloudFormation stacks", count: N, make: (i) => c("cloudformation").send(new CreateStackCommand({ StackName: `breadth-stack-${i}`, TemplateBody: template })) },
    { service: "backup", label: "Backup vaults", count: N, make: (i) => c("backup").send(new CreateBackupVaultCommand({ BackupVaultName: `breadth-vault-${i}` })) },
    {
      service: "backup",
      label: "Backup plans",
      count: one,
      make: () => c("backup").send(new CreateBackupPlanCommand({ BackupPlan: { BackupPlanName: "breadth-daily", Rules: [{ RuleName: "daily", TargetBackupVaultName: "breadth-vault-0", ScheduleExpression: "cron(0 5 ? * * *)" }] } })),
    },
    {
      service: "acm",
      label: "ACM certificates",
      count: N,
      make: (i) =>
        i % 2 === 0
          ? c("acm").send(new ImportCertificateCommand({ Certificate: Buffer.from(pem.cert), PrivateKey: Buffer.from(pem.key) }))
          : c("acm").send(new RequestCertificateCommand({ DomainName: `breadth-${i}.example.com` })),
    },
    {
      service: "glue",
      label: "Glue catalog encryption",
      count: one,
      make: () => c("glue").send(new PutDataCatalogEncryptionSettingsCommand({ DataCatalogEncryptionSettings: { EncryptionAtRest: { CatalogEncryptionMode: "SSE-KMS", SseAwsKmsKeyId: "alias/aws/glue" } } })),
    },
    { service: "glue", label: "Glue jobs", count: N, make: (i) => c("glue").send(new CreateJobCommand({ Name: `breadth-job-${i}`, Role: roleArn, Command: { Name: "glueetl", ScriptLocation: "s3://scripts/job.py" } })) },
    {
      service: "athena",
      label: "Athena workgroups",
      count: N,
      make: (i) => c("athena").send(new CreateWorkGroupCommand({ Name: `breadth-wg-${i}`, Configuration: { EnforceWorkGroupConfiguration: i % 2 === 0, ResultConfiguration: { OutputLocation: "s3://athena-results/" } } })),
    },
    { service: "sfn", label: "state machines", count: N, make: (i) => c("sfn").send(new CreateStateMachineCommand({ name: `breadth-machine-${i}`, definition, roleArn })) },
    {
      service: "firehose",
      label: "Firehose delivery streams",
      count: N,
      make: (i) => c("firehose").send(new CreateDeliveryStreamCommand({ DeliveryStreamName: `breadth-delivery-${i}`, ExtendedS3DestinationConfiguration: { RoleARN: roleArn, BucketARN: "arn:aws:s3:::bench-breadth-logs" } })),
    },
    { service: "kinesis", label: "Kinesis streams", count: N, make: (i) => c("kinesis").send(new CreateStreamCommand({ StreamName: `breadth-stream-${i}`, ShardCount: 1 })) },
    {
      service: "redshift",
      label: "Redshift clusters",
      count: N,
      make: (i) => c("redshift").send(new CreateRedshiftClusterCommand({ ClusterIdentifier: `breadth-dw-${i}`, NodeType: "ra3.xlplus", MasterUsername: "dw_owner", MasterUserPassword: "Secret-Passw0rd", PubliclyAccessible: i % 2 === 1, Encrypted: i % 2 === 0 })),
    },
    {
      service: "elasticache",
      label: "ElastiCache replication groups",
      count: N,
      make: (i) => c("elasticache").send(new CreateReplicationGroupCommand({ ReplicationGroupId: `breadth-redis-${i}`, ReplicationGroupDescription: "bench", Engine: "redis", CacheNodeType: "cache.t3.micro", NumCacheClusters: 1, AtRestEncryptionEnabled: i % 2 === 0 })),
    },
    { service: "opensearch", label: "OpenSearch domains", count: N, make: (i) => c("opensearch").send(new CreateDomainCommand({ DomainName: `breadth-domain-${i}`, EncryptionAtRestOptions: { Enabled: i % 2 === 0 } })) },
    {
      service: "apigateway",
      label: "REST APIs (v1, one stage each)",
      count: N,
      make: async (i) => {
        const gw = c("apigateway")
        const api = await gw.send(new CreateRestApiCommand({ name: `breadth-rest-${i}`, endpointConfiguration: { types: ["REGIONAL"] } }))
        const root = (await gw.send(new GetResourcesCommand({ restApiId: api.id }))).items?.find((x) => x.path === "/")?.id
        await gw.send(new PutMethodCommand({ restApiId: api.id, resourceId: root, httpMethod: "GET", authorizationType: i % 2 === 0 ? "AWS_IAM" : "NONE" }))
        await gw.send(new PutIntegrationCommand({ restApiId: api.id, resourceId: root, httpMethod: "GET", type: "MOCK" }))
        await gw.send(new CreateDeploymentCommand({ restApiId: api.id, stageName: "prod" }))
      },
    },
    {
      service: "apigateway",
      label: "HTTP APIs (v2, one stage each)",
      count: N,
      make: async (i) => {
        const api = await c("apigatewayv2").send(new CreateApiCommand({ Name: `breadth-http-${i}`, ProtocolType: "HTTP" }))
        await c("apigatewayv2").send(new CreateStageCommand({ ApiId: api.ApiId, StageName: "prod" }))
      },
    },
    { service: "organizations", label: "organization", count: one, make: () => c("organizations").send(new CreateOrganizationCommand({ FeatureSet: "ALL" })) },
    {
      service: "organizations",
      label: "service control policies",
      count: N,
      make: (i) =>
        c("organizations").send(
          new CreatePolicyCommand({
            Name: `breadth-scp-${i}`,
            Description: "bench",
            Type: "SERVICE_CONTROL_POLICY",
            Content: JSON.stringify({ Version: "2012-10-17", Statement: [{ Effect: "Deny", Action: "s3:DeleteBucket", Resource: "*" }] }),
          }),
        ),
    },
    { service: "route53", label: "hosted zones", count: N, make: (i) => c("route53").send(new CreateHostedZoneCommand({ Name: `breadth-${i}.example`, CallerReference: `breadth-${i}` })) },
    {
      service: "wafv2",
      label: "WAF web ACLs",
      count: N,
      make: (i) => c("wafv2").send(new CreateWebACLCommand({ Name: `breadth-acl-${i}`, Scope: "REGIONAL", DefaultAction: { Allow: {} }, VisibilityConfig: visibility(`breadth${i}`), Rules: [] })),
    },
  ]

  for (const step of steps) {
    // A step of a service whose earlier step failed is skipped (the service is reported once, with the first error).
    if (failed[step.service] !== undefined) continue
    const t = performance.now()
    try {
      await mapConcurrent(Array.from({ length: step.count }, (_, i) => i), 8, step.make)
    } catch (error) {
      const e = error as { name?: string; message?: string }
      failed[step.service] = `${step.label}: ${e.name ?? "Error"}: ${(e.message ?? String(error)).slice(0, 200)}`
      console.log(`  FAILED ${step.label} (${step.service}): ${failed[step.service]}`)
      continue
    }
    const seconds = (performance.now() - t) / 1000
    seeded[`${step.service}: ${step.label}`] = { service: step.service, count: step.count, seconds }
    console.log(`  seeded ${String(step.count).padStart(4)} ${step.label} (${step.service}) in ${seconds.toFixed(1)} s`)
  }
  return { seeded, failed }
}
