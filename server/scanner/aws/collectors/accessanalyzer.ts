/** IAM Access Analyzer inventory per region: analyzers and their status. */
import { ListAnalyzersCommand } from "@aws-sdk/client-accessanalyzer"
import type { CollectContext } from "../context.ts"

export const accessanalyzerResourceTypes = ["accessanalyzer.analyzers"] as const

export interface AccessAnalyzerInventory {
  readonly regions: ReadonlyArray<{
    readonly region: string
    readonly analyzers: ReadonlyArray<{ readonly name: string; readonly arn: string; readonly type: string; readonly status: string }> | undefined
  }>
}

export async function collectAccessAnalyzer(ctx: CollectContext): Promise<AccessAnalyzerInventory> {
  const regions = await ctx.perRegion(async (region) => {
    const list = await ctx.paginate(
      { type: "accessanalyzer.analyzers", region, op: "access-analyzer:ListAnalyzers" },
      (t, o) => ctx.clients.get("accessanalyzer", region).send(new ListAnalyzersCommand({ ...(t === undefined ? {} : { nextToken: t }) }), o),
      (p) => ({ items: p.analyzers, next: p.nextToken }),
    )
    ctx.countResources(list?.length ?? 0)
    return { region, analyzers: list?.map((a) => ({ name: a.name ?? "", arn: a.arn ?? "", type: a.type ?? "", status: a.status ?? "" })) }
  })
  return { regions }
}
