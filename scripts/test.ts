/**
 * `npm test`: every check CI runs, in order, stopping at the first red step.
 * typecheck → unit/property/model/integration (vitest) → statechart docs check → end-to-end (Playwright + Chromium).
 * Prints one closing line `tests: N passed, M failed` summed over the vitest and e2e runs.
 */
import { spawnSync } from "node:child_process"
import { mkdtempSync, readFileSync, existsSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

type Counts = { passed: number; failed: number; skipped: number }
const total: Counts = { passed: 0, failed: 0, skipped: 0 }
const only = process.argv.slice(2)
const reports = mkdtempSync(join(tmpdir(), "test-reports-"))

const run = (label: string, cmd: string, args: ReadonlyArray<string>): boolean => {
  const started = Date.now()
  console.log(`\n=== ${label}: ${cmd} ${args.join(" ")}`)
  const r = spawnSync(cmd, args, { stdio: "inherit", env: process.env })
  console.log(`=== ${label}: ${r.status === 0 ? "ok" : "FAILED"} in ${((Date.now() - started) / 1000).toFixed(1)} s`)
  return r.status === 0
}

const readVitestCounts = (file: string): Counts => {
  if (!existsSync(file)) return { passed: 0, failed: 0, skipped: 0 }
  const json = JSON.parse(readFileSync(file, "utf8")) as {
    numPassedTests?: number; numFailedTests?: number; numPendingTests?: number; numTodoTests?: number
  }
  return {
    passed: json.numPassedTests ?? 0,
    failed: json.numFailedTests ?? 0,
    skipped: (json.numPendingTests ?? 0) + (json.numTodoTests ?? 0),
  }
}

const add = (c: Counts) => {
  total.passed += c.passed
  total.failed += c.failed
  total.skipped += c.skipped
}

const steps: Array<[string, () => boolean]> = [
  ["typecheck", () => run("typecheck", "tsc", ["--noEmit", "-p", "."])],
  ["unit", () => {
    const out = join(reports, "unit.json")
    const ok = run("unit, property, model and integration tests", "vitest", [
      "run", "--reporter=default", "--reporter=json", `--outputFile.json=${out}`,
    ])
    add(readVitestCounts(out))
    return ok
  }],
  ["docs", () => run("statechart docs are current", "node", ["scripts/statecharts.ts", "--check"])],
  ["e2e", () => {
    const out = join(reports, "e2e.json")
    const ok = run("end-to-end (Chromium)", "vitest", [
      "run", "--config", "e2e/vitest.config.ts", "--reporter=default", "--reporter=json", `--outputFile.json=${out}`,
    ])
    add(readVitestCounts(out))
    return ok
  }],
]

let ok = true
for (const [name, step] of steps) {
  if (only.length > 0 && !only.includes(name)) continue
  if (!step()) { ok = false; break }
}
console.log(`\ntests: ${total.passed} passed, ${total.failed} failed${total.skipped ? `, ${total.skipped} skipped` : ""}`)
process.exit(ok && total.failed === 0 ? 0 : 1)
