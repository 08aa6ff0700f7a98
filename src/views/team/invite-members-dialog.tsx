/**
 * The 'Invite team members' modal (access §2 "Invite modal"): not dismissed by an outside click; rows of email + role
 * select; a remove button only while there is more than one row; 'Add another invitation' (up to 50), 'Cancel',
 * 'Send invitations'. Renders `inviteMembersMachine`; enablement comes from `snapshot.can`.
 */
import { useSelector } from "@xstate/react"
import type { ActorRefFrom } from "xstate"
import { Limits } from "../../contracts/constants.ts"
import { inviteMembersMachine, rowError, type InviteRow } from "../../machines/invite-members.machine.ts"
import type { RoleWithPermissions } from "../../contracts/workspaces.ts"
import { AlertBox } from "../ui/alert-box.tsx"
import { Button } from "../ui/button.tsx"
import { Dialog } from "../ui/dialog.tsx"
import { Form } from "../ui/form.tsx"
import { TextField } from "../ui/text-field.tsx"
import { RoleSelect } from "./role-select.tsx"
import { PlusIcon, TrashIcon } from "../ui/icons.tsx"
import * as css from "./team.css.ts"

export type InviteMembersRef = ActorRefFrom<typeof inviteMembersMachine>

function InviteRowFields({
  actorRef,
  row,
  index,
  roles,
}: {
  readonly actorRef: InviteMembersRef
  readonly row: InviteRow
  readonly index: number
  readonly roles: ReadonlyArray<RoleWithPermissions>
}) {
  const emailError = useSelector(actorRef, (s) => rowError(s.context.fieldErrors, index, "email"))
  const roleError = useSelector(actorRef, (s) => rowError(s.context.fieldErrors, index, "role_id"))
  const canRemove = useSelector(actorRef, (s) => s.can({ type: "row.removed", key: row.key }))
  const rolesLoading = useSelector(actorRef, (s) => s.matches({ open: { roles: "loading" } }))
  const rolesError = useSelector(actorRef, (s) => s.context.rolesError)
  const showRemove = useSelector(actorRef, (s) => s.context.rows.length > 1)
  return (
    <div className={css.inviteRow} role="group" aria-label={`Invitation ${index + 1}`}>
      <TextField
        label="Email address"
        type="email"
        autoComplete="off"
        placeholder="colleague@company.com"
        value={row.email}
        onChange={(value) => actorRef.send({ type: "row.emailChanged", key: row.key, value })}
        isInvalid={emailError !== undefined}
        {...(emailError === undefined ? {} : { errorMessage: emailError })}
      />
      <RoleSelect
        className={css.inviteRole}
        roles={roles}
        value={row.role_id}
        onChange={(roleId) => actorRef.send({ type: "row.roleSelected", key: row.key, roleId })}
        isLoading={rolesLoading}
        loadError={index === 0 ? rolesError : undefined}
        onRetry={() => actorRef.send({ type: "roles.retryRequested" })}
        errorMessage={roleError}
      />
      <div className={css.removeSlot}>
        {showRemove ? (
          <Button
            variant="ghost"
            size="icon"
            aria-label={`Remove invitation ${index + 1}`}
            isDisabled={!canRemove}
            onPress={() => actorRef.send({ type: "row.removed", key: row.key })}
          >
            <TrashIcon size={16} />
          </Button>
        ) : null}
      </div>
    </div>
  )
}

export function InviteMembersDialog({ actorRef }: { readonly actorRef: InviteMembersRef }) {
  const isOpen = useSelector(actorRef, (s) => s.matches("open"))
  const rows = useSelector(actorRef, (s) => s.context.rows)
  const roles = useSelector(actorRef, (s) => s.context.roles)
  const listError = useSelector(actorRef, (s) => s.context.fieldErrors["invitations"])
  const error = useSelector(actorRef, (s) => s.context.error)
  const sending = useSelector(actorRef, (s) => s.matches({ open: { form: "sending" } }))
  const canAdd = useSelector(actorRef, (s) => s.can({ type: "row.added" }))
  const canClose = useSelector(actorRef, (s) => s.can({ type: "dialog.closed" }))
  if (!isOpen) return null
  return (
    <Dialog
      title="Invite team members"
      size="lg"
      isOpen
      isDismissable={false}
      isKeyboardDismissDisabled={sending}
      showCloseButton={canClose}
      onOpenChange={(open) => {
        if (!open && canClose) actorRef.send({ type: "dialog.closed" })
      }}
    >
      <Form
        validationBehavior="aria"
        aria-label="Invite team members"
        className={css.dialogBody}
        onSubmit={(e) => {
          e.preventDefault()
          actorRef.send({ type: "form.submitted" })
        }}
      >
        <p className={css.dialogText}>
          Each person receives an email with a link to join this workspace with the role you choose (up to {Limits.invitationsMax}{" "}
          at once).
        </p>
        {error === undefined ? null : <AlertBox tone="error">{error}</AlertBox>}
        {listError === undefined ? null : <AlertBox tone="error">{listError}</AlertBox>}
        <div className={css.inviteRows}>
          {rows.map((row, index) => (
            <InviteRowFields key={row.key} actorRef={actorRef} row={row} index={index} roles={roles} />
          ))}
        </div>
        <div className={css.footerSplit}>
          <Button variant="ghost" size="sm" isDisabled={!canAdd} onPress={() => actorRef.send({ type: "row.added" })}>
            <PlusIcon size={16} />
            Add another invitation
          </Button>
          <div className={css.footerEnd}>
            <Button variant="secondary" isDisabled={!canClose} onPress={() => actorRef.send({ type: "dialog.closed" })}>
              Cancel
            </Button>
            <Button type="submit" isPending={sending}>
              Send invitations
            </Button>
          </div>
        </div>
      </Form>
    </Dialog>
  )
}
