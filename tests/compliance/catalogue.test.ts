/**
 * The framework catalogue (server/compliance/catalogue.ts): mapping completeness — every automated CIS control of the
 * listed versions is decided by at least one check, or says why not —, references that name real requirements, the
 * section tree, and docs/compliance.md generated from the catalogue (UPDATE_COMPLIANCE_DOCS=1 rewrites it; the test
 * fails when it is stale).
 */
import { readFileSync, writeFileSync } from "node:fs"
import { describe, expect, it } from "vitest"
import { compareIds, frameworkById, frameworks } from "../../server/compliance/catalogue.ts"
import { CIS_AWS_V3, CIS_AWS_V7, parseRequirements } from "../../server/compliance/requirements.ts"
import { listAwsChecks } from "../../server/scanner/aws/catalogue.ts"
import { listAzureChecks } from "../../server/scanner/azure/catalogue.ts"
import { listGcpChecks } from "../../server/scanner/gcp/catalogue.ts"
import { complianceDoc } from "./compliance-doc.ts"

/** Expands "1.4-1.12" style ranges (last segment numeric). */
const ids = (spec: string): string[] =>
  spec.split(/\s+/).filter(Boolean).flatMap((part) => {
    const [from, to] = part.split("-")
    if (to === undefined) return [from!]
    const prefix = from!.slice(0, from!.lastIndexOf(".") + 1)
    const a = Number(from!.slice(prefix.length))
    const b = Number(to.slice(to.lastIndexOf(".") + 1))
    return Array.from({ length: b - a + 1 }, (_, i) => `${prefix}${a + i}`)
  })

/** The automated controls of each benchmark version this product covers (the benchmarks' own "Automated" lists). */
const AUTOMATED: Readonly<Record<string, ReadonlyArray<string>>> = {
  "cis-aws-3.0.0": ids("1.4-1.17 1.19 1.20 2.1.1 2.1.2 2.1.4 2.2.1 2.3.1-2.3.3 2.4.1 3.1-3.9 4.1-4.16 5.1-5.4 5.6"),
  "cis-aws-7.0.0": ids("2.4 2.5 2.8-2.18 3.1.1 3.1.4 3.2.1-3.2.3 3.3.1 4.2 4.3 4.5-4.9 5.16 6.1.1 6.1.2 6.2-6.5 6.7"),
  "cis-gcp-4.0.0": ids("1.4-1.12 1.14-1.16 2.1-2.13 2.15 2.16 3.1-3.8 4.1-4.9 4.11 5.1 5.2 6.1.2 6.1.3 6.2.1-6.2.8 6.3.1-6.3.7 6.4-6.7 7.1-7.3 8.1"),
  "cis-azure-3.0.0": ids(
    "2.3 2.14 2.15 2.16 2.23 3.1.1.1 3.1.1.2 3.1.3.1 3.1.4.1-3.1.4.3 3.1.5.1 3.1.6.1 3.1.7.1-3.1.7.4 3.1.8.1 3.1.9.1 3.1.10 3.1.12-3.1.14 3.1.16 " +
      "3.3.1-3.3.8 4.1 4.2 4.6-4.10 4.12-4.17 5.1.1-5.1.6 5.2.1-5.2.5 5.3.1-5.3.4 5.4.1 5.4.2 6.1.2-6.1.4 6.2.1-6.2.10 6.3.1 7.1-7.6 8.1-8.6 8.11 " +
      "9.1-9.5 9.10 9.12",
  ),
  "cis-azure-4.0.0": ids(
    "3.1.1 3.1.8 6.3.3 6.4 6.14-6.16 6.23 7.1.1.2-7.1.1.4 7.1.1.6 7.1.2.1-7.1.2.11 7.1.3.1 8.1-8.6 8.8 9.1.3.1 9.1.4.1 9.1.5.1 9.1.6.1 " +
      "9.1.7.1-9.1.7.4 9.1.8.1 9.1.9.1 9.1.10 9.1.12-9.1.15 9.1.17 9.3.1-9.3.9 9.4.1 10.1.1-10.1.3 10.2.1 10.2.2 10.3.1.3 10.3.2.1-10.3.2.3 " +
      "10.3.3.1 10.3.4-10.3.9 10.3.12",
  ),
}

