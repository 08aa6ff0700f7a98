/**
 * The browser's timers as an xstate clock. Actors get their clock through `input`/actor options (never from module
 * scope), so tests swap in a `SimulatedClock`; this is the one place the real timers are bound.
 */
export interface TimerClock {
  setTimeout(fn: (...args: unknown[]) => void, timeout: number): ReturnType<typeof globalThis.setTimeout>
  clearTimeout(id: ReturnType<typeof globalThis.setTimeout>): void
}

export const browserClock: TimerClock = {
  setTimeout: (fn, timeout) => globalThis.setTimeout(fn, timeout),
  clearTimeout: (id) => globalThis.clearTimeout(id),
}
