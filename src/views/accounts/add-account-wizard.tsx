/**
 * The add-account wizard (scanning §2 "Add-account wizard") over an `addAccountMachine` child: 1. choose a provider,
 * 2. account name and credentials with 'Test connection', 3. 'Connection successful!' with OK (saves, closes and
 * refreshes). Closing the dialog ends the child; the next opening starts again at step 1.
 * Beyond the spec (issue 31): step 2 chooses 'Single account' or the provider's kind of organisation; an AWS
 * organisation shows the member role's CloudFormation template (copy, download as a .json file) and its CLI commands.
 */
import { useSelector } from "@xstate/react"
import { Button as AriaButton, Label, Radio, RadioGroup } from "react-aria-components"
import type { ActorRefFrom } from "xstate"
import { ProviderIds } from "../../contracts/constants.ts"
import { ScanningMessages } from "../../contracts/messages.ts"
import type { AccountKind, addAccountMachine, AddAccountField, AwsAuthMethod } from "../../machines/add-account.machine.ts"
import { OrganizationTemplate } from "./organization-template.tsx"
import { AlertBox } from "../ui/alert-box.tsx"
import { Button } from "../ui/button.tsx"
import { Dialog, DialogFooter } from "../ui/dialog.tsx"
import { Form } from "../ui/form.tsx"
import { PasswordField } from "../ui/password-field.tsx"
import { Spinner } from "../ui/spinner.tsx"
import { TextField } from "../ui/text-field.tsx"
import { SuccessIcon } from "../ui/icons.tsx"
import { ProviderIcon } from "../scanning/scan-icons.tsx"
import * as shared from "../scanning/scanning.css.ts"
import * as css from "./dashboard.css.ts"

export type AddAccountRef = ActorRefFrom<typeof addAccountMachine>

const STEP_TITLES = ["Choose a provider", "Enter credentials", "Connection test"] as const

/** What an organisation is called at each provider (issue 31). */
const ORGANIZATION_KINDS: Readonly<Record<number, string>> = {
  [ProviderIds.AWS]: "AWS Organization",
  [ProviderIds.GCP]: "GCP organization or folder",
  [ProviderIds.Azure]: "Azure management group",
}

function StepIndicator({ step }: { readonly step: 1 | 2 | 3 }) {
  return (
    <ol className={css.steps} aria-label="Wizard steps">
      {STEP_TITLES.map((label, i) => (
        <li key={label} className={css.step} data-active={i + 1 === step ? "" : undefined} data-done={i + 1 < step ? "" : undefined}>
          <span className={css.stepNumber} aria-hidden="true">
            {i + 1}
          </span>
          <span {...(i + 1 === step ? { "aria-current": "step" as const } : {})}>{label}</span>
        </li>
      ))}
    </ol>
  )
}

function ProviderStep({ wizardRef }: { readonly wizardRef: AddAccountRef }) {
  const providers = useSelector(wizardRef, (s) => s.context.providers)
  return (
    <div className={css.providerGrid} role="list" aria-label="Cloud providers">
      {providers.map((p) => (
        <div role="listitem" key={p.id}>
          <AriaButton
            className={css.providerTile}
            isDisabled={!p.is_enable}
            onPress={() => wizardRef.send({ type: "provider.selected", providerId: p.id })}
            aria-label={p.is_enable ? p.name : `${p.name} (coming soon)`}
          >
            <ProviderIcon name={p.name} size={36} />
            <span className={css.providerTileName}>{p.name}</span>
            {p.is_enable ? null : <span className={shared.subtle}>Coming soon</span>}
          </AriaButton>
        </div>
      ))}
    </div>
  )
}

