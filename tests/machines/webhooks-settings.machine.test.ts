/**
 * The Webhooks settings page's machine (issue 33): every (state, event) edge is driven (model-based, xstate/graph),
 * then the flows step by step — create with the secret shown once, the form's errors in the contract's words, a
 * refused private target keeping the form open, enable/disable, delete closing an open log, test opening the log,
 * replay reloading it, and a non-admin's 403.
 */
import { describe, expect, it } from "vitest"
import { createActor, SimulatedClock } from "xstate"
import { type Webhook, type WebhookDelivery, WebhookMessages } from "../../src/contracts/webhooks.ts"
import type { DeliveryQueued, WebhookChanged, WebhookDraft, WebhookSaved } from "../../src/machines/webhooks-effects.ts"
import { draftError, EMPTY_DRAFT, WATCH_DELIVERY_MS, WATCH_DELIVERY_TRIES, webhooksSettingsMachine } from "../../src/machines/webhooks-settings.machine.ts"
import { coverTransitions, formatCoverage } from "../support/graph.ts"
import { controlled, httpFailure, never } from "./auth-fakes.ts"
import { environment } from "./scan-fakes.ts"

const hook = (id: number, over: Partial<Webhook> = {}): Webhook => ({
  id: id as Webhook["id"], kind: "webhook", name: `Hook ${id}`, url_hint: "https://hooks.example.com/…/in", events: ["scan.completed"],
  min_severity: "high", enabled: true, disabled_reason: null, disabled_at: null, consecutive_failures: 0, disable_after: 15,
  last_delivery_at: null, created_at: "2026-11-27T10:00:00.000Z", updated_at: "2026-11-27T10:00:00.000Z", ...over,
})

const delivery = (id: number, webhookId: number, over: Partial<WebhookDelivery> = {}): WebhookDelivery => ({
  id: id as WebhookDelivery["id"], webhook_id: webhookId as WebhookDelivery["webhook_id"], event_id: `evt-${id}`, event_type: "scan.completed",
  status: "delivered", attempts: 1, last_status_code: 200, last_error: null, next_attempt_at: null, delivered_at: "2026-11-27T10:01:00.000Z",
  replay_of: null, created_at: "2026-11-27T10:00:00.000Z", body: "{}", ...over,
})

const privateRefusal = httpFailure("generic", 400, {
  _tag: "ValidationError",
  message: "http://10.0.0.5/in is a private network address (10.0.0.0/8): requests to loopback, private, link-local and other non-public addresses are refused (an operator can allow them with INTEGRATIONS_ALLOW_PRIVATE_TARGETS=1)",
})

