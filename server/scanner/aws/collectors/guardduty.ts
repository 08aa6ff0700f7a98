/** GuardDuty inventory per region: detectors and their status. */
import { GetDetectorCommand, ListDetectorsCommand } from "@aws-sdk/client-guardduty"
import type { CollectContext } from "../context.ts"

export const guarddutyResourceTypes = ["guardduty.detectors"] as const

export interface GuardDutyInventory {
  readonly regions: ReadonlyArray<{ readonly region: string; readonly detectors: ReadonlyArray<{ readonly id: string; readonly status: string }> | undefined }>
}

export async function collectGuardDuty(ctx: CollectContext): Promise<GuardDutyInventory> {
  const regions = await ctx.perRegion(async (region) => {
    const gd = ctx.clients.get("guardduty", region)
    const ids = await ctx.paginate(
      { type: "guardduty.detectors", region, op: "guardduty:ListDetectors" },
      (t, o) => gd.send(new ListDetectorsCommand({ ...(t === undefined ? {} : { NextToken: t }) }), o),
      (p) => ({ items: p.DetectorIds, next: p.NextToken }),
    )
    if (ids === undefined) return { region, detectors: undefined }
    const detectors = await ctx.map(ids, async (id) => {
      const d = await ctx.call({ type: "guardduty.detectors", region, op: "guardduty:GetDetector", id }, (o) => gd.send(new GetDetectorCommand({ DetectorId: id }), o))
      return { id, status: d?.Status ?? "UNKNOWN" }
    })
    ctx.countResources(detectors.length)
    return { region, detectors }
  })
  return { regions }
}
