/**
 * Compute and container fixers (plan vocabulary, ./fixer.ts): Lambda log group and function URL auth, ECR scanning and
 * tag immutability, ELBv2 attributes, EKS endpoint access. Each reads the setting it changes and undoes by writing the
 * previous value back (a log group the fix created is deleted on undo, with the logs written since).
 */
import { DescribeRepositoriesCommand } from "@aws-sdk/client-ecr"
import { GetFunctionUrlConfigCommand } from "@aws-sdk/client-lambda"
import { DescribeLogGroupsCommand } from "@aws-sdk/client-cloudwatch-logs"
import { DescribeLoadBalancerAttributesCommand, DescribeLoadBalancersCommand } from "@aws-sdk/client-elastic-load-balancing-v2"
import { DescribeClusterCommand } from "@aws-sdk/client-eks"
import { toJson } from "../plan.ts"
import { awsCall, FixError, registerTerraform, sendOptions, tfBlock, tfName, type AwsPlanFixer, type FixContext } from "./fixer.ts"

const loadBalancerArn = async (ctx: FixContext, name: string) => {
  const out = await ctx.clients.get("elbv2", ctx.region).send(new DescribeLoadBalancersCommand({ Names: [name] }), sendOptions(ctx))
  const arn = out.LoadBalancers?.[0]?.LoadBalancerArn
  if (arn === undefined) throw new FixError(`Load balancer ${name} was not found in ${ctx.region}`)
  return arn
}

const lbAttribute = (checkId: string, key: string, description: string, effect: string): AwsPlanFixer => ({
  checkIds: [checkId],
  description,
  read: async (ctx, row) => {
    const arn = await loadBalancerArn(ctx, row.resource_id)
    const out = await ctx.clients.get("elbv2", ctx.region).send(new DescribeLoadBalancerAttributesCommand({ LoadBalancerArn: arn }), sendOptions(ctx))
    // An attribute never set reads as its documented default (false for both attributes fixed here).
    return { LoadBalancerArn: arn, Key: key, Value: out.Attributes?.find((a) => a.Key === key)?.Value ?? "false" }
  },
  plan: (ctx, row, state) => {
    const s = state as { LoadBalancerArn: string; Value: string | null }
    const set = (value: string) => awsCall("elbv2", "ModifyLoadBalancerAttributes", ctx.region, { LoadBalancerArn: s.LoadBalancerArn, Attributes: [{ Key: key, Value: value }] })
    return {
      calls: [set("true")],
      effects: [`Load balancer ${row.resource_id}: ${effect}`],
      summary: `Load balancer ${row.resource_id}: ${key} = true.`,
      undo: { reversible: true, calls: [set(s.Value ?? "false")] },
    }
  },
})

const repository = async (ctx: FixContext, name: string) => {
  const out = await ctx.clients.get("ecr", ctx.region).send(new DescribeRepositoriesCommand({ repositoryNames: [name] }), sendOptions(ctx))
  const repo = out.repositories?.[0]
  if (repo === undefined) throw new FixError(`Repository ${name} was not found in ${ctx.region}`)
  return repo
}

