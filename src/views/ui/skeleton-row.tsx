/**
 * Skeleton rows: placeholder table rows shown while a table loads (access §2: 5 rows for tables, 3 for invitations).
 * Hidden from assistive technology; the table announces loading through its own `aria-busy`.
 */
import * as css from "./skeleton-row.css.ts"

const WIDTHS = ["70%", "45%", "60%", "35%", "55%", "40%"] as const

export function SkeletonRow({ columns }: { readonly columns: number }) {
  return (
    <tr className={css.row} aria-hidden="true" data-skeleton="">
      {Array.from({ length: columns }, (_, index) => (
        <td key={index} className={css.cell}>
          <span className={css.bar} style={{ width: WIDTHS[index % WIDTHS.length] }} />
        </td>
      ))}
    </tr>
  )
}

export function SkeletonRows({ rows, columns }: { readonly rows: number; readonly columns: number }) {
  return (
    <>
      {Array.from({ length: rows }, (_, index) => (
        <SkeletonRow key={index} columns={columns} />
      ))}
    </>
  )
}
