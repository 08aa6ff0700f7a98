/** Inventory of compute fleets, per region: classic load balancers, Auto Scaling groups and launch configurations, ECS clusters and task definitions, SageMaker notebooks, EMR public access block. */
import { DescribeLoadBalancerAttributesCommand, DescribeLoadBalancersCommand } from "@aws-sdk/client-elastic-load-balancing"
import { DescribeAutoScalingGroupsCommand, DescribeLaunchConfigurationsCommand } from "@aws-sdk/client-auto-scaling"
import { DescribeClustersCommand, DescribeTaskDefinitionCommand, ListClustersCommand, ListTaskDefinitionsCommand } from "@aws-sdk/client-ecs"
import { DescribeNotebookInstanceCommand, ListNotebookInstancesCommand } from "@aws-sdk/client-sagemaker"
import { GetBlockPublicAccessConfigurationCommand } from "@aws-sdk/client-emr"
import type { CollectContext } from "../context.ts"
import { listPerRegion, type ItemsInventory } from "./per-region.ts"

export const elbResourceTypes = ["elb.load_balancers"] as const
export const autoscalingResourceTypes = ["autoscaling.groups", "autoscaling.launch_configurations"] as const
export const ecsResourceTypes = ["ecs.clusters", "ecs.task_definitions"] as const
export const sagemakerResourceTypes = ["sagemaker.notebooks"] as const
export const emrResourceTypes = ["emr.public_access_block"] as const

const SECRET_NAME = /(secret|passw(or)?d|pwd|token|api_?key|private_?key|access_?key|credential)/i

export interface ClassicLb {
  readonly name: string
  readonly scheme: string
  readonly listeners: ReadonlyArray<{ readonly protocol: string; readonly port: number }>
  readonly accessLogs: boolean | undefined
  readonly crossZone: boolean | undefined
  readonly draining: boolean | undefined
  readonly zones: number
}
export type ElbInventory = ItemsInventory<ClassicLb>

export async function collectElb(ctx: CollectContext): Promise<ElbInventory> {
  return listPerRegion(
    ctx,
    { type: "elb.load_balancers", op: "elasticloadbalancing:DescribeLoadBalancers" },
    (region, m, o) => ctx.clients.get("elb", region).send(new DescribeLoadBalancersCommand({ ...(m === undefined ? {} : { Marker: m }) }), o),
    (p) => ({ items: p.LoadBalancerDescriptions, next: p.NextMarker }),
    async (lb, region): Promise<ClassicLb> => {
      const name = lb.LoadBalancerName ?? ""
      const attrs = (await ctx.call({ type: "elb.load_balancers", region, op: "elasticloadbalancing:DescribeLoadBalancerAttributes", id: name }, (o) =>
        ctx.clients.get("elb", region).send(new DescribeLoadBalancerAttributesCommand({ LoadBalancerName: name }), o),
      ))?.LoadBalancerAttributes
      return {
        name,
        scheme: lb.Scheme ?? "internet-facing",
        listeners: (lb.ListenerDescriptions ?? []).map((l) => ({ protocol: (l.Listener?.Protocol ?? "").toUpperCase(), port: l.Listener?.LoadBalancerPort ?? 0 })),
        accessLogs: attrs === undefined ? undefined : attrs.AccessLog?.Enabled === true,
        crossZone: attrs === undefined ? undefined : attrs.CrossZoneLoadBalancing?.Enabled === true,
        draining: attrs === undefined ? undefined : attrs.ConnectionDraining?.Enabled === true,
        zones: (lb.AvailabilityZones ?? []).length,
      }
    },
  )
}

export interface AsGroup {
  readonly name: string
  readonly zones: number
  readonly healthCheckType: string
  readonly loadBalanced: boolean
  readonly launchConfiguration: string | undefined
}
export interface LaunchConfiguration {
  readonly name: string
  readonly publicIp: boolean
  readonly httpTokens: string | undefined
  readonly httpEndpoint: string | undefined
}
export interface AutoScalingInventory {
  readonly regions: ReadonlyArray<{ readonly region: string; readonly groups: ReadonlyArray<AsGroup> | undefined; readonly launchConfigurations: ReadonlyArray<LaunchConfiguration> | undefined }>
}

