/**
 * /dashboard/settings/api-keys (issue 33, beyond the spec; docs/api-keys.md), rendered from `apiKeysMachine`;
 * lazy-loaded as its own chunk, for any member (their own keys; a workspace admin sees and may revoke every key of the
 * workspace).
 *
 * - 'API keys': one card per key (role, account groups, `ca_live_…` + last four, creator, created, expires, last use
 *   with its address, status) with Revoke on active keys.
 * - 'Create API key' dialog: name, role (only roles the member may give), expiry, optional account groups.
 * - The new key's secret, shown once with a Copy button and "I have copied it".
 * - Revoke asks for a confirmation first.
 */
import { useMemo, useState } from "react"
import { useActorRef, useSelector } from "@xstate/react"
import type { ActorRefFrom } from "xstate"
import { API_KEY_EXPIRY_CHOICES, type ApiKey } from "../../contracts/api-keys.ts"
import type { ApiKeyDraft } from "../../machines/api-keys-effects.ts"
import { apiKeysMachine } from "../../machines/api-keys.machine.ts"
import { AlertBox } from "../ui/alert-box.tsx"
import { Badge } from "../ui/badge.tsx"
import { Button } from "../ui/button.tsx"
import { Card } from "../ui/card.tsx"
import { Checkbox } from "../ui/checkbox.tsx"
import { Dialog, DialogFooter } from "../ui/dialog.tsx"
import { Form } from "../ui/form.tsx"
import { Select, SelectItem } from "../ui/select.tsx"
import { TextField } from "../ui/text-field.tsx"
import { effectActor, useNotifyAction } from "../screen-actors.ts"
import { ErrorBox, Fact, formatDateTime, LoadingBox } from "../scanning/scan-parts.tsx"
import * as scanCss from "../scanning/scanning.css.ts"
import * as css from "../storage/storage.css.ts"
import { useApiKeysEffects } from "./api-keys-effects-context.tsx"

type ApiKeysRef = ActorRefFrom<typeof apiKeysMachine>

function useApiKeysLogic() {
  const effects = useApiKeysEffects()
  const notify = useNotifyAction()
  return useMemo(
    () =>
      apiKeysMachine.provide({
        actors: {
          loadApiKeys: effectActor(effects.loadApiKeys),
          createApiKey: effectActor(effects.createApiKey),
          revokeApiKey: effectActor(effects.revokeApiKey),
        },
        actions: { notify },
      }),
    [effects, notify],
  )
}

const EXPIRY_CHOICES = API_KEY_EXPIRY_CHOICES.map((days) => ({ id: String(days), name: `${days} days` }))
const STATUS_TONE = { active: "success", expired: "warning", revoked: "danger" } as const
const STATUS_LABEL = { active: "Active", expired: "Expired", revoked: "Revoked" } as const

function CopyButton({ text }: { readonly text: string }) {
  const [copied, setCopied] = useState(false)
  return (
    <Button
      variant="secondary"
      size="sm"
      onPress={() => {
        void navigator.clipboard?.writeText(text).then(() => setCopied(true), () => setCopied(false))
      }}
    >
      {copied ? "Copied" : "Copy secret"}
    </Button>
  )
}

function SecretNotice({ keysRef }: { readonly keysRef: ApiKeysRef }) {
  const secret = useSelector(keysRef, (s) => s.context.secret)
  if (secret === null) return null
  return (
    <Card title={`Secret of ${secret.name}`} aria-label="New API key secret">
      <AlertBox tone="warning">Copy this secret now: it will not be shown again. Only its last four characters are kept.</AlertBox>
      <p className={scanCss.mono} aria-label="API key secret">
        <span className={scanCss.identifier}>{secret.value}</span>
      </p>
      <p className={css.note}>Send it as Authorization: Bearer &lt;secret&gt; or X-API-Key: &lt;secret&gt;.</p>
      <div className={css.actions}>
        <CopyButton text={secret.value} />
        <Button onPress={() => keysRef.send({ type: "secret.dismissed" })}>I have copied it</Button>
      </div>
    </Card>
  )
}

