/**
 * /dashboard/settings/webhooks (issue 33, beyond the spec; docs/integrations.md), rendered from
 * `webhooksSettingsMachine`; lazy-loaded as its own chunk, for workspace admins only (the permission gate sends anyone
 * else away; the user menu offers the page to admins only).
 *
 * - 'Destinations': one card per webhook or Slack channel (kind, URL hint, events, minimum severity, state — with the
 *   reason when it was disabled automatically —, last delivery) with Edit, Enable/Disable, Send test, Deliveries, Delete.
 * - The add / edit form: kind, name, URL (never shown back; empty on edit keeps it), events, minimum severity.
 * - The signing secret of a webhook just created, shown once with "I have copied it".
 * - 'Deliveries' of the open destination: status, attempts, last status code or error, next attempt, with Replay.
 */
import { useMemo } from "react"
import { useActorRef, useSelector } from "@xstate/react"
import type { ActorRefFrom } from "xstate"
import { SEVERITIES, type Severity } from "../../contracts/findings.ts"
import { INTEGRATION_EVENT_LABELS, INTEGRATION_EVENT_TYPES } from "../../contracts/integrations-events.ts"
import { type Webhook, type WebhookDelivery, WebhookMessages, type WebhookKind } from "../../contracts/webhooks.ts"
import type { WebhookDraft } from "../../machines/webhooks-effects.ts"
import { webhooksSettingsMachine } from "../../machines/webhooks-settings.machine.ts"
import { AlertBox } from "../ui/alert-box.tsx"
import { Badge } from "../ui/badge.tsx"
import { Button } from "../ui/button.tsx"
import { Card } from "../ui/card.tsx"
import { Checkbox } from "../ui/checkbox.tsx"
import { Form } from "../ui/form.tsx"
import { Select, SelectItem } from "../ui/select.tsx"
import { TextField } from "../ui/text-field.tsx"
import { effectActor, useNotifyAction } from "../screen-actors.ts"
import { ErrorBox, Fact, formatDateTime, LoadingBox } from "../scanning/scan-parts.tsx"
import * as scanCss from "../scanning/scanning.css.ts"
import * as css from "../storage/storage.css.ts"
import * as pageCss from "./webhooks.css.ts"
import { useWebhooksEffects } from "./webhooks-effects-context.tsx"

type WebhooksRef = ActorRefFrom<typeof webhooksSettingsMachine>

function useWebhooksLogic() {
  const effects = useWebhooksEffects()
  const notify = useNotifyAction()
  return useMemo(
    () =>
      webhooksSettingsMachine.provide({
        actors: {
          loadWebhooks: effectActor(effects.loadWebhooks),
          saveWebhook: effectActor(effects.saveWebhook),
          setEnabled: effectActor(effects.setEnabled),
          deleteWebhook: effectActor(effects.deleteWebhook),
          testWebhook: effectActor(effects.testWebhook),
          loadDeliveries: effectActor(effects.loadDeliveries),
          replayDelivery: effectActor(effects.replayDelivery),
        },
        actions: { notify },
      }),
    [effects, notify],
  )
}

const KIND_LABELS: Readonly<Record<WebhookKind, string>> = { webhook: "Webhook (signed JSON)", slack: "Slack incoming webhook" }
const KIND_CHOICES = (["webhook", "slack"] as const).map((id) => ({ id, name: KIND_LABELS[id] }))
const SEVERITY_CHOICES = SEVERITIES.map((id) => ({ id, name: `${id[0]!.toUpperCase()}${id.slice(1)} and above` }))
const eventsText = (w: Webhook) => w.events.map((e) => INTEGRATION_EVENT_LABELS[e]).join(", ")

function SecretNotice({ webhooksRef }: { readonly webhooksRef: WebhooksRef }) {
  const secret = useSelector(webhooksRef, (s) => s.context.secret)
  if (secret === null) return null
  return (
    <Card title={`Signing secret of ${secret.name}`} aria-label="Signing secret">
      <AlertBox tone="warning">{WebhookMessages.secretOnce}</AlertBox>
      <p className={scanCss.mono} aria-label="Signing secret value">
        <span className={scanCss.identifier}>{secret.value}</span>
      </p>
      <p className={css.note}>
        Each delivery carries X-Cloud-Audit-Signature: t=&lt;unix seconds&gt;,v1=&lt;HMAC-SHA256 of "t.body" with this secret&gt;.
      </p>
      <div className={css.actions}>
        <Button onPress={() => webhooksRef.send({ type: "secret.dismissed" })}>I have copied it</Button>
      </div>
    </Card>
  )
}

