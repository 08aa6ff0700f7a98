/**
 * /dashboard/settings/sso (issue 33 part 3; docs/sso.md), for workspace admins: renders `ssoSettingsMachine`. What to
 * register at the identity provider (redirect URI, ACS URL, entity id), the provider (OpenID Connect or SAML 2.0), the
 * owned email domains, the groups attribute, the default role and the group → role mappings, and "Require SSO".
 */
import { useMemo } from "react"
import { useActorRef, useSelector } from "@xstate/react"
import type { ActorRefFrom } from "xstate"
import { ssoSettingsMachine, type SsoField } from "../../machines/sso-settings.machine.ts"
import { AlertBox } from "../ui/alert-box.tsx"
import { Button } from "../ui/button.tsx"
import { Card } from "../ui/card.tsx"
import { Checkbox } from "../ui/checkbox.tsx"
import { Form } from "../ui/form.tsx"
import { Select, SelectItem } from "../ui/select.tsx"
import { TextField } from "../ui/text-field.tsx"
import { effectActor, useNotifyAction } from "../screen-actors.ts"
import { ErrorBox, LoadingBox } from "../scanning/scan-parts.tsx"
import * as scanCss from "../scanning/scanning.css.ts"
import { useSsoEffects } from "./sso-effects-context.tsx"

type SsoRef = ActorRefFrom<typeof ssoSettingsMachine>

function Field({ actor, field, label, type = "text", description, rows }: {
  readonly actor: SsoRef
  readonly field: SsoField
  readonly label: string
  readonly type?: "text" | "password" | "url"
  readonly description?: string
  /** A multi-line text area of this many rows. */
  readonly rows?: number
}) {
  const value = useSelector(actor, (s) => s.context.form[field])
  const error = useSelector(actor, (s) => s.context.fieldErrors[field])
  return (
    <TextField
      label={label}
      type={type}
      value={value}
      onChange={(v) => actor.send({ type: "field.changed", field, value: v })}
      isInvalid={error !== undefined}
      {...(error === undefined ? {} : { errorMessage: error })}
      {...(description === undefined ? {} : { description })}
      {...(rows === undefined ? {} : { rows, monospace: true })}
    />
  )
}

function RoleSelect({ actor, label, value, onChange }: {
  readonly actor: SsoRef
  readonly label: string
  readonly value: string
  readonly onChange: (value: string) => void
}) {
  const roles = useSelector(actor, (s) => s.context.roles)
  return (
    <Select label={label} selectedKey={value} onSelectionChange={(key) => onChange(String(key))} items={roles.map((r) => ({ id: String(r.id), name: r.name }))}>
      {(item: { id: string; name: string }) => <SelectItem id={item.id}>{item.name}</SelectItem>}
    </Select>
  )
}

function Mappings({ actor }: { readonly actor: SsoRef }) {
  const mappings = useSelector(actor, (s) => s.context.form.mappings)
  return (
    <div className={scanCss.page}>
      {mappings.map((m, index) => (
        <div key={index} className={scanCss.actions}>
          <TextField
            label={`Group ${index + 1}`}
            value={m.group}
            onChange={(value) => actor.send({ type: "mapping.changed", index, field: "group", value })}
          />
          <RoleSelect actor={actor} label={`Role for group ${index + 1}`} value={m.role_id}
            onChange={(value) => actor.send({ type: "mapping.changed", index, field: "role_id", value })} />
          <Button variant="ghost" onPress={() => actor.send({ type: "mapping.removed", index })}>
            Remove group {index + 1}
          </Button>
        </div>
      ))}
      <div>
        <Button variant="secondary" onPress={() => actor.send({ type: "mapping.added" })}>
          Add a group mapping
        </Button>
      </div>
    </div>
  )
}