export const computeFixers: ReadonlyArray<AwsPlanFixer> = [
  {
    checkIds: ["awslambda_function_log_group_exists"],
    description: "Creates the function's log group with a 365-day retention.",
    read: async (ctx, row) => {
      const name = typeof row["log_group"] === "string" && row["log_group"] !== "" ? row["log_group"] : `/aws/lambda/${row.resource_id}`
      const out = await ctx.clients.get("logs", ctx.region).send(new DescribeLogGroupsCommand({ logGroupNamePrefix: name }), sendOptions(ctx))
      const group = (out.logGroups ?? []).find((g) => g.logGroupName === name)
      return toJson({ logGroupName: name, exists: group !== undefined, retentionInDays: group?.retentionInDays ?? null })
    },
    plan: (ctx, _row, state) => {
      const s = state as { logGroupName: string; exists: boolean; retentionInDays: number | null }
      const name = s.logGroupName
      return {
        calls: [...(s.exists ? [] : [awsCall("logs", "CreateLogGroup", ctx.region, { logGroupName: name })]), awsCall("logs", "PutRetentionPolicy", ctx.region, { logGroupName: name, retentionInDays: 365 })],
        effects: [`The function's logs are kept 365 days in ${name} (CloudWatch Logs storage is billed)${s.exists && s.retentionInDays === null ? "; they were kept forever until now, so older events are deleted" : ""}.`],
        summary: `Log group ${name} exists (365-day retention).`,
        undo: !s.exists
          ? { reversible: true, calls: [awsCall("logs", "DeleteLogGroup", ctx.region, { logGroupName: name })], note: "Deleting the log group deletes the logs written to it since the fix." }
          : s.retentionInDays === null
            ? { reversible: true, calls: [awsCall("logs", "DeleteRetentionPolicy", ctx.region, { logGroupName: name })], note: "Events deleted by the 365-day retention do not come back." }
            : { reversible: true, calls: [awsCall("logs", "PutRetentionPolicy", ctx.region, { logGroupName: name, retentionInDays: s.retentionInDays })], note: "Events deleted by the 365-day retention do not come back." },
      }
    },
  },
  {
    checkIds: ["ecr_repositories_scan_images_on_push_enabled"],
    description: "Enables scan on push for the repository.",
    read: async (ctx, row) => ({ scanOnPush: (await repository(ctx, row.resource_id)).imageScanningConfiguration?.scanOnPush === true }),
    plan: (ctx, row, state) => {
      const set = (on: boolean) => awsCall("ecr", "PutImageScanningConfiguration", ctx.region, { repositoryName: row.resource_id, imageScanningConfiguration: { scanOnPush: on } })
      return {
        calls: [set(true)],
        effects: [`Every image pushed to ${row.resource_id} from now on is scanned for vulnerabilities; images already there are not scanned by this change.`],
        summary: `Repository ${row.resource_id} scans images on push.`,
        undo: { reversible: true, calls: [set((state as { scanOnPush: boolean }).scanOnPush)] },
      }
    },
  },
  {
    checkIds: ["ecr_repositories_tag_immutability"],
    description: "Makes image tags immutable in the repository.",
    cutsAccess: "Pipelines that re-push an existing tag (e.g. 'latest') will be rejected.",
    read: async (ctx, row) => ({ imageTagMutability: (await repository(ctx, row.resource_id)).imageTagMutability ?? "MUTABLE" }),
    plan: (ctx, row, state) => {
      const set = (v: string) => awsCall("ecr", "PutImageTagMutability", ctx.region, { repositoryName: row.resource_id, imageTagMutability: v })
      return {
        calls: [set("IMMUTABLE")],
        effects: [`Pushing a tag that already exists in ${row.resource_id} (such as 'latest') is rejected.`],
        summary: `Tags in ${row.resource_id} are immutable.`,
        undo: { reversible: true, calls: [set((state as { imageTagMutability: string }).imageTagMutability)] },
      }
    },
  },
  {
    checkIds: ["awslambda_function_url_public"],
    description: "Switches the function URL to IAM authentication (AuthType AWS_IAM).",
    cutsAccess: "Unsigned callers of the function URL (browsers, webhooks) get 403 until they sign requests with SigV4.",
    read: async (ctx, row) => {
      const out = await ctx.clients.get("lambda", ctx.region).send(new GetFunctionUrlConfigCommand({ FunctionName: row.resource_id }), sendOptions(ctx))
      return { FunctionUrl: out.FunctionUrl ?? null, AuthType: out.AuthType ?? null }
    },
    plan: (ctx, row, state) => {
      const s = state as { FunctionUrl: string | null; AuthType: string | null }
      const set = (auth: string) => awsCall("lambda", "UpdateFunctionUrlConfig", ctx.region, { FunctionName: row.resource_id, AuthType: auth })
      return {
        calls: [set("AWS_IAM")],
        effects: [`Unsigned requests to ${s.FunctionUrl ?? "the function URL"} get 403; callers must sign with SigV4 and hold lambda:InvokeFunctionUrl.`],
        summary: `Function URL of ${row.resource_id} requires IAM authentication.`,
        undo: { reversible: true, calls: [set(s.AuthType ?? "NONE")] },
      }
    },
  },
  lbAttribute("elbv2_deletion_protection", "deletion_protection.enabled", "Enables deletion protection on the load balancer.", "deleting it (also from CloudFormation or Terraform) fails until protection is turned off."),
  lbAttribute("elbv2_drop_invalid_header_fields", "routing.http.drop_invalid_header_fields.enabled", "Makes the load balancer drop HTTP headers with invalid field names.", "HTTP headers whose names are not valid (e.g. with underscores) are removed before requests reach the targets."),
  {
    checkIds: ["eks_cluster_not_publicly_accessible"],
    description: "Makes the cluster API endpoint private (endpointPublicAccess=false, endpointPrivateAccess=true).",
    cutsAccess: "kubectl and CI systems outside the VPC can no longer reach the Kubernetes API.",
    read: async (ctx, row) => {
      const out = await ctx.clients.get("eks", ctx.region).send(new DescribeClusterCommand({ name: row.resource_id }), sendOptions(ctx))
      const vpc = out.cluster?.resourcesVpcConfig
      if (vpc === undefined) throw new FixError(`Cluster ${row.resource_id} was not found in ${ctx.region}`)
      // Settings never set read as EKS's defaults (public endpoint open to 0.0.0.0/0, no private endpoint), as the scanner does.
      return { endpointPublicAccess: vpc.endpointPublicAccess !== false, endpointPrivateAccess: vpc.endpointPrivateAccess === true, publicAccessCidrs: [...(vpc.publicAccessCidrs ?? ["0.0.0.0/0"])].sort() }
    },
    plan: (ctx, row, state) => {
      const s = state as { endpointPublicAccess: boolean; endpointPrivateAccess: boolean; publicAccessCidrs: string[] }
      const set = (pub: boolean, priv: boolean, cidrs?: string[]) =>
        awsCall("eks", "UpdateClusterConfig", ctx.region, { name: row.resource_id, resourcesVpcConfig: { endpointPublicAccess: pub, endpointPrivateAccess: priv, ...(cidrs === undefined || cidrs.length === 0 ? {} : { publicAccessCidrs: cidrs }) } })
      return {
        calls: [set(false, true)],
        effects: [`The Kubernetes API of ${row.resource_id} is reachable only from its VPC (and networks connected to it); the update takes several minutes.`],
        summary: `Cluster ${row.resource_id}'s API endpoint is private.`,
        undo: { reversible: true, calls: [set(s.endpointPublicAccess, s.endpointPrivateAccess, s.endpointPublicAccess ? s.publicAccessCidrs : undefined)] },
      }
    },
  },
]

