/**
 * The add-account wizard's CloudFormation panel for an AWS organisation (issue 31): 'Get the CloudFormation template'
 * asks the wizard's machine for the template deploying the member role (named in the form) across the organisation;
 * the answer shows as code with Copy and a .json download (a data: URL: the view fetches nothing), the member role's
 * own template as a second download, and the AWS CLI commands deploying the stack.
 */
import { useSelector } from "@xstate/react"
import type { ActorRefFrom } from "xstate"
import type { addAccountMachine } from "../../machines/add-account.machine.ts"
import { TextField } from "../ui/text-field.tsx"
import { AlertBox } from "../ui/alert-box.tsx"
import { Button } from "../ui/button.tsx"
import { CopyButton } from "../ui/copy-button.tsx"
import { link } from "../ui/link.css.ts"
import * as shared from "../scanning/scanning.css.ts"
import * as css from "./organization-template.css.ts"

type WizardRef = ActorRefFrom<typeof addAccountMachine>

const jsonDataUrl = (text: string): string => `data:application/json;charset=utf-8,${encodeURIComponent(text)}`

export function OrganizationTemplate({ wizardRef }: { readonly wizardRef: WizardRef }) {
  const template = useSelector(wizardRef, (s) => s.context.template)
  const error = useSelector(wizardRef, (s) => s.context.templateError)
  const loading = useSelector(wizardRef, (s) => s.matches({ open: { credentials: { template: "loading" } } }))
  const canLoad = useSelector(wizardRef, (s) => s.can({ type: "template.requested" }))
  const managementAccountId = useSelector(wizardRef, (s) => s.context.form.management_account_id)
  return (
    <section className={css.panel} aria-labelledby="member-role-template">
      <h3 id="member-role-template" className={shared.factLabel}>
        Member role (CloudFormation)
      </h3>
      <p className={shared.muted}>
        Deploy the member role in the management account with a stack whose service-managed StackSet creates it in every
        member account. The role trusts this product with this workspace's external ID.
      </p>
      <TextField
        label="Management account ID"
        value={managementAccountId}
        onChange={(value) => wizardRef.send({ type: "field.changed", field: "management_account_id", value })}
        description="12 digits: the member roles trust this account, whose credentials you enter above."
        placeholder="123456789012"
        autoComplete="off"
      />
      {error === null ? null : <AlertBox tone="error">{error}</AlertBox>}
      <div className={css.row}>
        <Button variant="secondary" size="sm" isPending={loading} isDisabled={!canLoad && !loading} onPress={() => wizardRef.send({ type: "template.requested" })}>
          {template === null ? "Get the CloudFormation template" : "Refresh the template"}
        </Button>
      </div>
      {template === null ? null : (
        <>
          <p className={shared.muted}>
            Role <code className={shared.mono}>{template.role_name}</code>, external ID <code className={shared.mono}>{template.external_id}</code>, trusting{" "}
            <code className={shared.mono}>{template.trusted_principal_arn}</code>.
          </p>
          <pre className={css.code} tabIndex={0} aria-label="Organization stack template">
            {template.organization_template}
          </pre>
          <div className={css.row}>
            <CopyButton text={template.organization_template} label="Copy the organization stack template" />
            <a className={link({ variant: "button" })} href={jsonDataUrl(template.organization_template)} download={`${template.role_name}-organization.json`}>
              Download the stack template
            </a>
            <a className={link({ variant: "button" })} href={jsonDataUrl(template.member_template)} download={`${template.role_name}-member.json`}>
              Download the member role template
            </a>
          </div>
          <h4 className={shared.factLabel}>AWS CLI</h4>
          <pre className={css.code} tabIndex={0} aria-label="AWS CLI commands">
            {template.cli_commands}
          </pre>
          <div className={css.row}>
            <CopyButton text={template.cli_commands} label="Copy the AWS CLI commands" />
          </div>
        </>
      )}
    </section>
  )
}
