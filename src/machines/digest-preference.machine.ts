/**
 * The scan digest switch of the profile page (beyond the spec, issue 13): after each completed scan of the workspace,
 * one email with what is new, fixed and still failing.
 *
 * `loading` → `ready` or `failed` ('Failed to load your email preference. Please try again.', `digest.retryRequested`).
 * `digest.toggled` in `ready` → `saving` with the new value shown at once → `ready` with the value as saved (toast with
 * the server's message) or `ready` with the previous value back (toast with the failure).
 *
 * Events accepted:
 * - `digest.retryRequested` — the user pressed retry after the preference failed to load: load it again.
 * - `digest.toggled` { enabled } — the user flipped the digest switch; only a value different from the current one
 *   is saved.
 */
import { assign, fromPromise, setup } from "xstate"
import { PostureMessages, type DigestPreference } from "../contracts/posture.ts"
import { toFailure, type NotifyParams } from "./auth-effects.ts"
import { errorOf, outputOf } from "./actor-output.ts"

export interface DigestPreferenceContext {
  readonly enabled: boolean
  /** The value before a save in flight (restored when it fails). */
  readonly previous: boolean
  readonly error: string | null
}

export type DigestPreferenceEvent =
  | { readonly type: "digest.retryRequested" }
  | { readonly type: "digest.toggled"; readonly enabled: boolean }

export const digestPreferenceMachine = setup({
  types: {
    context: {} as DigestPreferenceContext,
    events: {} as DigestPreferenceEvent,
  },
  actors: {
    /** GET the user's scan digest preference (`scan_digest`). */
    getDigest: fromPromise<DigestPreference, void>(async () => {
      throw new Error("getDigest is not provided")
    }),
    /** PUT the new `scan_digest` value; answers with the server's message and the preference as saved. */
    putDigest: fromPromise<{ readonly message: string; readonly preference: DigestPreference }, DigestPreference>(async () => {
      throw new Error("putDigest is not provided")
    }),
  },
  guards: {
    /** The switch was set to a value other than the one shown. */
    isChange: ({ context, event }) => event.type === "digest.toggled" && event.enabled !== context.enabled,
  },
  actions: {
    assignLoaded: assign({ enabled: ({ event }) => outputOf<DigestPreference>(event).scan_digest, error: null }),
    assignLoadError: assign({ error: ({ event }) => toFailure(errorOf(event), PostureMessages.loadDigestFailed).message }),
    assignToggle: assign(({ context, event }) => (event.type === "digest.toggled" ? { previous: context.enabled, enabled: event.enabled } : {})),
    assignSaved: assign({ enabled: ({ event }) => outputOf<{ readonly preference: DigestPreference }>(event).preference.scan_digest }),
    restore: assign({ enabled: ({ context }) => context.previous }),
    /** Environment: a toast. */
    notify: (_, _params: NotifyParams) => {},
  },
}).createMachine({
  id: "digestPreference",
  context: { enabled: false, previous: false, error: null },
  initial: "loading",
  states: {
    loading: {
      description: "The profile page fetches the user's scan digest preference; the switch is not usable yet.",
      invoke: {
        id: "getDigest",
        src: "getDigest",
        /** The preference arrived: the switch shows it. */
        onDone: { target: "ready", actions: "assignLoaded" },
        /** The preference could not be loaded: keeps the failure's message (by default 'Failed to load your email preference. Please try again.'). */
        onError: { target: "failed", actions: "assignLoadError" },
      },
    },
    failed: { description: "The load failed: the error message is shown with a retry button.", on: { "digest.retryRequested": "loading" } },
    ready: {
      description: "The switch shows whether the scan digest email is on and can be toggled.",
      on: { "digest.toggled": { guard: "isChange", target: "saving", actions: "assignToggle" } },
    },
    saving: {
      description: "The new value is shown at once while it is being saved to the server.",
      invoke: {
        id: "putDigest",
        src: "putDigest",
        input: ({ context }) => ({ scan_digest: context.enabled }),
        /** Saved: the switch shows the value as saved and a success toast carries the server's message. */
        onDone: {
          target: "ready",
          actions: ["assignSaved", { type: "notify", params: ({ event }) => ({ kind: "success", message: event.output.message }) }],
        },
        /** The save failed: the previous value is back and an error toast shows the failure (by default 'Failed to save your email preference. Please try again.'). */
        onError: {
          target: "ready",
          actions: [
            "restore",
            { type: "notify", params: ({ event }) => ({ kind: "error", message: toFailure(errorOf(event), PostureMessages.saveDigestFailed).message }) },
          ],
        },
      },
    },
  },
})
