/**
 * /dashboard/settings/integrations (beyond the spec, issue 33 parts 5 and 6), rendered from
 * `integrationsSettingsMachine`; lazy-loaded as its own chunk, for workspace admins only (the permission gate sends
 * anyone else away; the user menu offers the page to admins only).
 *
 * - 'Jira': the connection form (site, account email, API token — never shown; empty keeps the stored one —, project
 *   key, issue type, labels), Save, Test connection, Remove.
 * - 'AWS Security Hub': one card per AWS account: the export on/off, its regions, the last export's outcome, Save and
 *   Send now. docs/integrations-jira.md and docs/integrations-security-hub.md say what each does.
 */
import { useMemo } from "react"
import { useActorRef, useSelector } from "@xstate/react"
import type { ActorRefFrom } from "xstate"
import { IntegrationsPageMessages, type JiraField } from "../../contracts/jira.ts"
import { hubDraftOf, integrationsSettingsMachine } from "../../machines/integrations-settings.machine.ts"
import { AlertBox } from "../ui/alert-box.tsx"
import { Button } from "../ui/button.tsx"
import { Card } from "../ui/card.tsx"
import { Checkbox } from "../ui/checkbox.tsx"
import { Form } from "../ui/form.tsx"
import { TextField } from "../ui/text-field.tsx"
import { effectActor, useNotifyAction } from "../screen-actors.ts"
import { ErrorBox, Fact, formatDateTime, LoadingBox } from "../scanning/scan-parts.tsx"
import * as scanCss from "../scanning/scanning.css.ts"
import * as css from "../storage/storage.css.ts"
import { useIntegrationsEffects } from "./integrations-effects-context.tsx"

type IntegrationsRef = ActorRefFrom<typeof integrationsSettingsMachine>

function useIntegrationsLogic() {
  const effects = useIntegrationsEffects()
  const notify = useNotifyAction()
  return useMemo(
    () =>
      integrationsSettingsMachine.provide({
        actors: {
          loadIntegrations: effectActor(effects.loadIntegrations),
          saveJira: effectActor(effects.saveJira),
          testJira: effectActor(effects.testJira),
          removeJira: effectActor(effects.removeJira),
          saveSecurityHub: effectActor(effects.saveSecurityHub),
          exportSecurityHub: effectActor(effects.exportSecurityHub),
        },
        actions: { notify },
      }),
    [effects, notify],
  )
}

const JIRA_LABELS: { readonly [K in JiraField]: string } = {
  site_url: "Jira site",
  email: "Account email",
  api_token: "API token",
  project_key: "Project key",
  issue_type: "Issue type",
  labels: "Labels",
}

const JIRA_DESCRIPTIONS: { readonly [K in JiraField]: string } = {
  site_url: "Your Jira Cloud address, like https://your-team.atlassian.net.",
  email: "The Jira account issues are created with.",
  api_token: "Created at id.atlassian.com › Security › API tokens. Stored encrypted and never shown; leave empty to keep the saved one.",
  project_key: "Issues are created in this project.",
  issue_type: "Task, Bug, or another issue type of the project.",
  labels: "Added to every issue, besides cloud-audit and the check id. Separate with commas.",
}

function JiraCard({ integrationsRef }: { readonly integrationsRef: IntegrationsRef }) {
  const values = useSelector(integrationsRef, (s) => s.context.jiraValues)
  const errors = useSelector(integrationsRef, (s) => s.context.jiraErrors)
  const connected = useSelector(integrationsRef, (s) => s.context.jira !== null)
  const saving = useSelector(integrationsRef, (s) => s.matches("savingJira"))
  const testing = useSelector(integrationsRef, (s) => s.matches("testingJira"))
  const removing = useSelector(integrationsRef, (s) => s.matches("removingJira"))
  const canTest = useSelector(integrationsRef, (s) => s.can({ type: "jira.testRequested" }))
  const canRemove = useSelector(integrationsRef, (s) => s.can({ type: "jira.removeRequested" }))
  const busy = saving || testing || removing
  const field = (name: JiraField, extra: { readonly type?: "password" | "email" | "url"; readonly autoComplete?: string } = {}) => {
    const error = errors[name]
    return (
      <TextField
        label={JIRA_LABELS[name]}
        description={JIRA_DESCRIPTIONS[name]}
        value={values[name]}
        onChange={(value) => integrationsRef.send({ type: "jira.fieldChanged", field: name, value })}
        isDisabled={busy}
        isInvalid={error !== undefined}
        autoComplete={extra.autoComplete ?? "off"}
        {...(extra.type === undefined ? {} : { type: extra.type })}
        {...(name === "api_token" && connected ? { placeholder: "Saved (leave empty to keep)" } : {})}
        {...(error === undefined ? {} : { errorMessage: error })}
      />
    )
  }
  return (
    <Card
      title="Jira"
      aria-label="Jira"
      description="Create Jira issues from findings: one per finding or one per failing resource, with a link back. The finding page shows each issue's status."
    >
      <Form
        validationBehavior="aria"
        aria-label="Jira connection"
        className={css.form}
        onSubmit={(e) => {
          e.preventDefault()
          integrationsRef.send({ type: "jira.submitted" })
        }}
      >
        <p className={css.sentence}>{connected ? "Connected. Changes apply to the next issues created." : "Not connected."}</p>
        <div className={css.fields}>
          {field("site_url", { type: "url" })}
          {field("email", { type: "email", autoComplete: "email" })}
          {field("api_token", { type: "password", autoComplete: "new-password" })}
          {field("project_key")}
          {field("issue_type")}
          {field("labels")}
        </div>
        <div className={css.actions}>
          {connected ? (
            <>
              <Button variant="secondary" isPending={removing} isDisabled={busy || !canRemove} onPress={() => integrationsRef.send({ type: "jira.removeRequested" })}>
                Remove connection
              </Button>
              <Button variant="secondary" isPending={testing} isDisabled={busy || !canTest} onPress={() => integrationsRef.send({ type: "jira.testRequested" })}>
                Test connection
              </Button>
            </>
          ) : null}
          <Button type="submit" isPending={saving} isDisabled={busy}>
            Save Jira connection
          </Button>
        </div>
      </Form>
    </Card>
  )
}

