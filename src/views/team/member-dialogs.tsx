/**
 * The team-member dialogs (access §2 "Modals"): add (single, direct creation), edit / change role, and the delete
 * confirmation ('Confirm deletion', 'Delete team member' with the member's email and the spec's sentence). The add and
 * edit dialogs render the team machine's `addMember` / `editMember` children; none can be dismissed while saving.
 */
import { useSelector } from "@xstate/react"
import type { ActorRefFrom } from "xstate"
import type { addMemberMachine } from "../../machines/add-member.machine.ts"
import type { editMemberMachine } from "../../machines/edit-member.machine.ts"
import { AlertBox } from "../ui/alert-box.tsx"
import { Button } from "../ui/button.tsx"
import { Dialog, DialogFooter } from "../ui/dialog.tsx"
import { Form } from "../ui/form.tsx"
import { PasswordField } from "../ui/password-field.tsx"
import { TextField } from "../ui/text-field.tsx"
import { RoleSelect } from "./role-select.tsx"
import type { TeamMembersRef } from "./team-members-card.tsx"
import * as css from "./team.css.ts"

type AddMemberRef = ActorRefFrom<typeof addMemberMachine>
type EditMemberRef = ActorRefFrom<typeof editMemberMachine>

/** Access §2 delete confirmation sentence. */
export const DELETE_MEMBER_SENTENCE =
  "Are you sure you want to delete this team member? This action cannot be undone. The user will lose access to your workspace."

const errorProps = (message: string | undefined) =>
  message === undefined ? { isInvalid: false } : { isInvalid: true, errorMessage: message }

function AddMemberForm({ actorRef }: { readonly actorRef: AddMemberRef }) {
  const values = useSelector(actorRef, (s) => s.context.values)
  const errors = useSelector(actorRef, (s) => s.context.fieldErrors)
  const error = useSelector(actorRef, (s) => s.context.error)
  const roles = useSelector(actorRef, (s) => s.context.roles)
  const rolesLoading = useSelector(actorRef, (s) => s.matches({ open: { roles: "loading" } }))
  const rolesError = useSelector(actorRef, (s) => s.context.rolesError)
  const saving = useSelector(actorRef, (s) => s.matches({ open: { form: "saving" } }))
  const canClose = useSelector(actorRef, (s) => s.can({ type: "dialog.closed" }))
  return (
    <Dialog
      title="Add new team member"
      isOpen
      onOpenChange={(open) => {
        if (!open && canClose) actorRef.send({ type: "dialog.closed" })
      }}
      isDismissable={!saving}
      isKeyboardDismissDisabled={saving}
      showCloseButton={!saving}
    >
      <Form
        validationBehavior="aria"
        aria-label="Add new team member"
        className={css.dialogBody}
        onSubmit={(e) => {
          e.preventDefault()
          actorRef.send({ type: "form.submitted" })
        }}
      >
        {error === undefined ? null : <AlertBox tone="error">{error}</AlertBox>}
        <div className={css.twoColumns}>
          <TextField
            label="First name"
            autoComplete="off"
            value={values.first_name}
            onChange={(value) => actorRef.send({ type: "field.changed", field: "first_name", value })}
            {...errorProps(errors["first_name"])}
          />
          <TextField
            label="Last name"
            autoComplete="off"
            value={values.last_name}
            onChange={(value) => actorRef.send({ type: "field.changed", field: "last_name", value })}
            {...errorProps(errors["last_name"])}
          />
        </div>
        <TextField
          label="Email address"
          type="email"
          autoComplete="off"
          value={values.email}
          onChange={(value) => actorRef.send({ type: "field.changed", field: "email", value })}
          {...errorProps(errors["email"])}
        />
        <PasswordField
          label="Password"
          autoComplete="new-password"
          description="min. 8 characters"
          value={values.password}
          onChange={(value) => actorRef.send({ type: "field.changed", field: "password", value })}
          {...errorProps(errors["password"])}
        />
        <RoleSelect
          roles={roles}
          value={values.role_id}
          onChange={(roleId) => actorRef.send({ type: "role.selected", roleId })}
          isLoading={rolesLoading}
          loadError={rolesError}
          onRetry={() => actorRef.send({ type: "roles.retryRequested" })}
          errorMessage={errors["role_id"]}
        />
        <DialogFooter>
          <Button variant="secondary" isDisabled={!canClose} onPress={() => actorRef.send({ type: "dialog.closed" })}>
            Cancel
          </Button>
          <Button type="submit" isPending={saving}>
            Add member
          </Button>
        </DialogFooter>
      </Form>
    </Dialog>
  )
}

