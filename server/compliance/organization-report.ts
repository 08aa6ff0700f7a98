/**
 * The organisation's compliance report (issue 31): the PDF of `organizationCompliance` (./organization.ts), drawn with
 * the scan report's document kit (./pdf.ts `reportDocument`: running head with "page N of M", tables, colours):
 *   1. cover — workspace, organisation, framework, members evaluated, date;
 *   2. summary — the members' scores as a bar per member status, and the requirements most members fail;
 *   3. requirements — by section: per requirement the members passing, passed with exceptions, failing, not
 *      evaluated, not applicable and not scanned (unit: member accounts);
 *   4. members — each member's requirement counts and score in its latest completed scan.
 * The same numbers as the JSON answer and the CSV (one evaluation). Rendered whole in memory: its size follows the
 * requirements and members (a few hundred kilobytes for 500 members), never the scans' rows.
 */
import { REQUIREMENT_STATUS_LABELS } from "../../src/contracts/compliance.ts"
import { COLORS, reportDocument, STATUS_ORDER } from "./pdf.ts"
import type { OrgComplianceResult } from "./organization.ts"

export interface OrganizationReportMeta {
  readonly workspaceName: string
  readonly generatedAt: Date
}

const fmtDate = (d: Date): string => `${d.toISOString().slice(0, 16).replace("T", " ")} UTC`

/** The report's bytes, in order. */
export const organizationReportPdf = async (result: OrgComplianceResult, meta: OrganizationReportMeta): Promise<ReadonlyArray<Uint8Array>> => {
  const chunks: Array<Uint8Array> = []
  const name = result.organization_name
  const fw = result.framework
  const { doc, left, width, heading, paragraph, textAt, table, cols, stackedBar, ensure, finish } = reportDocument({
    title: `Organization compliance report — ${fw.name} v${fw.version}`,
    subject: name,
    head: () => `Organization compliance report · ${name} · ${fw.name} v${fw.version} ·`,
    write: (chunk) => chunks.push(chunk),
  })

  // 1. Cover
  doc.y = 180
  doc.font("Helvetica-Bold").fontSize(28).fillColor(COLORS.ink).text("Organization compliance report", left, doc.y, { width })
  doc.moveDown(0.5)
  doc.font("Helvetica").fontSize(13).fillColor(COLORS.muted).text(`${fw.name} v${fw.version}`, { width })
  doc.moveDown(2)
  const filters = [result.unit === null ? null : `unit ${result.unit} and below`, result.tag === null ? null : `tag ${result.tag}`].filter((f) => f !== null)
  const coverRows: ReadonlyArray<readonly [string, string]> = [
    ["Workspace", meta.workspaceName],
    ["Organization", name],
    ["Members", `${result.members_total} (${result.members_scanned} with a completed scan)`],
    ["Filters", filters.length === 0 ? "none" : filters.join(", ")],
    ["Report generated", fmtDate(meta.generatedAt)],
  ]
  for (const [label, value] of coverRows) {
    const y = doc.y
    doc.font("Helvetica-Bold").fontSize(11).fillColor(COLORS.ink).text(label, left, y, { width: 140 })
    doc.font("Helvetica").text(value, left + 150, y, { width: width - 150 })
    doc.moveDown(0.4)
  }

  // 2. Summary
  doc.addPage()
  heading("Summary", 20)
  paragraph(
    "Each member is evaluated on its latest completed scan, requirement by requirement, exactly as its own compliance page " +
      "evaluates it; each requirement then counts the members by that status (unit: member accounts). Members without a " +
      "completed scan are counted as not scanned. Score = (passed + passed with exceptions) / (passed + passed with exceptions + failed).",
  )
  heading("Requirements most members fail", 13)
  const worst = [...result.requirements].filter((r) => r.members.failed > 0).sort((a, b) => b.members.failed - a.members.failed || a.id.localeCompare(b.id, "en", { numeric: true })).slice(0, 15)
  if (worst.length === 0) paragraph("No member fails a requirement of this framework.")
  else {
    const row = table(cols(["Id", 0.1], ["Requirement", 0.6], ["Members failing", 0.3]))
    for (const r of worst) row([r.id, r.title, `${r.members.failed} of ${result.members_total}`], [undefined, undefined, COLORS.failed])
  }

  // 3. Requirements, with a bar of the members by status
  doc.addPage()
  heading(`${fw.name} v${fw.version}: members per requirement`, 16)
  const titles = new Map(result.sections.map((s) => [s.id, s.title]))
  let section: string | null = null
  for (const r of result.requirements) {
    if (r.section_id !== section) {
      section = r.section_id
      heading(`${section} ${titles.get(section) ?? ""}`.trim(), 11)
    }
    ensure(44)
    const y = doc.y
    doc.font("Helvetica-Bold").fontSize(9).fillColor(COLORS.ink)
    textAt(`${r.id} ${r.title}`, left, y, width)
    const barY = doc.y + 2
    stackedBar([...STATUS_ORDER.map((s) => [r.members[s], COLORS[s]] as const), [r.members.not_scanned, COLORS.rule] as const], result.members_total, barY, 8)
    doc.font("Helvetica").fontSize(8).fillColor(COLORS.muted)
    textAt([...STATUS_ORDER.map((s) => `${REQUIREMENT_STATUS_LABELS[s]} ${r.members[s]}`), `Not scanned ${r.members.not_scanned}`].join(" · "), left, barY + 11, width)
    doc.fillColor(COLORS.ink)
    doc.x = left
    doc.y = barY + 24
  }

  // 4. Members
  doc.addPage()
  heading("Members", 16)
  const row = table(cols(["Member", 0.3], ["Unit", 0.22], ["Passed", 0.08], ["Exceptions", 0.1], ["Failed", 0.08], ["Not evaluated", 0.12], ["Score", 0.1]))
  for (const m of result.members) {
    const c = m.counts
    row(
      [
        `${m.account_name} (${m.cloud_account_id})`,
        m.unit_path,
        c === null ? "—" : String(c.passed),
        c === null ? "—" : String(c.passed_with_exceptions),
        c === null ? "—" : String(c.failed),
        c === null ? "—" : String(c.not_evaluated),
        c === null ? "not scanned" : c.score === null ? "n/a" : `${c.score}%`,
      ],
      [undefined, undefined, undefined, undefined, c !== null && c.failed > 0 ? COLORS.failed : undefined],
    )
  }
  await finish()
  return chunks
}