registerTerraform("logs", "PutRetentionPolicy", (call) =>
  tfBlock("resource", "aws_cloudwatch_log_group", tfName(String(call.params["logGroupName"])), [["name", call.params["logGroupName"]], ["retention_in_days", call.params["retentionInDays"]]]),
)
registerTerraform("ecr", "PutImageScanningConfiguration", (call) =>
  [`# In the aws_ecr_repository resource of ${String(call.params["repositoryName"])}:`, tfBlock("", "image_scanning_configuration", "", [["scan_on_push", (call.params["imageScanningConfiguration"] as { scanOnPush: boolean }).scanOnPush]]).trimStart()].join("\n"),
)
registerTerraform("ecr", "PutImageTagMutability", (call) =>
  [`# In the aws_ecr_repository resource of ${String(call.params["repositoryName"])}:`, `image_tag_mutability = ${JSON.stringify(call.params["imageTagMutability"])}`].join("\n"),
)
registerTerraform("lambda", "UpdateFunctionUrlConfig", (call) =>
  tfBlock("resource", "aws_lambda_function_url", tfName(String(call.params["FunctionName"])), [["function_name", call.params["FunctionName"]], ["authorization_type", call.params["AuthType"]]]),
)
const LB_ARGUMENT: Readonly<Record<string, string>> = { "deletion_protection.enabled": "enable_deletion_protection", "routing.http.drop_invalid_header_fields.enabled": "drop_invalid_header_fields" }
registerTerraform("elbv2", "ModifyLoadBalancerAttributes", (call) => {
  const attrs = call.params["Attributes"] as ReadonlyArray<{ Key: string; Value: string }>
  return [`# In the aws_lb resource of ${String(call.params["LoadBalancerArn"])}:`, ...attrs.map((a) => `${LB_ARGUMENT[a.Key] ?? a.Key} = ${a.Value}`)].join("\n")
})
registerTerraform("eks", "UpdateClusterConfig", (call) => {
  const v = call.params["resourcesVpcConfig"] as { endpointPublicAccess: boolean; endpointPrivateAccess: boolean }
  return [`# In the aws_eks_cluster resource of ${String(call.params["name"])}:`, tfBlock("", "vpc_config", "", [["endpoint_public_access", v.endpointPublicAccess], ["endpoint_private_access", v.endpointPrivateAccess]]).trimStart()].join("\n")
})
