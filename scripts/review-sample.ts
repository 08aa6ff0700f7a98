/**
 * Draws the seeded random sample of checks for a re-review (server/scanner/<provider>/REVIEW.md):
 *   node scripts/review-sample.ts gcp 29 50
 * Method: the provider's check ids sorted by code unit, shuffled with Fisher–Yates driven by mulberry32(seed),
 * the first N taken, then listed in catalogue order. Deterministic for a given catalogue, seed and N.
 */
import { gcpChecks } from "../server/scanner/gcp/catalogue.ts"
import { azureChecks } from "../server/scanner/azure/catalogue.ts"

export function mulberry32(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

export function drawSample(ids: ReadonlyArray<string>, seed: number, n: number): string[] {
  const pool = [...ids].sort()
  const rand = mulberry32(seed)
  for (let i = pool.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1))
    ;[pool[i], pool[j]] = [pool[j]!, pool[i]!]
  }
  const picked = new Set(pool.slice(0, n))
  return ids.filter((id) => picked.has(id))
}

const [provider = "gcp", seed = "29", n = "50"] = process.argv.slice(2)
const checks = provider === "azure" ? azureChecks : gcpChecks
const sample = drawSample(
  checks.map((c) => c.id),
  Number(seed),
  Number(n),
)
console.log(`${provider}: ${checks.length} checks, seed ${seed}, ${sample.length} drawn`)
for (const id of sample) {
  const c = checks.find((x) => x.id === id)!
  console.log(`${id}\t${c.cisRefs["v4"] ?? c.cisRefs["v3"] ?? "-"}`)
}