/** Automated controls no check decides, and why (none today: every automated control above is mapped). */
const UNMAPPED_AUTOMATED: Readonly<Record<string, Readonly<Record<string, string>>>> = {}

describe("framework catalogue", () => {
  it("lists the six frameworks of the issue", () => {
    expect(frameworks().map((f) => `${f.framework.id} ${f.framework.version}`)).toEqual([
      "cis-aws-3.0.0 3.0.0",
      "cis-aws-7.0.0 7.0.0",
      "aws-fsbp 1.0.0",
      "cis-gcp-4.0.0 4.0.0",
      "cis-azure-3.0.0 3.0.0",
      "cis-azure-4.0.0 4.0.0",
    ])
    expect(frameworkById("cis-aws-3.0.0")!.framework.requirements_total).toBe(62)
    expect(frameworkById("cis-aws-7.0.0")!.framework.requirements_total).toBe(70)
    expect(parseRequirements(CIS_AWS_V3).filter((r) => r.assessment === "automated")).toHaveLength(54)
    expect(parseRequirements(CIS_AWS_V7).filter((r) => r.assessment === "automated")).toHaveLength(34)
  })

  it.each(Object.entries(AUTOMATED))("every automated control of %s maps to a check or says why not", (id, automated) => {
    const fw = frameworkById(id)!
    const unexplained = automated.filter((control) => {
      const r = fw.requirements.find((x) => x.id === control)
      return (r === undefined || r.checks.length === 0) && UNMAPPED_AUTOMATED[id]?.[control] === undefined
    })
    expect(unexplained).toEqual([])
  })

  it("every AWS check reference names a listed requirement (no reference is silently dropped)", () => {
    const v3 = new Set(frameworkById("cis-aws-3.0.0")!.requirements.map((r) => r.id))
    const v7 = new Set(frameworkById("cis-aws-7.0.0")!.requirements.map((r) => r.id))
    for (const c of listAwsChecks()) {
      if (c.cis.v3 !== undefined) expect(v3.has(c.cis.v3), `${c.id} → v3 ${c.cis.v3}`).toBe(true)
      if (c.cis.v7 !== undefined) expect(v7.has(c.cis.v7), `${c.id} → v7 ${c.cis.v7}`).toBe(true)
    }
    const mapped = new Set(frameworks().flatMap((f) => f.requirements.flatMap((r) => r.checks.map((c) => `${f.framework.provider}:${c}`))))
    // GCP and Azure checks beyond the benchmarks carry no reference; every one that does decides a requirement.
    for (const c of listGcpChecks()) if (Object.keys(c.cisRefs).length > 0) expect(mapped.has(`gcp:${c.id}`), c.id).toBe(true)
    for (const c of listAzureChecks()) if (Object.keys(c.cisRefs).length > 0) expect(mapped.has(`azure:${c.id}`), c.id).toBe(true)
  })

  it("has unique, ordered requirement ids in listed sections, and manual requirements carry a reason", () => {
    for (const f of frameworks()) {
      const reqIds = f.requirements.map((r) => r.id)
      expect(new Set(reqIds).size, f.framework.id).toBe(reqIds.length)
      expect([...reqIds].sort(compareIds)).toEqual(reqIds)
      const sections = new Set(f.sections.map((s) => s.id))
      for (const r of f.requirements) expect(sections.has(r.section_id), `${f.framework.id} ${r.id}`).toBe(true)
      for (const s of f.sections) if (s.parent_id !== null) expect(sections.has(s.parent_id)).toBe(true)
      for (const r of f.requirements) expect((r.checks.length === 0) === (r.manual_reason !== null)).toBe(true)
      expect(f.framework.requirements_mapped + f.framework.requirements_manual).toBe(f.requirements.length)
    }
  })

  it("docs/compliance.md is generated from the catalogue", () => {
    const path = new URL("../../docs/compliance.md", import.meta.url)
    const expected = complianceDoc()
    if (process.env["UPDATE_COMPLIANCE_DOCS"] === "1") writeFileSync(path, expected)
    expect(readFileSync(path, "utf8"), "docs/compliance.md is stale: UPDATE_COMPLIANCE_DOCS=1 npx vitest run tests/compliance/catalogue.test.ts").toBe(expected)
  })
})
