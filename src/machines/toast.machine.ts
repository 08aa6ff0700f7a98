/**
 * Toast queue: the app-wide list of transient notifications (access spec §2 "Screens", §8 toasts; §9 "Toasts:
 * default 4000 ms, success 2000 ms, error 4000 ms, at most 20 shown").
 *
 * Events accepted:
 * - `toast.shown` { kind: success | error | info | warning, message, durationMs? } — appends a toast; when more than
 *   20 would be shown the oldest is dropped (and its timer cancelled).
 * - `toast.dismissed` { id } — the user closed a toast.
 * - `toast.expired` { id } — raised by the machine itself, `durationMs` after the toast was shown (one delayed event
 *   per toast, keyed by the toast id so dismissing or dropping a toast cancels exactly its timer).
 *
 * Invariants: `toasts` is ordered oldest first, holds at most 20 entries, and the machine is in `showing`
 * exactly when `toasts` is non-empty. Durations come from the delayed events, so a SimulatedClock drives them in tests.
 */
import { assertEvent, enqueueActions, setup } from "xstate"
import { Toasts } from "../contracts/constants.ts"

export type ToastKind = "success" | "error" | "info" | "warning"

export interface Toast {
  readonly id: string
  readonly kind: ToastKind
  readonly message: string
  readonly durationMs: number
}

export interface ToastContext {
  readonly toasts: ReadonlyArray<Toast>
  /** Monotonic counter for toast ids; never reused, so a stale `toast.expired` cannot hit a newer toast. */
  readonly nextId: number
}

export type ToastEvent =
  | { readonly type: "toast.shown"; readonly kind: ToastKind; readonly message: string; readonly durationMs?: number }
  | { readonly type: "toast.dismissed"; readonly id: string }
  | { readonly type: "toast.expired"; readonly id: string }

/** Access spec §9: success 2000 ms, error 4000 ms, anything else the 4000 ms default. */
const TOAST_DURATION_MS: Readonly<Record<ToastKind, number>> = {
  success: Toasts.successMs,
  error: Toasts.errorMs,
  info: Toasts.defaultMs,
  warning: Toasts.defaultMs,
}

/** Scheduler id of a toast's expiry event (used to cancel it). */
export const toastTimerId = (toastId: string): string => `toast.expiry.${toastId}`

export const toastMachine = setup({
  types: {
    context: {} as ToastContext,
    events: {} as ToastEvent,
  },
  guards: {
    /** The event removes the only toast left, so the queue becomes empty. */
    isLastToast: ({ context, event }) => {
      assertEvent(event, ["toast.dismissed", "toast.expired"])
      return context.toasts.length === 1 && context.toasts[0]?.id === event.id
    },
  },
  delays: {
    /** How long the toast being shown stays up: its own durationMs, else the kind's default. */
    toastLifetime: ({ event }) => {
      assertEvent(event, "toast.shown")
      return event.durationMs ?? TOAST_DURATION_MS[event.kind]
    },
  },
  actions: {
    addToast: enqueueActions(({ context, event, enqueue }) => {
      assertEvent(event, "toast.shown")
      const toast: Toast = {
        id: `toast-${context.nextId}`,
        kind: event.kind,
        message: event.message,
        durationMs: event.durationMs ?? TOAST_DURATION_MS[event.kind],
      }
      const queued = [...context.toasts, toast]
      const overflow = Math.max(0, queued.length - Toasts.maxShown)
      for (const dropped of queued.slice(0, overflow)) enqueue.cancel(toastTimerId(dropped.id))
      enqueue.assign({ toasts: queued.slice(overflow), nextId: context.nextId + 1 })
      enqueue.raise({ type: "toast.expired", id: toast.id }, { id: toastTimerId(toast.id), delay: "toastLifetime" })
    }),
    removeToast: enqueueActions(({ context, event, enqueue }) => {
      assertEvent(event, ["toast.dismissed", "toast.expired"])
      enqueue.cancel(toastTimerId(event.id))
      enqueue.assign({ toasts: context.toasts.filter((toast) => toast.id !== event.id) })
    }),
  },
}).createMachine({
  id: "toast",
  context: { toasts: [], nextId: 1 },
  initial: "empty",
  states: {
    empty: {
      description: "No toast on screen.",
      on: {
        "toast.shown": { target: "showing", actions: "addToast" },
      },
    },
    showing: {
      description:
        "At least one toast is on screen (at most 20, oldest first); each leaves when dismissed or when its own timer expires, and the last one to leave empties the queue.",
      on: {
        "toast.shown": { actions: "addToast" },
        "toast.dismissed": [
          { guard: "isLastToast", target: "empty", actions: "removeToast" },
          { actions: "removeToast" },
        ],
        "toast.expired": [
          { guard: "isLastToast", target: "empty", actions: "removeToast" },
          { actions: "removeToast" },
        ],
      },
    },
  },
})
