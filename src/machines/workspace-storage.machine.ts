/**
 * The Storage page of a workspace (beyond the spec, issue 30 "Visible size" and the retention setting), for workspace
 * admins: what the scan history occupies per account and in all (scans kept, result rows the scans answer, rows
 * stored, bytes), what the current retention setting will free, and the form that changes the setting (keep scans for
 * N days and/or the last N scans per account; empty: no limit of that kind).
 *
 * `loading` → `ready` or `failed` ('Failed to load storage. Please try again.'; a 403 says 'Only workspace admins can
 * see storage and change retention'; `storage.retryRequested`). In `ready` the form edits the two limits; a submitted
 * form that changed something and passes the contract's limits goes to `saving`, otherwise each bad field shows its
 * message. `saving` → `ready` with the figures recomputed by the server and the form showing the setting as saved (a
 * success toast), or `ready` with the form as typed and the server's field errors (400) or failure (an error toast).
 * The accounts table sorts by any column (bytes, largest first, by default) and shows `STORAGE_PAGE_SIZE` rows more at
 * each `rows.moreRequested`, so a workspace with thousands of accounts renders one page at a time.
 *
 * Events accepted:
 * - `storage.retryRequested` — the user pressed retry after the storage failed to load: load it again.
 * - `field.changed` { field, value } — the user typed in the days or the scans-per-account field; its error clears.
 * - `form.submitted` — the user pressed Save: a changed, valid form is saved; an invalid one shows its field errors.
 * - `form.reset` — the user pressed Reset after changing the form: it shows the saved setting again.
 * - `sort.changed` { column } — the user sorted the accounts table by a column: the same column again flips the order.
 * - `rows.moreRequested` — the user asked for more accounts than the table shows.
 */
import { and, assertEvent, assign, fromPromise, setup } from "xstate"
import type { AccountStorage, RetentionSetting, WorkspaceStorage } from "../contracts/storage.ts"
import { RetentionSetting as RetentionSettingSchema, StorageMessages } from "../contracts/storage.ts"
import { formErrors } from "../contracts/validation.ts"
import { errorOf, outputOf } from "./actor-output.ts"
import { toFailure, type NotifyParams } from "./auth-effects.ts"
import { notProvided } from "./building-blocks.ts"
import type { RetentionSaved } from "./storage-effects.ts"

// ---------------------------------------------------------------------------------------------------
// The form

export type RetentionField = keyof RetentionSetting
export const RETENTION_FIELDS: ReadonlyArray<RetentionField> = ["keep_days", "keep_scans"]

/** The two limits as typed ("" for no limit). */
export type RetentionValues = { readonly [K in RetentionField]: string }
export type RetentionErrors = Readonly<Partial<Record<RetentionField, string>>>

/** What each field says when its value is outside the contract's limits. */
export const RETENTION_FIELD_MESSAGES: { readonly [K in RetentionField]: string } = {
  keep_days: StorageMessages.retentionDaysInvalid,
  keep_scans: StorageMessages.retentionScansInvalid,
}

/** The form showing a saved setting. */
export const retentionValuesOf = (setting: RetentionSetting): RetentionValues => ({
  keep_days: setting.keep_days === null ? "" : String(setting.keep_days),
  keep_scans: setting.keep_scans === null ? "" : String(setting.keep_scans),
})

const EMPTY_VALUES: RetentionValues = { keep_days: "", keep_scans: "" }

/** A typed limit as the wire wants it: empty → null, digits → the number, anything else → NaN (never valid). */
const limitOf = (raw: string): number | null => {
  const s = raw.trim()
  if (s === "") return null
  return /^\d+$/.test(s) ? Number(s) : Number.NaN
}

/** The setting the form describes (meaningful once `validateRetention` finds nothing). */
export const retentionSettingOf = (values: RetentionValues): RetentionSetting => ({
  keep_days: limitOf(values.keep_days),
  keep_scans: limitOf(values.keep_scans),
})

/** Each field the contract's `RetentionSetting` refuses, with the page's message for it (`{}`: it can be saved). */
export const validateRetention = (values: RetentionValues): RetentionErrors => {
  const issues = formErrors(RetentionSettingSchema, retentionSettingOf(values))
  const out: Partial<Record<RetentionField, string>> = {}
  for (const field of RETENTION_FIELDS) if (field in issues) out[field] = RETENTION_FIELD_MESSAGES[field]
  return out
}

