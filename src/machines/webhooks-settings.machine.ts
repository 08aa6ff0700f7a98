/**
 * The Webhooks settings page (issue 33, beyond the spec; docs/integrations.md), for workspace admins: the workspace's
 * webhook and Slack destinations, a form to add or edit one (kind, name, URL, events, minimum severity), the signing
 * secret shown once after a webhook is created, enable / disable, delete, "Send test", and the delivery log of one
 * destination with replay.
 *
 * `loading` → `ready` or `failed` ('Failed to load webhooks. Please try again.'; a 403 says 'Only workspace admins can
 * manage webhooks'; `webhooks.retryRequested`). In `ready.idle` the list is on screen; `form.createOpened` /
 * `form.editOpened` open the form (`ready.editing`); a valid `form.submitted` saves it (`ready.saving`): a creation
 * answers the secret, kept until `secret.dismissed`. Each row's actions (`webhook.enabledToggled`,
 * `webhook.deleteRequested`, `webhook.testRequested`, `deliveries.opened`) run one at a time from `ready.idle`; a test
 * opens that destination's log. `delivery.replayRequested` replays one delivery of the open log and reloads it.
 *
 * After a test is queued, its destination is watched until the test delivery was delivered or given up (the server
 * moves `last_delivery_at` then, not on a failed attempt that will be retried): from `ready.idle`, every
 * `WATCH_DELIVERY_MS` the list is read again (`ready.refreshingLastDelivery`, the row actions stay available); when the
 * destination's `last_delivery_at` moves, its "Last delivery" shows the server's value, the watch stops and its open
 * log is read again. It gives up after `WATCH_DELIVERY_TRIES` reads (the delivery job may be down); a failed read ends
 * it silently (the list shown stays).
 *
 * Events accepted:
 * - `webhooks.retryRequested` — retry after the list failed to load.
 * - `form.createOpened` / `form.editOpened` { id } — open the form empty, or with a destination's settings (its URL is
 *   never shown: left empty, the stored one is kept).
 * - `form.changed` { patch } — the user changed fields of the form; their error clears.
 * - `form.submitted` — save a valid form; an invalid one shows its first error.
 * - `form.canceled` — close the form.
 * - `secret.dismissed` — the user has copied the secret: it is forgotten.
 * - `webhook.enabledToggled` { id, enabled }, `webhook.deleteRequested` { id }, `webhook.testRequested` { id }.
 * - `deliveries.opened` { id }, `deliveries.refreshRequested`, `deliveries.closed`, `delivery.replayRequested` { deliveryId }.
 */
import { and, assertEvent, assign, fromPromise, setup } from "xstate"
import { type Webhook, type WebhookDelivery, WebhookMessages } from "../contracts/webhooks.ts"
import { errorOf, outputOf } from "./actor-output.ts"
import { toFailure, type NotifyParams } from "./auth-effects.ts"
import { notProvided } from "./building-blocks.ts"
import type { DeliveryQueued, WebhookChanged, WebhookDraft, WebhookSaved } from "./webhooks-effects.ts"

export const EMPTY_DRAFT: WebhookDraft = { id: null, kind: "webhook", name: "", url: "", events: ["scan.completed", "findings.new_failing"], min_severity: "high" }

/** The draft of an existing destination (its URL stays empty: the stored one is kept unless a new one is typed). */
export const draftOf = (w: Webhook): WebhookDraft => ({ id: w.id, kind: w.kind, name: w.name, url: "", events: [...w.events], min_severity: w.min_severity })

/** The first thing wrong with a draft, in the contract's words; null when it can be sent. */
export const draftError = (d: WebhookDraft): string | null => {
  const name = d.name.trim()
  if (name.length < 1 || name.length > 100) return WebhookMessages.nameInvalid
  const url = d.url.trim()
  if (!(d.id !== null && url === "")) {
    let parsed: URL | undefined
    try {
      parsed = new URL(url)
    } catch {
      parsed = undefined
    }
    if (parsed === undefined || (parsed.protocol !== "http:" && parsed.protocol !== "https:")) return WebhookMessages.urlInvalid
    if (d.kind === "slack" && parsed.protocol !== "https:") return WebhookMessages.slackUrlInvalid
  }
  if (d.events.length === 0) return WebhookMessages.eventsRequired
  return null
}