function CredentialsStep({ wizardRef }: { readonly wizardRef: AddAccountRef }) {
  const providerId = useSelector(wizardRef, (s) => s.context.providerId)
  const method = useSelector(wizardRef, (s) => s.context.method)
  const form = useSelector(wizardRef, (s) => s.context.form)
  const errors = useSelector(wizardRef, (s) => s.context.fieldErrors)
  const externalId = useSelector(wizardRef, (s) => s.context.externalId)
  const kind = useSelector(wizardRef, (s) => s.context.kind)
  const isTesting = useSelector(wizardRef, (s) => s.matches({ open: { credentials: { form: "testing" } } }))
  const isSaving = useSelector(wizardRef, (s) => s.matches({ open: "saving" }))
  const busy = isTesting || isSaving
  const organization = kind === "organization"

  const field = (name: AddAccountField, label: string, options: { secret?: boolean; required?: boolean; description?: string; placeholder?: string } = {}) => {
    const error = errors[name]
    const common = {
      label,
      value: form[name],
      onChange: (value: string) => wizardRef.send({ type: "field.changed", field: name, value }),
      isInvalid: error !== undefined,
      isRequired: options.required ?? true,
      isDisabled: busy,
      autoComplete: "off",
      ...(error === undefined ? {} : { errorMessage: error }),
      ...(options.description === undefined ? {} : { description: options.description }),
      ...(options.placeholder === undefined ? {} : { placeholder: options.placeholder }),
    }
    return options.secret === true ? <PasswordField key={name} {...common} /> : <TextField key={name} {...common} />
  }

  return (
    <div className={shared.fieldStack}>
      {field("account_name", organization ? "Organization name" : "Account name", { placeholder: "e.g. Production" })}
      <RadioGroup
        className={css.methodGroup}
        value={kind}
        onChange={(value) => wizardRef.send({ type: "kind.changed", kind: value as AccountKind })}
        isDisabled={busy}
        orientation="horizontal"
      >
        <Label className={css.methodLabel}>What to add</Label>
        <div className={css.methodOptions}>
          <Radio value="account" className={css.methodOption}>
            Single account
          </Radio>
          <Radio value="organization" className={css.methodOption}>
            {ORGANIZATION_KINDS[providerId ?? 0] ?? "Organization"}
          </Radio>
        </div>
      </RadioGroup>
      {providerId === ProviderIds.AWS ? (
        <>
          <RadioGroup
            className={css.methodGroup}
            value={method}
            onChange={(value) => wizardRef.send({ type: "method.changed", method: value as AwsAuthMethod })}
            isDisabled={busy}
            orientation="horizontal"
          >
            <Label className={css.methodLabel}>Access method</Label>
            <div className={css.methodOptions}>
              <Radio value="keys" className={css.methodOption}>
                Access keys
              </Radio>
              <Radio value="role" className={css.methodOption}>
                IAM role
              </Radio>
            </div>
          </RadioGroup>
          {method === "keys" ? (
            <>
              {organization ? (
                <p className={shared.muted}>The management account's (or a delegated administrator's) credentials: they list the organization's accounts.</p>
              ) : null}
              {field("access_key", "Access Key ID", { placeholder: "AKIA…" })}
              {field("secret_key", "Secret Access Key", { secret: true })}
              {field("session_token", "Session token", { secret: true, required: false, description: "Only for temporary credentials." })}
            </>
          ) : (
            <>
              {field("role_arn", "Role ARN", { placeholder: "arn:aws:iam::123456789012:role/CloudAudit" })}
              <div className={css.externalId}>
                <span className={shared.factLabel}>External ID</span>
                {externalId === null ? (
                  <span className={shared.muted}>
                    Generated for this workspace and added to every role test; it cannot be chosen. The role's trust policy must
                    require it.
                  </span>
                ) : (
                  <code className={shared.mono}>{externalId}</code>
                )}
              </div>
            </>
          )}
          {organization ? (
            <>
              {field("member_role_name", "Member role name", {
                description: "The role assumed in each member account with this workspace's external ID.",
              })}
              <OrganizationTemplate wizardRef={wizardRef} />
            </>
          ) : null}
        </>
      ) : providerId === ProviderIds.GCP ? (
        <>
          {organization
            ? field("root_id", "Organization or folder ID", {
                placeholder: "organizations/123456789012",
                description: "organizations/N or folders/N: the service account must be granted the viewer roles there.",
              })
            : null}
          {field("service_account_key", "Service account key (JSON)", { secret: true })}
        </>
      ) : providerId === ProviderIds.Azure ? (
        <>
          {organization
            ? field("root_id", "Management group ID", { description: "The app registration must be granted Reader on this management group." })
            : null}
          {field("tenant_id", "Tenant ID")}
          {field("client_id", "Client ID")}
          {field("client_secret", "Client secret", { secret: true })}
          {organization ? null : field("subscription_id", "Subscription ID")}
        </>
      ) : null}
      {organization ? (
        <>
          {field("include_units", "Units to include", {
            required: false,
            description: `${unitIds(providerId)} separated by commas; empty: every unit. Each includes the units below it.`,
          })}
          {field("exclude_units", "Units to leave out", {
            required: false,
            description: `${unitIds(providerId)} separated by commas, with everything below them.`,
          })}
          {field("exclude_accounts", "Member accounts to leave out", {
            required: false,
            description: "Account, project or subscription IDs separated by commas. The units and members can also be chosen on the organization's page, from its tree, after saving.",
          })}
        </>
      ) : null}
    </div>
  )
}

