/**
 * The approval setting of an account, on its page (beyond the spec, issue 32 "Approval (four eyes), optional per
 * account"): whether Remediate on this account needs another member's approval, and after how many hours a request
 * nobody approved expires (1–720, default 72). Changing it needs create_account, the permission that edits accounts:
 * the server refuses anyone else ("You don't have permission to change this account"), and the card shows why.
 *
 * `loading` → `ready` or `failed` ('Failed to load the approval setting. Please try again.'; `approval.retryRequested`).
 * In `ready` the form edits a copy of the saved setting (`approval.toggled`, `expiry.changed`); `approval.saveRequested`
 * saves a changed, valid form (`saving` → `ready` with the setting as saved and a success toast, or `ready` with the
 * failure's message and an error toast), shows 'The expiry must be between 1 and 720 hours' for a bad expiry, and does
 * nothing when nothing changed; `approval.reset` puts the saved setting back.
 *
 * Events accepted:
 * - `approval.retryRequested` — the user pressed Try again after the setting failed to load.
 * - `approval.toggled` { value } — the user switched "Require approval" on or off.
 * - `expiry.changed` { value } — the user typed the expiry in hours.
 * - `approval.saveRequested` — the user pressed Save.
 * - `approval.reset` — the user pressed Reset.
 */
import { and, assertEvent, assign, fromPromise, setup } from "xstate"
import type { AccountId } from "../contracts/ids.ts"
import { ApprovalExpiry, ApprovalMessages, type ApprovalSetting } from "../contracts/remediation-requests.ts"
import { errorOf, outputOf } from "./actor-output.ts"
import type { ApprovalSaved } from "./approvals-effects.ts"
import { toFailure, type NotifyParams } from "./auth-effects.ts"
import { notProvided } from "./building-blocks.ts"

/** The form: the switch and the expiry as typed. */
export interface ApprovalDraft {
  readonly requires_approval: boolean
  readonly expiry_hours: string
}

export const draftOfSetting = (s: ApprovalSetting): ApprovalDraft => ({ requires_approval: s.requires_approval, expiry_hours: String(s.expiry_hours) })

/** The expiry typed, as whole hours within the contract's bounds; undefined when it is not. */
export const expiryOf = (raw: string): number | undefined => {
  const s = raw.trim()
  if (!/^\d{1,4}$/.test(s)) return undefined
  const n = Number(s)
  return n >= ApprovalExpiry.minHours && n <= ApprovalExpiry.maxHours ? n : undefined
}

export interface ApprovalSettingInput {
  readonly accountId: AccountId
}

export interface ApprovalSettingContext extends ApprovalSettingInput {
  readonly setting: ApprovalSetting | null
  readonly draft: ApprovalDraft
  readonly loadError: string | null
  readonly saveError: string | null
  readonly expiryError: string | null
}

export type ApprovalSettingEvent =
  | { readonly type: "approval.retryRequested" }
  | { readonly type: "approval.toggled"; readonly value: boolean }
  | { readonly type: "expiry.changed"; readonly value: string }
  | { readonly type: "approval.saveRequested" }
  | { readonly type: "approval.reset" }

const DEFAULT_DRAFT: ApprovalDraft = { requires_approval: false, expiry_hours: String(ApprovalExpiry.defaultHours) }

