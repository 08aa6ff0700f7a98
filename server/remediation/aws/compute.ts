/** Compute and container fixers: ECR scanning and tag immutability, Lambda function URL auth, ELBv2 attributes, EKS endpoint access. */
import { PutImageScanningConfigurationCommand, PutImageTagMutabilityCommand } from "@aws-sdk/client-ecr"
import { UpdateFunctionUrlConfigCommand } from "@aws-sdk/client-lambda"
import { CreateLogGroupCommand, PutRetentionPolicyCommand } from "@aws-sdk/client-cloudwatch-logs"
import { errorCode } from "../../scanner/aws/errors.ts"
import { DescribeLoadBalancersCommand, ModifyLoadBalancerAttributesCommand } from "@aws-sdk/client-elastic-load-balancing-v2"
import { UpdateClusterConfigCommand } from "@aws-sdk/client-eks"
import { FixError, sendOptions, type FixContext, type Fixer } from "./fixer.ts"

const loadBalancerArn = async (ctx: FixContext, name: string) => {
  const out = await ctx.clients.get("elbv2", ctx.region).send(new DescribeLoadBalancersCommand({ Names: [name] }), sendOptions(ctx))
  const arn = out.LoadBalancers?.[0]?.LoadBalancerArn
  if (arn === undefined) throw new FixError(`Load balancer ${name} was not found in ${ctx.region}`)
  return arn
}

const lbAttribute = (checkId: string, key: string, description: string): Fixer => ({
  checkIds: [checkId],
  description,
  apply: async (ctx, row) => {
    const arn = await loadBalancerArn(ctx, row.resource_id)
    await ctx.clients.get("elbv2", ctx.region).send(new ModifyLoadBalancerAttributesCommand({ LoadBalancerArn: arn, Attributes: [{ Key: key, Value: "true" }] }), sendOptions(ctx))
    return `Load balancer ${row.resource_id}: ${key} = true.`
  },
})

export const computeFixers: ReadonlyArray<Fixer> = [
  {
    checkIds: ["awslambda_function_log_group_exists"],
    description: "Creates the function's log group with a 365-day retention.",
    apply: async (ctx, row) => {
      const name = typeof row["log_group"] === "string" && row["log_group"] !== "" ? row["log_group"] : `/aws/lambda/${row.resource_id}`
      const logs = ctx.clients.get("logs", ctx.region)
      try {
        await logs.send(new CreateLogGroupCommand({ logGroupName: name }), sendOptions(ctx))
      } catch (error) {
        if (errorCode(error) !== "ResourceAlreadyExistsException") throw error
      }
      await logs.send(new PutRetentionPolicyCommand({ logGroupName: name, retentionInDays: 365 }), sendOptions(ctx))
      return `Log group ${name} exists (365-day retention).`
    },
  },
  {
    checkIds: ["ecr_repositories_scan_images_on_push_enabled"],
    description: "Enables scan on push for the repository.",
    apply: async (ctx, row) => {
      await ctx.clients.get("ecr", ctx.region).send(new PutImageScanningConfigurationCommand({ repositoryName: row.resource_id, imageScanningConfiguration: { scanOnPush: true } }), sendOptions(ctx))
      return `Repository ${row.resource_id} scans images on push.`
    },
  },
  {
    checkIds: ["ecr_repositories_tag_immutability"],
    description: "Makes image tags immutable in the repository.",
    cutsAccess: "Pipelines that re-push an existing tag (e.g. 'latest') will be rejected.",
    apply: async (ctx, row) => {
      await ctx.clients.get("ecr", ctx.region).send(new PutImageTagMutabilityCommand({ repositoryName: row.resource_id, imageTagMutability: "IMMUTABLE" }), sendOptions(ctx))
      return `Tags in ${row.resource_id} are immutable.`
    },
  },
  {
    checkIds: ["awslambda_function_url_public"],
    description: "Switches the function URL to IAM authentication (AuthType AWS_IAM).",
    cutsAccess: "Unsigned callers of the function URL (browsers, webhooks) get 403 until they sign requests with SigV4.",
    apply: async (ctx, row) => {
      await ctx.clients.get("lambda", ctx.region).send(new UpdateFunctionUrlConfigCommand({ FunctionName: row.resource_id, AuthType: "AWS_IAM" }), sendOptions(ctx))
      return `Function URL of ${row.resource_id} requires IAM authentication.`
    },
  },
  lbAttribute("elbv2_deletion_protection", "deletion_protection.enabled", "Enables deletion protection on the load balancer."),
  lbAttribute("elbv2_drop_invalid_header_fields", "routing.http.drop_invalid_header_fields.enabled", "Makes the load balancer drop HTTP headers with invalid field names."),
  {
    checkIds: ["eks_cluster_not_publicly_accessible"],
    description: "Makes the cluster API endpoint private (endpointPublicAccess=false, endpointPrivateAccess=true).",
    cutsAccess: "kubectl and CI systems outside the VPC can no longer reach the Kubernetes API.",
    apply: async (ctx, row) => {
      await ctx.clients
        .get("eks", ctx.region)
        .send(new UpdateClusterConfigCommand({ name: row.resource_id, resourcesVpcConfig: { endpointPublicAccess: false, endpointPrivateAccess: true } }), sendOptions(ctx))
      return `Cluster ${row.resource_id}'s API endpoint is private.`
    },
  },
]
