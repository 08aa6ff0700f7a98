// @vitest-environment happy-dom
/**
 * The Webhooks settings page (issue 33) rendered with fake effects inside the app's root (toasts, router): the
 * destinations with an automatic disabling's reason, adding one (the server's refusal of a private target shown in the
 * form, then the secret shown once until dismissed), and a destination's delivery log with replay.
 */
import { act, cleanup, fireEvent, render, screen, within } from "@testing-library/react"
import { afterEach, describe, expect, it } from "vitest"
import { Route, Switch } from "wouter"
import { memoryLocation } from "wouter/memory-location"
import { SimulatedClock } from "xstate"
import { type Webhook, type WebhookDelivery, WebhookMessages } from "../../src/contracts/webhooks.ts"
import type { WebhookDraft, WebhooksEffects } from "../../src/machines/webhooks-effects.ts"
import { App } from "../../src/views/app.tsx"
import { preloadScreens } from "../../src/views/routes.tsx"
import { SessionStatusContext } from "../../src/views/session-status.tsx"
import { WebhooksEffectsProvider } from "../../src/views/settings/webhooks-effects-context.tsx"
import { WebhooksView } from "../../src/views/settings/webhooks.view.tsx"
import { flush, httpFailure } from "../machines/auth-fakes.ts"

await preloadScreens()
afterEach(cleanup)

const settle = async (): Promise<void> => {
  for (let i = 0; i < 3; i += 1) await act(async () => flush())
}

const hook = (id: number, over: Partial<Webhook> = {}): Webhook => ({
  id: id as Webhook["id"], kind: "webhook", name: `Hook ${id}`, url_hint: "https://siem.example.com/…/in", events: ["scan.completed"],
  min_severity: "high", enabled: true, disabled_reason: null, disabled_at: null, consecutive_failures: 0, disable_after: 15,
  last_delivery_at: null, created_at: "2026-11-27T10:00:00.000Z", updated_at: "2026-11-27T10:00:00.000Z", ...over,
})

const delivery = (id: number, over: Partial<WebhookDelivery> = {}): WebhookDelivery => ({
  id: id as WebhookDelivery["id"], webhook_id: 1 as WebhookDelivery["webhook_id"], event_id: `evt-${id}`, event_type: "scan.completed",
  status: "failed", attempts: 12, last_status_code: 503, last_error: "https://siem.example.com/in answered 503: down",
  next_attempt_at: null, delivered_at: null, replay_of: null, created_at: "2026-11-27T10:00:00.000Z", body: "{}", ...over,
})

const renderPage = async (effects: Partial<WebhooksEffects>) => {
  const clock = new SimulatedClock()
  clock.set(Date.parse("2026-11-27T12:00:00.000Z"))
  const full: WebhooksEffects = {
    loadWebhooks: async () => [],
    saveWebhook: async () => Promise.reject(new Error("unused")),
    setEnabled: async () => Promise.reject(new Error("unused")),
    deleteWebhook: async () => Promise.reject(new Error("unused")),
    testWebhook: async () => Promise.reject(new Error("unused")),
    loadDeliveries: async () => [],
    replayDelivery: async () => Promise.reject(new Error("unused")),
    ...effects,
  }
  render(
    <SessionStatusContext value="authenticated">
      <WebhooksEffectsProvider effects={full}>
        <App clock={clock} location={memoryLocation({ path: "/dashboard/settings/webhooks" })}>
          <Switch>
            <Route path="/dashboard/settings/webhooks">
              <WebhooksView />
            </Route>
          </Switch>
        </App>
      </WebhooksEffectsProvider>
    </SessionStatusContext>,
  )
  await settle()
}

