/**
 * The account page's Add mute rule / Edit dialog (beyond the spec, issue 13), over a `muteRuleFormMachine` child: a rule
 * on this account narrowed by a check id, a resource pattern and a tag, with its reason and optional expiry.
 */
import { useSelector } from "@xstate/react"
import type { ActorRefFrom } from "xstate"
import { PostureMessages } from "../../contracts/posture.ts"
import type { muteRuleFormMachine, MuteRuleFields } from "../../machines/mute-rule-form.machine.ts"
import { AlertBox } from "../ui/alert-box.tsx"
import { Button } from "../ui/button.tsx"
import { Dialog, DialogFooter } from "../ui/dialog.tsx"
import { TextField } from "../ui/text-field.tsx"
import { GatedButton } from "../scanning/scan-parts.tsx"
import * as shared from "../scanning/scanning.css.ts"

export type MuteRuleFormRef = ActorRefFrom<typeof muteRuleFormMachine>

const FIELDS: ReadonlyArray<{ readonly key: keyof MuteRuleFields; readonly label: string; readonly description?: string; readonly type?: string; readonly required?: boolean }> = [
  { key: "check_id", label: "Check id", description: "e.g. s3_bucket_versioning_enabled; empty: every check" },
  { key: "resource_pattern", label: "Resource pattern", description: "A resource id or ARN, or a pattern with * and ?; empty: every resource" },
  { key: "tag_key", label: "Tag key", description: "Resources carrying this tag; empty: any" },
  { key: "tag_value", label: "Tag value", description: "With a tag key: only this value" },
  { key: "reason", label: "Reason", required: true, description: "Why the risk is accepted; kept with the rule and in the audit log." },
  { key: "expiry", label: "Expires on", type: "date", description: "Empty: until the rule is deleted." },
]

export function MuteRuleFormDialog({ dialogRef, accountName }: { readonly dialogRef: MuteRuleFormRef; readonly accountName: string }) {
  const c = useSelector(dialogRef, (s) => s.context)
  const saving = useSelector(dialogRef, (s) => s.matches("saving"))
  const close = () => dialogRef.send({ type: "dialog.closed" })
  return (
    <Dialog
      title={c.rule === null ? "Add mute rule" : "Edit mute rule"}
      isOpen
      onOpenChange={(open) => {
        if (!open && !saving) close()
      }}
      isDismissable={!saving}
      isKeyboardDismissDisabled={saving}
      showCloseButton={!saving}
    >
      <p className={shared.muted}>{`Mutes the failing resources of ${accountName} that match every field you fill in.`}</p>
      {FIELDS.map((f) => (
        <TextField
          key={f.key}
          label={f.label}
          {...(f.type === undefined ? {} : { type: f.type })}
          {...(f.description === undefined ? {} : { description: f.description })}
          isRequired={f.required === true}
          value={c.fields[f.key]}
          onChange={(value) => dialogRef.send({ type: "field.changed", field: f.key, value })}
          isInvalid={(c.fieldErrors[f.key] ?? "") !== ""}
          errorMessage={c.fieldErrors[f.key] ?? ""}
        />
      ))}
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
          {c.rule === null ? "Add rule" : "Save rule"}
        </GatedButton>
      </DialogFooter>
    </Dialog>
  )
}
