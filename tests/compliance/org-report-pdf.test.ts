/**
 * The organisation compliance PDF's tables (server/compliance/organization-report.ts on the kit of
 * server/compliance/pdf.ts): a cell that fits its column is measured and drawn as its one line without pdfkit's line
 * wrapper, a longer one is wrapped (its row taller), and text widths are kept per font, size and text for the
 * document. Read back with pdftotext: every member, every word of a wrapped cell, the members table's header on every
 * page it spans, "page N of M" on every page.
 */
import { execFileSync } from "node:child_process"
import { existsSync, mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import PDFDocument from "pdfkit"
import { describe, expect, it } from "vitest"
import type { AccountId, ScanId } from "../../src/contracts/ids.ts"
import { countStatuses } from "../../src/contracts/outcomes.ts"
import type { RequirementStatus } from "../../src/contracts/compliance.ts"
import { frameworkById } from "../../server/compliance/catalogue.ts"
import { organizationReportPdf } from "../../server/compliance/organization-report.ts"
import type { OrgComplianceResult } from "../../server/compliance/organization.ts"
import { reportDocument } from "../../server/compliance/pdf.ts"

const MEMBERS = 150
/** Wider than the members table's first column (30 % of the page): wrapped over several lines. */
const LONG_NAME = "Payments platform production account of the European card acquiring business unit"
const LONG_UNIT = "Root / Workloads / Production / Europe / Card acquiring / Payments"

const result = (): OrgComplianceResult => {
  const fw = frameworkById("cis-aws-3.0.0")!
  const statuses = (k: number): ReadonlyArray<RequirementStatus> =>
    fw.requirements.map((_, i) => ((["passed", "failed", "not_evaluated", "passed_with_exceptions"] as const)[(i + k) % 4]!))
  const members = Array.from({ length: MEMBERS }, (_, k) => ({
    account_id: (k + 1) as AccountId,
    account_name: k % 25 === 7 ? `${LONG_NAME} ${k}` : `member-${String(k).padStart(4, "0")}`,
    cloud_account_id: String(100000000000 + k),
    unit_path: k % 25 === 7 ? LONG_UNIT : `Root / OU ${k % 3}`,
    scan_id: k % 10 === 9 ? null : ((1000 + k) as ScanId),
    counts: k % 10 === 9 ? null : countStatuses(statuses(k)),
  }))
  const matrix = members.map((m, k) => (m.scan_id === null ? fw.requirements.map(() => null) : statuses(k)))
  return {
    organization_account_id: 1 as AccountId,
    framework: fw.framework,
    sections: fw.sections,
    unit: null,
    tag: null,
    members_total: MEMBERS,
    members_scanned: members.filter((m) => m.scan_id !== null).length,
    requirements: fw.requirements.map((r, i) => {
      const count = (s: RequirementStatus) => matrix.filter((row) => row[i] === s).length
      return {
        id: r.id, section_id: r.section_id, title: r.title, assessment: r.assessment, failed_members: [],
        members: {
          passed: count("passed"), passed_with_exceptions: count("passed_with_exceptions"), failed: count("failed"), not_evaluated: count("not_evaluated"),
          manual: 0, not_applicable: 0, not_scanned: matrix.filter((row) => row[i] === null).length,
        },
      }
    }),
    members,
    matrix,
    organization_name: "Acme (o-acme)",
  }
}

describe("organisation compliance PDF", () => {
  it("lists every member, wraps the cells wider than their column, and heads every page of the members table", async () => {
    const bytes = Buffer.concat(await organizationReportPdf(result(), { workspaceName: "Acme", generatedAt: new Date("2026-11-28T08:00:00Z") }))
    expect(bytes.subarray(0, 5).toString()).toBe("%PDF-")
    if (!existsSync("/usr/bin/pdftotext")) {
      if (process.env["CI"] === "true") throw new Error("pdftotext (poppler-utils) is required in CI")
      console.warn("SKIPPING the text check: pdftotext (poppler-utils) is not installed")
      return
    }
    const file = join(mkdtempSync(join(tmpdir(), "org-report-")), "r.pdf")
    writeFileSync(file, bytes)
    const pages = Number(/Pages:\s+(\d+)/.exec(execFileSync("pdfinfo", [file], { encoding: "utf8" }))![1])
    const perPage = execFileSync("pdftotext", ["-layout", file, "-"], { encoding: "utf8" }).split("\f").slice(0, pages)
    perPage.forEach((text, i) => expect(text, `page ${i + 1}`).toMatch(new RegExp(`Organization compliance report · Acme \\(o-acme\\) · CIS .* page ${i + 1} of ${pages}\\b`)))
    const text = perPage.join("\n")
    // Every member once, by its cloud account id; the short names on one line.
    for (let k = 0; k < MEMBERS; k++) expect(text.split(`${100000000000 + k})`).length - 1, `member ${k}`).toBe(1)
    expect(text).toContain("member-0000 (100000000000)")
    // A long name and unit are wrapped over several lines, every word kept (nothing cut at the column).
    const words = (s: string) => s.replace(/\s+/g, " ")
    const flat = words(text)
    for (const word of [...LONG_NAME.split(" "), ...LONG_UNIT.split(" ")]) expect(flat).toContain(word)
    const nameLine = perPage.flatMap((p) => p.split("\n")).find((l) => l.includes("Payments platform"))!
    expect(nameLine).not.toContain("business unit")
    // The members table spans pages, each headed by its header row; the counts of a member with a scan and without.
    const membersPages = perPage.filter((p) => /member-0\d{3} \(/.test(p))
    expect(membersPages.length).toBeGreaterThan(2)
    for (const p of membersPages) expect(p).toMatch(/Member\s+Unit\s+Passed\s+Exceptions\s+Failed\s+Not evaluated\s+Score/)
    expect(flat).toMatch(/member-0009 \(100000000009\) Root \/ OU 0 — — — — not scanned/)
    const c = countStatuses(result().matrix[0]! as ReadonlyArray<RequirementStatus>)
    expect(flat).toContain(`member-0000 (100000000000) Root / OU 0 ${c.passed} ${c.passed_with_exceptions} ${c.failed} ${c.not_evaluated} ${c.score}%`)
  })

  it("keeps text widths per font, size and text: each as pdfkit measures it", async () => {
    const { doc, finish } = reportDocument({ title: "t", subject: "s", head: () => "head ·", write: () => {} })
    const plain = new PDFDocument({ size: "A4" })
    for (const [font, size] of [["Helvetica", 8], ["Helvetica-Bold", 8], ["Helvetica", 11], ["Helvetica-Bold", 28]] as const) {
      for (const text of ["12", "Passed with exceptions", "member-0001 (100000000001)", "AVAV Wo"]) {
        doc.font(font).fontSize(size)
        plain.font(font).fontSize(size)
        // Asked twice (the second from what the document keeps), at each font and size in turn.
        expect(doc.widthOfString(text), `${font} ${size} ${text}`).toBe(plain.widthOfString(text))
        expect(doc.widthOfString(text)).toBe(plain.widthOfString(text))
      }
    }
    // Character spacing is measured, not taken from what was kept.
    doc.font("Helvetica").fontSize(8)
    plain.font("Helvetica").fontSize(8)
    expect(doc.widthOfString("12", { characterSpacing: 2 })).toBe(plain.widthOfString("12", { characterSpacing: 2 }))
    expect(doc.widthOfString("12", { characterSpacing: 2 })).toBeGreaterThan(doc.widthOfString("12"))
    plain.end()
    await finish()
  })
})