describe("Webhooks settings page", () => {
  it("lists destinations with an automatic disabling's reason", async () => {
    await renderPage({
      loadWebhooks: async () => [hook(1, { enabled: false, consecutive_failures: 15, disabled_reason: "Disabled automatically after 15 deliveries in a row failed" })],
    })
    const card = screen.getByRole("listitem", { name: "Hook 1" })
    expect(within(card).getByText("Disabled")).toBeTruthy()
    expect(within(card).getByText("Disabled automatically after 15 deliveries in a row failed")).toBeTruthy()
    expect(within(card).getByText("15 of 15")).toBeTruthy()
    expect(within(card).getByRole("button", { name: "Enable" })).toBeTruthy()
  })

  it("adds a webhook: a refused private target is shown in the form, then the secret once", async () => {
    const sent: Array<WebhookDraft> = []
    const refusal = httpFailure("generic", 400, { _tag: "ValidationError", message: "http://10.0.0.5/in is a private network address (10.0.0.0/8): refused" })
    await renderPage({
      saveWebhook: async (draft) => {
        sent.push(draft)
        if (sent.length === 1) throw refusal
        return { message: WebhookMessages.created, webhook: hook(5, { name: draft.name }), secret: "whsec_shown_once" }
      },
    })
    fireEvent.click(screen.getByRole("button", { name: "Add destination" }))
    await settle()
    fireEvent.change(screen.getByRole("textbox", { name: "Name" }), { target: { value: "SIEM" } })
    fireEvent.change(screen.getByRole("textbox", { name: /^URL/ }), { target: { value: "http://10.0.0.5/in" } })
    await settle()
    await act(async () => {
      fireEvent.submit(screen.getByRole("form", { name: "Destination" }))
    })
    await settle()
    expect(screen.getAllByText("http://10.0.0.5/in is a private network address (10.0.0.0/8): refused").length).toBeGreaterThan(0)
    fireEvent.change(screen.getByRole("textbox", { name: /^URL/ }), { target: { value: "https://siem.example.com/in" } })
    await act(async () => {
      fireEvent.submit(screen.getByRole("form", { name: "Destination" }))
    })
    await settle()
    expect(sent.at(-1)).toMatchObject({ id: null, name: "SIEM", url: "https://siem.example.com/in", events: ["scan.completed", "findings.new_failing"] })
    const secret = screen.getByRole("region", { name: "Signing secret" })
    expect(within(secret).getByText("whsec_shown_once")).toBeTruthy()
    expect(within(secret).getByText(WebhookMessages.secretOnce)).toBeTruthy()
    fireEvent.click(within(secret).getByRole("button", { name: "I have copied it" }))
    await settle()
    expect(screen.queryByText("whsec_shown_once")).toBeNull()
    expect(screen.getByRole("listitem", { name: "SIEM" })).toBeTruthy()
  })

  it("opens a destination's deliveries and replays one", async () => {
    const replayed: Array<{ webhookId: number; deliveryId: number }> = []
    let loads = 0
    await renderPage({
      loadWebhooks: async () => [hook(1)],
      loadDeliveries: async () => (loads++ === 0 ? [delivery(3)] : [delivery(4, { status: "delivered", attempts: 1, last_status_code: 200, last_error: null, replay_of: 3 as WebhookDelivery["id"] }), delivery(3)]),
      replayDelivery: async (input) => {
        replayed.push(input)
        return { message: WebhookMessages.replayQueued, delivery: delivery(4, { status: "pending", attempts: 0 }) }
      },
    })
    fireEvent.click(within(screen.getByRole("listitem", { name: "Hook 1" })).getByRole("button", { name: "Deliveries" }))
    await settle()
    const failed = screen.getByRole("listitem", { name: "Delivery 3" })
    expect(within(failed).getByText("https://siem.example.com/in answered 503: down")).toBeTruthy()
    fireEvent.click(within(failed).getByRole("button", { name: "Replay" }))
    await settle()
    expect(replayed).toEqual([{ webhookId: 1, deliveryId: 3 }])
    expect(within(screen.getByRole("listitem", { name: "Delivery 4" })).getByText("Delivery 3")).toBeTruthy()
  })
})