export const approvalSettingMachine = setup({
  types: {
    context: {} as ApprovalSettingContext,
    events: {} as ApprovalSettingEvent,
    input: {} as ApprovalSettingInput,
  },
  actors: {
    /** GET the account's approval setting. */
    loadApprovalSetting: fromPromise<ApprovalSetting, { readonly accountId: AccountId }>(notProvided("loadApprovalSetting")),
    /** PUT the account's approval setting; answers the server's message and the setting as saved. */
    saveApprovalSetting: fromPromise<ApprovalSaved, { readonly accountId: AccountId; readonly setting: ApprovalSetting }>(notProvided("saveApprovalSetting")),
  },
  guards: {
    /** The form differs from the saved setting. */
    isDirty: ({ context }) =>
      context.setting !== null &&
      (context.draft.requires_approval !== context.setting.requires_approval || context.draft.expiry_hours.trim() !== String(context.setting.expiry_hours)),
    /** The expiry is whole hours between 1 and 720. */
    isExpiryValid: ({ context }) => expiryOf(context.draft.expiry_hours) !== undefined,
  },
  actions: {
    /** Environment: a toast. */
    notify: (_, _params: NotifyParams) => {},
    assignLoaded: assign(({ event }) => {
      const setting = outputOf<ApprovalSetting>(event)
      return { setting, draft: draftOfSetting(setting), loadError: null, saveError: null, expiryError: null }
    }),
    assignLoadError: assign({ loadError: ({ event }) => toFailure(errorOf(event), ApprovalMessages.loadSettingFailed).message }),
    assignToggle: assign({
      draft: ({ context, event }) => {
        assertEvent(event, "approval.toggled")
        return { ...context.draft, requires_approval: event.value }
      },
      saveError: null,
    }),
    assignExpiry: assign({
      draft: ({ context, event }) => {
        assertEvent(event, "expiry.changed")
        return { ...context.draft, expiry_hours: event.value }
      },
      expiryError: null,
      saveError: null,
    }),
    showExpiryError: assign({ expiryError: ApprovalMessages.expiryOutOfRange }),
    resetDraft: assign(({ context }) => ({
      draft: context.setting === null ? DEFAULT_DRAFT : draftOfSetting(context.setting),
      expiryError: null,
      saveError: null,
    })),
    assignSaved: assign(({ event }) => {
      const { setting } = outputOf<ApprovalSaved>(event)
      return { setting, draft: draftOfSetting(setting), saveError: null, expiryError: null }
    }),
    assignSaveError: assign({ saveError: ({ event }) => toFailure(errorOf(event), ApprovalMessages.saveSettingFailed).message }),
  },
}).createMachine({
  id: "approvalSetting",
  context: ({ input }) => ({ ...input, setting: null, draft: DEFAULT_DRAFT, loadError: null, saveError: null, expiryError: null }),
  initial: "loading",
  states: {
    loading: {
      description: "The account's approval setting is being read.",
      invoke: {
        id: "loadApprovalSetting",
        src: "loadApprovalSetting",
        input: ({ context }) => ({ accountId: context.accountId }),
        /** The setting arrived: the card shows it in the form. */
        onDone: { target: "ready", actions: "assignLoaded" },
        /** It could not be read: the failure's message (by default 'Failed to load the approval setting. Please try again.') with Try again. */
        onError: { target: "failed", actions: "assignLoadError" },
      },
    },
    failed: {
      description: "The setting could not be loaded: the error is shown with Try again.",
      on: { "approval.retryRequested": "loading" },
    },
    ready: {
      description: "The form shows the setting: the Require approval switch, the expiry in hours, Reset and Save.",
      on: {
        "approval.toggled": { actions: "assignToggle" },
        "expiry.changed": { actions: "assignExpiry" },
        "approval.reset": { guard: "isDirty", actions: "resetDraft" },
        "approval.saveRequested": [
          { guard: and(["isDirty", "isExpiryValid"]), target: "saving" },
          { guard: "isDirty", actions: "showExpiryError" },
        ],
      },
    },
    saving: {
      description: "The setting is being saved; the form cannot change meanwhile.",
      invoke: {
        id: "saveApprovalSetting",
        src: "saveApprovalSetting",
        input: ({ context }) => ({
          accountId: context.accountId,
          setting: { requires_approval: context.draft.requires_approval, expiry_hours: expiryOf(context.draft.expiry_hours) ?? ApprovalExpiry.defaultHours },
        }),
        /** Saved: the form shows the setting as saved, with a success toast carrying the server's message. */
        onDone: {
          target: "ready",
          actions: ["assignSaved", { type: "notify", params: ({ event }) => ({ kind: "success", message: event.output.message }) }],
        },
        /** Refused or failed: the form keeps what was chosen and shows why (e.g. "You don't have permission to change this account"), also as an error toast. */
        onError: {
          target: "ready",
          actions: [
            "assignSaveError",
            { type: "notify", params: ({ event }) => ({ kind: "error", message: toFailure(event.error, ApprovalMessages.saveSettingFailed).message }) },
          ],
        },
      },
    },
  },
})
