/**
 * Global loading overlay (access spec §2 "Layouts": "Global loading overlay: message and optional progress; it
 * auto-clears after 30 seconds"; §9 "Loading overlay timeout 30 s").
 *
 * Events accepted:
 * - `overlay.shown` { message, progress? } — shows the overlay, or replaces its message and restarts the 30 s timer.
 * - `overlay.progressed` { progress, message? } — updates the progress (clamped to 0–100) while visible.
 * - `overlay.hidden` — hides it.
 * - `xstate.after.overlayTimeout.loadingOverlay.visible` — 30 s after the last `overlay.shown`: the overlay hides by itself.
 *
 * Invariant: a visible overlay never outlives 30 s without a new `overlay.shown`, so a forgotten `overlay.hidden`
 * cannot lock the screen. Context is cleared whenever the overlay hides.
 */
import { assertEvent, assign, setup } from "xstate"
import { Overlay } from "../contracts/constants.ts"

export interface LoadingOverlayContext {
  readonly message: string
  /** Percentage 0–100; `undefined` means indeterminate. */
  readonly progress: number | undefined
}

export type LoadingOverlayEvent =
  | { readonly type: "overlay.shown"; readonly message: string; readonly progress?: number }
  | { readonly type: "overlay.progressed"; readonly progress: number; readonly message?: string }
  | { readonly type: "overlay.hidden" }

const clampProgress = (progress: number | undefined): number | undefined =>
  progress === undefined || Number.isNaN(progress) ? undefined : Math.min(100, Math.max(0, progress))

export const loadingOverlayMachine = setup({
  types: {
    context: {} as LoadingOverlayContext,
    events: {} as LoadingOverlayEvent,
  },
  delays: {
    /** Access spec §9: 30 s. */
    overlayTimeout: Overlay.timeoutMs,
  },
  actions: {
    assignOverlay: assign(({ event }) => {
      assertEvent(event, "overlay.shown")
      return { message: event.message, progress: clampProgress(event.progress) }
    }),
    assignProgress: assign(({ context, event }) => {
      assertEvent(event, "overlay.progressed")
      return { message: event.message ?? context.message, progress: clampProgress(event.progress) }
    }),
    clearOverlay: assign({ message: "", progress: undefined }),
  },
}).createMachine({
  id: "loadingOverlay",
  context: { message: "", progress: undefined },
  initial: "hidden",
  states: {
    hidden: {
      description: "No overlay; its message and progress are cleared.",
      on: {
        "overlay.shown": { target: "visible", actions: "assignOverlay" },
      },
    },
    visible: {
      description:
        "The overlay covers the screen with its message and optional progress; it hides on `overlay.hidden` or by itself 30 s after the last `overlay.shown`.",
      after: {
        overlayTimeout: { target: "hidden", actions: "clearOverlay" },
      },
      on: {
        "overlay.shown": { target: "visible", reenter: true, actions: "assignOverlay" },
        "overlay.progressed": { actions: "assignProgress" },
        "overlay.hidden": { target: "hidden", actions: "clearOverlay" },
      },
    },
  },
})
