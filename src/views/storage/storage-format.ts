/**
 * The Storage page's words (issue 30): every figure is shown with its unit — scans kept, result rows the scans answer,
 * rows stored, bytes on disk (decimal units, with the exact byte count where there is room) — and the retention
 * setting as a sentence. Pure functions, tested with the view.
 */
import type { RetentionSetting, StorageFigures } from "../../contracts/storage.ts"
import type { StorageColumn } from "../../machines/workspace-storage.machine.ts"

export type CountUnit = Exclude<keyof StorageFigures, "bytes">

/** Singular and plural words of each counted figure. */
export const STORAGE_UNITS: { readonly [K in CountUnit]: readonly [string, string] } = {
  scans: ["scan", "scans"],
  results: ["result row", "result rows"],
  rows: ["stored row", "stored rows"],
}

/** What each figure is, as a label above it. */
export const FIGURE_LABELS: { readonly [K in keyof StorageFigures]: string } = {
  scans: "Scans kept",
  results: "Result rows the scans answer",
  rows: "Rows stored",
  bytes: "Size on disk",
}

/** Column headers of the accounts table (the unit is in every cell too). */
export const COLUMN_LABELS: { readonly [K in StorageColumn]: string } = {
  account: "Account",
  scans: "Scans kept",
  results: "Result rows",
  rows: "Rows stored",
  bytes: "Size on disk",
  frees: "Retention frees",
}

export const STORAGE_COLUMNS: ReadonlyArray<StorageColumn> = ["account", "bytes", "scans", "results", "rows", "frees"]

/** "1 scan", "1,240 result rows". */
export const countText = (n: number, unit: CountUnit): string => `${n.toLocaleString("en-US")} ${STORAGE_UNITS[unit][n === 1 ? 0 : 1]}`

const BYTE_UNITS = ["kB", "MB", "GB", "TB", "PB"] as const

/** Bytes in decimal units: "512 bytes", "1 byte", "4.2 MB", "12 GB" (three significant figures at most). */
export const bytesText = (bytes: number): string => {
  if (bytes < 1000) return `${bytes.toLocaleString("en-US")} ${bytes === 1 ? "byte" : "bytes"}`
  let value = bytes
  let unit = -1
  while (value >= 1000 && unit < BYTE_UNITS.length - 1) {
    value /= 1000
    unit += 1
  }
  const digits = value >= 100 ? 0 : value >= 10 ? 1 : 2
  return `${Number(value.toFixed(digits)).toLocaleString("en-US", { maximumFractionDigits: digits })} ${BYTE_UNITS[unit]}`
}

/** "14,000,000 bytes". */
export const exactBytesText = (bytes: number): string => `${bytes.toLocaleString("en-US")} ${bytes === 1 ? "byte" : "bytes"}`

/** Every figure of a set, with its unit: "3 scans · 360 result rows · 120 stored rows · 1.1 MB". */
export const figuresText = (f: StorageFigures): string =>
  [countText(f.scans, "scans"), countText(f.results, "results"), countText(f.rows, "rows"), bytesText(f.bytes)].join(" · ")

const plural = (n: number, one: string, many: string): string => `${n.toLocaleString("en-US")} ${n === 1 ? one : many}`

/** The setting as a sentence. */
export const retentionText = (setting: RetentionSetting): string => {
  const { keep_days: days, keep_scans: scans } = setting
  if (days === null && scans === null) return "Every scan is kept: no retention limit is set."
  const parts = [
    ...(days === null ? [] : [`scans that ended more than ${plural(days, "day", "days")} ago are removed`]),
    ...(scans === null ? [] : [`only the last ${plural(scans, "scan", "scans")} of each account ${scans === 1 ? "is" : "are"} kept`]),
  ]
  const sentence = parts.join(", and ")
  return `${sentence.charAt(0).toUpperCase()}${sentence.slice(1)}.`
}
