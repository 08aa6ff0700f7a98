/**
 * A machine shaped like the product's request flows (invoked promise with done and error, a delayed retry with a
 * computed delay, a guard, a nested state and final states). Fixture for the coverage helper and the docs generator.
 */
import { assign, fromPromise, setup } from "xstate"

export const fetchMachine = setup({
  types: {
    context: {} as { attempts: number; rows: ReadonlyArray<string> },
    events: {} as { type: "fetch.requested" } | { type: "fetch.cancelled" } | { type: "rows.accepted" },
  },
  actors: {
    fetchRows: fromPromise<ReadonlyArray<string>>(async () => ["row"]),
  },
  guards: {
    isTransient: ({ event }) => (event as unknown as { error?: { transient?: boolean } }).error?.transient === true,
  },
  delays: {
    retryDelay: ({ context }) => 1000 * 2 ** context.attempts,
  },
  actions: {
    countAttempt: assign({ attempts: ({ context }) => context.attempts + 1 }),
    assignRows: assign({ rows: ({ event }) => (event as unknown as { output: ReadonlyArray<string> }).output }),
  },
}).createMachine({
  id: "fetcher",
  context: { attempts: 0, rows: [] },
  initial: "idle",
  states: {
    idle: { on: { "fetch.requested": "loading" } },
    loading: {
      entry: "countAttempt",
      invoke: {
        id: "fetchRows",
        src: "fetchRows",
        onDone: { target: "loaded", actions: "assignRows" },
        onError: [{ guard: "isTransient", target: "waiting" }, { target: "failed" }],
      },
      on: { "fetch.cancelled": "idle" },
    },
    waiting: { after: { retryDelay: "loading" } },
    loaded: {
      initial: "reviewing",
      states: {
        reviewing: { on: { "rows.accepted": "accepted" } },
        accepted: { type: "final" },
      },
      onDone: "done",
    },
    failed: { on: { "fetch.requested": "loading" } },
    done: { type: "final" },
  },
})
