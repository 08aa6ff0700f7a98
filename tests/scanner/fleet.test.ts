/** Classic ELB, Auto Scaling, ECS, SageMaker notebook and EMR checks on moto. */
import { afterAll, beforeAll, describe, it } from "vitest"
import { CreateLoadBalancerCommand, ModifyLoadBalancerAttributesCommand } from "@aws-sdk/client-elastic-load-balancing"
import { CreateAutoScalingGroupCommand, CreateLaunchConfigurationCommand } from "@aws-sdk/client-auto-scaling"
import { CreateLaunchTemplateCommand } from "@aws-sdk/client-ec2"
import { CreateClusterCommand, RegisterTaskDefinitionCommand } from "@aws-sdk/client-ecs"
import { CreateNotebookInstanceCommand } from "@aws-sdk/client-sagemaker"
import { PutBlockPublicAccessConfigurationCommand } from "@aws-sdk/client-emr"
import { UploadServerCertificateCommand } from "@aws-sdk/client-iam"
import { DescribeSubnetsCommand } from "@aws-sdk/client-ec2"
import type { ScanServiceResult } from "../../server/scanner/aws/scan-service.ts"
import { startMoto, type Moto } from "../support/moto.ts"
import { ACCOUNT, expectCases, scan, seedClients, selfSignedCertificate } from "./helpers.ts"

const E = "us-east-1"
const W = "eu-west-1"
const AMI = "ami-12c6146b"

