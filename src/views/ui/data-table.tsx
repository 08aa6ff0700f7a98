/**
 * A TanStack Table 9 table (core features only) in the scanning screens' look, and the desktop media hook that picks
 * table (≥ 1024 px) or cards (below). Rows can be made clickable (the whole row opens the item; the first cell also
 * holds a real link or button for keyboard users).
 */
import { useEffect, useState, type ReactNode } from "react"
import { tableFeatures, useTable, type ColumnDef, type RowData } from "@tanstack/react-table"
import { Layout } from "../../contracts/constants.ts"
import * as css from "../scanning/scanning.css.ts"

export const scanTableFeatures = tableFeatures({})
export type ScanTableFeatures = typeof scanTableFeatures

const desktopQuery = `(min-width: ${Layout.desktopBreakpointPx}px)`

const matchesDesktop = (): boolean =>
  typeof window === "undefined" || typeof window.matchMedia !== "function" ? true : window.matchMedia(desktopQuery).matches

/** Whether the viewport is at least 1024 px wide (true where the environment cannot tell). */
export function useIsDesktop(): boolean {
  const [isDesktop, setIsDesktop] = useState(matchesDesktop)
  useEffect(() => {
    if (typeof window === "undefined" || typeof window.matchMedia !== "function") return
    const query = window.matchMedia(desktopQuery)
    const onChange = () => setIsDesktop(query.matches)
    onChange()
    query.addEventListener("change", onChange)
    return () => query.removeEventListener("change", onChange)
  }, [])
  return isDesktop
}

export interface DataTableProps<T extends RowData> {
  readonly label: string
  readonly columns: ReadonlyArray<ColumnDef<ScanTableFeatures, T, any>>
  readonly data: ReadonlyArray<T>
  readonly rowId: (row: T) => string
  /** Right-aligned columns (numbers, actions). */
  readonly endColumns?: ReadonlyArray<string>
  readonly busy?: boolean
  /**
   * A column that stays in view at the right edge while the table scrolls sideways (the row's actions); defaults to
   * the column with id "actions" when there is one.
   */
  readonly stickyEndColumn?: string
  /** Shown in a full-width row when there is no data. */
  readonly empty?: ReactNode
  /** The column the rows are sorted by, announced on its header (`aria-sort`); the caller sorts the data. */
  readonly sortedBy?: { readonly column: string; readonly direction: "asc" | "desc" }
}

export function DataTable<T extends RowData>({
  label,
  columns,
  data,
  rowId,
  endColumns = [],
  busy = false,
  stickyEndColumn,
  empty,
  sortedBy,
}: DataTableProps<T>) {
  const table = useTable({
    features: scanTableFeatures,
    columns: columns as ColumnDef<ScanTableFeatures, T, any>[],
    data: data as T[],
    getRowId: (row) => rowId(row),
  })
  const sticky = stickyEndColumn ?? (columns.some((c) => c.id === "actions") ? "actions" : undefined)
  const end = (id: string) => (endColumns.includes(id) ? ` ${css.alignEnd}` : "") + (id === sticky ? ` ${css.stickyEnd}` : "")
  return (
    // A keyboard user can scroll a table wider than the screen even when its cells hold nothing focusable.
    <div className={css.tableWrap} tabIndex={0} role="region" aria-label={`${label}, scrollable`}>
      <table className={css.table} aria-label={label} aria-busy={busy}>
        <thead>
          {table.getHeaderGroups().map((group) => (
            <tr key={group.id}>
              {group.headers.map((header) => (
                <th
                  key={header.id}
                  scope="col"
                  className={`${css.th}${end(header.column.id)}`}
                  {...(sortedBy?.column === header.column.id ? { "aria-sort": sortedBy.direction === "asc" ? "ascending" : "descending" } : {})}
                >
                  {header.isPlaceholder ? null : <table.FlexRender header={header} />}
                </th>
              ))}
            </tr>
          ))}
        </thead>
        <tbody>
          {data.length === 0 && empty !== undefined ? (
            <tr>
              <td className={css.td} colSpan={columns.length}>
                {empty}
              </td>
            </tr>
          ) : (
            table.getRowModel().rows.map((row) => (
              <tr key={row.id} className={css.row}>
                {row.getAllCells().map((cell) => (
                  <td key={cell.id} className={`${css.td}${end(cell.column.id)}`}>
                    <table.FlexRender cell={cell} />
                  </td>
                ))}
              </tr>
            ))
          )}
        </tbody>
      </table>
    </div>
  )
}
