/**
 * `defineGcpCheck`: a check is metadata (catalogue, findings) plus a pure `evaluate` from the inventory sections
 * it declares in `uses` to detail rows. The type of `evaluate`'s inventory follows `uses`. CIS GCP v3.0 and v4.0
 * share their control ids, so one id yields both compliance references.
 */
import type { DetailRow, Severity } from "../check.ts"
import type { EvaluateEnv, RestCheck } from "../rest/engine.ts"
import type { GcpCollectorOf, GcpInventoryWith, GcpResourceType, GcpScanInventory } from "./inventory.ts"

export const CIS_GCP_V4 = "CIS Google Cloud Platform Foundation Benchmark v4.0.0"
export const CIS_GCP_V3 = "CIS Google Cloud Platform Foundation Benchmark v3.0.0"

export interface GcpCheckDefinition<R extends GcpResourceType> {
  readonly id: string
  readonly service: string
  readonly title: string
  readonly description: string
  readonly severity: Severity
  /** CIS GCP v4.0 (= v3.0) control id; absent for checks beyond the benchmark. */
  readonly cis?: string
  readonly remediation: string
  readonly field_labels: Readonly<Record<string, string>>
  readonly uses: ReadonlyArray<R>
  readonly reads: string
  readonly evaluate: (inventory: GcpInventoryWith<GcpCollectorOf<R>>, env: EvaluateEnv) => ReadonlyArray<DetailRow>
}

export type GcpCheck = RestCheck<GcpScanInventory>

export function defineGcpCheck<const R extends GcpResourceType>(d: GcpCheckDefinition<R>): GcpCheck {
  const { cis, evaluate, ...rest } = d
  return {
    ...rest,
    provider: "gcp",
    cisRefs: cis === undefined ? {} : { v4: cis, v3: cis },
    compliance:
      cis === undefined
        ? []
        : [
            { framework: CIS_GCP_V4, control: cis },
            { framework: CIS_GCP_V3, control: cis },
          ],
    evaluate: evaluate as unknown as GcpCheck["evaluate"],
  }
}
