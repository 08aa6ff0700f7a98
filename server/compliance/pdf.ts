/**
 * The PDF compliance report (issue 14 "Reports"), drawn with pdfkit page after page:
 *   1. cover — workspace, account, provider, scan, dates;
 *   2. executive summary — failing checks by severity (bar chart) and each framework's requirement statuses and score
 *      (stacked bars);
 *   3. per framework — its requirement table by section (id, title, status, failing and muted resources), then the
 *      reasons of its not evaluated requirements and the exceptions of those passed with exceptions;
 *   4. failing resources — per failing check: severity, remediation text, the requirements it decides, then every open
 *      failing resource (id, region, reason; muted ones marked);
 *   5. muted items — every muted failing resource with its mute's reason, expiry and author.
 * Every count is the algebra's (docs/outcomes.md): "failing" resources are non-compliant, not remediated, not muted.
 *
 * Memory: pages are not buffered (pdfkit writes a page out when the next one starts), the bytes go to `sink.write` as
 * they come, and failing resources are read through `source.failingAfter` one keyset page at a time, so a report of any
 * size holds one page of rows and one chunk of output at once. `sink.checkpoint` is awaited between pages of rows:
 * that is where the caller writes out what has accumulated and records progress.
 */
import PDFDocument from "pdfkit"
import {
  REQUIREMENT_STATUS_LABELS,
  type ComplianceScan,
  type FailingResource,
  type RequirementStatus,
  type ScanFramework,
} from "../../src/contracts/compliance.ts"
import { SEVERITIES, type Severity } from "../../src/contracts/findings.ts"
import type { CheckInfo } from "./catalogue.ts"
import { CHECK_OUTCOME_LABELS, checkOutcome, failingResources } from "../../src/contracts/outcomes.ts"
import type { FindingOutcome } from "./evaluate.ts"

export interface ReportMeta {
  readonly workspaceName: string
  readonly scan: ComplianceScan
  readonly generatedAt: Date
}

/** A failing check of the scan that decides a requirement of a reported framework. */
export interface FailingCheck {
  readonly outcome: FindingOutcome
  readonly info: CheckInfo | undefined
  /** "CIS AWS 3.0.0 1.10", … */
  readonly requirements: ReadonlyArray<string>
}

export interface ReportSource {
  readonly meta: ReportMeta
  readonly frameworks: ReadonlyArray<ScanFramework>
  /** Failing checks, most severe first. */
  readonly failingChecks: ReadonlyArray<FailingCheck>
  /** Open failing rows of a finding after `afterSeq` (keyset), at most `limit`. */
  readonly failingAfter: (findingId: number, afterSeq: number, limit: number) => Promise<ReadonlyArray<FailingResource>>
}

export interface ReportSink {
  readonly write: (chunk: Buffer) => void
  /** Awaited between pages of rows; `done` is the share of the work done, 0–1. */
  readonly checkpoint: (done: number) => Promise<void>
}

export const ROWS_PAGE = 500
/** Requirement rows drawn between two progress checkpoints. */
const PROGRESS_ROWS = 25
const MAX_CELL = 300

export const COLORS = {
  ink: "#1f2933",
  muted: "#616e7c",
  rule: "#cbd2d9",
  header: "#e4e7eb",
  passed: "#2f855a",
  passed_with_exceptions: "#68d391",
  failed: "#c53030",
  not_evaluated: "#b7791f",
  manual: "#718096",
  not_applicable: "#a0aec0",
  critical: "#9b2c2c",
  high: "#c53030",
  medium: "#dd6b20",
  low: "#d69e2e",
} as const

const SEVERITY_ORDER: ReadonlyArray<Severity> = SEVERITIES
export const STATUS_ORDER: ReadonlyArray<RequirementStatus> = ["passed", "passed_with_exceptions", "failed", "not_evaluated", "manual", "not_applicable"]

/**
 * pdfkit hands its bytes to 'data' listeners on a later tick: yielding to the event loop before each checkpoint lets
 * them reach the sink, so a source that answers without I/O still streams instead of buffering the whole file.
 */
const drain = (): Promise<void> => new Promise((resolve) => setImmediate(resolve))

const cell = (value: string): string => (value.length > MAX_CELL ? `${value.slice(0, MAX_CELL - 1)}…` : value)

