/**
 * The export file as a byte stream built page by page, so memory stays constant whatever the number of findings and
 * of result rows: keyset pages of EXPORT_FINDINGS_PAGE findings (ids ascending, no rows), and for each finding keyset
 * pages of EXPORT_ROWS_PAGE result rows (stored order: failing rows first). Each page is fetched, encoded and handed to
 * the socket before the next one is read.
 *
 * - csv:  header line, then one line per result row (a finding without rows gives one line; ./csv.ts);
 * - json: a JSON array of findings in the API's `Finding` shape, each with every one of its detail rows (written row
 *         page by row page inside the finding's `details` array);
 * - ocsf: a JSON array of OCSF Detection Findings, one per result row (./ocsf.ts).
 */
import { Effect, Option, Stream } from "effect"
import type { DetailRow, Finding } from "../../src/contracts/findings.ts"
import type { ExportFormat } from "../../src/contracts/scans.ts"
import { csvHeader, findingCsvLines } from "./csv.ts"
import { toOcsf } from "./ocsf.ts"

export const EXPORT_FINDINGS_PAGE = 200
export const EXPORT_ROWS_PAGE = 5_000

const encoder = new TextEncoder()

/**
 * A detail row's place in its finding's order — failing rows first, then by `result_seq` (server/db/migrations/
 * 0020_storage_by_change.ts) — as one number: rank · ORDER_KEY_RANK + result_seq (rank 0 for a non-compliant row).
 */
export const ORDER_KEY_RANK = 2_147_483_648
export const rowOrderKey = (row: Readonly<Record<string, unknown>>, fallback: number): number =>
  typeof row["result_seq"] === "number" ? (row["compliance"] === false ? 0 : ORDER_KEY_RANK) + (row["result_seq"] as number) : fallback

export interface ExportSource<E, R> {
  /** Findings with id > afterId in ascending id order, without rows. */
  readonly findingsAfter: (afterId: number, limit: number) => Effect.Effect<ReadonlyArray<Finding>, E, R>
  /** Rows of one finding after the row with order key `afterSeq` (server/scans/results.ts `rowOrderKey`), in stored order. */
  readonly rowsAfter: (findingId: number, afterSeq: number, limit: number) => Effect.Effect<ReadonlyArray<DetailRow>, E, R>
}

interface State {
  /** Findings of the current page not finished yet (the first is being written). */
  readonly queue: ReadonlyArray<Finding>
  /** Whether more pages of findings may follow the queue. */
  readonly moreFindings: boolean
  readonly lastFindingId: number
  /** Order key (`rowOrderKey`) of the last row written of the queue's first finding (-1: none yet). */
  readonly afterSeq: number
  /** Whether an element was already written (JSON needs a comma before the next). */
  readonly emitted: boolean
}


/** The JSON text of a finding up to and including the `[` that opens its details. */
const jsonFindingOpening = (f: Finding): string => {
  const { details: _details, details_pagination: _page, ...rest } = f
  const text = JSON.stringify({ ...rest, details: [] })
  return text.slice(0, -2)
}

/** Encodes one page of rows of `finding` (first: whether it is the finding's first page, last: its last). */
const encodeRows = (format: ExportFormat, finding: Finding, rows: ReadonlyArray<DetailRow>, first: boolean, last: boolean, emitted: boolean) => {
  switch (format) {
    case "csv":
      return rows.length === 0 && !first ? "" : findingCsvLines({ ...finding, details: rows })
    case "json": {
      const open = first ? `${emitted ? ",\n" : "\n"}${jsonFindingOpening(finding)}` : ""
      const body = rows.map((r) => JSON.stringify(r)).join(",")
      return `${open}${!first && rows.length > 0 ? "," : ""}${body}${last ? "]}" : ""}`
    }
    case "ocsf": {
      if (rows.length === 0 && !first) return ""
      const items = toOcsf({ ...finding, details: rows }).map((o) => JSON.stringify(o))
      return `${emitted ? ",\n" : "\n"}${items.join(",\n")}`
    }
  }
}

export const exportStream = <E, R>(
  format: ExportFormat,
  source: ExportSource<E, R>,
  pages: { readonly findings: number; readonly rows: number } = { findings: EXPORT_FINDINGS_PAGE, rows: EXPORT_ROWS_PAGE },
): Stream.Stream<Uint8Array, E, R> => {
  const prefix = format === "csv" ? csvHeader() : "["
  const initial: State = { queue: [], moreFindings: true, lastFindingId: 0, afterSeq: -1, emitted: false }
  const step = (state: State): Effect.Effect<readonly [ReadonlyArray<Uint8Array>, Option.Option<State>], E, R> =>
    Effect.gen(function* () {
      if (state.queue.length === 0) {
        const findings = state.moreFindings ? yield* source.findingsAfter(state.lastFindingId, pages.findings) : []
        if (findings.length === 0) {
          const tail = format === "csv" ? "" : `${state.emitted ? "\n" : ""}]\n`
          return [tail === "" ? [] : [encoder.encode(tail)], Option.none()] as const
        }
        return [[], Option.some({
          ...state,
          queue: findings,
          moreFindings: findings.length === pages.findings,
          lastFindingId: findings[findings.length - 1]!.id,
          afterSeq: -1,
        })] as const
      }
      const finding = state.queue[0]!
      const rows = finding.resources_checked === 0 ? [] : yield* source.rowsAfter(finding.id, state.afterSeq, pages.rows)
      const first = state.afterSeq === -1
      const last = rows.length < pages.rows
      const text = encodeRows(format, finding, rows, first, last, state.emitted)
      const next: State = last
        ? { ...state, queue: state.queue.slice(1), afterSeq: -1, emitted: state.emitted || text !== "" }
        : { ...state, afterSeq: rowOrderKey(rows[rows.length - 1]!, state.afterSeq + rows.length), emitted: true }
      return [text === "" ? [] : [encoder.encode(text)], Option.some(next)] as const
    })
  const body = Stream.paginate<State, Uint8Array, E, R>(initial, step)
  return Stream.concat(Stream.make(encoder.encode(prefix)), body)
}