describe("classic ELB, Auto Scaling, ECS, SageMaker and EMR on moto", () => {
  let moto: Moto
  const r: Record<string, ScanServiceResult> = {}
  const res = (k: string) => r[k] ?? (() => { throw new Error(k) })()

  beforeAll(async () => {
    moto = await startMoto()
    const c = seedClients(moto)
    const pem = selfSignedCertificate(90)
    const cert = (await c.get("iam", E).send(new UploadServerCertificateCommand({ ServerCertificateName: "clb", CertificateBody: pem.cert, PrivateKey: pem.key }))).ServerCertificateMetadata?.Arn
    const elb = c.get("elb", E)
    await elb.send(new CreateLoadBalancerCommand({ LoadBalancerName: "secure-clb", Listeners: [{ Protocol: "HTTPS", LoadBalancerPort: 443, InstanceProtocol: "HTTP", InstancePort: 8080, SSLCertificateId: cert }], AvailabilityZones: ["us-east-1a", "us-east-1b"] }))
    await elb.send(
      new ModifyLoadBalancerAttributesCommand({
        LoadBalancerName: "secure-clb",
        LoadBalancerAttributes: { AccessLog: { Enabled: true, S3BucketName: "clb-logs", EmitInterval: 60 }, CrossZoneLoadBalancing: { Enabled: true }, ConnectionDraining: { Enabled: true, Timeout: 300 } },
      }),
    )
    await elb.send(new CreateLoadBalancerCommand({ LoadBalancerName: "plain-clb", Listeners: [{ Protocol: "HTTP", LoadBalancerPort: 80, InstanceProtocol: "HTTP", InstancePort: 8080 }], AvailabilityZones: ["us-east-1a"] }))
    await elb.send(new ModifyLoadBalancerAttributesCommand({ LoadBalancerName: "plain-clb", LoadBalancerAttributes: { CrossZoneLoadBalancing: { Enabled: false }, ConnectionDraining: { Enabled: false } } }))

    const as = c.get("autoscaling", E)
    await as.send(new CreateLaunchConfigurationCommand({ LaunchConfigurationName: "good-lc", ImageId: AMI, InstanceType: "t3.micro", AssociatePublicIpAddress: false, MetadataOptions: { HttpTokens: "required", HttpEndpoint: "enabled" } }))
    await as.send(new CreateLaunchConfigurationCommand({ LaunchConfigurationName: "bad-lc", ImageId: AMI, InstanceType: "t3.micro", AssociatePublicIpAddress: true }))
    await c.get("ec2", E).send(new CreateLaunchTemplateCommand({ LaunchTemplateName: "web", LaunchTemplateData: { ImageId: AMI, InstanceType: "t3.micro" } }))
    await as.send(new CreateAutoScalingGroupCommand({ AutoScalingGroupName: "lt-group", LaunchTemplate: { LaunchTemplateName: "web" }, MinSize: 0, MaxSize: 2, AvailabilityZones: ["us-east-1a", "us-east-1b"], LoadBalancerNames: ["secure-clb"], HealthCheckType: "ELB", HealthCheckGracePeriod: 300 }))
    await as.send(new CreateAutoScalingGroupCommand({ AutoScalingGroupName: "lc-group", LaunchConfigurationName: "bad-lc", MinSize: 0, MaxSize: 2, AvailabilityZones: ["us-east-1a"], LoadBalancerNames: ["plain-clb"], HealthCheckType: "EC2" }))

    const ecs = c.get("ecs", E)
    await ecs.send(new CreateClusterCommand({ clusterName: "insights-cluster", settings: [{ name: "containerInsights", value: "enabled" }] }))
    await ecs.send(new CreateClusterCommand({ clusterName: "plain-cluster" }))
    await ecs.send(
      new RegisterTaskDefinitionCommand({
        family: "safe-task",
        networkMode: "awsvpc",
        containerDefinitions: [
          {
            name: "app",
            image: "nginx",
            memory: 256,
            readonlyRootFilesystem: true,
            secrets: [{ name: "DB_PASSWORD", valueFrom: `arn:aws:secretsmanager:${E}:${ACCOUNT}:secret:db` }],
            environment: [{ name: "LOG_LEVEL", value: "info" }],
            logConfiguration: { logDriver: "awslogs", options: { "awslogs-group": "/ecs/safe", "awslogs-region": E, "awslogs-stream-prefix": "app" } },
          },
        ],
      }),
    )
    await ecs.send(
      new RegisterTaskDefinitionCommand({
        family: "risky-task",
        networkMode: "host",
        containerDefinitions: [{ name: "app", image: "nginx", memory: 256, privileged: true, environment: [{ name: "DB_PASSWORD", value: "hunter2" }] }],
      }),
    )

    const subnet = (await c.get("ec2", E).send(new DescribeSubnetsCommand({}))).Subnets?.[0]?.SubnetId
    const sm = c.get("sagemaker", E)
    const nb = { InstanceType: "ml.t3.medium" as const, RoleArn: `arn:aws:iam::${ACCOUNT}:role/sagemaker` }
    await sm.send(new CreateNotebookInstanceCommand({ ...nb, NotebookInstanceName: "locked-nb", DirectInternetAccess: "Disabled", RootAccess: "Disabled", KmsKeyId: `arn:aws:kms:${E}:${ACCOUNT}:key/abc`, SubnetId: subnet, SecurityGroupIds: ["sg-12345678"] }))
    await sm.send(new CreateNotebookInstanceCommand({ ...nb, NotebookInstanceName: "open-nb" }))

    await c.get("emr", E).send(new PutBlockPublicAccessConfigurationCommand({ BlockPublicAccessConfiguration: { BlockPublicSecurityGroupRules: true, PermittedPublicSecurityGroupRuleRanges: [{ MinRange: 22, MaxRange: 22 }] } }))
    for (const s of ["elb", "autoscaling", "ecs", "sagemaker", "emr"]) r[s] = await scan(moto, s, { regions: [E] })
    // moto keeps one block-public-access configuration per account (not per region): the exception is scanned second.
    await c.get("emr", W).send(new PutBlockPublicAccessConfigurationCommand({ BlockPublicAccessConfiguration: { BlockPublicSecurityGroupRules: true, PermittedPublicSecurityGroupRuleRanges: [{ MinRange: 22, MaxRange: 22 }, { MinRange: 8080, MaxRange: 8080 }] } }))
    c.destroy()
    r.emrWest = await scan(moto, "emr", { regions: [W] })
  })
  afterAll(async () => {
    await moto?.stop()
  })

  it("classic load balancers", () => {
    for (const check of ["elb_listeners_encrypted", "elb_logging_enabled", "elb_cross_zone_load_balancing", "elb_connection_draining", "elb_multiple_az"]) {
      expectCases(res("elb"), check, { compliant: ["secure-clb"], nonCompliant: ["plain-clb"] })
    }
  })

  it("Auto Scaling groups and launch configurations", () => {
    for (const check of ["autoscaling_group_multiple_az", "autoscaling_group_elb_health_check", "autoscaling_group_uses_launch_template"]) {
      expectCases(res("autoscaling"), check, { compliant: ["lt-group"], nonCompliant: ["lc-group"] })
    }
    expectCases(res("autoscaling"), "autoscaling_launch_configuration_imdsv2", { compliant: ["good-lc"], nonCompliant: ["bad-lc"] })
    expectCases(res("autoscaling"), "autoscaling_launch_configuration_no_public_ip", { compliant: ["good-lc"], nonCompliant: ["bad-lc"] })
  })

  it("ECS task definitions and clusters", () => {
    for (const check of ["ecs_task_definition_no_privileged_containers", "ecs_task_definition_no_host_network", "ecs_task_definition_no_secrets_in_environment", "ecs_task_definition_logging_configured", "ecs_task_definition_readonly_root_filesystem"]) {
      expectCases(res("ecs"), check, { compliant: ["safe-task"], nonCompliant: ["risky-task"] })
    }
    expectCases(res("ecs"), "ecs_cluster_container_insights", { compliant: ["insights-cluster"], nonCompliant: ["plain-cluster"] })
  })

  it("SageMaker notebooks", () => {
    for (const check of ["sagemaker_notebook_no_direct_internet_access", "sagemaker_notebook_root_access_disabled", "sagemaker_notebook_encrypted_with_kms", "sagemaker_notebook_in_vpc"]) {
      expectCases(res("sagemaker"), check, { compliant: ["locked-nb"], nonCompliant: ["open-nb"] })
    }
  })

  it("EMR block public access per region", () => {
    expectCases(res("emr"), "emr_block_public_access_enabled", { compliant: [`${ACCOUNT}/${E}`] })
    expectCases(res("emrWest"), "emr_block_public_access_enabled", { nonCompliant: [`${ACCOUNT}/${W}`] })
  })
})
