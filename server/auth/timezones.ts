/**
 * IANA timezones from Intl, each with a label and its current UTC offset ("+05:30"), for GET /api/timezones and for
 * validating the timezone of sign-up and profile updates.
 */

export interface TimezoneOption {
  readonly value: string
  readonly label: string
  readonly offset: string
}

const offsetOf = (timeZone: string, at: Date): string => {
  const part = new Intl.DateTimeFormat("en-US", { timeZone, timeZoneName: "longOffset" })
    .formatToParts(at)
    .find((p) => p.type === "timeZoneName")?.value ?? "GMT"
  const m = /GMT([+-])(\d{1,2})(?::?(\d{2}))?/.exec(part)
  if (m === null) return "+00:00"
  return `${m[1]}${m[2]!.padStart(2, "0")}:${m[3] ?? "00"}`
}

const offsetMinutes = (offset: string): number => {
  const sign = offset.startsWith("-") ? -1 : 1
  const [h, m] = offset.slice(1).split(":")
  return sign * (Number(h) * 60 + Number(m))
}

let cache: { readonly day: string; readonly list: ReadonlyArray<TimezoneOption> } | undefined
let known: ReadonlySet<string> | undefined

const names = (): ReadonlyArray<string> => {
  const list = Intl.supportedValuesOf("timeZone")
  return list.includes("UTC") ? list : ["UTC", ...list]
}

/** Whether `value` names a timezone Intl knows (canonical names and aliases such as Asia/Calcutta). */
export const isValidTimezone = (value: string): boolean => {
  known ??= new Set(names())
  if (known.has(value)) return true
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: value })
    return value.trim() !== ""
  } catch {
    return false
  }
}

export const describeTimezone = (value: string, at = new Date()): TimezoneOption => {
  const offset = offsetOf(value, at)
  return { value, label: `(UTC${offset}) ${value.replace(/_/g, " ")}`, offset }
}

/** Every timezone, sorted by offset then name; recomputed once a day (offsets change with daylight saving). */
export const listTimezones = (now = new Date()): ReadonlyArray<TimezoneOption> => {
  const day = now.toISOString().slice(0, 10)
  if (cache?.day === day) return cache.list
  const list = names()
    .map((n) => describeTimezone(n, now))
    .sort((a, b) => offsetMinutes(a.offset) - offsetMinutes(b.offset) || a.value.localeCompare(b.value))
  cache = { day, list }
  return list
}