const fmtDate = (iso: string | null): string => (iso === null ? "—" : `${iso.slice(0, 16).replace("T", " ")} UTC`)

/** The pdfkit internals "page N of M" needs (not in its typings): references, raw content, the page's XObjects. */
interface RawDocument {
  ref(data: { Type: string; Subtype: string; BBox: ReadonlyArray<number>; Resources: { Font: Record<string, unknown> } }): {
    readonly data: { Resources: { Font: Record<string, unknown> } }
    end(chunk: string): void
  }
  addContent(operators: string): void
  readonly page: { readonly xobjects: Record<string, unknown> }
  readonly _font: { readonly id: string; readonly ascender: number; ref(): unknown }
  readonly _fontSize: number
}

const TOTAL_FORM = "PageTotal"

interface Column {
  readonly header: string
  readonly width: number
}

/** Where a report's bytes go, and its document settings. */
export interface ReportDocumentOptions {
  readonly title: string
  readonly subject: string
  /** The running head of every page, before "N" of "page N of M" (it ends with "page N of"). */
  readonly head: (page: number) => string
  readonly write: (chunk: Buffer) => void
}

/**
 * A report document: A4 pdfkit pages, not buffered (each page is written out as the next starts), every page headed by
 * `head` and its page count ("page N of M", M written at the end through one form XObject), and the drawing kit the
 * reports share (headings, paragraphs, tables whose header row repeats on every page they span). `finish` ends the
 * document and resolves with its page count once every byte reached `write`. The scan report (`renderReport`) and the
 * organisation report (server/compliance/organization-report.ts) draw with it.
 */
