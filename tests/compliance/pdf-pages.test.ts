/**
 * "page N of M" on every page of the PDF report (issue 28 item 6). Pages are streamed, not buffered, so the total is
 * written once at the end into a form every running head shows: read back with pdftotext, page by page.
 */
import { execFileSync } from "node:child_process"
import { existsSync, mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import type { FailingResource } from "../../src/contracts/compliance.ts"
import type { FindingId } from "../../src/contracts/ids.ts"
import { checkInfo, frameworkById } from "../../server/compliance/catalogue.ts"
import { evaluateFramework } from "../../server/compliance/evaluate.ts"
import { renderReport, type ReportSource } from "../../server/compliance/pdf.ts"

const CHECK = "s3_bucket_secure_transport_policy"
const ROWS = 400

const source = (rows = ROWS, frameworkIds: ReadonlyArray<string> = []): ReportSource => {
  const ROWS = rows
  const outcome = {
    finding_id: 1, check_id: CHECK, status: "fail", severity: "medium", service_name: "S3",
    resources_checked: ROWS, resources_failing: ROWS, resources_remediated: 0, resources_muted: 0, muted: false,
    not_evaluated_reason: null, mutes: [],
  }
  return {
    meta: {
      workspaceName: "Acme",
      scan: { id: 4, account_id: 1, account_name: "Prod", cloud_account_id: "123456789012", provider: "aws", scan_start: null, scan_end: null } as never,
      generatedAt: new Date("2026-11-27T08:00:00Z"),
    },
    frameworks: frameworkIds.map((id) => {
      const fw = frameworkById(id)!
      const ev = evaluateFramework(fw, new Map())
      return { scan: {} as never, framework: fw.framework, sections: fw.sections, counts: ev.counts, requirements: ev.requirements }
    }),
    failingChecks: [{ outcome: outcome as never, info: checkInfo("aws", CHECK), requirements: ["CIS v3.0.0 2.1.1"] }],
    failingAfter: async (findingId, afterSeq, limit) =>
      Array.from({ length: Math.max(0, Math.min(limit, ROWS - afterSeq - 1)) }, (_, k): FailingResource => ({
        finding_id: findingId as FindingId,
        check_id: CHECK,
        result_seq: afterSeq + 1 + k,
        resource_id: `arn:aws:s3:::bucket-${afterSeq + 1 + k}`,
        region: "us-east-1",
        reason: "No TLS-only policy",
        muted: false,
        muted_reason: null,
      }) as FailingResource),
  }
}

describe("PDF report pages", () => {
  it("every page says 'page N of M', M being the page count", async () => {
    const chunks: Buffer[] = []
    const { pages } = await renderReport(source(), { write: (c) => chunks.push(c), checkpoint: async () => {} })
    expect(pages).toBeGreaterThan(5)
    if (!existsSync("/usr/bin/pdftotext")) {
      if (process.env["CI"] === "true") throw new Error("pdftotext (poppler-utils) is required in CI")
      console.warn("SKIPPING the page text check: pdftotext (poppler-utils) is not installed")
      return
    }
    const file = join(mkdtempSync(join(tmpdir(), "pdf-pages-")), "r.pdf")
    if (process.env["PDF_PAGES_KEEP"] !== undefined) writeFileSync(process.env["PDF_PAGES_KEEP"], Buffer.concat(chunks))
    writeFileSync(file, Buffer.concat(chunks))
    expect(execFileSync("pdfinfo", [file], { encoding: "utf8" })).toMatch(new RegExp(`Pages:\\s+${pages}\\n`))
    const perPage = execFileSync("pdftotext", ["-layout", file, "-"], { encoding: "utf8" }).split("\f").slice(0, pages)
    expect(perPage).toHaveLength(pages)
    perPage.forEach((text, i) => {
      expect(text, `page ${i + 1}`).toMatch(new RegExp(`Compliance report · Prod · scan #4 · page ${i + 1} of ${pages}\\b`))
    })
  })

  it("reports its progress as it goes: many checkpoints, never backwards, from early on up to 1", async () => {
    const seen: number[] = []
    await renderReport(source(2_400, ["cis-aws-3.0.0", "aws-fsbp"]), { write: () => {}, checkpoint: async (done) => { seen.push(done) } })
    expect(seen.length).toBeGreaterThan(8)
    for (let i = 1; i < seen.length; i++) expect(seen[i]!).toBeGreaterThanOrEqual(seen[i - 1]!)
    expect(new Set(seen).size).toBeGreaterThan(8)
    expect(seen[0]!).toBeLessThan(0.1)
    expect(seen.at(-1)).toBe(1)
  })
})
