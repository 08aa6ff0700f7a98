/**
 * Export encoders without a database: CSV per RFC 4180 with formula neutralisation (property-tested against a strict
 * reader), OCSF Detection Finding mapping, and the streamed export's laziness (a page is fetched only when the
 * consumer pulls it, so a 100k-row export never holds more than one page).
 */
import { Effect, Stream } from "effect"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import type { Finding } from "../../src/contracts/findings.ts"
import type { FindingId, ScanId, ServiceId } from "../../src/contracts/ids.ts"
import { CSV_COLUMNS, csvField, csvHeader, findingCsvLines, neutralise } from "../../server/export/csv.ts"
import { exportStream, ORDER_KEY_RANK } from "../../server/export/export-stream.ts"
import { toOcsf } from "../../server/export/ocsf.ts"
import { parseCsv } from "./csv-parse.ts"

const finding = (id: number, details: Finding["details"], over: Partial<Finding> = {}): Finding => ({
  id: id as FindingId,
  scan_id: 7 as ScanId,
  service_id: 3 as ServiceId,
  description: "Buckets should have versioning",
  severity: "medium",
  status: details.some((d) => d.compliance === false) ? "fail" : "pass",
  outcome: details.some((d) => d.compliance === false) ? "fail" : "pass",
  not_evaluated_reason: null,
  created_at: "2026-01-02T03:04:05.000Z",
  service_name: "S3",
  account_name: "Prod",
  aws_account_id: "123456789012",
  cloud_provider_name: "AWS",
  policy_check: "S3 buckets should have versioning enabled",
  field_labels: { resource_id: "Resource", compliance: "Compliant" },
  details,
  check_id: "s3_bucket_versioning_enabled",
  remediation: "Enable versioning",
  compliance: [{ framework: "AWS Foundational Security Best Practices", control: "S3.14" }],
  resources_checked: details.length,
  resources_failing: details.filter((d) => d.compliance === false).length,
  resources_remediated: 0,
  resources_new: 0,
  resources_fixed: 0,
  resources_muted: 0,
  muted: false,
  ...over,
})

describe("CSV (RFC 4180)", () => {
  it("quotes fields with commas, quotes and line breaks, and ends records with CRLF", () => {
    expect(csvField('a "quoted", value')).toBe('"a ""quoted"", value"')
    expect(csvField("two\nlines")).toBe('"two\nlines"')
    expect(csvField("plain")).toBe("plain")
    expect(csvHeader()).toBe(`${CSV_COLUMNS.join(",")}\r\n`)
  })

  it("neutralises cells a spreadsheet would evaluate", () => {
    for (const cell of ["=1+1", "+SUM(A1)", "-2+3", "@cmd", "\t=x", "\r=x"]) expect(neutralise(cell)).toBe(`'${cell}`)
    expect(neutralise("a=1")).toBe("a=1")
    const lines = findingCsvLines(finding(1, [{ resource_id: "=HYPERLINK(\"http://evil\")", region: "us-east-1", compliance: false, reason: "@SUM(1)" }]))
    const [record] = parseCsv(lines)
    expect(record![CSV_COLUMNS.indexOf("resource_id")]).toBe("'=HYPERLINK(\"http://evil\")")
    expect(record![CSV_COLUMNS.indexOf("reason")]).toBe("'@SUM(1)")
  })

  it("round-trips any text through a strict RFC 4180 reader (after neutralisation)", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), fc.string(), (resource, reason) => {
        const text = findingCsvLines(finding(1, [{ resource_id: resource, region: "eu-west-1", compliance: false, reason }]))
        const records = parseCsv(text)
        expect(records).toHaveLength(1)
        expect(records[0]).toHaveLength(CSV_COLUMNS.length)
        expect(records[0]![CSV_COLUMNS.indexOf("resource_id")]).toBe(neutralise(resource))
        expect(records[0]![CSV_COLUMNS.indexOf("reason")]).toBe(neutralise(reason))
        for (const cell of records[0]!) expect(/^[=+\-@\t\r]/.test(cell)).toBe(false)
      }),
      { numRuns: 300 },
    )
  })

  it("writes one line per resource, and one line for a finding without resources", () => {
    const two = parseCsv(findingCsvLines(finding(1, [
      { resource_id: "a", region: "us-east-1", compliance: true, reason: "ok" },
      { resource_id: "b", region: "us-east-1", compliance: false, reason: "no", remediate: { status: "remediated", message: "done", attempted_at: null, attempted_by: null } },
    ])))
    expect(two.map((r) => r[CSV_COLUMNS.indexOf("resource_id")])).toEqual(["a", "b"])
    expect(two[1]![CSV_COLUMNS.indexOf("remediation_status")]).toBe("remediated")
    expect(two[0]![CSV_COLUMNS.indexOf("compliance")]).toBe("AWS Foundational Security Best Practices S3.14")
    expect(parseCsv(findingCsvLines(finding(2, [])))).toHaveLength(1)
  })
})

