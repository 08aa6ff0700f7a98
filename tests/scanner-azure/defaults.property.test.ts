/**
 * Documented defaults (issue 29): answers generated from the fixtures' resources with each optional field of
 * server/scanner/azure/collectors/defaults.ts present (any documented value) or absent must get the same decision
 * from every Azure check as the same answers with the documented default filled in where the field is absent.
 */
import fc from "fast-check"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { evaluateRestCheck } from "../../server/scanner/rest/engine.ts"
import { azureChecks } from "../../server/scanner/azure/catalogue.ts"
import { absentValue, documentedDefaults, type DocumentedDefault } from "../../server/scanner/azure/collectors/defaults.ts"
import type { AzureScanInventory } from "../../server/scanner/azure/inventory.ts"
import { collectAzureInventory } from "../../server/scanner/azure/scan-service.ts"
import { azureEndpointsAt } from "../../server/scanner/azure/endpoints.ts"
import { HARDENED, hardenedSubscription, hardenedTenant, INSECURE, insecureSubscription, insecureTenant, NOW } from "./azure-fixtures.ts"
import { startAzureFixture, type AzureFixture } from "./helpers.ts"

let fx: AzureFixture
let bases: AzureScanInventory[] = []

beforeAll(async () => {
  fx = await startAzureFixture([hardenedTenant(), insecureTenant()], [hardenedSubscription(), insecureSubscription()])
  bases = await Promise.all(
    [HARDENED.subscriptionId, INSECURE.subscriptionId].map(async (sub) => (await collectAzureInventory({ credentials: fx.credentialsFor(sub), endpoints: azureEndpointsAt(fx.server.origin), now: NOW, maxAttempts: 1 }, azureChecks)).inventory),
  )
})

afterAll(async () => {
  await fx.close()
})

type Obj = Record<string, unknown>
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v) && !(v instanceof Map)

/** The objects holding the path's last key (their parent chain exists), with that key. */
function holders(item: object, path: string): Array<[Obj, string]> {
  const segments = path.split(".")
  let current: unknown[] = [item]
  for (const seg of segments.slice(0, -1)) {
    const array = seg.endsWith("[]")
    const key = array ? seg.slice(0, -2) : seg
    current = current.flatMap((o) => {
      if (!isObj(o)) return []
      const v = o[key]
      return array ? (Array.isArray(v) ? v : []) : v === undefined || v === null ? [] : [v]
    })
  }
  const last = segments.at(-1)!
  const array = last.endsWith("[]")
  return current.filter(isObj).map((o) => [o, array ? last.slice(0, -2) : last])
}

type Choice = { readonly kind: "keep" } | { readonly kind: "absent" } | { readonly kind: "value"; readonly value: unknown }

function apply(inv: AzureScanInventory, d: DocumentedDefault, choices: ReadonlyArray<Choice>): void {
  d.items(inv).forEach((item, i) => {
    const c = choices[i % choices.length]!
    for (const [o, k] of holders(item, d.path)) {
      if (c.kind === "absent") delete o[k]
      else if (c.kind === "value") o[k] = structuredClone(c.value)
    }
  })
}

/** Fills every absent field of the table with its documented default. */
function fillDefaults(inv: AzureScanInventory): void {
  for (const d of documentedDefaults)
    for (const item of d.items(inv))
      for (const [o, k] of holders(item, d.path)) if (o[k] === undefined) o[k] = structuredClone(absentValue(d, item))
}

/** Each check's decision: status and the compliance of each row by resource. */
const decisions = (inv: AzureScanInventory) =>
  Object.fromEntries(azureChecks.map((c) => {
    const r = evaluateRestCheck(c, inv, NOW)
    return [c.id, { status: r.status, rows: Object.fromEntries(r.details.map((d) => [d.resource_id, d.compliant])) }]
  }))

const choice = (d: DocumentedDefault): fc.Arbitrary<Choice> =>
  fc.oneof(fc.constant<Choice>({ kind: "keep" }), fc.constant<Choice>({ kind: "absent" }), ...(d.values.length === 0 ? [] : [fc.constantFrom(...d.values).map((value): Choice => ({ kind: "value", value }))]))

describe("documented defaults", () => {
  it("every check decides the same with an optional field absent as with its documented default", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1 }), fc.tuple(...documentedDefaults.map((d) => fc.array(choice(d), { minLength: 1, maxLength: 3 }))), (which, choices) => {
        const answer = structuredClone(bases[which]!)
        documentedDefaults.forEach((d, i) => apply(answer, d, choices[i]!))
        const filled = structuredClone(answer)
        fillDefaults(filled)
        expect(decisions(answer)).toEqual(decisions(filled))
      }),
      { numRuns: 150 },
    )
  })

  it("the table's fields decide checks: a documented value or absence changes some check (reports how many checks the property covers)", () => {
    const covered = new Set<string>()
    for (const base of bases) {
      const before = decisions(base)
      for (const d of documentedDefaults)
        for (const c of [{ kind: "absent" } as Choice, ...d.values.map((value): Choice => ({ kind: "value", value }))]) {
          const inv = structuredClone(base)
          apply(inv, d, [c])
          const after = decisions(inv)
          for (const id of Object.keys(before)) if (JSON.stringify(before[id]) !== JSON.stringify(after[id])) covered.add(id)
        }
    }
    console.info(`documented-default property test: ${documentedDefaults.length} fields, decisive for ${covered.size} of ${azureChecks.length} checks: ${[...covered].sort().join(", ")}`)
    expect(covered.size).toBeGreaterThanOrEqual(45)
  })
})
