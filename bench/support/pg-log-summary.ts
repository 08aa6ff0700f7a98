/**
 * Sums a PostgreSQL server log's statement durations by statement (what pg_stat_statements would show, for a server
 * that does not preload it): reads the lines `log_min_duration_statement = 0` writes for database DB (bench:fleet
 * `BENCH_PG_LOG=1` sets it for its database), normalises each statement (literals and parameters out, whitespace
 * folded), and prints the statements by total time with their count and mean, and the total per phase (parse, bind,
 * execute, simple query).
 *
 *   node bench/support/pg-log-summary.ts /var/log/postgresql/postgresql-15-main.log test_xxx [top=40]
 */
import { readFileSync } from "node:fs"

const [file, db, topArg] = process.argv.slice(2)
if (file === undefined || db === undefined) {
  console.error("usage: pg-log-summary.ts <server log> <database> [top]")
  process.exit(2)
}
const top = Number(topArg ?? 40)

const entry = new RegExp(`^\\S+ \\S+ \\S+ \\[\\d+\\] \\S*@${db} LOG:  duration: ([\\d.]+) ms  (parse|bind|execute|statement)([^:]*): (.*)$`)
const prefix = /^\d{4}-\d\d-\d\d \d/

const normalise = (sql: string) =>
  sql
    .replace(/'(?:[^']|'')*'/g, "?")
    .replace(/\$\d+/g, "?")
    .replace(/\b\d+(\.\d+)?\b/g, "?")
    .replace(/\s+/g, " ")
    .replace(/(\?, ?)+\?/g, "?…")
    .trim()
    .slice(0, 160)

const byStatement = new Map<string, { ms: number; n: number }>()
const byPhase = new Map<string, { ms: number; n: number }>()
let current: { ms: number; phase: string; text: Array<string> } | undefined

const flush = () => {
  if (current === undefined) return
  const key = normalise(current.text.join(" "))
  const s = byStatement.get(key) ?? { ms: 0, n: 0 }
  s.ms += current.ms
  s.n++
  byStatement.set(key, s)
  const p = byPhase.get(current.phase) ?? { ms: 0, n: 0 }
  p.ms += current.ms
  p.n++
  byPhase.set(current.phase, p)
  current = undefined
}

for (const line of readFileSync(file, "utf8").split("\n")) {
  const m = entry.exec(line)
  if (m !== null) {
    flush()
    current = { ms: Number(m[1]), phase: m[2]!, text: [m[4]!] }
  } else if (prefix.test(line)) {
    flush()
  } else if (current !== undefined) {
    current.text.push(line)
  }
}
flush()

const total = [...byPhase.values()].reduce((a, p) => a + p.ms, 0)
console.log(`database ${db}: ${[...byPhase.values()].reduce((a, p) => a + p.n, 0)} logged phases, ${(total / 1000).toFixed(2)} s in all`)
for (const [phase, p] of byPhase) console.log(`  ${phase.padEnd(10)} ${String(p.n).padStart(8)} × ${(p.ms / 1000).toFixed(2)} s`)
console.log("\n    total ms      count   mean ms  statement")
for (const [sql, s] of [...byStatement].sort((a, b) => b[1].ms - a[1].ms).slice(0, top)) {
  console.log(`${s.ms.toFixed(0).padStart(12)} ${String(s.n).padStart(10)} ${(s.ms / s.n).toFixed(3).padStart(9)}  ${sql}`)
}