export function SsoSettingsView() {
  const effects = useSsoEffects()
  const notify = useNotifyAction()
  const logic = useMemo(
    () =>
      ssoSettingsMachine.provide({
        actors: {
          loadSettings: effectActor(effects.loadSettings),
          saveSettings: effectActor(effects.saveSettings),
          removeSettings: effectActor(effects.removeSettings),
        },
        actions: { notify },
      }),
    [effects, notify],
  )
  const actor = useActorRef(logic)
  const loading = useSelector(actor, (s) => s.matches("loading"))
  const failed = useSelector(actor, (s) => s.matches("failed"))
  const busy = useSelector(actor, (s) => s.matches("saving") || s.matches("removing"))
  const error = useSelector(actor, (s) => s.context.error)
  const sp = useSelector(actor, (s) => s.context.settings?.service_provider)
  const protocol = useSelector(actor, (s) => s.context.form.protocol)
  const enabled = useSelector(actor, (s) => s.context.form.enabled === "true")
  const requireSso = useSelector(actor, (s) => s.context.form.require_sso === "true")
  const defaultRole = useSelector(actor, (s) => s.context.form.default_role_id)
  const canRemove = useSelector(actor, (s) => s.can({ type: "connection.removeRequested" }))
  return (
    <div className={scanCss.page}>
      <header className={scanCss.pageHeader}>
        <div className={scanCss.titles}>
          <h1 className={scanCss.title}>Single sign-on</h1>
          <p className={scanCss.subtitle}>Let your people sign in with your identity provider (OpenID Connect or SAML 2.0).</p>
        </div>
      </header>
      {loading ? <LoadingBox label="Loading single sign-on settings" /> : null}
      {failed ? (
        <ErrorBox title="Single sign-on" message={error ?? ""} actions={<Button onPress={() => actor.send({ type: "settings.retryRequested" })}>Try again</Button>} />
      ) : null}
      {!loading && !failed && sp !== undefined ? (
        <>
          <Card title="Register this product at your identity provider">
            <dl>
              <dt className={scanCss.muted}>OIDC redirect URI</dt>
              <dd className={scanCss.mono}>{sp.oidc_redirect_uri}</dd>
              <dt className={scanCss.muted}>SAML ACS URL</dt>
              <dd className={scanCss.mono}>{sp.saml_acs_url}</dd>
              <dt className={scanCss.muted}>SAML entity ID and metadata</dt>
              <dd className={scanCss.mono}>{sp.saml_entity_id}</dd>
            </dl>
          </Card>
          <Card title="Identity provider">
            <Form
              aria-label="Single sign-on settings"
              validationBehavior="aria"
              onSubmit={(e) => {
                e.preventDefault()
                actor.send({ type: "form.submitted" })
              }}
            >
              {error === undefined ? null : <AlertBox tone="error">{error}</AlertBox>}
              <Select label="Protocol" selectedKey={protocol} onSelectionChange={(key) => actor.send({ type: "field.changed", field: "protocol", value: String(key) })}>
                <SelectItem id="oidc">OpenID Connect</SelectItem>
                <SelectItem id="saml">SAML 2.0</SelectItem>
              </Select>
              <Field actor={actor} field="domains" label="Email domains" description="Comma separated, e.g. example.com, example.org" />
              {protocol === "oidc" ? (
                <>
                  <Field actor={actor} field="issuer" label="Issuer URL" type="url" />
                  <Field actor={actor} field="client_id" label="Client ID" />
                  <Field actor={actor} field="client_secret" label="Client secret" type="password" description="Leave empty to keep the saved secret" />
                </>
              ) : (
                <>
                  <Field actor={actor} field="idp_entity_id" label="Identity provider entity ID" />
                  <Field actor={actor} field="sso_url" label="Single sign-on URL" type="url" />
                  <Field
                    actor={actor}
                    field="certificate"
                    label="Signing certificate (PEM)"
                    rows={8}
                    description="The whole PEM, its BEGIN and END CERTIFICATE lines included"
                  />
                </>
              )}
              <Field actor={actor} field="groups_attribute" label="Groups claim or attribute" />
              <RoleSelect actor={actor} label="Default role" value={defaultRole}
                onChange={(value) => actor.send({ type: "field.changed", field: "default_role_id", value })} />
              <Mappings actor={actor} />
              <Checkbox isSelected={enabled} onChange={(on) => actor.send({ type: "field.changed", field: "enabled", value: String(on) })}>
                Enabled
              </Checkbox>
              <Checkbox isSelected={requireSso} onChange={(on) => actor.send({ type: "field.changed", field: "require_sso", value: String(on) })}>
                Require SSO (password sign-in refused for these domains; the workspace owner keeps a password)
              </Checkbox>
              <div className={scanCss.actions}>
                <Button type="submit" isPending={busy}>
                  Save
                </Button>
                {canRemove ? (
                  <Button variant="secondary" isDisabled={busy} onPress={() => actor.send({ type: "connection.removeRequested" })}>
                    Remove single sign-on
                  </Button>
                ) : null}
              </div>
            </Form>
          </Card>
        </>
      ) : null}
    </div>
  )
}
