/**
 * The Mute dialog of a finding (beyond the spec, issue 13), over a `muteRuleMachine` child: what is muted (this
 * resource, or the whole check on the account), the reason, an optional expiry date, and Mute (disabled with a
 * tooltip without remediate_findings).
 */
import { useSelector } from "@xstate/react"
import type { ActorRefFrom } from "xstate"
import { PostureMessages } from "../../contracts/posture.ts"
import type { muteRuleMachine } from "../../machines/mute-rule.machine.ts"
import { AlertBox } from "../ui/alert-box.tsx"
import { Button } from "../ui/button.tsx"
import { Dialog, DialogFooter } from "../ui/dialog.tsx"
import { Select, SelectItem } from "../ui/select.tsx"
import { Spinner } from "../ui/spinner.tsx"
import { TextField } from "../ui/text-field.tsx"
import { GatedButton } from "../scanning/scan-parts.tsx"
import * as css from "../scanning/scanning.css.ts"

export type MuteRef = ActorRefFrom<typeof muteRuleMachine>

export function MuteDialog({ dialogRef }: { readonly dialogRef: MuteRef }) {
  const c = useSelector(dialogRef, (s) => s.context)
  const saving = useSelector(dialogRef, (s) => s.matches("saving"))
  const close = () => dialogRef.send({ type: "dialog.closed" })
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
        Muted resources stay visible under the "Muted" filter but no longer count as failed, in this scan and the next ones.
      </p>
      {c.resourceId === null ? null : (
        <Select
          label="Mute"
          selectedKey={c.scope}
          onSelectionChange={(key) => dialogRef.send({ type: "scope.changed", scope: key === "check" ? "check" : "resource" })}
        >
          <SelectItem id="resource">{`This resource: ${c.resourceId}`}</SelectItem>
          <SelectItem id="check">{`Every resource of this check on ${c.accountName}`}</SelectItem>
        </Select>
      )}
      {c.resourceId === null ? (
        <p>
          Every resource of <span className={css.mono}>{c.checkId}</span> on {c.accountName}
        </p>
      ) : null}
      <TextField
        label="Reason"
        isRequired
        value={c.reason}
        maxLength={500}
        onChange={(value) => dialogRef.send({ type: "reason.changed", value })}
        isInvalid={(c.fieldErrors["reason"] ?? "") !== ""}
        errorMessage={c.fieldErrors["reason"] ?? ""}
        description="Why the risk is accepted; kept with the rule and in the audit log."
      />
      <TextField
        label="Expires on"
        type="date"
        value={c.expiry}
        onChange={(value) => dialogRef.send({ type: "expiry.changed", value })}
        isInvalid={(c.fieldErrors["expires_at"] ?? "") !== ""}
        errorMessage={c.fieldErrors["expires_at"] ?? ""}
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
          onBlockedPress={() => dialogRef.send({ type: "mute.submitted" })}
          onPress={() => dialogRef.send({ type: "mute.submitted" })}
        >
          {saving ? <Spinner size="sm" tone="inherit" aria-label="Muting" /> : null}
          Mute
        </GatedButton>
      </DialogFooter>
    </Dialog>
  )
}
