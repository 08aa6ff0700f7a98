/**
 * The row action menu of the User Management tables (access §2 "Row action menu", §9 "Row action menu 192 px wide with
 * an 8 px offset, items 40 px high, listeners attach after 100 ms"). One actor per table: at most one row's menu is
 * open at a time.
 *
 * Events accepted:
 * - `menu.opened` { rowId } — the user opened a row's action menu; opening another row's menu moves it there.
 * - `menu.closed` — the menu closed: Escape, an outside click or an item chosen (react-aria reports these).
 * - `viewport.changed` — reported by the `watchViewport` actor on a scroll or resize once the listeners are attached: the menu closes.
 * - `xstate.after.listenerDelay.rowActionMenu.open.arming` — 100 ms after opening: the viewport listeners attach.
 *
 * The viewport listeners attach only 100 ms after opening (`listenerDelay`), so the click or the scroll-into-view that
 * opened the menu does not close it again. `watchViewport` is an environment actor supplied at the React boundary
 * (window scroll + resize); the default never reports.
 */
import { assertEvent, assign, fromCallback, setup } from "xstate"
import { Layout } from "../contracts/constants.ts"

export interface RowActionMenuContext {
  /** The row whose menu is open; null while closed. */
  readonly openRowId: string | null
}

export type RowActionMenuEvent =
  | { readonly type: "menu.opened"; readonly rowId: string }
  | { readonly type: "menu.closed" }
  | { readonly type: "viewport.changed" }

export const rowActionMenuMachine = setup({
  types: {
    context: {} as RowActionMenuContext,
    events: {} as RowActionMenuEvent,
  },
  actors: {
    /** Environment: sends `viewport.changed` on window scroll or resize; returns the cleanup. */
    watchViewport: fromCallback(() => () => {}),
  },
  delays: {
    /** Access §9: the viewport listeners attach 100 ms after opening. */
    listenerDelay: Layout.rowMenuListenerDelayMs,
  },
  actions: {
    assignRow: assign({
      openRowId: ({ event }) => {
        assertEvent(event, "menu.opened")
        return event.rowId
      },
    }),
    clearRow: assign({ openRowId: null }),
  },
}).createMachine({
  id: "rowActionMenu",
  context: { openRowId: null },
  initial: "closed",
  states: {
    closed: {
      description: "No row's menu is open.",
      on: { "menu.opened": { target: "open", actions: "assignRow" } },
    },
    open: {
      description: "One row's menu is open (`openRowId`); opening another row's menu moves it there.",
      initial: "arming",
      on: {
        "menu.opened": { target: "open", reenter: true, actions: "assignRow" },
        "menu.closed": { target: "closed", actions: "clearRow" },
      },
      states: {
        arming: {
          description: "The first 100 ms after opening: no viewport listener yet, so the click or scroll that opened the menu does not close it.",
          after: { listenerDelay: "listening" },
        },
        listening: {
          description: "Listens to the viewport: a scroll or resize closes the menu.",
          invoke: { id: "watchViewport", src: "watchViewport" },
          on: { "viewport.changed": { target: "#rowActionMenu.closed", actions: "clearRow" } },
        },
      },
    },
  },
})