function WebhookForm({ webhooksRef }: { readonly webhooksRef: WebhooksRef }) {
  const draft = useSelector(webhooksRef, (s) => s.context.draft)
  const error = useSelector(webhooksRef, (s) => s.context.formError)
  const saving = useSelector(webhooksRef, (s) => s.matches({ ready: "saving" }))
  const editing = draft.id !== null
  const change = (patch: Partial<Omit<WebhookDraft, "id">>) => webhooksRef.send({ type: "form.changed", patch })
  return (
    <Card title={editing ? `Edit ${draft.name}` : "Add a destination"} aria-label={editing ? "Edit destination" : "Add a destination"}>
      <Form
        validationBehavior="aria"
        aria-label="Destination"
        className={css.form}
        onSubmit={(e) => {
          e.preventDefault()
          webhooksRef.send({ type: "form.submitted" })
        }}
      >
        <div className={css.fields}>
          <Select
            label="Kind"
            items={KIND_CHOICES}
            value={draft.kind}
            isDisabled={saving || editing}
            onChange={(key) => {
              if (key !== null) change({ kind: key as WebhookKind })
            }}
          >
            {(choice) => <SelectItem id={choice.id}>{choice.name}</SelectItem>}
          </Select>
          <TextField label="Name" value={draft.name} isDisabled={saving} autoComplete="off" onChange={(name) => change({ name })} />
          <TextField
            label="URL"
            type="url"
            value={draft.url}
            isDisabled={saving}
            autoComplete="off"
            description={editing
              ? "Stored encrypted and never shown; leave empty to keep the saved one."
              : draft.kind === "slack"
                ? "The incoming webhook URL Slack gave you (https://hooks.slack.com/services/…)."
                : "Where events are POSTed. Private, loopback and link-local addresses are refused."}
            onChange={(url) => change({ url })}
          />
          <Select
            label="New failing resources"
            items={SEVERITY_CHOICES}
            value={draft.min_severity}
            isDisabled={saving}
            onChange={(key) => {
              if (key !== null) change({ min_severity: key as Severity })
            }}
          >
            {(choice) => <SelectItem id={choice.id}>{choice.name}</SelectItem>}
          </Select>
        </div>
        <fieldset className={pageCss.events} aria-label="Events">
          <legend className={css.subheading}>Events</legend>
          {INTEGRATION_EVENT_TYPES.map((type) => (
            <Checkbox
              key={type}
              isSelected={draft.events.includes(type)}
              isDisabled={saving}
              onChange={(on) => change({ events: on ? [...draft.events, type] : draft.events.filter((e) => e !== type) })}
            >
              {INTEGRATION_EVENT_LABELS[type]}
            </Checkbox>
          ))}
        </fieldset>
        {error === null ? null : <AlertBox tone="error">{error}</AlertBox>}
        <div className={css.actions}>
          <Button variant="secondary" isDisabled={saving} onPress={() => webhooksRef.send({ type: "form.canceled" })}>
            Cancel
          </Button>
          <Button type="submit" isPending={saving}>
            {editing ? "Save destination" : "Add destination"}
          </Button>
        </div>
      </Form>
    </Card>
  )
}

