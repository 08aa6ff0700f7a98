/**
 * Import boundaries of the layout (ARCHITECTURE.md, STYLE.md "Where things live"), checked on every source file:
 * - views never import src/services or server/ (effects reach views only through machines and main.tsx);
 * - contracts import only `effect` (and other contract files): they are shared by the SPA and the server;
 * - machines never import views or server/;
 * - nothing in src/ imports server/;
 * - server/ never imports src/views, src/machines or src/services (only src/contracts).
 */
import { readdirSync, readFileSync } from "node:fs"
import { dirname, join, relative, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..")
const SOURCE = /\.(?:ts|tsx|mts|cts|js|jsx|mjs)$/

export interface SourceFile {
  /** Repository-relative path with forward slashes. */
  readonly path: string
  readonly source: string
}

/** Removes comments, keeping string literals (so "http://…" inside a string survives). */
const stripComments = (source: string): string =>
  source.replace(/("(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*'|`(?:\\.|[^`\\])*`)|\/\*[\s\S]*?\*\/|\/\/[^\n]*/g, (_m, literal?: string) =>
    literal ?? "",
  )

/** Every module specifier imported or re-exported, statically or dynamically. */
export const importSpecifiers = (source: string): string[] => {
  const code = stripComments(source)
  const found: string[] = []
  const patterns = [
    /\b(?:import|export)\s+(?:type\s+)?(?:[\w*{}\s,$]+?\s+from\s+)?["']([^"']+)["']/g,
    /\bimport\s*\(\s*["']([^"']+)["']\s*\)/g,
    /\brequire\s*\(\s*["']([^"']+)["']\s*\)/g,
  ]
  for (const pattern of patterns) for (const match of code.matchAll(pattern)) if (match[1] !== undefined) found.push(match[1])
  return found
}

type Area = "views" | "machines" | "services" | "contracts" | "src" | "server" | "other"

const areaOf = (path: string): Area => {
  if (path.startsWith("src/views/")) return "views"
  if (path.startsWith("src/machines/")) return "machines"
  if (path.startsWith("src/services/")) return "services"
  if (path.startsWith("src/contracts/")) return "contracts"
  if (path.startsWith("src/")) return "src"
  if (path.startsWith("server/")) return "server"
  return "other"
}

const isRelative = (specifier: string) => specifier.startsWith("./") || specifier.startsWith("../")

/** `effect`, `effect/Schema`, `effect/http-api`… but not `@effect/…` (platform packages do I/O). */
const isEffect = (specifier: string) => specifier === "effect" || specifier.startsWith("effect/")

export const findViolations = (files: ReadonlyArray<SourceFile>): string[] => {
  const violations: string[] = []
  for (const file of files) {
    const from = areaOf(file.path)
    for (const specifier of importSpecifiers(file.source)) {
      const target = isRelative(specifier) ? join(dirname(file.path), specifier).split("\\").join("/") : undefined
      const to = target === undefined ? undefined : areaOf(target)
      const fail = (rule: string) => violations.push(`${file.path} imports "${specifier}": ${rule}`)
      if (from === "views" && (to === "services" || to === "server")) fail("views never import src/services or server/")
      if (from === "machines" && (to === "views" || to === "server")) fail("machines never import views or server/")
      if (from === "contracts" && !(isEffect(specifier) || to === "contracts"))
        fail("contracts import only effect and other contract files")
      // (views and machines have their own, more specific rule above)
      if ((from === "services" || from === "contracts" || from === "src") && to === "server") fail("src never imports server/")
      if (from === "server" && (to === "views" || to === "machines" || to === "services"))
        fail("server never imports src/views, src/machines or src/services")
    }
  }
  return violations
}

const listSources = (dir: string): SourceFile[] => {
  const absolute = join(ROOT, dir)
  let entries: string[]
  try {
    entries = readdirSync(absolute, { recursive: true, encoding: "utf8" })
  } catch {
    return []
  }
  return entries
    .filter((entry) => SOURCE.test(entry) && !entry.includes("node_modules"))
    .map((entry) => {
      const path = relative(ROOT, join(absolute, entry)).split("\\").join("/")
      return { path, source: readFileSync(join(ROOT, path), "utf8") }
    })
}

/**
 * The import circles among the given files (strongly connected components of more than one file, Tarjan), type-only
 * imports included: a circle of types still ties the files' meaning together and is one refactor away from a value circle.
 */
export const importCircles = (files: ReadonlyArray<SourceFile>): string[][] => {
  const known = new Set(files.map((f) => f.path))
  const edges = new Map<string, string[]>()
  for (const file of files) {
    const targets = importSpecifiers(file.source)
      .filter(isRelative)
      .map((specifier) => join(dirname(file.path), specifier).split("\\").join("/"))
      .filter((target) => known.has(target))
    edges.set(file.path, targets)
  }
  let next = 0
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const onStack = new Set<string>()
  const circles: string[][] = []
  const visit = (v: string): void => {
    index.set(v, next)
    low.set(v, next)
    next++
    stack.push(v)
    onStack.add(v)
    for (const w of edges.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w)
        low.set(v, Math.min(low.get(v)!, low.get(w)!))
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!))
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = []
      let w: string
      do {
        w = stack.pop()!
        onStack.delete(w)
        component.push(w)
      } while (w !== v)
      if (component.length > 1) circles.push(component.sort())
    }
  }
  for (const v of edges.keys()) if (!index.has(v)) visit(v)
  return circles
}

