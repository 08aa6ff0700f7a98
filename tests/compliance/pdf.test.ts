/**
 * The PDF renderer (server/compliance/pdf.ts) without a database: every page type is drawn (cover, summary, requirement
 * tables, failing resources with remediation, muted items — read back with pdftotext when poppler-utils is present),
 * and a large report streams: bytes leave through the sink while failing rows are still being read, and what
 * accumulates between two checkpoints stays small whatever the number of rows.
 */
import { execFileSync } from "node:child_process"
import { existsSync, mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import type { FailingResource } from "../../src/contracts/compliance.ts"
import type { FindingId } from "../../src/contracts/ids.ts"
import { checkInfo, frameworkById } from "../../server/compliance/catalogue.ts"
import { evaluateFramework, type FindingOutcome } from "../../server/compliance/evaluate.ts"
import { renderReport, type ReportSource } from "../../server/compliance/pdf.ts"

const fw = frameworkById("cis-aws-3.0.0")!
const scan = {
  id: 9,
  account_id: 2,
  account_name: "Prod",
  cloud_account_id: "123456789012",
  provider: "aws",
  scan_start: "2026-11-25T10:00:00.000Z",
  scan_end: "2026-11-25T10:05:00.000Z",
} as ReportSource["meta"]["scan"]

const CHECKS = ["iam_user_mfa_enabled_console_access", "s3_bucket_secure_transport_policy", "ec2_instance_imdsv2_enabled", "iam_rotate_access_key_90_days"]

const sourceOf = (failingPerCheck: number, onRead: (n: number) => void = () => {}): ReportSource => {
  const outcomes = new Map<string, FindingOutcome>(
    CHECKS.map((checkId, i) => [checkId, {
      finding_id: i + 1,
      check_id: checkId,
      status: "fail",
      severity: checkInfo("aws", checkId)!.severity,
      service_name: checkInfo("aws", checkId)!.service,
      resources_checked: failingPerCheck + 10,
      resources_failing: failingPerCheck,
      resources_remediated: 0,
      resources_muted: i === 0 ? 3 : 0,
      muted: false,
      not_evaluated_reason: null,
      mutes: [],
    }]),
  )
  const ev = evaluateFramework(fw, outcomes)
  return {
    meta: { workspaceName: "Acme Security", scan, generatedAt: new Date("2026-11-25T11:00:00Z") },
    frameworks: [{ scan, framework: fw.framework, sections: fw.sections, counts: ev.counts, requirements: ev.requirements }],
    failingChecks: [...outcomes.values()].map((o) => ({ outcome: o, info: checkInfo("aws", o.check_id), requirements: [`CIS v3.0.0 ${o.check_id}`] })),
    failingAfter: async (findingId, afterSeq, limit) => {
      const from = afterSeq + 1
      const n = Math.max(0, Math.min(limit, failingPerCheck - from))
      onRead(n)
      return Array.from({ length: n }, (_, k): FailingResource => ({
        finding_id: findingId as FindingId,
        check_id: CHECKS[findingId - 1]!,
        result_seq: from + k,
        resource_id: `arn:aws:service:us-east-1:123456789012:resource/r-${findingId}-${from + k}`,
        region: "us-east-1",
        reason: "The resource does not meet the control",
        muted: findingId === 1 && from + k < 3,
        muted_reason: findingId === 1 && from + k < 3 ? "Accepted until the migration" : null,
      }))
    },
  }
}

describe("PDF report", () => {
  it("draws every page type; the text agrees with the evaluation", async () => {
    const chunks: Buffer[] = []
    const source = sourceOf(40)
    const { pages } = await renderReport(source, { write: (c) => chunks.push(c), checkpoint: async () => {} })
    const pdf = Buffer.concat(chunks)
    expect(pdf.subarray(0, 5).toString()).toBe("%PDF-")
    expect(pages).toBeGreaterThan(6)
    if (!existsSync("/usr/bin/pdftotext")) {
      if (process.env["CI"] === "true") throw new Error("pdftotext (poppler-utils) is required in CI")
      console.warn("SKIPPING PDF text extraction: pdftotext (poppler-utils) is not installed")
      return
    }
    const dir = mkdtempSync(join(tmpdir(), "pdf-"))
    writeFileSync(join(dir, "r.pdf"), pdf)
    const text = execFileSync("pdftotext", [join(dir, "r.pdf"), "-"], { encoding: "utf8" })
    const info = execFileSync("pdfinfo", [join(dir, "r.pdf")], { encoding: "utf8" })
    expect(info).toMatch(new RegExp(`Pages:\\s+${pages}\\n`))
    const c = source.frameworks[0]!.counts
    for (const expected of [
      "Compliance report",
      "Acme Security",
      "Prod (123456789012)",
      "Executive summary",
      "Failing checks by severity",
      `${c.passed} passed, ${c.passed_with_exceptions} passed with exceptions, ${c.failed} failed, ${c.not_evaluated} not evaluated, ${c.manual} manual, ${c.not_applicable} not applicable of 62 requirements`,
      "Failing resources and remediation",
      checkInfo("aws", CHECKS[0]!)!.remediation.slice(0, 40),
      "Muted items",
      "Accepted until the migration",
    ]) {
      expect(text.replace(/\s+/g, " "), expected).toContain(expected.replace(/\s+/g, " "))
    }
  })

  it("streams a large report: output leaves while rows are read, little accumulates between checkpoints", async () => {
    let rowsRead = 0
    let bytes = 0
    let sinceCheckpoint = 0
    let maxBetween = 0
    let bytesWhenHalfRead = -1
    const perCheck = 5_000
    const source = sourceOf(perCheck, (n) => {
      rowsRead += n
      if (bytesWhenHalfRead < 0 && rowsRead >= (CHECKS.length * perCheck) / 2) bytesWhenHalfRead = bytes
    })
    const started = performance.now()
    const { pages } = await renderReport(source, {
      write: (c) => {
        bytes += c.length
        sinceCheckpoint += c.length
      },
      checkpoint: async () => {
        maxBetween = Math.max(maxBetween, sinceCheckpoint)
        sinceCheckpoint = 0
      },
    })
    const ms = Math.round(performance.now() - started)
    console.info(`PDF of ${CHECKS.length * perCheck} failing resources: ${pages} pages, ${bytes} bytes, ${ms} ms, at most ${maxBetween} bytes between checkpoints`)
    // Every failing row once, and the muted check's rows once more for the muted items.
    expect(rowsRead).toBe(CHECKS.length * perCheck + perCheck)
    expect(pages).toBeGreaterThan(500)
    // A third of the file was already out when half the rows had been read: nothing waits for the end.
    expect(bytesWhenHalfRead).toBeGreaterThan(bytes / 3)
    expect(maxBetween).toBeLessThan(512 * 1024)
  }, 120_000)
})
