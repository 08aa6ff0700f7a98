/** ELBv2 inventory per region: application/network load balancers with their listeners and attributes. */
import { DescribeListenersCommand, DescribeLoadBalancerAttributesCommand, DescribeLoadBalancersCommand } from "@aws-sdk/client-elastic-load-balancing-v2"
import type { CollectContext } from "../context.ts"

export const elbv2ResourceTypes = ["elbv2.load_balancers", "elbv2.listeners", "elbv2.attributes"] as const

export interface Listener {
  readonly arn: string
  readonly protocol: string
  readonly port: number | undefined
  readonly sslPolicy: string | undefined
  /** Default actions: "redirect:HTTPS" for an HTTPS redirect, else the action type. */
  readonly defaultActions: ReadonlyArray<string>
}

export interface LoadBalancer {
  readonly name: string
  readonly arn: string
  readonly type: string
  readonly scheme: string
  readonly listeners: ReadonlyArray<Listener> | undefined
  /** Attribute key -> value; absent keys are at their AWS default. */
  readonly attributes: Readonly<Record<string, string>> | undefined
}

export interface Elbv2Inventory {
  readonly regions: ReadonlyArray<{ readonly region: string; readonly loadBalancers: ReadonlyArray<LoadBalancer> | undefined }>
}

export async function collectElbv2(ctx: CollectContext): Promise<Elbv2Inventory> {
  const regions = await ctx.perRegion(async (region) => {
    const elb = ctx.clients.get("elbv2", region)
    const list = await ctx.paginate(
      { type: "elbv2.load_balancers", region, op: "elasticloadbalancing:DescribeLoadBalancers" },
      (m, o) => elb.send(new DescribeLoadBalancersCommand({ ...(m === undefined ? {} : { Marker: m }) }), o),
      (p) => ({ items: p.LoadBalancers, next: p.NextMarker }),
    )
    const loadBalancers =
      list === undefined
        ? undefined
        : await ctx.map(list, async (lb): Promise<LoadBalancer> => {
            const arn = lb.LoadBalancerArn ?? ""
            const [listeners, attrs] = await Promise.all([
              ctx.wants("elbv2.listeners")
                ? ctx.paginate(
                    { type: "elbv2.listeners", region, op: "elasticloadbalancing:DescribeListeners", id: arn },
                    (m, o) => elb.send(new DescribeListenersCommand({ LoadBalancerArn: arn, ...(m === undefined ? {} : { Marker: m }) }), o),
                    (p) => ({ items: p.Listeners, next: p.NextMarker }),
                  )
                : Promise.resolve(undefined),
              ctx.wants("elbv2.attributes")
                ? ctx.call({ type: "elbv2.attributes", region, op: "elasticloadbalancing:DescribeLoadBalancerAttributes", id: arn }, (o) =>
                    elb.send(new DescribeLoadBalancerAttributesCommand({ LoadBalancerArn: arn }), o),
                  )
                : Promise.resolve(undefined),
            ])
            return {
              name: lb.LoadBalancerName ?? "",
              arn,
              type: lb.Type ?? "application",
              scheme: lb.Scheme ?? "",
              listeners: listeners?.map((l) => ({
                arn: l.ListenerArn ?? "",
                protocol: l.Protocol ?? "",
                port: l.Port,
                sslPolicy: l.SslPolicy,
                defaultActions: (l.DefaultActions ?? []).map((a) => (a.Type === "redirect" ? `redirect:${a.RedirectConfig?.Protocol ?? "#{protocol}"}` : (a.Type ?? ""))),
              })),
              attributes: attrs === undefined ? undefined : Object.fromEntries((attrs.Attributes ?? []).map((a) => [a.Key ?? "", a.Value ?? ""])),
            }
          })
    ctx.countResources(loadBalancers?.length ?? 0)
    return { region, loadBalancers }
  })
  return { regions }
}
