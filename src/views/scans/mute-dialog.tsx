/**
 * The Mute dialog of a finding (beyond the spec, issue 13), over a `muteRuleFormMachine` child that starts with the
 * finding's check and, from a row, its resource: what is muted (this resource, or every resource of the check on the
 * account), the reason, an optional expiry date, and Mute (disabled with a tooltip without remediate_findings).
 */
import { useSelector } from "@xstate/react"
import { PostureMessages } from "../../contracts/posture.ts"
import type { MuteRuleFormRef } from "../accounts/mute-rule-form-dialog.tsx"
import { AlertBox } from "../ui/alert-box.tsx"
import { Button } from "../ui/button.tsx"
import { Dialog, DialogFooter } from "../ui/dialog.tsx"
import { Select, SelectItem } from "../ui/select.tsx"
import { Spinner } from "../ui/spinner.tsx"
import { TextField } from "../ui/text-field.tsx"
import { GatedButton } from "../scanning/scan-parts.tsx"
import * as css from "../scanning/scanning.css.ts"

export function MuteDialog({ dialogRef, resourceId, accountName }: {
  readonly dialogRef: MuteRuleFormRef
  /** The row's resource (null: opened for the whole check). */
  readonly resourceId: string | null
  readonly accountName: string
}) {
  const c = useSelector(dialogRef, (s) => s.context)
  const saving = useSelector(dialogRef, (s) => s.matches("saving"))
  const close = () => dialogRef.send({ type: "dialog.closed" })
  const scope = resourceId !== null && c.fields.resource_pattern === resourceId ? "resource" : "check"
  return (
    <Dialog
      title="Mute finding"
      isOpen
      onOpenChange={(open) => {
        if (!open && !saving) close()
      }}
      isDismissable={!saving}
      isKeyboardDismissDisabled={saving}
      showCloseButton={!saving}
    >
      <p className={css.muted}>
        Muted resources stay visible under the "Muted" filter but no longer count as failed, in the account's latest scan
        and the next ones. Earlier scans keep what they reported.
      </p>
      {resourceId === null ? (
        <p>
          Every resource of <span className={css.mono}>{c.fields.check_id}</span> on {accountName}
        </p>
      ) : (
        <Select
          label="Mute"
          selectedKey={scope}
          onSelectionChange={(key) => dialogRef.send({ type: "field.changed", field: "resource_pattern", value: key === "check" ? "" : resourceId })}
        >
          <SelectItem id="resource">{`This resource: ${resourceId}`}</SelectItem>
          <SelectItem id="check">{`Every resource of this check on ${accountName}`}</SelectItem>
        </Select>
      )}
      <TextField
        label="Reason"
        isRequired
        value={c.fields.reason}
        maxLength={500}
        onChange={(value) => dialogRef.send({ type: "field.changed", field: "reason", value })}
        isInvalid={(c.fieldErrors.reason ?? "") !== ""}
        errorMessage={c.fieldErrors.reason ?? ""}
        description="Why the risk is accepted; kept with the rule and in the audit log."
      />
      <TextField
        label="Expires on"
        type="date"
        value={c.fields.expiry}
        onChange={(value) => dialogRef.send({ type: "field.changed", field: "expiry", value })}
        isInvalid={(c.fieldErrors.expiry ?? "") !== ""}
        errorMessage={c.fieldErrors.expiry ?? ""}
        description="Leave empty to mute until the rule is deleted."
      />
      {c.error === null ? null : <AlertBox tone="error" title={c.error} />}
      <DialogFooter>
        <Button variant="secondary" onPress={close} isDisabled={saving}>
          Cancel
        </Button>
        <GatedButton
          allowed={c.canMute}
          tooltip={PostureMessages.mutePermissionDenied}
          isDisabled={saving}
          onBlockedPress={() => dialogRef.send({ type: "rule.submitted" })}
          onPress={() => dialogRef.send({ type: "rule.submitted" })}
        >
          {saving ? <Spinner size="sm" tone="inherit" aria-label="Muting" /> : null}
          Mute
        </GatedButton>
      </DialogFooter>
    </Dialog>
  )
}