function CreateKeyDialog({ keysRef }: { readonly keysRef: ApiKeysRef }) {
  const open = useSelector(keysRef, (s) => s.matches({ ready: "creating" }) || s.matches({ ready: "saving" }))
  const saving = useSelector(keysRef, (s) => s.matches({ ready: "saving" }))
  const draft = useSelector(keysRef, (s) => s.context.draft)
  const error = useSelector(keysRef, (s) => s.context.formError)
  const roles = useSelector(keysRef, (s) => s.context.roles)
  const groups = useSelector(keysRef, (s) => s.context.groups)
  if (!open) return null
  const change = (patch: Partial<ApiKeyDraft>) => keysRef.send({ type: "form.changed", patch })
  const roleItems = roles.map((r) => ({ id: `${r.isCustom ? "custom" : "builtin"}-${r.id}`, name: r.name, role: r }))
  const selectedRole = draft.roleId === null ? null : `${draft.isCustomRole ? "custom" : "builtin"}-${draft.roleId}`
  return (
    <Dialog
      title="Create API key"
      isOpen
      onOpenChange={(isOpen) => {
        if (!isOpen) keysRef.send({ type: "form.canceled" })
      }}
      isDismissable={!saving}
      isKeyboardDismissDisabled={saving}
      showCloseButton={!saving}
    >
      <Form
        validationBehavior="aria"
        aria-label="New API key"
        className={css.form}
        onSubmit={(e) => {
          e.preventDefault()
          keysRef.send({ type: "form.submitted" })
        }}
      >
        <div className={css.fields}>
          <TextField label="Name" value={draft.name} isDisabled={saving} autoComplete="off"
            description="What uses it, e.g. “CI pipeline”." onChange={(name) => change({ name })} />
          <Select
            label="Role"
            items={roleItems}
            value={selectedRole}
            isDisabled={saving}
            description="Only roles whose permissions you hold. The key never has more than you: if you lose a permission, so does the key."
            onChange={(id) => {
              const item = roleItems.find((r) => r.id === id)
              if (item !== undefined) change({ roleId: item.role.id, isCustomRole: item.role.isCustom })
            }}
          >
            {(item) => <SelectItem id={item.id}>{item.name}</SelectItem>}
          </Select>
          <Select
            label="Expires after"
            items={EXPIRY_CHOICES}
            value={String(draft.expiresInDays)}
            isDisabled={saving}
            onChange={(id) => {
              if (id !== null) change({ expiresInDays: Number(id) })
            }}
          >
            {(item) => <SelectItem id={item.id}>{item.name}</SelectItem>}
          </Select>
        </div>
        {groups.length === 0 ? null : (
          <fieldset className={css.section} aria-label="Account groups">
            <legend className={css.subheading}>Limit to account groups (optional)</legend>
            {groups.map((g) => (
              <Checkbox
                key={g.id}
                isSelected={draft.groupIds.includes(g.id)}
                isDisabled={saving}
                onChange={(on) => change({ groupIds: on ? [...draft.groupIds, g.id] : draft.groupIds.filter((id) => id !== g.id) })}
              >
                {g.name}
              </Checkbox>
            ))}
          </fieldset>
        )}
        {error === null ? null : <AlertBox tone="error">{error}</AlertBox>}
        <DialogFooter>
          <Button variant="secondary" isDisabled={saving} onPress={() => keysRef.send({ type: "form.canceled" })}>
            Cancel
          </Button>
          <Button type="submit" isPending={saving}>
            Create key
          </Button>
        </DialogFooter>
      </Form>
    </Dialog>
  )
}

function RevokeDialog({ keysRef }: { readonly keysRef: ApiKeysRef }) {
  const target = useSelector(keysRef, (s) =>
    s.matches({ ready: "confirmingRevoke" }) || s.matches({ ready: "revoking" })
      ? s.context.keys.find((k) => k.id === s.context.pending) ?? null
      : null)
  const revoking = useSelector(keysRef, (s) => s.matches({ ready: "revoking" }))
  if (target === null) return null
  return (
    <Dialog
      title="Revoke API key"
      role="alertdialog"
      size="sm"
      isOpen
      onOpenChange={(isOpen) => {
        if (!isOpen && !revoking) keysRef.send({ type: "revoke.canceled" })
      }}
      isDismissable={!revoking}
      isKeyboardDismissDisabled={revoking}
      showCloseButton={!revoking}
    >
      <p className={css.note}>{`Revoke “${target.name}”? Every call made with it is refused from now on. This cannot be undone.`}</p>
      <DialogFooter>
        <Button variant="secondary" isDisabled={revoking} onPress={() => keysRef.send({ type: "revoke.canceled" })}>
          Keep key
        </Button>
        <Button variant="danger" isPending={revoking} onPress={() => keysRef.send({ type: "revoke.confirmed" })}>
          Revoke key
        </Button>
      </DialogFooter>
    </Dialog>
  )
}