describe("OCSF Detection Finding", () => {
  it("maps each resource row to a class 2004 record with severity, status code and compliance", () => {
    const records = toOcsf(finding(9, [
      { resource_id: "bucket-a", region: "us-east-1", compliance: false, reason: "Versioning is off" },
      { resource_id: "bucket-b", region: "us-east-1", compliance: true, reason: "Versioning is on", remediate: { status: "remediated", message: null, attempted_at: null, attempted_by: null } },
    ], { severity: "critical" }))
    expect(records).toHaveLength(2)
    const [fail, pass] = records as Array<Record<string, any>>
    expect(fail).toMatchObject({
      class_uid: 2004, category_uid: 2, type_uid: 200401, activity_id: 1, severity_id: 5, severity: "Critical",
      status_code: "FAIL", status_id: 1, status_detail: "Versioning is off",
      metadata: { version: "1.3.0", event_code: "s3_bucket_versioning_enabled" },
      cloud: { provider: "AWS", region: "us-east-1", account: { uid: "123456789012", type_id: 10 } },
      resources: [{ uid: "bucket-a", region: "us-east-1", type: "S3" }],
      unmapped: { compliance: { "AWS Foundational Security Best Practices": ["S3.14"] } },
    })
    expect(pass).toMatchObject({ status_code: "PASS", status_id: 4, status: "Resolved" })
    expect(fail!["finding_info"].uid).not.toBe(pass!["finding_info"].uid)
  })
})

describe("streamed export", () => {
  /** `total` findings; finding n has `rowsOf(n)` rows (failing first), served in keyset pages like the database. */
  const source = (total: number, rowsOf: (id: number) => number = () => 1) => {
    const calls: Array<string> = []
    const rowAt = (id: number, seq: number) => ({
      resource_id: `r-${id}-${seq}`, region: "us-east-1", compliance: seq % 2 === 1, reason: "x", result_seq: seq,
    })
    return {
      calls,
      src: {
        findingsAfter: (afterId: number, limit: number) =>
          Effect.sync(() => {
            calls.push(`f${afterId}`)
            const out: Array<Finding> = []
            for (let id = afterId + 1; id <= Math.min(total, afterId + limit); id++) {
              out.push(finding(id, [], { resources_checked: rowsOf(id), resources_failing: 0 }))
            }
            return out
          }),
        rowsAfter: (findingId: number, afterSeq: number, limit: number) =>
          Effect.sync(() => {
            // The stream hands back the last row's order key (`rowOrderKey`); these rows' positions are their seq.
            const after = afterSeq < 0 ? -1 : afterSeq % ORDER_KEY_RANK
            calls.push(`r${findingId}:${after}`)
            const n = rowsOf(findingId)
            const out = []
            for (let seq = after + 1; seq < Math.min(n, after + 1 + limit); seq++) out.push(rowAt(findingId, seq))
            return out
          }),
      },
    }
  }
  const text = (s: Stream.Stream<Uint8Array>) =>
    Effect.runPromise(Stream.runFold(s, () => "", (acc, chunk) => acc + new TextDecoder().decode(chunk)))

  it("fetches a page only when the consumer pulls it", async () => {
    const { calls, src } = source(1, () => 1_000_000)
    await Effect.runPromise(Stream.runDrain(Stream.take(exportStream("csv", src, { findings: 500, rows: 500 }), 3)))
    expect(calls.length).toBeLessThanOrEqual(3)
  })

  it("streams a finding of 100k rows as CSV in row pages, counting lines without holding the file", async () => {
    const { calls, src } = source(3, (id) => (id === 2 ? 100_000 : id === 3 ? 0 : 5))
    let lines = 0
    let bytes = 0
    await Effect.runPromise(
      Stream.runForEach(exportStream("csv", src, { findings: 2, rows: 1000 }), (chunk) =>
        Effect.sync(() => {
          bytes += chunk.byteLength
          for (const b of chunk) if (b === 10) lines++
        })),
    )
    // header + 5 + 100,000 + one line for the finding without rows
    expect(lines).toBe(1 + 5 + 100_000 + 1)
    expect(calls.filter((c) => c.startsWith("r2:"))).toHaveLength(101)
    expect(bytes).toBeGreaterThan(100_000 * 100)
  }, 60_000)

  it("produces valid JSON arrays for json and ocsf, also when empty or an exact multiple of the page sizes", async () => {
    for (const total of [0, 1, 4, 5]) {
      for (const rows of [0, 1, 2, 3, 4]) {
        const json = JSON.parse(await text(exportStream("json", source(total, () => rows).src, { findings: 2, rows: 2 })))
        expect(json.map((f: Finding) => f.id)).toEqual(Array.from({ length: total }, (_, i) => i + 1))
        for (const f of json) {
          expect(f.details.map((d: { result_seq: number }) => d.result_seq)).toEqual(Array.from({ length: rows }, (_, i) => i))
        }
        const ocsf = JSON.parse(await text(exportStream("ocsf", source(total, () => rows).src, { findings: 2, rows: 2 })))
        expect(ocsf).toHaveLength(total * Math.max(1, rows))
        expect(new Set(ocsf.map((r: { metadata: { uid: string } }) => r.metadata.uid)).size).toBe(ocsf.length)
        for (const r of ocsf) expect(r.class_uid).toBe(2004)
      }
    }
  })
})