/** A failure's text on this page: a 403 names the admin rule, anything else its own text or `fallback`. */
export const webhooksFailureMessage = (error: unknown, fallback: string): string => {
  const failure = toFailure(error, fallback)
  return failure.status === 403 ? WebhookMessages.permissionDenied : failure.message
}

export interface WebhooksContext {
  readonly webhooks: ReadonlyArray<Webhook>
  readonly loadError: string | null
  readonly draft: WebhookDraft
  readonly formError: string | null
  /** The secret of the webhook just created, until dismissed. */
  readonly secret: { readonly name: string; readonly value: string } | null
  /** The destination whose delivery log is open. */
  readonly selected: number | null
  readonly deliveries: ReadonlyArray<WebhookDelivery>
  readonly deliveriesError: string | null
  /** The destination a row action works on. */
  readonly pending: { readonly id: number; readonly enabled?: boolean } | null
  readonly replaying: number | null
  /** The destination whose test delivery is awaited: its `last_delivery_at` when tested and the reads left. */
  readonly watch: { readonly id: number; readonly before: string | null; readonly left: number } | null
}

/** How often the list is read again while a test delivery is awaited, and how many times at most (30 s). */
export const WATCH_DELIVERY_MS = 1500
export const WATCH_DELIVERY_TRIES = 20

export type WebhooksEvent =
  | { readonly type: "webhooks.retryRequested" }
  | { readonly type: "form.createOpened" }
  | { readonly type: "form.editOpened"; readonly id: number }
  | { readonly type: "form.changed"; readonly patch: Partial<Omit<WebhookDraft, "id">> }
  | { readonly type: "form.submitted" }
  | { readonly type: "form.canceled" }
  | { readonly type: "secret.dismissed" }
  | { readonly type: "webhook.enabledToggled"; readonly id: number; readonly enabled: boolean }
  | { readonly type: "webhook.deleteRequested"; readonly id: number }
  | { readonly type: "webhook.testRequested"; readonly id: number }
  | { readonly type: "deliveries.opened"; readonly id: number }
  | { readonly type: "deliveries.refreshRequested" }
  | { readonly type: "deliveries.closed" }
  | { readonly type: "delivery.replayRequested"; readonly deliveryId: number }

const upsert = (list: ReadonlyArray<Webhook>, w: Webhook): ReadonlyArray<Webhook> =>
  list.some((x) => x.id === w.id) ? list.map((x) => (x.id === w.id ? w : x)) : [...list, w]

const notifyError = (fallback: string) => ({
  type: "notify" as const,
  params: ({ event }: { event: unknown }) => ({ kind: "error" as const, message: webhooksFailureMessage(errorOf(event), fallback) }),
})
const notifyMessage = {
  type: "notify" as const,
  params: ({ event }: { event: unknown }) => ({ kind: "success" as const, message: outputOf<{ message: string }>(event).message }),
}

/** What `ready.idle` accepts; a pending list read for the test delivery (`ready.refreshingLastDelivery`) accepts it too. */
const IDLE_EVENTS = {
  "form.createOpened": { target: "editing", actions: "openCreate" },
  "form.editOpened": { guard: "isKnownWebhook", target: "editing", actions: "openEdit" },
  "webhook.enabledToggled": { guard: "isKnownWebhook", target: "toggling", actions: "assignPending" },
  "webhook.deleteRequested": { guard: "isKnownWebhook", target: "deleting", actions: "assignPending" },
  "webhook.testRequested": { guard: "isKnownWebhook", target: "testing", actions: "assignPending" },
  "deliveries.opened": { guard: "isKnownWebhook", target: "loadingDeliveries", actions: "selectOpened" },
  "deliveries.refreshRequested": { guard: "hasSelection", target: "loadingDeliveries" },
  "deliveries.closed": { actions: "closeLog" },
  "delivery.replayRequested": { guard: "hasSelection", target: "replaying", actions: "assignReplaying" },
} as const

