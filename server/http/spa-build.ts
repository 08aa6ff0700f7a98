/**
 * Builds the SPA with Vite's JS API when `dist/` is missing or older than its sources (used by
 * `npm start`). Fails with `SpaBuildError` and a one-line reason when the SPA entry files do not exist
 * or the build fails.
 */
import { existsSync, readdirSync, statSync } from "node:fs"
import { join, relative } from "node:path"
import { Data } from "effect"

export class SpaBuildError extends Data.TaggedError("SpaBuildError")<{ readonly message: string; readonly cause?: unknown }> {}

/** Files that make up the SPA besides src/**: a change to any of them requires a rebuild. */
const ROOT_INPUTS = ["index.html", "vite.config.ts", "package.json", "public"]
const REQUIRED = ["index.html", join("src", "main.tsx")]

const newestMtime = (path: string): number => {
  if (!existsSync(path)) return 0
  const info = statSync(path)
  if (!info.isDirectory()) return info.mtimeMs
  let newest = info.mtimeMs
  for (const entry of readdirSync(path)) newest = Math.max(newest, newestMtime(join(path, entry)))
  return newest
}

export type SpaStatus =
  | { readonly _tag: "UpToDate" }
  | { readonly _tag: "Stale"; readonly reason: string }
  | { readonly _tag: "MissingSources"; readonly missing: ReadonlyArray<string> }

/** Whether `<root>/dist` must be (re)built from `<root>/src` and the root inputs. */
export const spaStatus = (root: string, distDir = join(root, "dist")): SpaStatus => {
  const missing = REQUIRED.filter((file) => !existsSync(join(root, file)))
  if (missing.length > 0) return { _tag: "MissingSources", missing }
  const builtIndex = join(distDir, "index.html")
  if (!existsSync(builtIndex)) return { _tag: "Stale", reason: `${relative(root, builtIndex)} does not exist` }
  const built = statSync(builtIndex).mtimeMs
  const sources = Math.max(newestMtime(join(root, "src")), ...ROOT_INPUTS.map((f) => newestMtime(join(root, f))))
  return sources > built ? { _tag: "Stale", reason: "sources changed since the last build" } : { _tag: "UpToDate" }
}

/**
 * Builds when needed; resolves to what was done. `log` receives one line per step.
 * Vite is imported lazily so that `api`, `worker` and `migrate` never load it.
 */
export const ensureSpaBuilt = async (root: string, log: (msg: string, fields?: Record<string, unknown>) => void): Promise<"built" | "up-to-date"> => {
  const status = spaStatus(root)
  if (status._tag === "UpToDate") return "up-to-date"
  if (status._tag === "MissingSources") {
    throw new SpaBuildError({
      message: `cannot build the web app: ${status.missing.join(" and ")} ${status.missing.length === 1 ? "is" : "are"} missing in ${root} (the SPA entry has not been written yet); use "start --skip-build" to run the API alone`,
    })
  }
  log("building the web app with vite", { reason: status.reason })
  const started = Date.now()
  try {
    const vite = await import("vite")
    await vite.build({ root, logLevel: "warn", configFile: join(root, "vite.config.ts"), mode: "production" })
  } catch (cause) {
    const first = String((cause as Error)?.message ?? cause).split("\n")[0]
    throw new SpaBuildError({ message: `vite build failed: ${first}`, cause })
  }
  log("web app built", { ms: Date.now() - started })
  return "built"
}