function WebhookCard({ webhooksRef, webhook }: { readonly webhooksRef: WebhooksRef; readonly webhook: Webhook }) {
  const idle = useSelector(webhooksRef, (s) => s.matches({ ready: "idle" }) || s.matches({ ready: "refreshingLastDelivery" }))
  const busy = useSelector(webhooksRef, (s) => s.context.pending?.id === webhook.id)
  const open = useSelector(webhooksRef, (s) => s.context.selected === webhook.id)
  return (
    <li className={scanCss.itemCard} aria-label={webhook.name}>
      <div className={scanCss.itemCardHeader}>
        <h3 className={css.subheading}>{webhook.name}</h3>
        <Badge tone={webhook.enabled ? "success" : "danger"}>{webhook.enabled ? "Enabled" : "Disabled"}</Badge>
      </div>
      <dl className={scanCss.facts}>
        <Fact label="Kind">{KIND_LABELS[webhook.kind]}</Fact>
        <Fact label="URL"><span className={scanCss.identifier}>{webhook.url_hint}</span></Fact>
        <Fact label="Events">{eventsText(webhook)}</Fact>
        <Fact label="New failing resources">{`${webhook.min_severity} and above`}</Fact>
        <Fact label="Last delivery">{webhook.last_delivery_at === null ? "Never" : formatDateTime(webhook.last_delivery_at)}</Fact>
        <Fact label="Failed deliveries in a row">{`${webhook.consecutive_failures} of ${webhook.disable_after}`}</Fact>
      </dl>
      {webhook.disabled_reason === null ? null : <AlertBox tone="error">{webhook.disabled_reason}</AlertBox>}
      <div className={css.actions}>
        <Button variant="secondary" size="sm" isDisabled={!idle} onPress={() => webhooksRef.send({ type: "form.editOpened", id: webhook.id })}>
          Edit
        </Button>
        <Button variant="secondary" size="sm" isDisabled={!idle} isPending={busy}
          onPress={() => webhooksRef.send({ type: "webhook.enabledToggled", id: webhook.id, enabled: !webhook.enabled })}>
          {webhook.enabled ? "Disable" : "Enable"}
        </Button>
        <Button variant="secondary" size="sm" isDisabled={!idle || !webhook.enabled} onPress={() => webhooksRef.send({ type: "webhook.testRequested", id: webhook.id })}>
          Send test
        </Button>
        <Button variant="secondary" size="sm" isDisabled={!idle} onPress={() => webhooksRef.send(open ? { type: "deliveries.closed" } : { type: "deliveries.opened", id: webhook.id })}>
          {open ? "Hide deliveries" : "Deliveries"}
        </Button>
        <Button variant="secondary" size="sm" isDisabled={!idle} onPress={() => webhooksRef.send({ type: "webhook.deleteRequested", id: webhook.id })}>
          Delete
        </Button>
      </div>
    </li>
  )
}

const STATUS_TONE = { pending: "warning", delivered: "success", failed: "danger" } as const

function DeliveryItem({ webhooksRef, delivery }: { readonly webhooksRef: WebhooksRef; readonly delivery: WebhookDelivery }) {
  const idle = useSelector(webhooksRef, (s) => s.matches({ ready: "idle" }) || s.matches({ ready: "refreshingLastDelivery" }))
  const replaying = useSelector(webhooksRef, (s) => s.context.replaying === delivery.id)
  return (
    <li className={scanCss.itemCard} aria-label={`Delivery ${delivery.id}`}>
      <div className={scanCss.itemCardHeader}>
        <span className={scanCss.mono}>{delivery.event_type}</span>
        <Badge tone={STATUS_TONE[delivery.status]}>{delivery.status}</Badge>
      </div>
      <dl className={scanCss.facts}>
        <Fact label="Created">{formatDateTime(delivery.created_at)}</Fact>
        <Fact label="Attempts">{String(delivery.attempts)}</Fact>
        <Fact label="Last answer">{delivery.last_status_code === null ? "—" : String(delivery.last_status_code)}</Fact>
        <Fact label={delivery.status === "delivered" ? "Delivered" : "Next attempt"}>
          {delivery.status === "delivered"
            ? formatDateTime(delivery.delivered_at ?? delivery.created_at)
            : delivery.next_attempt_at === null ? "—" : formatDateTime(delivery.next_attempt_at)}
        </Fact>
        {delivery.replay_of === null ? null : <Fact label="Replay of">{`Delivery ${delivery.replay_of}`}</Fact>}
      </dl>
      {delivery.last_error === null ? null : <p className={css.note}><span className={scanCss.identifier}>{delivery.last_error}</span></p>}
      <div className={css.actions}>
        <Button variant="secondary" size="sm" isDisabled={!idle} isPending={replaying}
          onPress={() => webhooksRef.send({ type: "delivery.replayRequested", deliveryId: delivery.id })}>
          Replay
        </Button>
      </div>
    </li>
  )
}