export const reportDocument = (options: ReportDocumentOptions) => {
  const doc = new PDFDocument({
    size: "A4",
    margins: { top: 64, bottom: 56, left: 48, right: 48 },
    bufferPages: false,
    info: { Title: options.title, Subject: options.subject, Creator: "Cloud Audit" },
  })
  let pages = 1
  const ended = new Promise<void>((resolve, reject) => {
    doc.on("end", () => resolve())
    doc.on("error", reject)
  })
  doc.on("data", (chunk: Buffer) => options.write(chunk))

  const left = doc.page.margins.left
  const width = doc.page.width - doc.page.margins.left - doc.page.margins.right
  const bottom = () => doc.page.height - doc.page.margins.bottom

  // Text widths, kept per font, size and text for the document: a table cell's width is asked for up to three times
  // (whether it fits one line, then by pdfkit's fragment and line), each time glyph by glyph with kerning, and a report's
  // cells repeat (counts, statuses). Widths with spacing, scaling or font features are not kept.
  const raw = doc as unknown as RawDocument
  const widths = new Map<string, number>()
  const measureWidth = doc.widthOfString.bind(doc)
  doc.widthOfString = (text: string, widthOptions?: PDFKit.Mixins.TextOptions): number => {
    const o = widthOptions as { readonly characterSpacing?: number; readonly horizontalScaling?: number; readonly features?: unknown } | undefined
    if (o !== undefined && ((o.characterSpacing ?? 0) !== 0 || (o.horizontalScaling ?? 100) !== 100 || o.features !== undefined)) return measureWidth(text, widthOptions)
    const key = `${raw._font.id} ${raw._fontSize} ${text}`
    let w = widths.get(key)
    if (w === undefined) {
      w = measureWidth(text, widthOptions)
      widths.set(key, w)
    }
    return w
  }

  /**
   * Whether `text` fits on one line `width` wide at the current font and size. pdfkit's line wrapper (its line-break
   * search and a width per word) runs for any text drawn or measured with a width, even a number: text that fits is
   * drawn and measured as its one line instead (the same glyphs at the same place), which one width tells.
   */
  const fitsOneLine = (text: string, width: number): boolean => text !== "" && !text.includes("\n") && doc.widthOfString(text) <= width

  // "page N of M": M is known only once the last page is done, and pages are not buffered. Every running head draws M
  // through one form XObject (a reference), whose content — the number — is written at the end.
  const totalForm = raw.ref({ Type: "XObject", Subtype: "Form", BBox: [0, -4, 80, 12], Resources: { Font: {} } })
  let headFont = ""
  const runningHead = () => {
    const y = doc.y
    doc.font("Helvetica").fontSize(8).fillColor(COLORS.muted)
    const head = `${options.head(pages)} page ${pages} of`
    // One line without pdfkit's line wrapper when it fits (every head but a very long organisation's name).
    doc.text(head, left, 32, fitsOneLine(head, width) ? { lineBreak: false } : { width, lineBreak: false })
    const font = raw._font
    headFont = font.id
    totalForm.data.Resources.Font[font.id] = font.ref()
    raw.page.xobjects[TOTAL_FORM] = totalForm
    const x = left + doc.widthOfString(`${head} `)
    const baseline = 32 + (font.ascender / 1000) * 8
    doc.save()
    doc.transform(1, 0, 0, -1, x, baseline)
    raw.addContent(`/${TOTAL_FORM} Do`)
    doc.restore()
    doc.fillColor(COLORS.ink)
    doc.y = y
  }
  doc.on("pageAdded", () => {
    pages += 1
    runningHead()
    doc.x = left
    doc.y = doc.page.margins.top
  })
  runningHead()

  const ensure = (height: number): boolean => {
    if (doc.y + height <= bottom()) return false
    doc.addPage()
    return true
  }

  const heading = (text: string, size = 16) => {
    ensure(size * 3 + 40)
    doc.moveDown(0.5)
    doc.font("Helvetica-Bold").fontSize(size).fillColor(COLORS.ink).text(text, left, doc.y, { width })
    doc.moveDown(0.3)
  }

  const paragraph = (text: string, size = 10, color: string = COLORS.ink) => {
    doc.font("Helvetica").fontSize(size).fillColor(color)
    ensure(doc.heightOfString(text, { width }) + 4)
    doc.text(text, left, doc.y, { width })
    doc.fillColor(COLORS.ink)
  }

  /**
   * `text` at (`x`, `y`) within `width`, leaving `doc.x` at `x` and `doc.y` below it as pdfkit's wrapped text does:
   * one line without the wrapper when it fits (`fitsOneLine`), else wrapped. The caller has made room for it (no page
   * break within).
   */
  const textAt = (text: string, x: number, y: number, width: number) => {
    if (!fitsOneLine(text, width)) {
      doc.text(text, x, y, { width })
      return
    }
    doc.text(text, x, y, { lineBreak: false })
    doc.x = x
    doc.y = y + doc.currentLineHeight(true)
  }

  /** A table cell's height at the current font and size (one line's when it fits one), and whether it is one line. */
  const measure = (value: string, width: number): { readonly height: number; readonly oneLine: boolean } =>
    fitsOneLine(value, width) ? { height: doc.currentLineHeight(true), oneLine: true } : { height: doc.heightOfString(value, { width }), oneLine: false }

  /**
   * Draws one row of `values`, each cell measured once; a row that does not fit starts a new page, headed by `header`
   * when given (a table's header row). Answers whether it started a page.
   */
  const tableRow = (
    columns: ReadonlyArray<Column>,
    values: ReadonlyArray<string>,
    options: { bold?: boolean; fill?: string; colors?: ReadonlyArray<string | undefined>; header?: () => void } = {},
  ) => {
    const font = options.bold === true ? "Helvetica-Bold" : "Helvetica"
    doc.font(font).fontSize(8)
    const texts = columns.map((_, i) => cell(values[i] ?? ""))
    const cells = columns.map((c, i) => measure(texts[i]!, c.width - 6))
    const height = Math.max(...cells.map((m) => m.height)) + 6
    const broke = ensure(height)
    if (broke && options.header !== undefined) {
      options.header()
      doc.font(font).fontSize(8)
    }
    const y = doc.y
    if (options.fill !== undefined) doc.rect(left, y, width, height).fill(options.fill)
    let x = left
    columns.forEach((c, i) => {
      // A one-line cell is drawn as that line (no wrapper): the same glyphs at the same place.
      doc.fillColor(options.colors?.[i] ?? COLORS.ink).text(texts[i]!, x + 3, y + 3, cells[i]!.oneLine ? { lineBreak: false } : { width: c.width - 6 })
      x += c.width
    })
    doc.moveTo(left, y + height).lineTo(left + width, y + height).lineWidth(0.5).strokeColor(COLORS.rule).stroke()
    doc.fillColor(COLORS.ink)
    doc.x = left
    doc.y = y + height
    return broke
  }

  /** A table: header row repeated on every page it spans. */
  const table = (columns: ReadonlyArray<Column>) => {
    const header = () => {
      tableRow(columns, columns.map((c) => c.header), { bold: true, fill: COLORS.header })
    }
    header()
    return (values: ReadonlyArray<string>, colors?: ReadonlyArray<string | undefined>) => {
      tableRow(columns, values, colors === undefined ? { header } : { colors, header })
    }
  }

  const cols = (...spec: ReadonlyArray<readonly [string, number]>): Column[] => spec.map(([header, share]) => ({ header, width: width * share }))

  /** A bar of `parts` (value, colour) side by side, each as wide as its share of `total`. */
  const stackedBar = (parts: ReadonlyArray<readonly [number, string]>, total: number, y: number, height = 12) => {
    let x = left
    for (const [value, color] of parts) {
      const w = total === 0 ? 0 : (width * value) / total
      if (w > 0) doc.rect(x, y, w, height).fill(color)
      x += w
    }
    doc.fillColor(COLORS.ink)
  }

  const finish = async (): Promise<number> => {
    // The total, now known, into the form every running head shows.
    const [r, g, b] = [1, 3, 5].map((i) => parseInt(COLORS.muted.slice(i, i + 2), 16) / 255)
    totalForm.end(`BT /${headFont} 8 Tf ${r!.toFixed(3)} ${g!.toFixed(3)} ${b!.toFixed(3)} rg 0 0 Td (${pages}) Tj ET`)
    doc.end()
    await ended
    return pages
  }

  return { doc, left, width, ensure, heading, paragraph, textAt, table, cols, stackedBar, finish }
}

