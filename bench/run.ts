/**
 * `npm run bench`: runs every bench/*.ts except this file, one after another, each in its own Node process (so one
 * benchmark's servers and emulators cannot skew the next). `npm run bench -- scan auth` runs only those.
 * Exit code: 1 when any benchmark failed.
 */
import { spawnSync } from "node:child_process"
import { readdirSync } from "node:fs"
import { basename, join } from "node:path"

const dir = import.meta.dirname
const wanted = process.argv.slice(2)
const files = readdirSync(dir)
  .filter((f) => f.endsWith(".ts") && f !== basename(import.meta.filename))
  .filter((f) => wanted.length === 0 || wanted.includes(f.replace(/\.ts$/, "")))
  .sort()
let failed = 0
for (const file of files) {
  console.log(`\n=== bench/${file} ===`)
  const run = spawnSync(process.execPath, [join(dir, file)], { stdio: "inherit" })
  if (run.status !== 0) failed++
}
if (files.length === 0) console.log(`no benchmark matches ${wanted.join(", ")}`)
process.exitCode = failed > 0 || files.length === 0 ? 1 : 0
