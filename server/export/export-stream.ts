/**
 * The export file as a byte stream built page by page (keyset pages of EXPORT_PAGE_SIZE findings), so memory stays
 * constant whatever the number of findings: each page is fetched, encoded and handed to the socket before the next
 * page is read.
 *
 * - csv:  header line, then the lines of each finding (./csv.ts);
 * - json: a JSON array of findings in the API's `Finding` shape;
 * - ocsf: a JSON array of OCSF Detection Findings (./ocsf.ts).
 */
import { Effect, Option, Stream } from "effect"
import type { Finding } from "../../src/contracts/findings.ts"
import type { ExportFormat } from "../../src/contracts/scans.ts"
import { csvHeader, findingCsvLines } from "./csv.ts"
import { toOcsf } from "./ocsf.ts"

export const EXPORT_PAGE_SIZE = 500

const encoder = new TextEncoder()

interface State {
  readonly afterId: number
  /** Whether an element was already written (JSON needs a comma before the next). */
  readonly emitted: boolean
}

const encodePage = (format: ExportFormat, findings: ReadonlyArray<Finding>, emitted: boolean): { text: string; emitted: boolean } => {
  if (format === "csv") return { text: findings.map(findingCsvLines).join(""), emitted: emitted || findings.length > 0 }
  const items = format === "json" ? findings.map((f) => JSON.stringify(f)) : findings.flatMap((f) => toOcsf(f).map((o) => JSON.stringify(o)))
  if (items.length === 0) return { text: "", emitted }
  return { text: (emitted ? ",\n" : "\n") + items.join(",\n"), emitted: true }
}

/** `fetchPage(afterId, limit)` answers findings with id > afterId in ascending id order. */
export const exportStream = <E, R>(
  format: ExportFormat,
  fetchPage: (afterId: number, limit: number) => Effect.Effect<ReadonlyArray<Finding>, E, R>,
  pageSize: number = EXPORT_PAGE_SIZE,
): Stream.Stream<Uint8Array, E, R> => {
  const prefix = format === "csv" ? csvHeader() : "["
  const body = Stream.paginate<State, Uint8Array, E, R>({ afterId: 0, emitted: false }, (state) =>
    Effect.map(fetchPage(state.afterId, pageSize), (findings) => {
      const page = encodePage(format, findings, state.emitted)
      const last = findings[findings.length - 1]
      const next: Option.Option<State> =
        last === undefined || findings.length < pageSize ? Option.none() : Option.some({ afterId: last.id, emitted: page.emitted })
      const tail = Option.isNone(next) && format !== "csv" ? `${page.emitted ? "\n" : ""}]\n` : ""
      const text = page.text + tail
      return [text === "" ? [] : [encoder.encode(text)], next] as const
    }),
  )
  return Stream.concat(Stream.make(encoder.encode(prefix)), body)
}