/** Renders the report into `sink`; resolves with the page count. */
export const renderReport = async (source: ReportSource, sink: ReportSink): Promise<{ readonly pages: number }> => {
  const { doc, left, width, ensure, heading, paragraph, table, cols, stackedBar, finish } = reportDocument({
    title: `Compliance report — scan ${source.meta.scan.id}`,
    subject: `${source.meta.scan.account_name} (${source.meta.scan.cloud_account_id})`,
    head: () => `Compliance report · ${source.meta.scan.account_name} · scan #${source.meta.scan.id} ·`,
    write: (chunk) => sink.write(chunk),
  })

  // 1. Cover -------------------------------------------------------------------------------------------------------
  const { meta } = source
  doc.y = 180
  doc.font("Helvetica-Bold").fontSize(28).fillColor(COLORS.ink).text("Compliance report", left, doc.y, { width })
  doc.moveDown(0.5)
  doc.font("Helvetica").fontSize(13).fillColor(COLORS.muted).text(source.frameworks.map((f) => `${f.framework.name} v${f.framework.version}`).join("\n"), { width })
  doc.moveDown(2)
  const coverRows: ReadonlyArray<readonly [string, string]> = [
    ["Workspace", meta.workspaceName],
    ["Account", `${meta.scan.account_name} (${meta.scan.cloud_account_id})`],
    ["Cloud provider", meta.scan.provider.toUpperCase()],
    ["Scan", `#${meta.scan.id}`],
    ["Scan started", fmtDate(meta.scan.scan_start)],
    ["Scan completed", fmtDate(meta.scan.scan_end)],
    ["Report generated", fmtDate(meta.generatedAt.toISOString())],
  ]
  for (const [label, value] of coverRows) {
    const y = doc.y
    doc.font("Helvetica-Bold").fontSize(11).fillColor(COLORS.ink).text(label, left, y, { width: 140 })
    doc.font("Helvetica").text(value, left + 150, y, { width: width - 150 })
    doc.moveDown(0.4)
  }

  // 2. Executive summary ---------------------------------------------------------------------------------------------
  doc.addPage()
  heading("Executive summary", 20)
  const failingBySeverity = new Map<Severity, number>(SEVERITY_ORDER.map((s) => [s, 0]))
  for (const f of source.failingChecks) if (checkOutcome(f.outcome) === "failed") failingBySeverity.set(f.outcome.severity, (failingBySeverity.get(f.outcome.severity) ?? 0) + 1)
  const totalFailing = [...failingBySeverity.values()].reduce((a, b) => a + b, 0)
  paragraph(
    `${totalFailing} failing check${totalFailing === 1 ? "" : "s"} decide requirements of the frameworks below. ` +
      "A requirement fails when one of its checks has a failing resource (not remediated, not muted); it is not evaluated when " +
      "one of its checks could not decide, passed with exceptions when its only failing resources are muted, manual when no " +
      "check decides it, and not applicable when nothing was in scope. " +
      "Score = (passed + passed with exceptions) / (passed + passed with exceptions + failed).",
  )
  heading("Failing checks by severity", 13)
  const maxSeverity = Math.max(1, ...failingBySeverity.values())
  for (const severity of SEVERITY_ORDER) {
    ensure(22)
    const y = doc.y
    const n = failingBySeverity.get(severity) ?? 0
    doc.font("Helvetica").fontSize(9).fillColor(COLORS.ink).text(severity[0]!.toUpperCase() + severity.slice(1), left, y + 3, { width: 70 })
    const barWidth = ((width - 130) * n) / maxSeverity
    if (n > 0) doc.rect(left + 75, y, barWidth, 14).fill(COLORS[severity])
    doc.fillColor(COLORS.ink).text(String(n), left + 80 + barWidth, y + 3, { width: 50 })
    doc.x = left
    doc.y = y + 20
  }
  heading("Frameworks", 13)
  for (const f of source.frameworks) {
    ensure(52)
    const y = doc.y
    const c = f.counts
    doc.font("Helvetica-Bold").fontSize(10).fillColor(COLORS.ink)
      .text(`${f.framework.name} v${f.framework.version} — score ${c.score === null ? "n/a" : `${c.score}%`}`, left, y, { width })
    const barY = doc.y + 3
    stackedBar(STATUS_ORDER.map((status) => [c[status], COLORS[status]] as const), c.total, barY)
    doc.font("Helvetica").fontSize(8).fillColor(COLORS.muted).text(
      STATUS_ORDER.map((s) => `${REQUIREMENT_STATUS_LABELS[s]} ${c[s]}`).join(" · ") + ` · Total ${c.total}`,
      left,
      barY + 16,
      { width },
    )
    doc.fillColor(COLORS.ink)
    doc.x = left
    doc.y = barY + 32
  }

  // Progress is the share of the rows drawn so far — requirement rows, failing resources, then the muted checks' rows
  // read again for the muted items — reported at every checkpoint, so the bar moves with the work whatever the report's
  // shape (many frameworks, many failing resources, many muted ones).
  const rowsOf = (f: FailingCheck) => failingResources(f.outcome) + f.outcome.resources_muted
  const work = Math.max(
    1,
    source.frameworks.reduce((n, f) => n + f.requirements.length, 0) +
      source.failingChecks.reduce((n, f) => n + rowsOf(f), 0) +
      source.failingChecks.filter((f) => f.outcome.resources_muted > 0).reduce((n, f) => n + rowsOf(f), 0),
  )
  let worked = 0
  const progress = async (rows: number) => {
    worked += rows
    await drain()
    await sink.checkpoint(Math.min(1, worked / work))
  }

  // 3. Requirement tables ----------------------------------------------------------------------------------------------
  const statusColor = (s: RequirementStatus) => COLORS[s]
  for (const f of source.frameworks) {
    doc.addPage()
    heading(`${f.framework.name} v${f.framework.version}`, 16)
    paragraph(
      `Score ${f.counts.score === null ? "n/a" : `${f.counts.score}%`}: ${f.counts.passed} passed, ${f.counts.passed_with_exceptions} passed with exceptions, ${f.counts.failed} failed, ${f.counts.not_evaluated} not evaluated, ${f.counts.manual} manual, ${f.counts.not_applicable} not applicable of ${f.counts.total} requirements.`,
      9,
      COLORS.muted,
    )
    const titles = new Map(f.sections.map((s) => [s.id, s.title]))
    let section: string | null = null
    let row: ((values: ReadonlyArray<string>, colors?: ReadonlyArray<string | undefined>) => void) | null = null
    const columns = cols(["Id", 0.09], ["Requirement", 0.5], ["Status", 0.19], ["Failing", 0.11], ["Muted", 0.11])
    let drawn = 0
    for (const r of f.requirements) {
      if (drawn === PROGRESS_ROWS) {
        await progress(drawn)
        drawn = 0
      }
      drawn += 1
      if (r.section_id !== section) {
        section = r.section_id
        heading(`${section} ${titles.get(section) ?? ""}`.trim(), 11)
        row = table(columns)
      }
      row!(
        [r.id, r.title, REQUIREMENT_STATUS_LABELS[r.status], String(r.resources_failing), String(r.resources_muted)],
        [undefined, undefined, statusColor(r.status)],
      )
    }
    const undecided = f.requirements.filter((r) => r.status === "not_evaluated")
    if (undecided.length > 0) {
      heading("Not evaluated: why", 11)
      const row = table(cols(["Id", 0.09], ["Check", 0.36], ["Reason", 0.55]))
      for (const r of undecided) for (const n of r.not_evaluated_reasons) row([r.id, n.check_id, n.reason])
    }
    const excepted = f.requirements.filter((r) => r.status === "passed_with_exceptions")
    if (excepted.length > 0) {
      heading("Passed with exceptions: the mutes", 11)
      const row = table(cols(["Id", 0.09], ["Check", 0.25], ["Muted", 0.08], ["Reason", 0.28], ["Expires", 0.13], ["Author", 0.17]))
      for (const r of excepted) {
        for (const e of r.exceptions) row([r.id, e.check_id, String(e.resources), e.reason, e.expires_at === null ? "never" : fmtDate(e.expires_at), e.author ?? "—"])
      }
    }
    await progress(drawn)
  }

  // 4. Failing resources ---------------------------------------------------------------------------------------------
  doc.addPage()
  heading("Failing resources and remediation", 18)
  if (source.failingChecks.length === 0) paragraph("No check of the reported frameworks failed in this scan.")
  const resourceColumns = cols(["Resource", 0.42], ["Region", 0.12], ["Reason", 0.36], ["Muted", 0.1])
  for (const f of source.failingChecks) {
    heading(`${f.info?.title ?? f.outcome.check_id}`, 12)
    paragraph(`${f.outcome.check_id} · ${f.outcome.service_name} · severity ${f.outcome.severity} · ${CHECK_OUTCOME_LABELS[checkOutcome(f.outcome)].toLowerCase()} · ${failingResources(f.outcome)} failing, ${f.outcome.resources_muted} muted`, 8, COLORS.muted)
    paragraph(`Requirements: ${f.requirements.join(", ")}`, 8, COLORS.muted)
    if (f.info !== undefined && f.info.remediation !== "") paragraph(`Remediation: ${f.info.remediation}`, 9)
    doc.moveDown(0.3)
    const row = table(resourceColumns)
    let after = -1
    for (;;) {
      const rows = await source.failingAfter(f.outcome.finding_id, after, ROWS_PAGE)
      for (const r of rows) row([r.resource_id, r.region, r.reason, r.muted ? "muted" : ""])
      await progress(rows.length)
      if (rows.length < ROWS_PAGE) break
      after = rows[rows.length - 1]!.result_seq
    }
  }

  // 5. Muted items ---------------------------------------------------------------------------------------------------
  doc.addPage()
  heading("Muted items", 18)
  const mutedChecks = source.failingChecks.filter((f) => f.outcome.resources_muted > 0)
  if (mutedChecks.length === 0) paragraph("No failing resource of the reported frameworks is muted.")
  else {
    const row = table(cols(["Check", 0.18], ["Resource", 0.26], ["Region", 0.09], ["Mute reason", 0.2], ["Expires", 0.12], ["Author", 0.15]))
    for (const f of mutedChecks) {
      let after = -1
      for (;;) {
        const rows = await source.failingAfter(f.outcome.finding_id, after, ROWS_PAGE)
        for (const r of rows) {
          if (!r.muted) continue
          const expires = r.muted_expires_at ?? null
          row([f.outcome.check_id, r.resource_id, r.region, r.muted_reason ?? "", expires === null ? "never" : fmtDate(expires), r.muted_author ?? "—"])
        }
        await progress(rows.length)
        if (rows.length < ROWS_PAGE) break
        after = rows[rows.length - 1]!.result_seq
      }
    }
  }

  return { pages: await finish() }
}