export async function collectAutoScaling(ctx: CollectContext): Promise<AutoScalingInventory> {
  const regions = await ctx.perRegion(async (region) => {
    const as = ctx.clients.get("autoscaling", region)
    const [groups, configs] = await Promise.all([
      ctx.wants("autoscaling.groups")
        ? ctx.paginate(
            { type: "autoscaling.groups", region, op: "autoscaling:DescribeAutoScalingGroups" },
            (t, o) => as.send(new DescribeAutoScalingGroupsCommand({ ...(t === undefined ? {} : { NextToken: t }) }), o),
            (p) => ({ items: p.AutoScalingGroups, next: p.NextToken }),
          )
        : undefined,
      ctx.wants("autoscaling.launch_configurations")
        ? ctx.paginate(
            { type: "autoscaling.launch_configurations", region, op: "autoscaling:DescribeLaunchConfigurations" },
            (t, o) => as.send(new DescribeLaunchConfigurationsCommand({ ...(t === undefined ? {} : { NextToken: t }) }), o),
            (p) => ({ items: p.LaunchConfigurations, next: p.NextToken }),
          )
        : undefined,
    ])
    ctx.countResources((groups?.length ?? 0) + (configs?.length ?? 0))
    return {
      region,
      groups: groups?.map((g) => ({
        name: g.AutoScalingGroupName ?? "",
        zones: (g.AvailabilityZones ?? []).length,
        healthCheckType: g.HealthCheckType ?? "EC2",
        loadBalanced: (g.LoadBalancerNames ?? []).length + (g.TargetGroupARNs ?? []).length > 0,
        launchConfiguration: g.LaunchConfigurationName || undefined,
      })),
      launchConfigurations: configs?.map((c) => ({
        name: c.LaunchConfigurationName ?? "",
        publicIp: c.AssociatePublicIpAddress === true,
        httpTokens: c.MetadataOptions?.HttpTokens,
        httpEndpoint: c.MetadataOptions?.HttpEndpoint,
      })),
    }
  })
  return { regions }
}

export interface TaskDefinition {
  readonly arn: string
  readonly family: string
  readonly privileged: ReadonlyArray<string>
  readonly hostNetwork: boolean
  readonly plaintextSecrets: ReadonlyArray<string>
  readonly withoutLogs: ReadonlyArray<string>
  readonly writableRoot: ReadonlyArray<string>
}
export interface EcsCluster {
  readonly name: string
  readonly containerInsights: boolean
}
export interface EcsInventory {
  readonly regions: ReadonlyArray<{ readonly region: string; readonly clusters: ReadonlyArray<EcsCluster> | undefined; readonly taskDefinitions: ReadonlyArray<TaskDefinition> | undefined }>
}

export async function collectEcs(ctx: CollectContext): Promise<EcsInventory> {
  const regions = await ctx.perRegion(async (region) => {
    const ecs = ctx.clients.get("ecs", region)
    const [clusterArns, defs] = await Promise.all([
      ctx.wants("ecs.clusters")
        ? ctx.paginate(
            { type: "ecs.clusters", region, op: "ecs:ListClusters" },
            (t, o) => ecs.send(new ListClustersCommand({ ...(t === undefined ? {} : { nextToken: t }) }), o),
            (p) => ({ items: p.clusterArns, next: p.nextToken }),
          )
        : undefined,
      ctx.wants("ecs.task_definitions")
        ? ctx.paginate(
            { type: "ecs.task_definitions", region, op: "ecs:ListTaskDefinitions" },
            (t, o) => ecs.send(new ListTaskDefinitionsCommand({ status: "ACTIVE", ...(t === undefined ? {} : { nextToken: t }) }), o),
            (p) => ({ items: p.taskDefinitionArns, next: p.nextToken }),
          )
        : undefined,
    ])
    const described =
      clusterArns === undefined || clusterArns.length === 0
        ? clusterArns === undefined ? undefined : []
        : (await ctx.call({ type: "ecs.clusters", region, op: "ecs:DescribeClusters" }, (o) => ecs.send(new DescribeClustersCommand({ clusters: clusterArns.slice(0, 100), include: ["SETTINGS"] }), o)))?.clusters
    // Latest active revision of each family only: older revisions are not what runs next.
    const latest = new Map<string, string>()
    for (const arn of defs ?? []) {
      const m = /task-definition\/(.+):(\d+)$/.exec(arn)
      const family = m?.[1] ?? arn
      const prev = latest.get(family)
      if (prev === undefined || Number(/:(\d+)$/.exec(prev)?.[1] ?? 0) < Number(m?.[2] ?? 0)) latest.set(family, arn)
    }
    const taskDefinitions =
      defs === undefined
        ? undefined
        : (
            await ctx.map([...latest.values()], async (arn): Promise<TaskDefinition | undefined> => {
              const d = (await ctx.call({ type: "ecs.task_definitions", region, op: "ecs:DescribeTaskDefinition", id: arn }, (o) => ecs.send(new DescribeTaskDefinitionCommand({ taskDefinition: arn }), o)))?.taskDefinition
              if (d === undefined) return undefined
              const containers = d.containerDefinitions ?? []
              return {
                arn,
                family: d.family ?? "",
                privileged: containers.filter((c) => c.privileged === true).map((c) => c.name ?? ""),
                hostNetwork: d.networkMode === "host",
                plaintextSecrets: containers.flatMap((c) => (c.environment ?? []).filter((e) => SECRET_NAME.test(e.name ?? "")).map((e) => `${c.name}:${e.name}`)),
                withoutLogs: containers.filter((c) => c.logConfiguration?.logDriver === undefined).map((c) => c.name ?? ""),
                writableRoot: containers.filter((c) => c.readonlyRootFilesystem !== true).map((c) => c.name ?? ""),
              }
            })
          ).filter((t): t is TaskDefinition => t !== undefined)
    ctx.countResources((described?.length ?? 0) + (taskDefinitions?.length ?? 0))
    return {
      region,
      clusters: described?.map((c) => ({ name: c.clusterName ?? "", containerInsights: (c.settings ?? []).some((s) => s.name === "containerInsights" && (s.value === "enabled" || s.value === "enhanced")) })),
      taskDefinitions,
    }
  })
  return { regions }
}