function KeyCard({ keysRef, apiKey }: { readonly keysRef: ApiKeysRef; readonly apiKey: ApiKey }) {
  const idle = useSelector(keysRef, (s) => s.matches({ ready: "idle" }))
  const groups = useSelector(keysRef, (s) => s.context.groups)
  const groupNames = apiKey.account_group_ids === null
    ? "Every account its role allows"
    : apiKey.account_group_ids.map((id) => groups.find((g) => g.id === id)?.name ?? `Group ${id}`).join(", ")
  return (
    <li className={scanCss.itemCard} aria-label={apiKey.name}>
      <div className={scanCss.itemCardHeader}>
        <h3 className={css.subheading}>{apiKey.name}</h3>
        <Badge tone={STATUS_TONE[apiKey.status]}>{STATUS_LABEL[apiKey.status]}</Badge>
      </div>
      <dl className={scanCss.facts}>
        <Fact label="Key"><span className={scanCss.mono}>{`${apiKey.prefix}…${apiKey.last_four}`}</span></Fact>
        <Fact label="Role">{apiKey.role_name ?? "None (its role was deleted)"}</Fact>
        <Fact label="Accounts">{groupNames}</Fact>
        <Fact label="Created by">{apiKey.created_by.name}</Fact>
        <Fact label="Created">{formatDateTime(apiKey.created_at)}</Fact>
        <Fact label={apiKey.status === "expired" ? "Expired" : "Expires"}>{formatDateTime(apiKey.expires_at)}</Fact>
        <Fact label="Last used">
          {apiKey.last_used_at === null ? "Never" : `${formatDateTime(apiKey.last_used_at)}${apiKey.last_used_ip === null ? "" : ` from ${apiKey.last_used_ip}`}`}
        </Fact>
        {apiKey.revoked_at === null ? null : <Fact label="Revoked">{formatDateTime(apiKey.revoked_at)}</Fact>}
      </dl>
      {apiKey.status !== "active" ? null : (
        <div className={css.actions}>
          <Button variant="secondary" size="sm" isDisabled={!idle} onPress={() => keysRef.send({ type: "key.revokeRequested", id: apiKey.id })}>
            Revoke
          </Button>
        </div>
      )}
    </li>
  )
}

function ApiKeysBody({ keysRef }: { readonly keysRef: ApiKeysRef }) {
  const loading = useSelector(keysRef, (s) => s.matches("loading"))
  const failed = useSelector(keysRef, (s) => s.matches("failed"))
  const error = useSelector(keysRef, (s) => s.context.loadError)
  const keys = useSelector(keysRef, (s) => s.context.keys)
  const idle = useSelector(keysRef, (s) => s.matches({ ready: "idle" }))
  const noRole = useSelector(keysRef, (s) => s.context.roles.length === 0)
  if (loading) return <LoadingBox label="Loading API keys" />
  if (failed) {
    return (
      <ErrorBox
        title="Failed to load API keys"
        message={error ?? "Failed to load API keys. Please try again."}
        actions={
          <Button variant="secondary" size="sm" onPress={() => keysRef.send({ type: "apiKeys.retryRequested" })}>
            Try again
          </Button>
        }
      />
    )
  }
  return (
    <>
      <SecretNotice keysRef={keysRef} />
      <CreateKeyDialog keysRef={keysRef} />
      <RevokeDialog keysRef={keysRef} />
      <Card
        title="API keys"
        aria-label="API keys"
        description="Keys let scripts and CI call the API as you, with the role you give them. Only a hash of each secret is kept."
      >
        <div className={css.actions}>
          <Button isDisabled={!idle || noRole} onPress={() => keysRef.send({ type: "form.opened" })}>
            Create API key
          </Button>
        </div>
        {keys.length === 0 ? <p className={css.note}>No API key yet.</p> : null}
        <ul className={scanCss.cardList} aria-label="Keys">
          {keys.map((k) => <KeyCard key={k.id} keysRef={keysRef} apiKey={k} />)}
        </ul>
      </Card>
    </>
  )
}

export function ApiKeysView() {
  const keysRef = useActorRef(useApiKeysLogic())
  return (
    <div className={scanCss.page}>
      <div className={scanCss.titles}>
        <h1 className={scanCss.title}>API keys</h1>
        <p className={scanCss.subtitle}>Call the API from scripts and CI without your password.</p>
      </div>
      <ApiKeysBody keysRef={keysRef} />
    </div>
  )
}