function EditMemberForm({ actorRef }: { readonly actorRef: EditMemberRef }) {
  const member = useSelector(actorRef, (s) => s.context.member)
  const mode = useSelector(actorRef, (s) => s.context.mode)
  const roleEditable = useSelector(actorRef, (s) => s.context.roleEditable)
  const values = useSelector(actorRef, (s) => s.context.values)
  const errors = useSelector(actorRef, (s) => s.context.fieldErrors)
  const error = useSelector(actorRef, (s) => s.context.error)
  const roles = useSelector(actorRef, (s) => s.context.roles)
  const rolesLoading = useSelector(actorRef, (s) => s.matches({ open: { roles: "loading" } }))
  const rolesError = useSelector(actorRef, (s) => s.context.rolesError)
  const saving = useSelector(actorRef, (s) => s.matches({ open: { form: "saving" } }))
  const canClose = useSelector(actorRef, (s) => s.can({ type: "dialog.closed" }))
  const title = mode === "role" ? "Change role" : "Edit team member"
  // Access §2: the role select is hidden for the owner; for everyone else only the owner may change it.
  const showRole = !member.is_owner
  return (
    <Dialog
      title={title}
      isOpen
      onOpenChange={(open) => {
        if (!open && canClose) actorRef.send({ type: "dialog.closed" })
      }}
      isDismissable={!saving}
      isKeyboardDismissDisabled={saving}
      showCloseButton={!saving}
    >
      <Form
        validationBehavior="aria"
        aria-label={title}
        className={css.dialogBody}
        onSubmit={(e) => {
          e.preventDefault()
          actorRef.send({ type: "form.submitted" })
        }}
      >
        {error === undefined ? null : <AlertBox tone="error">{error}</AlertBox>}
        {mode === "role" ? (
          <p className={css.dialogText}>
            Choose the role of <strong>{member.email}</strong> in this workspace.
          </p>
        ) : (
          <>
            <div className={css.twoColumns}>
              <TextField
                label="First name"
                autoComplete="off"
                value={values.first_name}
                onChange={(value) => actorRef.send({ type: "field.changed", field: "first_name", value })}
                {...errorProps(errors["first_name"])}
              />
              <TextField
                label="Last name"
                autoComplete="off"
                value={values.last_name}
                onChange={(value) => actorRef.send({ type: "field.changed", field: "last_name", value })}
                {...errorProps(errors["last_name"])}
              />
            </div>
            <TextField label="Email address" value={member.email} isReadOnly description="The email address cannot be changed." />
          </>
        )}
        {showRole ? (
          <RoleSelect
            roles={roles}
            value={values.role_id}
            onChange={(roleId) => actorRef.send({ type: "role.selected", roleId })}
            isLoading={rolesLoading}
            loadError={rolesError}
            onRetry={() => actorRef.send({ type: "roles.retryRequested" })}
            errorMessage={errors["role_id"]}
            isDisabled={!roleEditable}
            {...(roleEditable ? {} : { description: "Only the workspace owner can change roles." })}
          />
        ) : null}
        <DialogFooter>
          <Button variant="secondary" isDisabled={!canClose} onPress={() => actorRef.send({ type: "dialog.closed" })}>
            Cancel
          </Button>
          <Button type="submit" isPending={saving}>
            {mode === "role" ? "Change role" : "Save changes"}
          </Button>
        </DialogFooter>
      </Form>
    </Dialog>
  )
}

/** The add / edit dialogs and the delete confirmation of the team card, as the team machine's `dialog` region says. */
export function MemberDialogs({ teamRef }: { readonly teamRef: TeamMembersRef }) {
  const addRef = useSelector(teamRef, (s) => s.children["addMember"] as AddMemberRef | undefined)
  const editRef = useSelector(teamRef, (s) => s.children["editMember"] as EditMemberRef | undefined)
  const candidate = useSelector(teamRef, (s) => (s.matches({ dialog: "confirmingDelete" }) ? s.context.deleteCandidate : null))
  return (
    <>
      {addRef === undefined ? null : <AddMemberForm actorRef={addRef} />}
      {editRef === undefined ? null : <EditMemberForm key={editRef.id} actorRef={editRef} />}
      {candidate === null ? null : (
        <Dialog
          title="Confirm deletion"
          role="alertdialog"
          size="sm"
          isOpen
          onOpenChange={(open) => {
            if (!open) teamRef.send({ type: "delete.cancelled" })
          }}
        >
          <div className={css.dialogBody}>
            <div className={css.deleteTarget}>
              <span className={css.deleteTargetTitle}>Delete team member</span>
              <span>{candidate.email}</span>
            </div>
            <p className={css.dialogText}>{DELETE_MEMBER_SENTENCE}</p>
            <DialogFooter>
              <Button variant="secondary" onPress={() => teamRef.send({ type: "delete.cancelled" })}>
                Cancel
              </Button>
              <Button variant="danger" onPress={() => teamRef.send({ type: "delete.confirmed" })}>
                Delete
              </Button>
            </DialogFooter>
          </div>
        </Dialog>
      )}
    </>
  )
}