export interface Notebook {
  readonly name: string
  readonly directInternet: boolean
  readonly rootAccess: boolean
  readonly kmsKeyId: string | undefined
  readonly subnetId: string | undefined
}
export type SageMakerInventory = ItemsInventory<Notebook>

export async function collectSageMaker(ctx: CollectContext): Promise<SageMakerInventory> {
  const inv = await listPerRegion(
    ctx,
    { type: "sagemaker.notebooks", op: "sagemaker:ListNotebookInstances" },
    (region, t, o) => ctx.clients.get("sagemaker", region).send(new ListNotebookInstancesCommand({ ...(t === undefined ? {} : { NextToken: t }) }), o),
    (p) => ({ items: p.NotebookInstances, next: p.NextToken }),
    async (n, region): Promise<Notebook | undefined> => {
      const name = n.NotebookInstanceName ?? ""
      const d = await ctx.call({ type: "sagemaker.notebooks", region, op: "sagemaker:DescribeNotebookInstance", id: name }, (o) =>
        ctx.clients.get("sagemaker", region).send(new DescribeNotebookInstanceCommand({ NotebookInstanceName: name }), o),
      )
      if (d === undefined) return undefined
      return { name, directInternet: d.DirectInternetAccess !== "Disabled", rootAccess: d.RootAccess !== "Disabled", kmsKeyId: d.KmsKeyId || undefined, subnetId: d.SubnetId || undefined }
    },
  )
  return { regions: inv.regions.map((r) => ({ region: r.region, items: r.items?.filter((i): i is Notebook => i !== undefined) })) }
}

export interface EmrInventory {
  readonly regions: ReadonlyArray<{ readonly region: string; readonly blockPublicAccess: { readonly enabled: boolean; readonly allowedPorts: ReadonlyArray<string> } | undefined }>
}

export async function collectEmr(ctx: CollectContext): Promise<EmrInventory> {
  const regions = await ctx.perRegion(async (region) => {
    const out = await ctx.call({ type: "emr.public_access_block", region, op: "elasticmapreduce:GetBlockPublicAccessConfiguration" }, (o) =>
      ctx.clients.get("emr", region).send(new GetBlockPublicAccessConfigurationCommand({}), o),
    )
    const c = out?.BlockPublicAccessConfiguration
    return {
      region,
      blockPublicAccess:
        out === undefined
          ? undefined
          : {
              enabled: c?.BlockPublicSecurityGroupRules === true,
              allowedPorts: (c?.PermittedPublicSecurityGroupRuleRanges ?? []).map((r) => (r.MaxRange === undefined || r.MaxRange === r.MinRange ? String(r.MinRange) : `${r.MinRange}-${r.MaxRange}`)),
            },
    }
  })
  return { regions }
}