/** Field messages the server returned with a 400 (`errors: [{ path, message }]`), for the two fields. */
export const serverRetentionErrors = (error: unknown): RetentionErrors => {
  const data = toFailure(error).data
  const list = typeof data === "object" && data !== null ? (data as { errors?: unknown }).errors : undefined
  if (!Array.isArray(list)) return {}
  const out: Partial<Record<RetentionField, string>> = {}
  for (const item of list) {
    const path = (item as { path?: unknown }).path
    const message = (item as { message?: unknown }).message
    const field = RETENTION_FIELDS.find((f) => f === path)
    if (field !== undefined && typeof message === "string" && out[field] === undefined) out[field] = message
  }
  return out
}

/** A failure's text on this page: a 403 names the admin rule, anything else its own text or `fallback`. */
export const storageFailureMessage = (error: unknown, fallback: string): string => {
  const failure = toFailure(error, fallback)
  return failure.status === 403 ? StorageMessages.storagePermissionDenied : failure.message
}

// ---------------------------------------------------------------------------------------------------
// The accounts table

export type StorageColumn = "account" | "scans" | "results" | "rows" | "bytes" | "frees"
export type SortDirection = "asc" | "desc"

export interface StorageSort {
  readonly column: StorageColumn
  readonly direction: SortDirection
}

export const DEFAULT_STORAGE_SORT: StorageSort = { column: "bytes", direction: "desc" }

/** Rows the table shows at first and adds at each `rows.moreRequested`. */
export const STORAGE_PAGE_SIZE = 50

/** The same column flips its order; another starts with its natural one (names A→Z, figures largest first). */
export const nextStorageSort = (current: StorageSort, column: StorageColumn): StorageSort =>
  current.column === column
    ? { column, direction: current.direction === "asc" ? "desc" : "asc" }
    : { column, direction: column === "account" ? "asc" : "desc" }

const keyOf = (column: Exclude<StorageColumn, "account">, a: AccountStorage): number =>
  column === "frees" ? a.frees.bytes : a.used[column]

// One collator for every comparison (`localeCompare` with options builds one per call: seconds for thousands of rows).
const names = new Intl.Collator("en-US", { sensitivity: "base", numeric: true })

const byName = (a: AccountStorage, b: AccountStorage): number => names.compare(a.account_name, b.account_name) || a.account_id - b.account_id

/** The accounts in the table's order (ties by name, then id, so the order is stable). A new array. */
export const sortAccounts = (accounts: ReadonlyArray<AccountStorage>, sort: StorageSort): ReadonlyArray<AccountStorage> => {
  const sign = sort.direction === "asc" ? 1 : -1
  const { column } = sort
  const compare =
    column === "account"
      ? (a: AccountStorage, b: AccountStorage) => sign * byName(a, b)
      : (a: AccountStorage, b: AccountStorage) => sign * (keyOf(column, a) - keyOf(column, b)) || byName(a, b)
  return [...accounts].sort(compare)
}

// ---------------------------------------------------------------------------------------------------
// Machine

export interface WorkspaceStorageContext {
  readonly storage: WorkspaceStorage | null
  readonly loadError: string | null
  readonly values: RetentionValues
  readonly fieldErrors: RetentionErrors
  /** Why the last save failed (beyond the field errors), until the next save or edit. */
  readonly saveError: string | null
  readonly sort: StorageSort
  /** How many accounts the table shows. */
  readonly shown: number
}

export type WorkspaceStorageEvent =
  | { readonly type: "storage.retryRequested" }
  | { readonly type: "field.changed"; readonly field: RetentionField; readonly value: string }
  | { readonly type: "form.submitted" }
  | { readonly type: "form.reset" }
  | { readonly type: "sort.changed"; readonly column: StorageColumn }
  | { readonly type: "rows.moreRequested" }

const savedValues = (context: Pick<WorkspaceStorageContext, "storage">): RetentionValues =>
  context.storage === null ? EMPTY_VALUES : retentionValuesOf(context.storage.retention)

