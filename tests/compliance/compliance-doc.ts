/** docs/compliance.md, generated from the framework catalogue (see tests/compliance/catalogue.test.ts). */
import { frameworks } from "../../server/compliance/catalogue.ts"

const esc = (s: string) => s.replace(/\|/g, "\\|")

export const complianceDoc = (): string => {
  const out: string[] = [
    "# Compliance frameworks",
    "",
    "Generated from `server/compliance/catalogue.ts` by `tests/compliance/catalogue.test.ts` (UPDATE_COMPLIANCE_DOCS=1).",
    "A requirement is decided by the checks listed next to it (from the check catalogues' own references) or is manual.",
    "\"Benchmark\" is the benchmark's own assessment class (Automated / Manual); a benchmark-manual requirement that a",
    "check can still decide is evaluated automatically. In a scan (docs/outcomes.md): manual without checks; failed when a",
    "check has a failing resource (not remediated, not muted); not evaluated when a check could not decide; passed with",
    "exceptions when its only failing resources are muted; not applicable when nothing was in scope; passed otherwise.",
    "",
    "| Framework | Version | Requirements | Decided by checks | Manual |",
    "|---|---|---|---|---|",
    ...frameworks().map((f) =>
      `| ${f.framework.name} (\`${f.framework.id}\`) | ${f.framework.version} | ${f.framework.requirements_total} | ${f.framework.requirements_mapped} | ${f.framework.requirements_manual} |`),
    "",
  ]
  for (const f of frameworks()) {
    out.push(`## ${f.framework.name} v${f.framework.version} (\`${f.framework.id}\`)`, "")
    for (const s of f.sections) {
      const reqs = f.requirements.filter((r) => r.section_id === s.id)
      if (reqs.length === 0) continue
      out.push(`### ${s.id} ${esc(s.title)}`, "", "| Id | Requirement | Benchmark | Checks |", "|---|---|---|---|")
      for (const r of reqs) {
        const checks = r.checks.length > 0 ? r.checks.map((c) => `\`${c}\``).join(", ") : `manual: ${esc(r.manual_reason ?? "")}`
        out.push(`| ${r.id} | ${esc(r.title)} | ${r.assessment === "automated" ? "Automated" : "Manual"} | ${checks} |`)
      }
      out.push("")
    }
  }
  return `${out.join("\n").trimEnd()}\n`
}
