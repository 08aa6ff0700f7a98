/**
 * Schedule slots (server/posture/schedule-time.ts) on a simulated clock: daily, weekly and monthly slots in a time zone,
 * across both DST changes, at month ends, and after missed slots (the next slot after "now", never a replay).
 */
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { localParts, nextRun, type ScheduleSpec } from "../../server/posture/schedule-time.ts"

const spec = (over: Partial<ScheduleSpec>): ScheduleSpec => ({
  frequency: "daily", time_of_day: "02:30", weekday: 1, day_of_month: 1, timezone: "UTC", ...over,
})
const at = (iso: string) => new Date(iso)

describe("next scheduled slot", () => {
  it("runs daily at the wall-clock time, the same day when still ahead, else the next day", () => {
    expect(nextRun(spec({}), at("2026-03-01T01:00:00Z"))?.toISOString()).toBe("2026-03-01T02:30:00.000Z")
    expect(nextRun(spec({}), at("2026-03-01T02:30:00Z"))?.toISOString()).toBe("2026-03-02T02:30:00.000Z")
    expect(nextRun(spec({ frequency: "off" }), at("2026-03-01T00:00:00Z"))).toBeNull()
  })

  it("keeps the local time across the spring-forward change, and runs a slot inside the gap right after the jump", () => {
    const ny = spec({ timezone: "America/New_York", time_of_day: "09:00" })
    // 2026-03-08: clocks go from 02:00 EST to 03:00 EDT.
    expect(nextRun(ny, at("2026-03-07T15:00:00Z"))?.toISOString()).toBe("2026-03-08T13:00:00.000Z") // 09:00 EDT
    expect(nextRun(ny, at("2026-03-06T15:00:00Z"))?.toISOString()).toBe("2026-03-07T14:00:00.000Z") // 09:00 EST
    const gap = nextRun(spec({ timezone: "America/New_York", time_of_day: "02:30" }), at("2026-03-08T05:00:00Z"))!
    expect(gap.toISOString()).toBe("2026-03-08T07:30:00.000Z")
    expect(localParts(gap, "America/New_York")).toMatchObject({ day: 8, hour: 3, minute: 30 })
  })

  it("runs an ambiguous fall-back time once, at its first occurrence", () => {
    const s = spec({ timezone: "Europe/Berlin", time_of_day: "02:30" })
    // 2026-10-25: clocks go from 03:00 CEST back to 02:00 CET; 02:30 happens at 00:30Z and at 01:30Z.
    const first = nextRun(s, at("2026-10-24T23:00:00Z"))!
    expect(first.toISOString()).toBe("2026-10-25T00:30:00.000Z")
    expect(nextRun(s, first)?.toISOString()).toBe("2026-10-26T01:30:00.000Z")
  })

  it("runs weekly on its weekday and monthly on its day, the 31st being a shorter month's last day", () => {
    const weekly = spec({ frequency: "weekly", weekday: 0, time_of_day: "06:00", timezone: "Asia/Kolkata" })
    const w = nextRun(weekly, at("2026-11-25T12:00:00Z"))! // a Wednesday
    expect(w.toISOString()).toBe("2026-11-29T00:30:00.000Z") // Sunday 06:00 IST
    const monthly = spec({ frequency: "monthly", day_of_month: 31, time_of_day: "23:00" })
    expect(nextRun(monthly, at("2026-02-10T00:00:00Z"))?.toISOString()).toBe("2026-02-28T23:00:00.000Z")
    expect(nextRun(monthly, at("2026-02-28T23:00:00Z"))?.toISOString()).toBe("2026-03-31T23:00:00.000Z")
    expect(nextRun(monthly, at("2028-02-01T00:00:00Z"))?.toISOString()).toBe("2028-02-29T23:00:00.000Z")
  })

  it("after slots were missed, answers the first slot after now (one run, not one per missed slot)", () => {
    const daily = spec({ time_of_day: "04:00" })
    const missedSince = at("2026-01-01T04:00:00Z")
    const now = at("2026-01-09T12:00:00Z")
    expect(nextRun(daily, now)?.toISOString()).toBe("2026-01-10T04:00:00.000Z")
    expect(nextRun(daily, now)!.getTime()).toBeGreaterThan(missedSince.getTime())
  })

  it("property: the slot is after `after`, within the period, at the wall-clock time (or just after a gap), on the right day", () => {
    const zones = ["UTC", "America/New_York", "Europe/Berlin", "Australia/Sydney", "Asia/Kolkata", "America/Santiago", "Pacific/Chatham"]
    fc.assert(
      fc.property(
        fc.constantFrom("daily", "weekly", "monthly" as const),
        fc.integer({ min: 0, max: 23 }), fc.integer({ min: 0, max: 59 }), fc.integer({ min: 0, max: 6 }), fc.integer({ min: 1, max: 31 }),
        fc.constantFrom(...zones),
        fc.integer({ min: Date.UTC(2024, 0, 1), max: Date.UTC(2030, 0, 1) }),
        (frequency, h, m, weekday, day, timezone, t) => {
          const s: ScheduleSpec = { frequency, time_of_day: `${String(h).padStart(2, "0")}:${String(m).padStart(2, "0")}`, weekday, day_of_month: day, timezone }
          const after = new Date(t)
          const next = nextRun(s, after)!
          expect(next.getTime()).toBeGreaterThan(after.getTime())
          const limitDays = frequency === "daily" ? 2 : frequency === "weekly" ? 8 : 63
          expect(next.getTime() - after.getTime()).toBeLessThanOrEqual(limitDays * 86_400_000)
          const local = localParts(next, timezone)
          const minutes = local.hour * 60 + local.minute
          // Exactly the time, or later by at most a DST gap (never earlier).
          expect(minutes - (h * 60 + m) === 0 || (minutes > h * 60 + m && minutes - (h * 60 + m) <= 60)).toBe(true)
          if (frequency === "weekly") expect(new Date(Date.UTC(local.year, local.month - 1, local.day)).getUTCDay()).toBe(weekday)
          if (frequency === "monthly") expect(local.day).toBe(Math.min(day, new Date(Date.UTC(local.year, local.month, 0)).getUTCDate()))
        },
      ),
      { numRuns: 400 },
    )
  })
})