export const workspaceStorageMachine = setup({
  types: { context: {} as WorkspaceStorageContext, events: {} as WorkspaceStorageEvent },
  actors: {
    /** GET the selected workspace's storage figures and retention setting. */
    loadStorage: fromPromise<WorkspaceStorage, void>(notProvided("loadStorage")),
    /** PUT the retention setting; answers with the server's message and the figures recomputed. */
    saveRetention: fromPromise<RetentionSaved, RetentionSetting>(notProvided("saveRetention")),
  },
  guards: {
    /** The form differs from the saved setting. */
    isDirty: ({ context }) => RETENTION_FIELDS.some((f) => context.values[f].trim() !== savedValues(context)[f]),
    /** Both limits pass the contract's `RetentionSetting`. */
    isFormValid: ({ context }) => Object.keys(validateRetention(context.values)).length === 0,
    /** The table shows fewer accounts than there are. */
    hasMoreRows: ({ context }) => context.shown < (context.storage?.accounts.length ?? 0),
    /** The storage is loaded (the table is on screen). */
    hasStorage: ({ context }) => context.storage !== null,
  },
  actions: {
    /** Environment: a toast. */
    notify: (_, _params: NotifyParams) => {},
    assignLoaded: assign(({ event }) => {
      const storage = outputOf<WorkspaceStorage>(event)
      return { storage, loadError: null, values: retentionValuesOf(storage.retention), fieldErrors: {}, saveError: null }
    }),
    assignLoadError: assign({ loadError: ({ event }) => storageFailureMessage(errorOf(event), StorageMessages.loadStorageFailed) }),
    assignField: assign(({ context, event }) => {
      assertEvent(event, "field.changed")
      const { [event.field]: _cleared, ...fieldErrors } = context.fieldErrors
      return { values: { ...context.values, [event.field]: event.value }, fieldErrors, saveError: null }
    }),
    showFieldErrors: assign({ fieldErrors: ({ context }) => validateRetention(context.values) }),
    clearSaveError: assign({ saveError: null, fieldErrors: {} }),
    resetForm: assign(({ context }) => ({ values: savedValues(context), fieldErrors: {}, saveError: null })),
    assignSaved: assign(({ event }) => {
      const { storage } = outputOf<RetentionSaved>(event)
      return { storage, values: retentionValuesOf(storage.retention), fieldErrors: {}, saveError: null }
    }),
    assignSaveError: assign(({ event }) => {
      const error = errorOf(event)
      const fieldErrors = serverRetentionErrors(error)
      return {
        fieldErrors,
        saveError: Object.keys(fieldErrors).length > 0 ? null : storageFailureMessage(error, StorageMessages.saveRetentionFailed),
      }
    }),
    assignSort: assign(({ context, event }) => {
      assertEvent(event, "sort.changed")
      return { sort: nextStorageSort(context.sort, event.column) }
    }),
    showMoreRows: assign({ shown: ({ context }) => context.shown + STORAGE_PAGE_SIZE }),
  },
}).createMachine({
  id: "workspaceStorage",
  context: {
    storage: null,
    loadError: null,
    values: EMPTY_VALUES,
    fieldErrors: {},
    saveError: null,
    sort: DEFAULT_STORAGE_SORT,
    shown: STORAGE_PAGE_SIZE,
  },
  initial: "loading",
  on: {
    "sort.changed": { guard: "hasStorage", actions: "assignSort" },
    "rows.moreRequested": { guard: "hasMoreRows", actions: "showMoreRows" },
  },
  states: {
    loading: {
      description: "The page fetches the workspace's storage figures and retention setting; nothing is shown yet.",
      invoke: {
        id: "loadStorage",
        src: "loadStorage",
        /** The figures arrived: the totals, the accounts table and the form showing the saved setting. */
        onDone: { target: "ready", actions: "assignLoaded" },
        /** The load failed: keeps why (a 403: only workspace admins; otherwise by default 'Failed to load storage. Please try again.'). */
        onError: { target: "failed", actions: "assignLoadError" },
      },
    },
    failed: {
      description: "The storage could not be loaded: the error is shown with a retry button.",
      on: { "storage.retryRequested": "loading" },
    },
    ready: {
      description: "The totals, the accounts table and the retention form are shown; the form can be edited and saved.",
      on: {
        "field.changed": { actions: "assignField" },
        "form.reset": { guard: "isDirty", actions: "resetForm" },
        "form.submitted": [
          { guard: and(["isDirty", "isFormValid"]), target: "saving", actions: "clearSaveError" },
          { guard: "isDirty", actions: "showFieldErrors" },
        ],
      },
    },
    saving: {
      description: "The new retention setting is being saved; the form cannot be edited meanwhile.",
      invoke: {
        id: "saveRetention",
        src: "saveRetention",
        input: ({ context }) => retentionSettingOf(context.values),
        /** Saved: the figures recomputed with the new setting replace those shown, the form shows it as saved, and a success toast carries the server's message. */
        onDone: {
          target: "ready",
          actions: ["assignSaved", { type: "notify", params: ({ event }) => ({ kind: "success", message: event.output.message }) }],
        },
        /** The save failed: the form keeps what was typed with the server's field errors (400) or the failure (by default 'Failed to save the retention setting. Please try again.'), and an error toast. */
        onError: {
          target: "ready",
          actions: [
            "assignSaveError",
            {
              type: "notify",
              params: ({ event }) => ({ kind: "error", message: storageFailureMessage(event.error, StorageMessages.saveRetentionFailed) }),
            },
          ],
        },
      },
    },
  },
})
