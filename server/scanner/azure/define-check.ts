/**
 * `defineAzureCheck`: metadata plus a pure `evaluate` over the inventory sections named in `uses`. A check names
 * its CIS Microsoft Azure Foundations Benchmark control in v3.0.0 and/or v4.0.0 (v4 moved or dropped many v3
 * controls, e.g. the database and App Service ones live in separate benchmarks since v4).
 */
import type { DetailRow, Severity } from "../check.ts"
import { row, type EvaluateEnv, type Judgement, type RestCheck } from "../rest/engine.ts"
import { locationOf, resourceGroupOf } from "./context.ts"
import type { AzureCollectorOf, AzureInventoryWith, AzureResourceType, AzureScanInventory } from "./inventory.ts"

export const CIS_AZURE_V3 = "CIS Microsoft Azure Foundations Benchmark v3.0.0"
export const CIS_AZURE_V4 = "CIS Microsoft Azure Foundations Benchmark v4.0.0"

export interface AzureCheckDefinition<R extends AzureResourceType> {
  readonly id: string
  readonly service: string
  readonly title: string
  readonly description: string
  readonly severity: Severity
  readonly cis: { readonly v3?: string; readonly v4?: string }
  readonly remediation: string
  readonly field_labels: Readonly<Record<string, string>>
  readonly uses: ReadonlyArray<R>
  readonly reads: string
  readonly evaluate: (inventory: AzureInventoryWith<AzureCollectorOf<R>>, env: EvaluateEnv) => ReadonlyArray<DetailRow>
}

export type AzureCheck = RestCheck<AzureScanInventory>

export function defineAzureCheck<const R extends AzureResourceType>(d: AzureCheckDefinition<R>): AzureCheck {
  const { cis, evaluate, field_labels, ...rest } = d
  return {
    ...rest,
    provider: "azure",
    field_labels: { name: "Name", resource_group: "Resource group", ...field_labels },
    cisRefs: { ...(cis.v3 === undefined ? {} : { v3: cis.v3 }), ...(cis.v4 === undefined ? {} : { v4: cis.v4 }) },
    compliance: [...(cis.v3 === undefined ? [] : [{ framework: CIS_AZURE_V3, control: cis.v3 }]), ...(cis.v4 === undefined ? [] : [{ framework: CIS_AZURE_V4, control: cis.v4 }])],
    evaluate: evaluate as unknown as AzureCheck["evaluate"],
  }
}

/** A row for an ARM resource: its id (what fixers need), location, name and resource group. */
export function resourceRow(
  r: { readonly id: string; readonly name: string; readonly location?: string },
  compliant: boolean,
  reason: string,
  fields: Readonly<Record<string, DetailRow[string]>> = {},
): DetailRow {
  return row(r.id, locationOf(r), compliant, reason, { name: r.name, resource_group: resourceGroupOf(r.id), ...fields })
}

/**
 * A check beyond CIS judging one setting of each resource a collector lists: one row per resource with the judged value
 * under `label`.
 */
export function settingCheck<const R extends AzureResourceType, T extends { readonly id: string; readonly name: string; readonly location?: string }>(spec: {
  readonly id: string
  readonly service: string
  readonly title: string
  readonly description: string
  readonly severity: Severity
  readonly remediation: string
  readonly label: string
  readonly uses: ReadonlyArray<R>
  readonly reads: string
  readonly resources: (inv: AzureInventoryWith<AzureCollectorOf<R>>) => ReadonlyArray<T> | undefined
  readonly judge: (resource: T) => Judgement
}): AzureCheck {
  const { label, resources, judge, ...meta } = spec
  return defineAzureCheck<R>({
    ...meta,
    cis: {},
    field_labels: { value: label },
    evaluate: (inv) =>
      (resources(inv) ?? []).map((r) => {
        const j = judge(r)
        return resourceRow(r, j.ok, j.reason, { value: j.value })
      }),
  })
}

/** A subscription-level row. */
export const subscriptionRow = (inv: AzureScanInventory, compliant: boolean, reason: string, fields: Readonly<Record<string, DetailRow[string]>> = {}): DetailRow =>
  row(`/subscriptions/${inv.subscriptionId}`, "global", compliant, reason, fields)
