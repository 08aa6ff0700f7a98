/**
 * `defineCheck`: a check is data (metadata shown in the catalogue and on findings) plus a pure `evaluate` from the
 * inventory sections it declares in `uses` to detail rows. The type of `evaluate`'s inventory follows `uses`, so
 * a check cannot read a section the engine will not collect for it.
 */
import type { CheckMeta, DetailRow } from "../check.ts"
import type { CollectorOf, InventoryWith, ResourceType, ScanInventory } from "./inventory.ts"

export interface EvaluateEnv {
  /** "Now" for age rules (key rotation, unused credentials): the collection time, injectable for tests. */
  readonly now: Date
}

export interface CheckDefinition<R extends ResourceType> extends Omit<CheckMeta, "uses" | "provider"> {
  readonly uses: ReadonlyArray<R>
  readonly evaluate: (inventory: InventoryWith<CollectorOf<R>>, env: EvaluateEnv) => ReadonlyArray<DetailRow>
}

export interface AwsCheck extends CheckMeta {
  readonly uses: ReadonlyArray<ResourceType>
  readonly evaluate: (inventory: ScanInventory, env: EvaluateEnv) => ReadonlyArray<DetailRow>
}

export function defineCheck<const R extends ResourceType>(definition: CheckDefinition<R>): AwsCheck {
  return {
    ...definition,
    provider: "aws",
    evaluate: definition.evaluate as unknown as AwsCheck["evaluate"],
  }
}

/** Row helper: resource id, region, compliance and reason first, then the check's own fields. */
export function row(
  resourceId: string,
  region: string,
  compliant: boolean,
  reason: string,
  fields: Readonly<Record<string, DetailRow[string]>> = {},
): DetailRow {
  return { resource_id: resourceId, region, compliant, reason, ...fields }
}