function DeliveryLog({ webhooksRef }: { readonly webhooksRef: WebhooksRef }) {
  const selected = useSelector(webhooksRef, (s) => s.context.webhooks.find((w) => w.id === s.context.selected))
  const deliveries = useSelector(webhooksRef, (s) => s.context.deliveries)
  const error = useSelector(webhooksRef, (s) => s.context.deliveriesError)
  const loading = useSelector(webhooksRef, (s) => s.matches({ ready: "loadingDeliveries" }))
  const idle = useSelector(webhooksRef, (s) => s.matches({ ready: "idle" }) || s.matches({ ready: "refreshingLastDelivery" }))
  if (selected === undefined) return null
  return (
    <Card title={`Deliveries of ${selected.name}`} aria-label="Deliveries" description="The newest 50, with what the destination answered. Replay sends the same body again.">
      <div className={css.actions}>
        <Button variant="secondary" size="sm" isDisabled={!idle} isPending={loading} onPress={() => webhooksRef.send({ type: "deliveries.refreshRequested" })}>
          Refresh
        </Button>
      </div>
      {error === null ? null : <AlertBox tone="error">{error}</AlertBox>}
      {deliveries.length === 0 && !loading ? <p className={css.note}>No delivery yet.</p> : null}
      <ul className={scanCss.cardList} aria-label={`Deliveries of ${selected.name}`}>
        {deliveries.map((d) => <DeliveryItem key={d.id} webhooksRef={webhooksRef} delivery={d} />)}
      </ul>
    </Card>
  )
}

function WebhooksBody({ webhooksRef }: { readonly webhooksRef: WebhooksRef }) {
  const loading = useSelector(webhooksRef, (s) => s.matches("loading"))
  const failed = useSelector(webhooksRef, (s) => s.matches("failed"))
  const error = useSelector(webhooksRef, (s) => s.context.loadError)
  const editing = useSelector(webhooksRef, (s) => s.matches({ ready: "editing" }) || s.matches({ ready: "saving" }))
  const canCreate = useSelector(webhooksRef, (s) => s.can({ type: "form.createOpened" }))
  const webhooks = useSelector(webhooksRef, (s) => s.context.webhooks)
  if (loading) return <LoadingBox label="Loading webhooks" />
  if (failed) {
    const denied = error === WebhookMessages.permissionDenied
    return (
      <ErrorBox
        title={denied ? WebhookMessages.permissionDenied : WebhookMessages.loadFailed}
        message={denied ? "Ask the workspace owner or an admin." : (error ?? WebhookMessages.loadFailed)}
        {...(denied
          ? {}
          : {
              actions: (
                <Button variant="secondary" size="sm" onPress={() => webhooksRef.send({ type: "webhooks.retryRequested" })}>
                  Try again
                </Button>
              ),
            })}
      />
    )
  }
  return (
    <>
      <SecretNotice webhooksRef={webhooksRef} />
      {editing ? <WebhookForm webhooksRef={webhooksRef} /> : null}
      <Card
        title="Destinations"
        aria-label="Destinations"
        description="Scan results, new failing resources, mute rules, remediations and reports, sent as signed JSON or to a Slack channel. Failed deliveries are retried with backoff; 15 failed deliveries in a row disable a destination."
      >
        <div className={css.actions}>
          <Button isDisabled={!canCreate} onPress={() => webhooksRef.send({ type: "form.createOpened" })}>
            Add destination
          </Button>
        </div>
        {webhooks.length === 0 ? <p className={css.note}>No destination yet.</p> : null}
        <ul className={scanCss.cardList} aria-label="Webhook destinations">
          {webhooks.map((w) => <WebhookCard key={w.id} webhooksRef={webhooksRef} webhook={w} />)}
        </ul>
      </Card>
      <DeliveryLog webhooksRef={webhooksRef} />
    </>
  )
}

export function WebhooksView() {
  const webhooksRef = useActorRef(useWebhooksLogic())
  return (
    <div className={scanCss.page}>
      <div className={scanCss.titles}>
        <h1 className={scanCss.title}>Webhooks</h1>
        <p className={scanCss.subtitle}>Send the workspace's events to your systems and Slack channels.</p>
      </div>
      <WebhooksBody webhooksRef={webhooksRef} />
    </div>
  )
}
