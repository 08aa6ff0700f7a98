/**
 * How a finding's detail rows are shown (scanning §2 "Finding detail"): the columns honour `field_labels`; array values
 * show up to 5 items (and how many more); strings over 150 characters are cut to 97 plus '...' and a length note;
 * remediation messages over 100 characters collapse behind Show more / Show less. Pure, so the rules are testable.
 */
import {
  limitDetailArray,
  shouldCollapseRemediationMessage,
  truncateDetailString,
  type DetailRow,
} from "../../contracts/findings.ts"
import { DetailDisplay } from "../../contracts/constants.ts"

/** Fields of a row that are not data columns. */
/** Keys of a detail row shown by their own columns or not at all (the row's state, its position, its identity). */
export const RESERVED_DETAIL_KEYS: ReadonlySet<string> = new Set(["compliance", "remediate", "result_seq", "delta", "muted", "resource_uid"])
const RESERVED = RESERVED_DETAIL_KEYS

export interface DetailColumn {
  readonly key: string
  readonly label: string
}

const humanise = (key: string): string => {
  const spaced = key.replace(/[_-]+/g, " ").replace(/([a-z])([A-Z])/g, "$1 $2").trim()
  return spaced === "" ? key : spaced.charAt(0).toUpperCase() + spaced.slice(1)
}

/**
 * The table's columns: every `field_labels` entry in its order; when the finding has no labels, the rows' own keys
 * (first-seen order) with readable names.
 */
export const detailColumns = (fieldLabels: Readonly<Record<string, string>>, rows: ReadonlyArray<DetailRow>): ReadonlyArray<DetailColumn> => {
  const labelled = Object.entries(fieldLabels).filter(([key]) => !RESERVED.has(key))
  if (labelled.length > 0) return labelled.map(([key, label]) => ({ key, label }))
  const keys: string[] = []
  for (const row of rows) for (const key of Object.keys(row)) if (!RESERVED.has(key) && !keys.includes(key)) keys.push(key)
  return keys.map((key) => ({ key, label: humanise(key) }))
}

export type DetailDisplayValue =
  | { readonly kind: "empty" }
  | { readonly kind: "text"; readonly text: string; readonly title?: string; readonly note?: string }
  | { readonly kind: "list"; readonly items: ReadonlyArray<string>; readonly more?: string }

/** A scalar as text (objects as compact JSON). */
const scalarText = (value: unknown): string => {
  if (typeof value === "string") return value
  if (typeof value === "boolean") return value ? "Yes" : "No"
  if (typeof value === "number" || typeof value === "bigint") return String(value)
  return JSON.stringify(value) ?? String(value)
}

/** The length note of a cut string. */
export const lengthNote = (length: number): string => `(${length} characters)`

/** A string with the 150 → 97 rule applied. */
const textValue = (s: string): DetailDisplayValue => {
  const t = truncateDetailString(s)
  return t.truncated ? { kind: "text", text: t.text, title: s, note: lengthNote(t.length) } : { kind: "text", text: s }
}

/** One cell. */
export const displayDetailValue = (value: unknown): DetailDisplayValue => {
  if (value === undefined || value === null || value === "") return { kind: "empty" }
  if (Array.isArray(value)) {
    if (value.length === 0) return { kind: "empty" }
    const { items, hidden } = limitDetailArray(value)
    return {
      kind: "list",
      items: items.map((item) => {
        const shown = textValue(scalarText(item))
        return shown.kind === "text" ? shown.text : ""
      }),
      ...(hidden > 0 ? { more: `and ${hidden} more` } : {}),
    }
  }
  return textValue(scalarText(value))
}

/** The remediation message as shown: collapsed to 100 characters unless expanded. */
export const remediationMessageView = (
  message: string | null | undefined,
  expanded: boolean,
): { readonly text: string; readonly collapsible: boolean } => {
  const full = message ?? ""
  const collapsible = shouldCollapseRemediationMessage(full)
  return {
    text: collapsible && !expanded ? `${full.slice(0, DetailDisplay.remediationCollapseAbove)}...` : full,
    collapsible,
  }
}
