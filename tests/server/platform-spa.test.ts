/**
 * `npm start` builds the SPA only when needed: dist/ missing or older than its sources; a checkout without
 * the SPA entry files fails with one clear line instead of a Vite stack trace.
 */
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { ensureSpaBuilt, spaStatus } from "../../server/http/spa-build.ts"

const dirs: Array<string> = []
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

const project = (files: Record<string, string>) => {
  const root = mkdtempSync(join(tmpdir(), "spa-test-"))
  dirs.push(root)
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(join(root, path, ".."), { recursive: true })
    writeFileSync(join(root, path), content)
  }
  return root
}

const age = (path: string, secondsAgo: number) => {
  const t = new Date(Date.now() - secondsAgo * 1000)
  utimesSync(path, t, t)
}

describe("SPA build decision", () => {
  it("builds when dist/ is missing", () => {
    const root = project({ "index.html": "<html>", "src/main.tsx": "export {}" })
    expect(spaStatus(root)).toEqual({ _tag: "Stale", reason: "dist/index.html does not exist" })
  })

  it("rebuilds when a source is newer than dist/index.html, not otherwise", () => {
    const root = project({ "index.html": "<html>", "src/main.tsx": "export {}", "src/views/a.tsx": "export {}", "dist/index.html": "<html>" })
    for (const f of ["index.html", "src/main.tsx", "src/views/a.tsx", "src/views", "src"]) age(join(root, f), 120)
    age(join(root, "dist/index.html"), 60)
    expect(spaStatus(root)).toEqual({ _tag: "UpToDate" })
    age(join(root, "src/views/a.tsx"), 0)
    expect(spaStatus(root)).toEqual({ _tag: "Stale", reason: "sources changed since the last build" })
  })

  it("fails with one clear line when the SPA entry files do not exist", async () => {
    const root = project({ "package.json": "{}" })
    expect(spaStatus(root)).toEqual({ _tag: "MissingSources", missing: ["index.html", "src/main.tsx"] })
    const error = await ensureSpaBuilt(root, () => undefined).then(
      () => undefined,
      (e: Error) => e,
    )
    expect(error?.message).toBe(
      `cannot build the web app: index.html and src/main.tsx are missing in ${root} (the SPA entry has not been written yet); use "start --skip-build" to run the API alone`,
    )
  })

  it("does nothing when the build is up to date", async () => {
    const root = project({ "index.html": "<html>", "src/main.tsx": "export {}", "dist/index.html": "<html>" })
    for (const f of ["index.html", "src/main.tsx", "src"]) age(join(root, f), 120)
    const log: Array<string> = []
    expect(await ensureSpaBuilt(root, (msg) => log.push(msg))).toBe("up-to-date")
    expect(log).toEqual([])
  })
})
