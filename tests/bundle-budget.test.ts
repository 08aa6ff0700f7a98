/**
 * Issue 17: the sign-in page's first load stays within 130 KB of gzipped JavaScript. Runs `npm run bench:bundle`
 * (a production build with Vite's manifest into a temporary directory) and reads its per-route figures.
 */
import { spawnSync } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { describe, expect, it } from "vitest"

const LOGIN_BUDGET_KB = 130
const BENCH = resolve(import.meta.dirname, "../bench/bundle.ts")

describe("first-load budget", () => {
  it(`/login loads at most ${LOGIN_BUDGET_KB} KB of gzipped JavaScript before it shows`, () => {
    const dir = mkdtempSync(join(tmpdir(), "bundle-budget-"))
    try {
      const out = join(dir, "bundle.json")
      // A production build, as `npm run bench:bundle` makes it outside the test runner (which sets NODE_ENV=test).
      const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("VITEST")))
      const run = spawnSync(process.execPath, [BENCH], {
        env: { ...env, NODE_ENV: "production", BUNDLE_JSON: out },
        encoding: "utf8",
      })
      expect(run.status, run.stderr).toBe(0)
      const { routes } = JSON.parse(readFileSync(out, "utf8")) as { routes: Record<string, number> }
      // Every route of the table was measured (a route the bench could not read would hide a regression).
      expect(Object.keys(routes).length).toBeGreaterThanOrEqual(20)
      expect(routes["/login"]).toBeGreaterThan(50)
      expect(routes["/login"]).toBeLessThanOrEqual(LOGIN_BUDGET_KB)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }, 240_000)
})
