/**
 * When a scan schedule is next due (pure; the ticker and the API call it with their clock).
 *
 * A schedule names a wall-clock time in an IANA time zone: daily, weekly on a weekday, or monthly on a day of the month
 * (31 in a 30-day month is its last day). `nextRun(schedule, after)` is the first such instant strictly after `after`:
 * - DST gap (spring forward: 02:30 does not exist that day): the instant the clock jumps to, i.e. the local time shifted
 *   by the gap (03:30 for a one-hour gap), so the slot still runs that day;
 * - DST overlap (fall back: 01:30 happens twice): the first of the two instants, so the slot runs once.
 * Slots missed while nothing ran are not replayed: the ticker asks for the next slot after now.
 */

export interface ScheduleSpec {
  readonly frequency: "off" | "daily" | "weekly" | "monthly"
  readonly time_of_day: string
  readonly weekday: number
  readonly day_of_month: number
  readonly timezone: string
}

interface LocalParts {
  readonly year: number
  readonly month: number
  readonly day: number
  readonly hour: number
  readonly minute: number
}

const formatters = new Map<string, Intl.DateTimeFormat>()
const formatter = (timeZone: string) => {
  let f = formatters.get(timeZone)
  if (f === undefined) {
    f = new Intl.DateTimeFormat("en-US", {
      timeZone, hourCycle: "h23", year: "numeric", month: "numeric", day: "numeric", hour: "numeric", minute: "numeric", second: "numeric",
    })
    formatters.set(timeZone, f)
  }
  return f
}

/** The wall clock in `timeZone` at an instant. */
export const localParts = (at: Date, timeZone: string): LocalParts & { readonly second: number } => {
  const parts = Object.fromEntries(formatter(timeZone).formatToParts(at).map((p) => [p.type, p.value]))
  return {
    year: Number(parts["year"]), month: Number(parts["month"]), day: Number(parts["day"]),
    hour: Number(parts["hour"]) % 24, minute: Number(parts["minute"]), second: Number(parts["second"]),
  }
}

/** The zone's offset from UTC at an instant, in minutes. */
const offsetAt = (at: Date, timeZone: string): number => {
  const p = localParts(at, timeZone)
  const asUtc = Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second)
  return Math.round((asUtc - Math.floor(at.getTime() / 1000) * 1000) / 60_000)
}

/**
 * The instant a wall-clock time happens in a zone: the earlier one in an overlap, the shifted one in a gap (see the
 * module comment).
 */
export const zonedInstant = (p: LocalParts, timeZone: string): Date => {
  const wall = Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute)
  // Offsets in force around that wall time (a DST change is never closer than a day to another).
  const before = offsetAt(new Date(wall - 86_400_000), timeZone)
  const after = offsetAt(new Date(wall + 86_400_000), timeZone)
  const candidates = [...new Set([before, after])]
    .map((offset) => wall - offset * 60_000)
    .filter((t) => {
      const q = localParts(new Date(t), timeZone)
      return q.year === p.year && q.month === p.month && q.day === p.day && q.hour === p.hour && q.minute === p.minute
    })
    .sort((a, b) => a - b)
  if (candidates.length > 0) return new Date(candidates[0]!)
  // In a gap: the wall time read with the offset before the change lands past the jump, on the shifted local time.
  return new Date(wall - before * 60_000)
}

const daysInMonth = (year: number, month: number) => new Date(Date.UTC(year, month, 0)).getUTCDate()

/** The first slot of the schedule strictly after `after`; null when the schedule is off. */
export const nextRun = (s: ScheduleSpec, after: Date): Date | null => {
  if (s.frequency === "off") return null
  const [hour, minute] = s.time_of_day.split(":").map(Number) as [number, number]
  const today = localParts(after, s.timezone)
  // Walk local calendar days from the local "today" (a monthly schedule needs at most about two months).
  for (let i = 0; i < 64; i++) {
    const d = new Date(Date.UTC(today.year, today.month - 1, today.day + i))
    const year = d.getUTCFullYear()
    const month = d.getUTCMonth() + 1
    const day = d.getUTCDate()
    const due =
      s.frequency === "daily" ||
      (s.frequency === "weekly" && d.getUTCDay() === s.weekday) ||
      (s.frequency === "monthly" && day === Math.min(s.day_of_month, daysInMonth(year, month)))
    if (!due) continue
    const at = zonedInstant({ year, month, day, hour, minute }, s.timezone)
    if (at.getTime() > after.getTime()) return at
  }
  return null
}
