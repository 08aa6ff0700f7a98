/**
 * Display formatting shared by the User Management and Profile screens: dates (access §9: allowed between 1900 and
 * 2100, else 'N/A'), the avatar initial, and timezone option texts (label and offset).
 */
import type { Timezone } from "../../contracts/auth.ts"
import { Dates } from "../../contracts/constants.ts"

const validDate = (iso: string | null | undefined): Date | undefined => {
  if (iso === null || iso === undefined || iso === "") return undefined
  const d = new Date(iso)
  const year = d.getUTCFullYear()
  return Number.isNaN(d.getTime()) || year < Dates.minYear || year > Dates.maxYear ? undefined : d
}

const dateTime = new Intl.DateTimeFormat("en-US", { dateStyle: "medium", timeStyle: "short" })
const dateOnly = new Intl.DateTimeFormat("en-US", { dateStyle: "medium" })

/** "Mar 4, 2025, 9:15 AM" (local time), or 'N/A'. */
export const formatDateTime = (iso: string | null | undefined): string => {
  const d = validDate(iso)
  return d === undefined ? Dates.fallback : dateTime.format(d)
}

/** "Mar 4, 2025", or 'N/A'. */
export const formatDate = (iso: string | null | undefined): string => {
  const d = validDate(iso)
  return d === undefined ? Dates.fallback : dateOnly.format(d)
}

/** The avatar letter of a display name (an email works too). */
export const initialOf = (name: string): string => {
  const first = name.trim().charAt(0)
  return first === "" ? "?" : first.toLocaleUpperCase("en-US")
}

/** Access §2: a timezone shows its label and offset (labels that already carry the offset are not repeated). */
export const timezoneText = (tz: Pick<Timezone, "label" | "offset">): string =>
  tz.label.includes(tz.offset) ? tz.label : `${tz.label} (UTC${tz.offset})`
