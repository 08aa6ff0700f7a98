/**
 * The check lists in server/scanner/{aws,gcp,azure}/CHECKS.md are rendered from the catalogues and must match them
 * (UPDATE_CHECK_DOCS=1 rewrites them).
 */
import { readFileSync, writeFileSync } from "node:fs"
import { dirname, join, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import { expect, it } from "vitest"
import { awsChecks, awsServices } from "../../server/scanner/aws/catalogue.ts"
import { azureChecks, azureServices } from "../../server/scanner/azure/catalogue.ts"
import { gcpChecks, gcpServices } from "../../server/scanner/gcp/catalogue.ts"
import { fixerFor as awsFixerFor } from "../../server/remediation/aws/remediate.ts"
import { azureFixerFor } from "../../server/remediation/azure/remediate.ts"
import { gcpFixerFor } from "../../server/remediation/gcp/remediate.ts"
import type { RestCheckMeta } from "../../server/scanner/rest/engine.ts"

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..")

function render(title: string, intro: string, services: ReadonlyArray<{ id: string; name: string }>, checks: ReadonlyArray<RestCheckMeta>, refs: (c: RestCheckMeta) => string, fixer: (id: string) => boolean): string {
  const lines = [`# ${title}`, "", intro, "", `${checks.length} checks, ${checks.filter((c) => fixer(c.id)).length} with an automatic fix.`, ""]
  for (const s of services) {
    const list = checks.filter((c) => c.service === s.id)
    if (list.length === 0) continue
    lines.push(`## ${s.name} (\`${s.id}\`)`, "", "| Check id | CIS | Severity | Fixer | Reads |", "|---|---|---|---|---|")
    for (const c of list) lines.push(`| \`${c.id}\` | ${refs(c)} | ${c.severity} | ${fixer(c.id) ? "yes" : "no"} | ${c.reads.replace(/\|/g, "\\|")} |`)
    lines.push("")
  }
  return lines.join("\n")
}

/** AWS: CIS v3.0 / v7.0 ids, the FSBP control, and whether moto exercises the check or the SDK is mocked (moto lacks the API). */
function renderAws(): string {
  const fixers = awsChecks.filter((c) => awsFixerFor(c.id) !== undefined).length
  const mocked = awsChecks.filter((c) => c.testedWith === "sdk-mock")
  const lines = [
    "# AWS checks",
    "",
    "Generated from `server/scanner/aws/catalogue.ts` by `tests/scanner-gcp/catalogue-doc.test.ts` (UPDATE_CHECK_DOCS=1). CIS ids: CIS Amazon Web Services Foundations Benchmark v3.0.0 / v7.0.0 (— when the version has no such control); FSBP: AWS Foundational Security Best Practices. \"Tested with\": each check has a compliant and a non-compliant case run against `moto_server`, or, where moto lacks the API, against the SDK client with mocked answers.",
    "",
    `${awsChecks.length} checks, ${fixers} with an automatic fix (verified by re-reading), ${awsChecks.length - mocked.length} tested on moto, ${mocked.length} with the SDK mocked.`,
    "",
  ]
  for (const s of awsServices) {
    const list = awsChecks.filter((c) => c.service === s.id)
    if (list.length === 0) continue
    lines.push(`## ${s.name} (\`${s.id}\`)`, "", "| Check id | CIS v3 / v7 | FSBP | Severity | Fixer | Tested with |", "|---|---|---|---|---|---|")
    for (const c of list) {
      const tested = c.testedWith === "moto" ? "moto" : `SDK mocked${c.mockReason === undefined ? "" : `: ${c.mockReason.replace(/\|/g, "\\|")}`}`
      lines.push(`| \`${c.id}\` | ${c.cis.v3 ?? "—"} / ${c.cis.v7 ?? "—"} | ${c.fsbp ?? "—"} | ${c.severity} | ${awsFixerFor(c.id) !== undefined ? "yes" : "no"} | ${tested} |`)
    }
    lines.push("")
  }
  return lines.join("\n")
}

const docs = [
  { path: "server/scanner/aws/CHECKS.md", text: renderAws() },
  {
    path: "server/scanner/gcp/CHECKS.md",
    text: render(
      "GCP checks",
      "Generated from `server/scanner/gcp/catalogue.ts` by `tests/scanner-gcp/catalogue-doc.test.ts` (UPDATE_CHECK_DOCS=1). CIS ids are those of the CIS Google Cloud Platform Foundation Benchmark v4.0.0, identical in v3.0.0.",
      gcpServices,
      gcpChecks,
      (c) => c.cisRefs["v4"] ?? "",
      (id) => gcpFixerFor(id) !== undefined,
    ),
  },
  {
    path: "server/scanner/azure/CHECKS.md",
    text: render(
      "Azure checks",
      "Generated from `server/scanner/azure/catalogue.ts` by `tests/scanner-gcp/catalogue-doc.test.ts` (UPDATE_CHECK_DOCS=1). CIS ids: CIS Microsoft Azure Foundations Benchmark v3.0.0 / v4.0.0 (— when the version has no such control).",
      azureServices,
      azureChecks,
      (c) => `${c.cisRefs["v3"] ?? "—"} / ${c.cisRefs["v4"] ?? "—"}`,
      (id) => azureFixerFor(id) !== undefined,
    ),
  },
]

it("the CHECKS.md files list the catalogues", () => {
  for (const d of docs) {
    const file = join(ROOT, d.path)
    if (process.env["UPDATE_CHECK_DOCS"] === "1") writeFileSync(file, `${d.text}\n`)
    expect(readFileSync(file, "utf8"), `${d.path} is stale: run UPDATE_CHECK_DOCS=1 npx vitest run tests/scanner-gcp/catalogue-doc.test.ts`).toBe(`${d.text}\n`)
  }
})
