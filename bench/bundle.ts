/**
 * First-visit JavaScript per route (issue 17): builds the SPA into a temporary directory with Vite's manifest, then, for
 * every route of `src/views/routes.tsx`, sums the gzipped size of the JS a first visit loads: the entry chunk with its
 * static imports, plus the route's lazy screen chunk with its static imports (shared chunks counted once). Prints one
 * line per route, /login first, and a JSON line for tracking.
 *
 *   npm run bench:bundle
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join, relative, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import { gzipSync } from "node:zlib"
import { build } from "vite"

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..")
const VIEWS = join(ROOT, "src", "views")

interface ManifestChunk {
  readonly file: string
  readonly imports?: ReadonlyArray<string>
  readonly isEntry?: boolean
}

/** The screen module a route's view loads lazily, or null when the view is part of the entry. */
const lazyModuleOf = (viewName: string, routesSource: string): string | null => {
  const local = new RegExp(`const ${viewName} = lazyScreen\\(\\(\\) =>\\s*import\\("([^"]+)"\\)`).exec(routesSource)
  if (local !== null) return relative(ROOT, join(VIEWS, local[1]!))
  const imported = new RegExp(`import \\{[^}]*\\b${viewName}\\b[^}]*\\} from "([^"]+)"`).exec(routesSource)
  if (imported === null) return null
  const file = join(VIEWS, imported[1]!)
  const wrapped = new RegExp(`export const ${viewName} = lazyScreen\\(\\(\\) =>\\s*import\\("([^"]+)"\\)`).exec(
    readFileSync(file, "utf8"),
  )
  return wrapped === null ? null : relative(ROOT, join(dirname(file), wrapped[1]!))
}

const out = mkdtempSync(join(tmpdir(), "bundle-bench-"))
try {
  await build({ root: ROOT, logLevel: "warn", build: { outDir: out, manifest: true, emptyOutDir: true } })
  const manifest = JSON.parse(readFileSync(join(out, ".vite", "manifest.json"), "utf8")) as Record<string, ManifestChunk>
  const gz = new Map<string, number>()
  const sizeOf = (file: string) => {
    let n = gz.get(file)
    if (n === undefined) gz.set(file, (n = gzipSync(readFileSync(join(out, file))).length))
    return n
  }
  const closure = (key: string, seen: Set<string>) => {
    const chunk = manifest[key]
    if (chunk === undefined || seen.has(chunk.file)) return
    seen.add(chunk.file)
    for (const i of chunk.imports ?? []) closure(i, seen)
  }
  const entryKey = Object.keys(manifest).find((k) => manifest[k]!.isEntry === true)!
  const routesSource = readFileSync(join(VIEWS, "routes.tsx"), "utf8")
  const routes = [...routesSource.matchAll(/route\("([^"]+)", (\w+), "\w+"(, true)?\)/g)].map((m) => ({
    path: m[1]!,
    view: m[2]!,
    inDashboard: m[3] !== undefined,
  }))
  const shell = lazyModuleOf("DashboardShell", routesSource)
  const boot = manifest["src/browser-boot.ts"] === undefined ? null : "src/browser-boot.ts"
  const kbOf = (files: Set<string>) => [...files].filter((f) => f.endsWith(".js")).reduce((n, f) => n + sizeOf(f), 0) / 1024
  const rows = routes.map(({ path, view, inDashboard }) => {
    const files = new Set<string>()
    closure(entryKey, files)
    if (inDashboard && shell !== null) closure(shell, files)
    const screen = lazyModuleOf(view, routesSource)
    if (screen !== null) closure(screen, files)
    const first = kbOf(files)
    const chunks = [...files].filter((f) => f.endsWith(".js")).length
    // The rest of the application (API client, contracts, session): loaded right after the first paint (src/main.tsx).
    if (boot !== null) closure(boot, files)
    return { path, kb: first, all: kbOf(files), chunks }
  })
  rows.sort((a, b) => (a.path === "/login" ? -1 : b.path === "/login" ? 1 : a.path.localeCompare(b.path)))
  console.log("first-visit JavaScript per route (gzipped): to show the page / with the rest of the application")
  for (const r of rows) {
    console.log(`  ${r.path.padEnd(52)} ${r.kb.toFixed(1).padStart(7)} KB  ${r.all.toFixed(1).padStart(7)} KB  ${r.chunks} chunks`)
  }
  const result = { bench: "bundle", routes: Object.fromEntries(rows.map((r) => [r.path, Number(r.kb.toFixed(1))])) }
  console.log(JSON.stringify(result))
  if (process.env["BUNDLE_JSON"] !== undefined) writeFileSync(process.env["BUNDLE_JSON"], JSON.stringify(result))
} finally {
  rmSync(out, { recursive: true, force: true })
}
