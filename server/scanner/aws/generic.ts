/**
 * `itemCheck` and `flagChecks`: checks over the per-region item lists of the smaller services' collectors
 * (`collectors/per-region.ts`), one row per item the judge decides.
 */
import type { CisRefs, DetailRow, RowValue, TestedWith } from "../check.ts"
import type { RegionItems } from "./collectors/per-region.ts"
import { defineCheck, row, type AwsCheck, type CheckDefinition, type EvaluateEnv } from "./define-check.ts"
import type { CollectorOf, InventoryWith, ResourceType } from "./inventory.ts"

export interface Judgement {
  readonly id: string
  readonly ok: boolean
  readonly reason: string
  readonly fields?: Readonly<Record<string, RowValue>>
}

export function itemCheck<const R extends ResourceType, T>(
  spec: Omit<CheckDefinition<R>, "evaluate" | "cis" | "testedWith"> & {
    readonly cis?: CisRefs
    readonly testedWith?: TestedWith
    readonly regions: (inv: InventoryWith<CollectorOf<R>>) => ReadonlyArray<RegionItems<T>>
    /** undefined: the item is not judged by this check. */
    readonly judge: (item: T, region: string, inv: InventoryWith<CollectorOf<R>>, env: EvaluateEnv) => Judgement | undefined
  },
): AwsCheck {
  const { regions, judge, cis, testedWith, ...meta } = spec
  return defineCheck<R>({
    ...meta,
    cis: cis ?? {},
    testedWith: testedWith ?? "moto",
    evaluate: (inv, env) =>
      regions(inv).flatMap((r) =>
        (r.items ?? []).flatMap((item): DetailRow[] => {
          const j = judge(item, r.region, inv, env)
          return j === undefined ? [] : [row(j.id, r.region, j.ok, j.reason, j.fields ?? {})]
        }),
      ),
  })
}

export interface FlagSpec<T> {
  readonly id: string
  readonly title: string
  readonly description: string
  readonly severity: "critical" | "high" | "medium" | "low"
  readonly fsbp?: string
  readonly cis?: CisRefs
  readonly remediation: string
  readonly label: string
  readonly value: (item: T) => RowValue
  readonly ok: (item: T) => boolean
  /** Items the check judges (default: all). */
  readonly applies?: (item: T) => boolean
  /** "is encrypted" / "is not encrypted": appended to "<kind> <name> ". */
  readonly pass: string
  readonly fail: string
  readonly testedWith?: TestedWith
  readonly mockReason?: string
}

/**
 * A family of one-setting checks over the same items: `kind` names the resource in reasons ("Domain"), `idOf` and
 * `nameOf` give the row id and display name.
 */
export function flagChecks<const R extends ResourceType, T>(family: {
  readonly service: string
  readonly uses: ReadonlyArray<R>
  readonly regions: (inv: InventoryWith<CollectorOf<R>>) => ReadonlyArray<RegionItems<T>>
  readonly kind: string
  readonly idOf: (item: T) => string
  readonly nameOf?: (item: T) => string
}): (spec: FlagSpec<T>) => AwsCheck {
  return (spec) =>
    itemCheck<R, T>({
      id: spec.id,
      service: family.service,
      title: spec.title,
      description: spec.description,
      severity: spec.severity,
      ...(spec.cis === undefined ? {} : { cis: spec.cis }),
      ...(spec.fsbp === undefined ? {} : { fsbp: spec.fsbp }),
      remediation: spec.remediation,
      field_labels: { setting: spec.label },
      uses: family.uses,
      ...(spec.testedWith === undefined ? {} : { testedWith: spec.testedWith }),
      ...(spec.mockReason === undefined ? {} : { mockReason: spec.mockReason }),
      regions: family.regions,
      judge: (item) => {
        if (spec.applies !== undefined && !spec.applies(item)) return undefined
        const ok = spec.ok(item)
        const name = (family.nameOf ?? family.idOf)(item)
        return { id: family.idOf(item), ok, reason: `${family.kind} ${name} ${ok ? spec.pass : spec.fail}.`, fields: { setting: spec.value(item) } }
      },
    })
}