/** How the provider names the units an organisation's selection takes. */
const unitIds = (providerId: number | null): string =>
  providerId === ProviderIds.AWS ? "Organizational unit IDs (ou-…) or the root (r-…)" : providerId === ProviderIds.GCP ? "Folder IDs (folders/123)" : "Management group IDs"

export function AddAccountWizard({ wizardRef }: { readonly wizardRef: AddAccountRef }) {
  const error = useSelector(wizardRef, (s) => s.context.error)
  const loading = useSelector(wizardRef, (s) => s.matches({ open: "loadingProviders" }))
  const providersFailed = useSelector(wizardRef, (s) => s.matches({ open: "providersFailed" }))
  const choosing = useSelector(wizardRef, (s) => s.matches({ open: "selectingProvider" }))
  const credentials = useSelector(wizardRef, (s) => s.matches({ open: "credentials" }))
  const isTesting = useSelector(wizardRef, (s) => s.matches({ open: { credentials: { form: "testing" } } }))
  const connected = useSelector(wizardRef, (s) => s.matches({ open: "connected" }))
  const saving = useSelector(wizardRef, (s) => s.matches({ open: "saving" }))
  const organizationKind = useSelector(wizardRef, (s) => s.context.kind === "organization")
  const step: 1 | 2 | 3 = loading || providersFailed || choosing ? 1 : credentials ? 2 : 3
  const close = () => wizardRef.send({ type: "wizard.closed" })
  const busy = isTesting || saving

  return (
    <Dialog
      title="Add cloud account"
      size="md"
      isOpen
      onOpenChange={(open) => {
        if (!open) close()
      }}
      isDismissable={!busy}
      isKeyboardDismissDisabled={busy}
      showCloseButton={!busy}
    >
      <StepIndicator step={step} />
      {error === null || connected ? null : <AlertBox tone="error">{error}</AlertBox>}
      {loading ? (
        <div className={shared.stateBox}>
          <Spinner aria-label="Loading providers" />
        </div>
      ) : providersFailed ? (
        <DialogFooter>
          <Button variant="secondary" onPress={() => wizardRef.send({ type: "providers.retryRequested" })}>
            Try again
          </Button>
        </DialogFooter>
      ) : choosing ? (
        <ProviderStep wizardRef={wizardRef} />
      ) : credentials ? (
        <Form
          onSubmit={(e) => {
            e.preventDefault()
            wizardRef.send({ type: "connection.testRequested" })
          }}
          validationBehavior="aria"
        >
          <CredentialsStep wizardRef={wizardRef} />
          <DialogFooter>
            <Button variant="secondary" onPress={() => wizardRef.send({ type: "step.back" })} isDisabled={busy}>
              Back
            </Button>
            <Button type="submit" isPending={isTesting}>
              Test connection
            </Button>
          </DialogFooter>
        </Form>
      ) : (
        <>
          <div className={css.connected} role="status">
            <SuccessIcon size={40} className={css.connectedIcon} />
            <p className={shared.stateTitle}>{ScanningMessages.connectionSuccessful}</p>
            <p className={shared.muted}>{organizationKind ? "Press OK to save the organization and list its member accounts." : "Press OK to save the account."}</p>
          </div>
          <DialogFooter>
            <Button variant="secondary" onPress={() => wizardRef.send({ type: "step.back" })} isDisabled={saving}>
              Back
            </Button>
            <Button onPress={() => wizardRef.send({ type: "connection.confirmed" })} isPending={saving}>
              OK
            </Button>
          </DialogFooter>
        </>
      )}
    </Dialog>
  )
}
