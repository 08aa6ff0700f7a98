/**
 * The account page's "Remediation approval" card (beyond the spec, issue 32 "Approval (four eyes), optional per
 * account"), rendered from `approvalSettingMachine`: the Require approval switch, the expiry of a request in hours
 * (1–720), Reset and Save. Members without create_account see the server's refusal when they save.
 */
import { useMemo } from "react"
import { useActorRef, useSelector } from "@xstate/react"
import type { AccountId } from "../../contracts/ids.ts"
import { ApprovalExpiry, ApprovalMessages } from "../../contracts/remediation-requests.ts"
import { approvalSettingMachine } from "../../machines/approval-setting.machine.ts"
import { AlertBox } from "../ui/alert-box.tsx"
import { Button } from "../ui/button.tsx"
import { Card } from "../ui/card.tsx"
import { Checkbox } from "../ui/checkbox.tsx"
import { Form } from "../ui/form.tsx"
import { TextField } from "../ui/text-field.tsx"
import { effectActor, useNotifyAction } from "../screen-actors.ts"
import { ErrorBox, LoadingBox } from "../scanning/scan-parts.tsx"
import * as scanCss from "../scanning/scanning.css.ts"
import { useApprovalsEnvironment } from "./approvals-effects-context.tsx"
import * as css from "./approvals.css.ts"

function useSettingLogic() {
  const { effects } = useApprovalsEnvironment()
  const notify = useNotifyAction()
  return useMemo(
    () =>
      approvalSettingMachine.provide({
        actors: { loadApprovalSetting: effectActor(effects.loadApprovalSetting), saveApprovalSetting: effectActor(effects.saveApprovalSetting) },
        actions: { notify },
      }),
    [effects, notify],
  )
}

export function ApprovalSettingCard({ accountId }: { readonly accountId: AccountId }) {
  const { clock } = useApprovalsEnvironment()
  const ref = useActorRef(useSettingLogic(), { input: { accountId }, ...(clock === undefined ? {} : { clock }) })
  const loading = useSelector(ref, (s) => s.matches("loading"))
  const failed = useSelector(ref, (s) => s.matches("failed"))
  const saving = useSelector(ref, (s) => s.matches("saving"))
  const loadError = useSelector(ref, (s) => s.context.loadError)
  const draft = useSelector(ref, (s) => s.context.draft)
  const expiryError = useSelector(ref, (s) => s.context.expiryError)
  const saveError = useSelector(ref, (s) => s.context.saveError)
  const canReset = useSelector(ref, (s) => s.can({ type: "approval.reset" }))
  return (
    <Card
      title="Remediation approval"
      level={2}
      aria-label="Remediation approval"
      description="When approval is required, Remediate sends a request that another member who may remediate approves or rejects; nothing runs before approval."
    >
      {loading ? (
        <LoadingBox label="Loading the approval setting" />
      ) : failed ? (
        <ErrorBox
          title={ApprovalMessages.loadSettingFailed}
          message={loadError ?? ApprovalMessages.loadSettingFailed}
          actions={
            <Button variant="secondary" size="sm" onPress={() => ref.send({ type: "approval.retryRequested" })}>
              Try again
            </Button>
          }
        />
      ) : (
        <Form
          validationBehavior="aria"
          aria-label="Approval setting"
          className={css.form}
          onSubmit={(e) => {
            e.preventDefault()
            ref.send({ type: "approval.saveRequested" })
          }}
        >
          {saveError === null ? null : <AlertBox tone="error">{saveError}</AlertBox>}
          <Checkbox isSelected={draft.requires_approval} isDisabled={saving} onChange={(value) => ref.send({ type: "approval.toggled", value })}>
            Require another member&apos;s approval before remediating
          </Checkbox>
          <TextField
            label="Requests expire after (hours)"
            description={`A request nobody approved expires after this many hours: ${ApprovalExpiry.minHours} to ${ApprovalExpiry.maxHours}, ${ApprovalExpiry.defaultHours} by default.`}
            inputMode="numeric"
            autoComplete="off"
            value={draft.expiry_hours}
            isDisabled={saving}
            isInvalid={expiryError !== null}
            {...(expiryError === null ? {} : { errorMessage: expiryError })}
            onChange={(value) => ref.send({ type: "expiry.changed", value })}
          />
          <div className={scanCss.actions}>
            <Button variant="secondary" isDisabled={!canReset || saving} onPress={() => ref.send({ type: "approval.reset" })}>
              Reset
            </Button>
            <Button type="submit" isPending={saving} isDisabled={saving || !canReset}>
              Save approval setting
            </Button>
          </div>
        </Form>
      )}
    </Card>
  )
}
