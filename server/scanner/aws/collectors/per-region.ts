/**
 * The shape shared by the per-region resource collectors of the smaller services: a list of items per region,
 * undefined when the region could not be listed, and `listPerRegion`, which builds it. A leaf of the collectors: it
 * knows nothing of checks or of the scan inventory, so collectors → per-region never closes a circle back through
 * inventory.ts (which imports every collector) or define-check.ts.
 */
import type { CollectContext } from "../context.ts"

export interface RegionItems<T> {
  readonly region: string
  readonly items: ReadonlyArray<T> | undefined
}

export interface ItemsInventory<T> {
  readonly regions: ReadonlyArray<RegionItems<T>>
}

/** Per region: a paginated list, then an optional per-item enrichment (bounded fan-out). */
export async function listPerRegion<P, I, T>(
  ctx: CollectContext,
  spec: { readonly type: string; readonly op: string },
  fetchPage: (region: string, token: string | undefined, opts: Parameters<Parameters<CollectContext["call"]>[1]>[0]) => Promise<P>,
  extract: (page: P) => { readonly items: ReadonlyArray<I> | undefined; readonly next: string | undefined },
  enrich: (item: I, region: string) => Promise<T>,
): Promise<ItemsInventory<T>> {
  const regions = await ctx.perRegion(async (region): Promise<RegionItems<T>> => {
    const list = await ctx.paginate({ type: spec.type, region, op: spec.op }, (t, o) => fetchPage(region, t, o), extract)
    const items = list === undefined ? undefined : await ctx.map(list, (i) => enrich(i, region))
    ctx.countResources(items?.length ?? 0)
    return { region, items }
  })
  return { regions }
}