const lastDeliveryOf = (list: ReadonlyArray<Webhook>, id: number): string | null | undefined => list.find((w) => w.id === id)?.last_delivery_at

export const webhooksSettingsMachine = setup({
  types: { context: {} as WebhooksContext, events: {} as WebhooksEvent },
  delays: { watchDelivery: WATCH_DELIVERY_MS },
  actors: {
    /** GET the workspace's destinations. */
    loadWebhooks: fromPromise<ReadonlyArray<Webhook>, void>(notProvided("loadWebhooks")),
    /** POST (new) or PATCH (existing) a destination. */
    saveWebhook: fromPromise<WebhookSaved, WebhookDraft>(notProvided("saveWebhook")),
    /** PATCH `enabled` of a destination. */
    setEnabled: fromPromise<WebhookChanged, { readonly id: number; readonly enabled: boolean }>(notProvided("setEnabled")),
    /** DELETE a destination; answers the server's message. */
    deleteWebhook: fromPromise<string, number>(notProvided("deleteWebhook")),
    /** POST a test event to a destination. */
    testWebhook: fromPromise<DeliveryQueued, number>(notProvided("testWebhook")),
    /** GET a destination's newest deliveries. */
    loadDeliveries: fromPromise<ReadonlyArray<WebhookDelivery>, number>(notProvided("loadDeliveries")),
    /** POST a replay of one delivery. */
    replayDelivery: fromPromise<DeliveryQueued, { readonly webhookId: number; readonly deliveryId: number }>(notProvided("replayDelivery")),
  },
  guards: {
    /** The form can be sent (`draftError` finds nothing). */
    isDraftValid: ({ context }) => draftError(context.draft) === null,
    /** The event names a listed destination. */
    isKnownWebhook: ({ context, event }) => "id" in event && context.webhooks.some((w) => w.id === event.id),
    /** A delivery log is open. */
    hasSelection: ({ context }) => context.selected !== null,
    /** The deleted destination's log is the open one. */
    deletedSelected: ({ context }) => context.pending !== null && context.pending.id === context.selected,
    /** A test delivery is awaited. */
    isWatching: ({ context }) => context.watch !== null,
    /** The list read again shows the watched destination's delivery tried (its `last_delivery_at` moved), or it is gone. */
    deliveryTried: ({ context, event }) => {
      if (context.watch === null) return false
      const now = lastDeliveryOf(outputOf<ReadonlyArray<Webhook>>(event), context.watch.id)
      return now === undefined || now !== context.watch.before
    },
    /** The watched destination's log is the open one. */
    watchedSelected: ({ context }) => context.watch !== null && context.watch.id === context.selected,
    /** The watch has reads left. */
    hasWatchLeft: ({ context }) => context.watch !== null && context.watch.left > 1,
  },
  actions: {
    /** Environment: a toast. */
    notify: (_, _params: NotifyParams) => {},
    assignLoaded: assign({ webhooks: ({ event }) => outputOf<ReadonlyArray<Webhook>>(event), loadError: null }),
    assignLoadError: assign({ loadError: ({ event }) => webhooksFailureMessage(errorOf(event), WebhookMessages.loadFailed) }),
    openCreate: assign({ draft: EMPTY_DRAFT, formError: null }),
    openEdit: assign(({ context, event }) => {
      assertEvent(event, "form.editOpened")
      const w = context.webhooks.find((x) => x.id === event.id)!
      return { draft: draftOf(w), formError: null }
    }),
    assignDraft: assign(({ context, event }) => {
      assertEvent(event, "form.changed")
      return { draft: { ...context.draft, ...event.patch }, formError: null }
    }),
    showDraftError: assign({ formError: ({ context }) => draftError(context.draft) }),
    assignSaved: assign(({ context, event }) => {
      const saved = outputOf<WebhookSaved>(event)
      return {
        webhooks: upsert(context.webhooks, saved.webhook),
        secret: saved.secret === null ? context.secret : { name: saved.webhook.name, value: saved.secret },
        draft: EMPTY_DRAFT,
        formError: null,
      }
    }),
    assignSaveError: assign({ formError: ({ event }) => webhooksFailureMessage(errorOf(event), WebhookMessages.saveFailed) }),
    dismissSecret: assign({ secret: null }),
    assignPending: assign({
      pending: ({ event }) => {
        assertEvent(event, ["webhook.enabledToggled", "webhook.deleteRequested", "webhook.testRequested"])
        return event.type === "webhook.enabledToggled" ? { id: event.id, enabled: event.enabled } : { id: event.id }
      },
    }),
    assignChanged: assign({ webhooks: ({ context, event }) => upsert(context.webhooks, outputOf<WebhookChanged>(event).webhook), pending: null }),
    removePending: assign({ webhooks: ({ context }) => context.webhooks.filter((w) => w.id !== context.pending?.id), pending: null }),
    closeLog: assign({ selected: null, deliveries: [], deliveriesError: null }),
    clearPending: assign({ pending: null }),
    selectTested: assign(({ context }) => ({ selected: context.pending?.id ?? null, deliveries: [], deliveriesError: null, pending: null })),
    selectOpened: assign(({ event }) => {
      assertEvent(event, "deliveries.opened")
      return { selected: event.id, deliveries: [], deliveriesError: null }
    }),
    assignDeliveries: assign({ deliveries: ({ event }) => outputOf<ReadonlyArray<WebhookDelivery>>(event), deliveriesError: null }),
    assignDeliveriesError: assign({ deliveriesError: ({ event }) => webhooksFailureMessage(errorOf(event), WebhookMessages.deliveriesFailed) }),
    assignReplaying: assign({
      replaying: ({ event }) => {
        assertEvent(event, "delivery.replayRequested")
        return event.deliveryId
      },
    }),
    clearReplaying: assign({ replaying: null }),
    startWatch: assign({
      watch: ({ context }) =>
        context.pending === null ? null : { id: context.pending.id, before: lastDeliveryOf(context.webhooks, context.pending.id) ?? null, left: WATCH_DELIVERY_TRIES },
    }),
    countWatch: assign({ watch: ({ context }) => (context.watch === null ? null : { ...context.watch, left: context.watch.left - 1 }) }),
    stopWatch: assign({ watch: null }),
  },
}).createMachine({
  id: "webhooksSettings",
  context: {
    webhooks: [],
    loadError: null,
    draft: EMPTY_DRAFT,
    formError: null,
    secret: null,
    selected: null,
    deliveries: [],
    deliveriesError: null,
    pending: null,
    replaying: null,
    watch: null,
  },
  initial: "loading",
  states: {
    loading: {
      description: "The page fetches the workspace's destinations; nothing is shown yet.",
      invoke: {
        src: "loadWebhooks",
        id: "loadWebhooks",
        /** The list arrived. */
        onDone: { target: "ready", actions: "assignLoaded" },
        /** Keeps why (a 403: only workspace admins; else 'Failed to load webhooks. Please try again.'). */
        onError: { target: "failed", actions: "assignLoadError" },
      },
    },
    failed: {
      description: "The list could not be loaded: the error is shown with a retry button.",
      on: { "webhooks.retryRequested": "loading" },
    },
    ready: {
      description: "The destinations are listed; the secret of one just created stays on screen until dismissed.",
      initial: "idle",
      on: { "secret.dismissed": { actions: "dismissSecret" } },
      states: {
        idle: {
          description: "Nothing is running: a destination can be added, edited, enabled, disabled, deleted or tested, and a delivery log opened.",
          // While a test delivery is awaited, the list is read again after a pause.
          after: { watchDelivery: { guard: "isWatching", target: "refreshingLastDelivery" } },
          on: IDLE_EVENTS,
        },
        refreshingLastDelivery: {
          description: "A test delivery is awaited: the list is read again for its destination's last delivery; the row actions stay available (one abandons this read).",
          invoke: {
            src: "loadWebhooks",
            id: "refreshWebhooks",
            onDone: [
              /** The delivery was tried: "Last delivery" shows the server's value; the open log of that destination is read again. */
              { guard: and(["deliveryTried", "watchedSelected"]), target: "loadingDeliveries", actions: ["assignLoaded", "stopWatch"] },
              { guard: "deliveryTried", target: "idle", actions: ["assignLoaded", "stopWatch"] },
              /** Not yet: another read after a pause. */
              { guard: "hasWatchLeft", target: "idle", actions: ["assignLoaded", "countWatch"] },
              /** Given up (the delivery job may be down): the list shown is the server's. */
              { target: "idle", actions: ["assignLoaded", "stopWatch"] },
            ],
            /** The read failed: the watch ends, the list shown stays. */
            onError: { target: "idle", actions: "stopWatch" },
          },
          on: IDLE_EVENTS,
        },
        editing: {
          description: "The add / edit form is open.",
          on: {
            "form.changed": { actions: "assignDraft" },
            "form.canceled": "idle",
            "form.submitted": [{ guard: "isDraftValid", target: "saving" }, { actions: "showDraftError" }],
          },
        },
        saving: {
          description: "The form is being saved; it cannot be edited meanwhile.",
          invoke: {
            src: "saveWebhook",
            id: "saveWebhook",
            input: ({ context }) => context.draft,
            /** Saved: the list shows it, a creation's secret is shown once, a success toast. */
            onDone: { target: "idle", actions: ["assignSaved", notifyMessage] },
            /** Refused (a private target, a field) or failed: the form stays open with the reason. */
            onError: { target: "editing", actions: ["assignSaveError", notifyError(WebhookMessages.saveFailed)] },
          },
        },
        toggling: {
          description: "A destination is being enabled or disabled.",
          invoke: {
            src: "setEnabled",
            id: "setEnabled",
            input: ({ context }) => ({ id: context.pending!.id, enabled: context.pending!.enabled === true }),
            onDone: { target: "idle", actions: ["assignChanged", notifyMessage] },
            onError: { target: "idle", actions: ["clearPending", notifyError(WebhookMessages.saveFailed)] },
          },
        },
        deleting: {
          description: "A destination is being deleted.",
          invoke: {
            src: "deleteWebhook",
            id: "deleteWebhook",
            input: ({ context }) => context.pending!.id,
            onDone: [
              /** Its log was open: the log closes with it. */
              { guard: "deletedSelected", target: "idle", actions: ["closeLog", "removePending", { type: "notify", params: ({ event }) => ({ kind: "success", message: event.output }) }] },
              { target: "idle", actions: ["removePending", { type: "notify", params: ({ event }) => ({ kind: "success", message: event.output }) }] },
            ],
            onError: { target: "idle", actions: ["clearPending", notifyError(WebhookMessages.deleteFailed)] },
          },
        },
        testing: {
          description: "A test event is being queued to a destination; its log opens next.",
          invoke: {
            src: "testWebhook",
            id: "testWebhook",
            input: ({ context }) => context.pending!.id,
            /** Queued: its log opens, and the destination is watched until the delivery is tried. */
            onDone: { target: "loadingDeliveries", actions: ["startWatch", "selectTested", notifyMessage] },
            onError: { target: "idle", actions: ["clearPending", notifyError(WebhookMessages.testFailed)] },
          },
        },
        loadingDeliveries: {
          description: "The open destination's newest deliveries are being fetched.",
          invoke: {
            src: "loadDeliveries",
            id: "loadDeliveries",
            input: ({ context }) => context.selected!,
            onDone: { target: "idle", actions: "assignDeliveries" },
            onError: { target: "idle", actions: "assignDeliveriesError" },
          },
        },
        replaying: {
          description: "A delivery is being queued again; the log reloads next.",
          invoke: {
            src: "replayDelivery",
            id: "replayDelivery",
            input: ({ context }) => ({ webhookId: context.selected!, deliveryId: context.replaying! }),
            onDone: { target: "loadingDeliveries", actions: ["clearReplaying", notifyMessage] },
            onError: { target: "idle", actions: ["clearReplaying", notifyError(WebhookMessages.replayFailed)] },
          },
        },
      },
    },
  },
})