describe("webhooks-settings machine", () => {
  it("drives every (state, event) edge", async () => {
    const provided = webhooksSettingsMachine.provide({
      actors: {
        loadWebhooks: never(), saveWebhook: never(), setEnabled: never(), deleteWebhook: never(), testWebhook: never(),
        loadDeliveries: never(), replayDelivery: never(),
      },
    })
    const events = [
      { type: "xstate.done.actor.loadWebhooks", output: [hook(1), hook(2)] },
      { type: "xstate.error.actor.loadWebhooks", error: httpFailure("generic", 403, { message: "Forbidden" }) },
      { type: "webhooks.retryRequested" },
      { type: "form.createOpened" },
      { type: "form.editOpened", id: 1 },
      { type: "form.changed", patch: { name: "SIEM", url: "https://siem.example.com/in" } },
      { type: "form.changed", patch: { name: "" } },
      { type: "form.submitted" },
      { type: "form.canceled" },
      { type: "secret.dismissed" },
      { type: "xstate.done.actor.saveWebhook", output: { message: WebhookMessages.created, webhook: hook(3), secret: "whsec_x" } },
      { type: "xstate.error.actor.saveWebhook", error: privateRefusal },
      { type: "webhook.enabledToggled", id: 1, enabled: false },
      { type: "xstate.done.actor.setEnabled", output: { message: WebhookMessages.updated, webhook: hook(1, { enabled: false }) } },
      { type: "xstate.error.actor.setEnabled", error: httpFailure("generic", 500) },
      { type: "webhook.deleteRequested", id: 1 },
      { type: "xstate.done.actor.deleteWebhook", output: WebhookMessages.deleted },
      { type: "xstate.error.actor.deleteWebhook", error: httpFailure("generic", 500) },
      { type: "webhook.testRequested", id: 2 },
      { type: "xstate.done.actor.testWebhook", output: { message: WebhookMessages.testQueued, delivery: delivery(9, 2, { status: "pending" }) } },
      { type: "xstate.error.actor.testWebhook", error: httpFailure("generic", 409, { message: WebhookMessages.testDisabled }) },
      { type: "deliveries.opened", id: 1 },
      { type: "deliveries.refreshRequested" },
      { type: "deliveries.closed" },
      { type: "xstate.done.actor.loadDeliveries", output: [delivery(5, 1)] },
      { type: "xstate.error.actor.loadDeliveries", error: httpFailure("generic", 500) },
      { type: "delivery.replayRequested", deliveryId: 5 },
      { type: "xstate.done.actor.replayDelivery", output: { message: WebhookMessages.replayQueued, delivery: delivery(6, 1, { replay_of: 5 as WebhookDelivery["id"] }) } },
      { type: "xstate.error.actor.replayDelivery", error: httpFailure("generic", 409, { message: WebhookMessages.replayDisabled }) },
      { type: "xstate.after.watchDelivery.webhooksSettings.ready.idle" },
      { type: "xstate.done.actor.refreshWebhooks", output: [hook(1), hook(2)] },
      { type: "xstate.done.actor.refreshWebhooks", output: [hook(1), hook(2, { last_delivery_at: "2026-11-27T10:05:00.000Z" })] },
      { type: "xstate.error.actor.refreshWebhooks", error: httpFailure("generic", 500) },
    ]
    const coverage = await coverTransitions(provided, {
      createActor: (clock) => createActor(provided, { clock }),
      events,
      serializeState: (s) =>
        JSON.stringify([
          s.value,
          s.context.webhooks.map((w) => w.id),
          s.context.selected,
          s.context.pending?.id ?? null,
          draftError(s.context.draft) === null,
          s.context.watch === null ? null : [s.context.watch.id, s.context.watch.left > 1],
        ]),
    })
    console.info(formatCoverage("webhooksSettings", coverage))
    expect(coverage.missing).toEqual([])
    expect(coverage.driven).toBe(coverage.total)
  })

  const start = () => {
    const fx = {
      loadWebhooks: controlled<void, ReadonlyArray<Webhook>>(),
      saveWebhook: controlled<WebhookDraft, WebhookSaved>(),
      setEnabled: controlled<{ id: number; enabled: boolean }, WebhookChanged>(),
      deleteWebhook: controlled<number, string>(),
      testWebhook: controlled<number, DeliveryQueued>(),
      loadDeliveries: controlled<number, ReadonlyArray<WebhookDelivery>>(),
      replayDelivery: controlled<{ webhookId: number; deliveryId: number }, DeliveryQueued>(),
    }
    const env = environment()
    const actor = createActor(webhooksSettingsMachine.provide({
      actors: Object.fromEntries(Object.entries(fx).map(([k, v]) => [k, v.logic])) as never,
      actions: { notify: env.notify },
    })).start()
    return { actor, fx, env }
  }

  it("creates a webhook: the form's errors in the contract's words, a refused private target, then the secret shown once", async () => {
    const { actor, fx, env } = start()
    try {
      await fx.loadWebhooks.resolve([])
      actor.send({ type: "form.createOpened" })
      expect(actor.getSnapshot().context.draft).toEqual(EMPTY_DRAFT)
      actor.send({ type: "form.submitted" })
      expect(actor.getSnapshot().context.formError).toBe(WebhookMessages.nameInvalid)
      actor.send({ type: "form.changed", patch: { name: "Alerts", kind: "slack", url: "http://hooks.slack.com/services/x" } })
      expect(actor.getSnapshot().context.formError).toBeNull()
      actor.send({ type: "form.submitted" })
      expect(actor.getSnapshot().context.formError).toBe(WebhookMessages.slackUrlInvalid)
      actor.send({ type: "form.changed", patch: { kind: "webhook", url: "http://10.0.0.5/in", events: [] } })
      actor.send({ type: "form.submitted" })
      expect(actor.getSnapshot().context.formError).toBe(WebhookMessages.eventsRequired)
      actor.send({ type: "form.changed", patch: { events: ["scan.completed"] } })
      actor.send({ type: "form.submitted" })
      expect(actor.getSnapshot().matches({ ready: "saving" })).toBe(true)
      await fx.saveWebhook.reject(privateRefusal)
      expect(actor.getSnapshot().matches({ ready: "editing" })).toBe(true)
      expect(actor.getSnapshot().context.formError).toContain("is a private network address (10.0.0.0/8)")
      actor.send({ type: "form.changed", patch: { url: "https://siem.example.com/in" } })
      actor.send({ type: "form.submitted" })
      expect(fx.saveWebhook.calls.at(-1)).toEqual({ id: null, kind: "webhook", name: "Alerts", url: "https://siem.example.com/in", events: ["scan.completed"], min_severity: "high" })
      await fx.saveWebhook.resolve({ message: WebhookMessages.created, webhook: hook(7, { name: "Alerts" }), secret: "whsec_abc" })
      expect(actor.getSnapshot().matches({ ready: "idle" })).toBe(true)
      expect(actor.getSnapshot().context.webhooks.map((w) => w.id)).toEqual([7])
      expect(actor.getSnapshot().context.secret).toEqual({ name: "Alerts", value: "whsec_abc" })
      actor.send({ type: "secret.dismissed" })
      expect(actor.getSnapshot().context.secret).toBeNull()
      expect(env.toasts).toEqual([{ kind: "error", message: privateRefusal.message }, { kind: "success", message: WebhookMessages.created }])
    } finally {
      actor.stop()
    }
  })

  it("edits keep the stored URL when left empty; toggles, tests (opening the log), replays and deletes", async () => {
    const { actor, fx, env } = start()
    try {
      await fx.loadWebhooks.resolve([hook(1), hook(2, { enabled: false, disabled_reason: "Disabled automatically after 15 deliveries in a row failed" })])
      actor.send({ type: "form.editOpened", id: 1 })
      expect(actor.getSnapshot().context.draft).toMatchObject({ id: 1, url: "", name: "Hook 1" })
      actor.send({ type: "form.changed", patch: { min_severity: "critical" } })
      actor.send({ type: "form.submitted" })
      expect(fx.saveWebhook.calls.at(-1)).toMatchObject({ id: 1, url: "", min_severity: "critical" })
      await fx.saveWebhook.resolve({ message: WebhookMessages.updated, webhook: hook(1, { min_severity: "critical" }), secret: null })
      expect(actor.getSnapshot().context.secret).toBeNull()

      actor.send({ type: "webhook.enabledToggled", id: 2, enabled: true })
      expect(fx.setEnabled.calls).toEqual([{ id: 2, enabled: true }])
      await fx.setEnabled.resolve({ message: WebhookMessages.updated, webhook: hook(2) })
      expect(actor.getSnapshot().context.webhooks.find((w) => w.id === 2)!.enabled).toBe(true)

      actor.send({ type: "webhook.testRequested", id: 2 })
      await fx.testWebhook.resolve({ message: WebhookMessages.testQueued, delivery: delivery(9, 2, { status: "pending" }) })
      expect(actor.getSnapshot().matches({ ready: "loadingDeliveries" })).toBe(true)
      expect(fx.loadDeliveries.calls).toEqual([2])
      await fx.loadDeliveries.resolve([delivery(9, 2)])
      expect(actor.getSnapshot().context.selected).toBe(2)

      actor.send({ type: "delivery.replayRequested", deliveryId: 9 })
      expect(fx.replayDelivery.calls).toEqual([{ webhookId: 2, deliveryId: 9 }])
      await fx.replayDelivery.resolve({ message: WebhookMessages.replayQueued, delivery: delivery(10, 2, { replay_of: 9 as WebhookDelivery["id"] }) })
      await fx.loadDeliveries.resolve([delivery(10, 2), delivery(9, 2)])
      expect(actor.getSnapshot().context.deliveries.map((d) => d.id)).toEqual([10, 9])

      actor.send({ type: "webhook.deleteRequested", id: 2 })
      await fx.deleteWebhook.resolve(WebhookMessages.deleted)
      expect(actor.getSnapshot().context).toMatchObject({ selected: null, deliveries: [], pending: null })
      expect(actor.getSnapshot().context.webhooks.map((w) => w.id)).toEqual([1])
      expect(env.toasts.map((t) => t.message)).toEqual([WebhookMessages.updated, WebhookMessages.updated, WebhookMessages.testQueued, WebhookMessages.replayQueued, WebhookMessages.deleted])
    } finally {
      actor.stop()
    }
  })

  it("after 'Send test' the destination's Last delivery is read again from the server once the test delivery was tried", async () => {
    const clock = new SimulatedClock()
    const fx = {
      loadWebhooks: controlled<void, ReadonlyArray<Webhook>>(),
      testWebhook: controlled<number, DeliveryQueued>(),
      loadDeliveries: controlled<number, ReadonlyArray<WebhookDelivery>>(),
    }
    const actor = createActor(
      webhooksSettingsMachine.provide({
        actors: { loadWebhooks: fx.loadWebhooks.logic, testWebhook: fx.testWebhook.logic, loadDeliveries: fx.loadDeliveries.logic },
      }),
      { clock },
    ).start()
    try {
      const before = "2026-11-27T09:00:00.000Z"
      const after = "2026-11-27T10:05:00.000Z"
      await fx.loadWebhooks.resolve([hook(1), hook(2, { last_delivery_at: before })])
      actor.send({ type: "webhook.testRequested", id: 2 })
      await fx.testWebhook.resolve({ message: WebhookMessages.testQueued, delivery: delivery(9, 2, { status: "pending", attempts: 0 }) })
      await fx.loadDeliveries.resolve([delivery(9, 2, { status: "pending", attempts: 0 })])
      expect(actor.getSnapshot().context.watch).toEqual({ id: 2, before, left: WATCH_DELIVERY_TRIES })
      // Not tried yet: the list is read again after a pause, while the row actions stay available.
      clock.increment(WATCH_DELIVERY_MS)
      expect(fx.loadWebhooks.calls).toHaveLength(2)
      expect(actor.getSnapshot().can({ type: "deliveries.closed" })).toBe(true)
      await fx.loadWebhooks.resolve([hook(1), hook(2, { last_delivery_at: before })])
      expect(actor.getSnapshot().context.watch?.left).toBe(WATCH_DELIVERY_TRIES - 1)
      clock.increment(WATCH_DELIVERY_MS)
      // Tried: "Last delivery" is the server's, the watch stops and the open log is read again.
      await fx.loadWebhooks.resolve([hook(1), hook(2, { last_delivery_at: after })])
      expect(actor.getSnapshot().context.webhooks.find((w) => w.id === 2)!.last_delivery_at).toBe(after)
      expect(actor.getSnapshot().context.watch).toBeNull()
      expect(fx.loadDeliveries.calls).toEqual([2, 2])
      await fx.loadDeliveries.resolve([delivery(9, 2)])
      clock.increment(WATCH_DELIVERY_MS * 3)
      expect(fx.loadWebhooks.calls).toHaveLength(3)

      // A delivery never tried (the job is down): the watch gives up after its reads.
      actor.send({ type: "deliveries.closed" })
      actor.send({ type: "webhook.testRequested", id: 1 })
      await fx.testWebhook.resolve({ message: WebhookMessages.testQueued, delivery: delivery(10, 1, { status: "pending", attempts: 0 }) })
      await fx.loadDeliveries.resolve([])
      for (let i = 0; i < WATCH_DELIVERY_TRIES; i++) {
        clock.increment(WATCH_DELIVERY_MS)
        await fx.loadWebhooks.resolve([hook(1), hook(2, { last_delivery_at: after })])
      }
      expect(actor.getSnapshot().context.watch).toBeNull()
      clock.increment(WATCH_DELIVERY_MS * 3)
      expect(fx.loadWebhooks.calls).toHaveLength(3 + WATCH_DELIVERY_TRIES)
      expect(actor.getSnapshot().matches({ ready: "idle" })).toBe(true)
    } finally {
      actor.stop()
    }
  })

  it("a non-admin's 403 names the admin rule; retry loads again", async () => {
    const { actor, fx } = start()
    try {
      await fx.loadWebhooks.reject(httpFailure("generic", 403, { message: "Forbidden" }))
      expect(actor.getSnapshot().value).toBe("failed")
      expect(actor.getSnapshot().context.loadError).toBe(WebhookMessages.permissionDenied)
      actor.send({ type: "webhooks.retryRequested" })
      await fx.loadWebhooks.resolve([hook(1)])
      expect(actor.getSnapshot().matches({ ready: "idle" })).toBe(true)
    } finally {
      actor.stop()
    }
  })
})