describe("import boundaries", () => {
  it("finds every kind of import", () => {
    const source = [
      `import a from "./a.ts"`,
      `import type { B } from '../b.ts'`,
      `import {\n  c,\n  d,\n} from "./c.ts"`,
      `import "./side-effect.css.ts"`,
      `export { e } from "./e.ts"`,
      `export * from "./f.ts"`,
      `const g = await import("./g.tsx")`,
      `// import h from "./commented.ts"`,
      `/* import i from "./block.ts" */`,
      `const url = "http://example.com" // not an import`,
    ].join("\n")
    expect(importSpecifiers(source)).toEqual(["./a.ts", "../b.ts", "./c.ts", "./side-effect.css.ts", "./e.ts", "./f.ts", "./g.tsx"])
  })

  it("reports each forbidden direction and allows the permitted ones", () => {
    const files: SourceFile[] = [
      { path: "src/views/a.view.tsx", source: `import { api } from "../services/api-client.ts"` },
      { path: "src/views/b.view.tsx", source: `import x from "../../server/config.ts"` },
      { path: "src/views/ok.view.tsx", source: `import { m } from "../machines/m.machine.ts"\nimport { T } from "../contracts/messages.ts"` },
      { path: "src/contracts/bad.ts", source: `import { ofetch } from "ofetch"\nimport { x } from "../services/storage.ts"` },
      { path: "src/contracts/ok.ts", source: `import { Schema } from "effect"\nimport * as H from "effect/http-api"\nimport { Id } from "./ids.ts"` },
      { path: "src/contracts/platform.ts", source: `import { NodeRuntime } from "@effect/platform-node"` },
      { path: "src/machines/bad.machine.ts", source: `import { V } from "../views/v.tsx"\nimport { S } from "../../server/s.ts"` },
      { path: "src/machines/ok.machine.ts", source: `import { setup } from "xstate"\nimport { c } from "../contracts/constants.ts"` },
      { path: "src/services/bad.ts", source: `import { db } from "../../server/db/client.ts"` },
      { path: "src/main.tsx", source: `import { clock } from "./services/clock.ts"\nimport { App } from "./views/app.tsx"` },
      { path: "server/api/bad.ts", source: `import { v } from "../../src/views/v.tsx"\nimport { m } from "../../src/machines/m.machine.ts"\nimport { s } from "../../src/services/s.ts"` },
      { path: "server/api/ok.ts", source: `import { Api } from "../../src/contracts/api.ts"` },
    ]
    expect(findViolations(files)).toEqual([
      `src/views/a.view.tsx imports "../services/api-client.ts": views never import src/services or server/`,
      `src/views/b.view.tsx imports "../../server/config.ts": views never import src/services or server/`,
      `src/contracts/bad.ts imports "ofetch": contracts import only effect and other contract files`,
      `src/contracts/bad.ts imports "../services/storage.ts": contracts import only effect and other contract files`,
      `src/contracts/platform.ts imports "@effect/platform-node": contracts import only effect and other contract files`,
      `src/machines/bad.machine.ts imports "../views/v.tsx": machines never import views or server/`,
      `src/machines/bad.machine.ts imports "../../server/s.ts": machines never import views or server/`,
      `src/services/bad.ts imports "../../server/db/client.ts": src never imports server/`,
      `server/api/bad.ts imports "../../src/views/v.tsx": server never imports src/views, src/machines or src/services`,
      `server/api/bad.ts imports "../../src/machines/m.machine.ts": server never imports src/views, src/machines or src/services`,
      `server/api/bad.ts imports "../../src/services/s.ts": server never imports src/views, src/machines or src/services`,
    ])
  })

  it("holds for the whole code base", () => {
    const files = [...listSources("src"), ...listSources("server")]
    const areas = new Set(files.map((file) => areaOf(file.path)))
    // Guard against a vacuous pass: the scan must actually see the code.
    for (const area of ["views", "machines", "contracts", "src"] as const) expect(areas.has(area)).toBe(true)
    console.info(`import boundaries: ${files.length} files checked`)
    expect(findViolations(files)).toEqual([])
  })

  it("finds an import circle, type-only edges included", () => {
    const files: SourceFile[] = [
      { path: "server/a.ts", source: `import { b } from "./b.ts"` },
      { path: "server/b.ts", source: `import type { C } from "./c/c.ts"` },
      { path: "server/c/c.ts", source: `import type { A } from "../a.ts"` },
      { path: "server/d.ts", source: `import { a } from "./a.ts"` },
    ]
    expect(importCircles(files)).toEqual([["server/a.ts", "server/b.ts", "server/c/c.ts"]])
  })

  it("server/ has no import circle (the AWS scanner's inventory ↔ collectors ↔ generic ↔ define-check one included)", () => {
    const files = listSources("server")
    expect(files.length).toBeGreaterThan(100)
    expect(importCircles(files)).toEqual([])
  })

  it("the domain below server/api never imports the HTTP layer (workspace context and policies live in server/auth)", () => {
    const domain = ["posture", "compliance", "scans", "organizations", "remediation", "scanner", "accounts", "auth", "jobs", "audit", "export", "db", "mail"]
    const violations: string[] = []
    for (const file of listSources("server")) {
      const area = file.path.split("/")[1] ?? ""
      if (!domain.includes(area)) continue
      for (const specifier of importSpecifiers(file.source).filter(isRelative)) {
        const target = join(dirname(file.path), specifier).split("\\").join("/")
        if (target.startsWith("server/api/") || target.startsWith("server/http/")) violations.push(`${file.path} imports ${specifier}`)
      }
    }
    expect(violations).toEqual([])
  })

  it("posture (the one algebra, mutes, schedules) sits below scans: scans may read it, it never imports scans", () => {
    const violations: string[] = []
    for (const file of listSources("server/posture"))
      for (const specifier of importSpecifiers(file.source).filter(isRelative)) {
        const target = join(dirname(file.path), specifier).split("\\").join("/")
        if (target.startsWith("server/scans/") || target.startsWith("server/api/")) violations.push(`${file.path} imports ${specifier}`)
      }
    expect(listSources("server/posture").length).toBeGreaterThan(3)
    expect(violations).toEqual([])
  })
})
