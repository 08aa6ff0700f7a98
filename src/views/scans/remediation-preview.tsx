/**
 * The preview of one fix in the remediate dialog (issue 32, docs/remediation.md): what it is, the exact calls it sends
 * (service, operation, region, parameters), what else it touches, the permissions it needs (allowed / missing /
 * unknown, with how that was found), whether it can be undone (for how long, or why not), and the equivalent CLI
 * command and Terraform, each copyable. Long parameters wrap and scroll inside their code block.
 */
import { Tab, TabList, TabPanel, Tabs } from "react-aria-components"
import type { RemediationPreview } from "../../contracts/remediations.ts"
import { AlertBox } from "../ui/alert-box.tsx"
import { Badge, type BadgeTone } from "../ui/badge.tsx"
import { CopyButton } from "../ui/copy-button.tsx"
import * as shared from "../scanning/scanning.css.ts"
import * as css from "./remediation-preview.css.ts"

type Call = RemediationPreview["calls"][number]
type Permission = RemediationPreview["permissions"][number]

const PERMISSION_LABELS: { readonly [K in Permission["status"]]: readonly [string, BadgeTone] } = {
  allowed: ["OK", "success"],
  denied: ["Missing", "danger"],
  unknown: ["Unknown", "neutral"],
}

/** A call's parameters as indented JSON (a string as is). */
export const paramsText = (params: unknown): string => (typeof params === "string" ? params : JSON.stringify(params ?? {}, null, 2))

function CallItem({ call, index }: { readonly call: Call; readonly index: number }) {
  return (
    <li className={css.item}>
      <span className={css.itemHead}>
        <strong>
          {call.service} {call.operation}
        </strong>
        {call.region === null ? null : <Badge tone="neutral">{call.region}</Badge>}
      </span>
      <pre className={css.code} tabIndex={0} aria-label={`Parameters of call ${index + 1}, ${call.operation}`}>
        {paramsText(call.params)}
      </pre>
    </li>
  )
}

export function RemediationPreviewView({ preview }: { readonly preview: RemediationPreview }) {
  return (
    <div className={shared.fieldStack}>
      <p className={css.item}>{preview.description}</p>
      {preview.noop === null ? null : <AlertBox tone="info" title="Nothing to change">{preview.noop}</AlertBox>}
      {preview.cuts_access === null ? null : <AlertBox tone="warning" title="This fix cuts access">{preview.cuts_access}</AlertBox>}
      {preview.calls.length === 0 ? null : (
        <section className={css.section} aria-labelledby="preview-calls">
          <h3 id="preview-calls" className={css.heading}>
            Calls, in order
          </h3>
          <ol className={css.list}>
            {preview.calls.map((call, i) => (
              <CallItem key={i} call={call} index={i} />
            ))}
          </ol>
        </section>
      )}
      <section className={css.section} aria-labelledby="preview-effects">
        <h3 id="preview-effects" className={css.heading}>
          What else it touches
        </h3>
        {preview.effects.length === 0 ? (
          <p className={shared.muted}>Nothing else was found to depend on this setting.</p>
        ) : (
          <ul className={css.list}>
            {preview.effects.map((effect, i) => (
              <li key={i} className={css.item}>
                {effect}
              </li>
            ))}
          </ul>
        )}
      </section>
      {preview.permissions.length === 0 ? null : (
        <section className={css.section} aria-labelledby="preview-permissions">
          <h3 id="preview-permissions" className={css.heading}>
            Permissions
          </h3>
          <ul className={css.plainList}>
            {preview.permissions.map((p) => {
              const [label, tone] = PERMISSION_LABELS[p.status]
              return (
                <li key={p.action} className={css.item}>
                  <span className={css.itemHead}>
                    <Badge tone={tone}>{label}</Badge>
                    <code className={shared.mono}>{p.action}</code>
                  </span>
                  <span className={shared.muted}>{p.how}</span>
                </li>
              )
            })}
          </ul>
        </section>
      )}
      <section className={css.section} aria-labelledby="preview-undo">
        <h3 id="preview-undo" className={css.heading}>
          Undo
        </h3>
        {preview.reversible ? (
          <p className={css.item}>
            <span className={css.itemHead}>
              <Badge tone="success">Reversible</Badge>
              <span>Undo is offered for {preview.undo_retention_days} days after the fix.</span>
            </span>
            {preview.undo_note === null ? null : <span className={shared.muted}>{preview.undo_note}</span>}
          </p>
        ) : (
          <AlertBox tone="warning" title="This fix cannot be undone">
            {preview.undo_note ?? undefined}
          </AlertBox>
        )}
      </section>
      {preview.cli === "" && preview.terraform === "" ? null : (
        <Tabs className={css.section}>
          <TabList aria-label="The same change as code" className={css.tabList}>
            <Tab id="cli" className={css.tab}>
              Command line
            </Tab>
            <Tab id="terraform" className={css.tab}>
              Terraform
            </Tab>
          </TabList>
          <CodePanel id="cli" code={preview.cli} name="Command to run" copyLabel="Copy the command line" />
          <CodePanel id="terraform" code={preview.terraform} name="Terraform configuration" copyLabel="Copy the Terraform" />
        </Tabs>
      )}
    </div>
  )
}

/** One tab of the preview's code: the text, scrollable and focusable, with its Copy button. */
function CodePanel({ id, code, name, copyLabel }: { readonly id: string; readonly code: string; readonly name: string; readonly copyLabel: string }) {
  return (
    <TabPanel id={id} className={css.tabPanel}>
      <pre className={css.code} tabIndex={0} aria-label={name}>
        {code}
      </pre>
      <span className={css.row}>
        <CopyButton text={code} label={copyLabel} />
      </span>
    </TabPanel>
  )
}