function HubAccount({ integrationsRef, accountId }: { readonly integrationsRef: IntegrationsRef; readonly accountId: number }) {
  const account = useSelector(integrationsRef, (s) => s.context.accounts.find((a) => a.account_id === accountId))
  const draft = useSelector(integrationsRef, (s) => s.context.drafts[accountId])
  const error = useSelector(integrationsRef, (s) => s.context.hubErrors[accountId])
  const busy = useSelector(integrationsRef, (s) => s.context.busyAccount === accountId)
  const anyBusy = useSelector(integrationsRef, (s) => !s.matches("ready"))
  const canSend = useSelector(integrationsRef, (s) => s.can({ type: "hub.exportRequested", accountId }))
  if (account === undefined) return null
  const shown = draft ?? hubDraftOf(account)
  const last = account.last_export
  return (
    <section className={css.section} aria-label={`Security Hub export of ${account.account_name}`}>
      <h3 className={css.subheading}>{`${account.account_name} (${account.cloud_account_id})`}</h3>
      <Checkbox
        isSelected={shown.enabled}
        isDisabled={anyBusy}
        onChange={(enabled) => integrationsRef.send({ type: "hub.enabledChanged", accountId, enabled })}
      >
        Send findings to Security Hub after each scan
      </Checkbox>
      <TextField
        label="Regions"
        description="Security Hub must be enabled there. A finding goes to its resource's region when listed, else to the first one (global resources too)."
        value={shown.regions}
        placeholder="us-east-1, eu-west-1"
        autoComplete="off"
        isDisabled={anyBusy}
        isInvalid={error !== undefined}
        onChange={(value) => integrationsRef.send({ type: "hub.regionsChanged", accountId, value })}
        {...(error === undefined ? {} : { errorMessage: error })}
      />
      <dl className={css.meta}>
        <Fact label="Last export">{last === null || last.at === null ? "Never" : formatDateTime(last.at)}</Fact>
        <Fact label="Outcome">{last === null ? "—" : last.message}</Fact>
      </dl>
      {last !== null && last.status !== "ok" ? <AlertBox tone={last.status === "failed" ? "error" : "warning"}>{last.message}</AlertBox> : null}
      <div className={css.actions}>
        <Button variant="secondary" isDisabled={anyBusy || !canSend} onPress={() => integrationsRef.send({ type: "hub.exportRequested", accountId })}>
          Send now
        </Button>
        <Button isPending={busy} isDisabled={anyBusy} onPress={() => integrationsRef.send({ type: "hub.saveRequested", accountId })}>
          Save
        </Button>
      </div>
    </section>
  )
}

function SecurityHubCard({ integrationsRef }: { readonly integrationsRef: IntegrationsRef }) {
  const ids = useSelector(
    integrationsRef,
    (s) => s.context.accounts.map((a) => a.account_id).join(","),
  )
  const accountIds = ids === "" ? [] : ids.split(",").map(Number)
  return (
    <Card
      title="AWS Security Hub"
      aria-label="AWS Security Hub"
      description="Send each completed scan's failing resources to the AWS account's Security Hub (ASFF), update them as they change and archive fixed ones. The account's credentials need securityhub:BatchImportFindings."
    >
      {accountIds.length === 0 ? (
        <p className={css.note}>No AWS account is connected.</p>
      ) : (
        accountIds.map((id) => <HubAccount key={id} integrationsRef={integrationsRef} accountId={id} />)
      )}
    </Card>
  )
}

function IntegrationsBody({ integrationsRef }: { readonly integrationsRef: IntegrationsRef }) {
  const loading = useSelector(integrationsRef, (s) => s.matches("loading"))
  const failed = useSelector(integrationsRef, (s) => s.matches("failed"))
  const error = useSelector(integrationsRef, (s) => s.context.loadError)
  if (loading) return <LoadingBox label="Loading integrations" />
  if (failed) {
    const denied = error === IntegrationsPageMessages.adminOnly
    return (
      <ErrorBox
        title={denied ? IntegrationsPageMessages.adminOnly : IntegrationsPageMessages.loadFailed}
        message={denied ? "Ask the workspace owner or an admin." : (error ?? IntegrationsPageMessages.loadFailed)}
        {...(denied
          ? {}
          : {
              actions: (
                <Button variant="secondary" size="sm" onPress={() => integrationsRef.send({ type: "integrations.retryRequested" })}>
                  Try again
                </Button>
              ),
            })}
      />
    )
  }
  return (
    <>
      <JiraCard integrationsRef={integrationsRef} />
      <SecurityHubCard integrationsRef={integrationsRef} />
    </>
  )
}

export function IntegrationsView() {
  const integrationsRef = useActorRef(useIntegrationsLogic())
  return (
    <div className={scanCss.page}>
      <div className={scanCss.titles}>
        <h1 className={scanCss.title}>Integrations</h1>
        <p className={scanCss.subtitle}>Jira issues from findings, and findings sent to AWS Security Hub.</p>
      </div>
      <IntegrationsBody integrationsRef={integrationsRef} />
    </div>
  )
}
