/**
 * The team page's Custom roles card (beyond the spec: custom roles; issue 31 item 5 "limited to groups"), rendered
 * from `customRolesMachine`: each custom role with its permissions and the accounts it reaches (every account, or the
 * accounts of the groups it is limited to), and the dialog that creates and edits a role, with the access choice
 * ('Every account' or 'Only the accounts of these groups') offered to whoever may read the account groups (an admin not
 * limited to groups; anyone else keeps a role's limit as it is). Deleting asks first and shows a refusal.
 */
import { useMemo } from "react"
import { useActorRef, useSelector } from "@xstate/react"
import { Label, Radio, RadioGroup } from "react-aria-components"
import type { ActorRefFrom } from "xstate"
import type { AccountGroupId } from "../../contracts/account-groups.ts"
import { PERMISSIONS, type PermissionName } from "../../contracts/permissions.ts"
import type { RoleWithPermissions } from "../../contracts/workspaces.ts"
import { customRolesMachine, NO_GROUP_WARNING } from "../../machines/custom-roles.machine.ts"
import { useAccountGroupsEnvironment } from "../account-groups/account-groups-effects-context.tsx"
import * as choiceCss from "../accounts/dashboard.css.ts"
import * as groupCss from "../account-groups/account-groups.css.ts"
import { AlertBox } from "../ui/alert-box.tsx"
import { Badge } from "../ui/badge.tsx"
import { Button } from "../ui/button.tsx"
import { Card } from "../ui/card.tsx"
import { Checkbox } from "../ui/checkbox.tsx"
import { Dialog, DialogFooter } from "../ui/dialog.tsx"
import { Form } from "../ui/form.tsx"
import { TextField } from "../ui/text-field.tsx"
import { effectActor, useNotifyAction } from "../screen-actors.ts"
import { ErrorBox, LoadingBox } from "../scanning/scan-parts.tsx"
import * as scanCss from "../scanning/scanning.css.ts"
import { useTeamActorOptions } from "./team-effects-context.tsx"

type RolesRef = ActorRefFrom<typeof customRolesMachine>

function useCustomRolesLogic() {
  const { effects } = useAccountGroupsEnvironment()
  const notify = useNotifyAction()
  return useMemo(
    () =>
      customRolesMachine.provide({
        actors: {
          loadCustomRoles: effectActor(effects.loadCustomRoles),
          saveCustomRole: effectActor(effects.saveCustomRole),
          deleteCustomRole: effectActor(effects.deleteCustomRole),
        },
        actions: { notify },
      }),
    [effects, notify],
  )
}

const permissionText = (name: string) => name.replace(/_/g, " ")

/** The accounts a role reaches, in words. */
export const accessText = (role: RoleWithPermissions, groups: ReadonlyArray<{ readonly id: number; readonly name: string }> | null): string => {
  const ids = role.account_group_ids
  if (ids === undefined || ids === null) return "Every account"
  if (ids.length === 0) return "No account (limited to no group)"
  const names = ids.map((id) => groups?.find((g) => g.id === id)?.name ?? `group ${id}`)
  return `Only the accounts of ${names.join(", ")}`
}

function RoleItem({ rolesRef, role }: { readonly rolesRef: RolesRef; readonly role: RoleWithPermissions }) {
  const groups = useSelector(rolesRef, (s) => s.context.groups)
  const limited = role.account_group_ids !== undefined && role.account_group_ids !== null
  return (
    <li className={scanCss.itemCard} aria-label={role.name}>
      <div className={scanCss.itemCardHeader}>
        <div className={groupCss.groupTitle}>
          <h3 className={groupCss.groupName}>{role.name}</h3>
          {limited ? <Badge tone="warning">Limited to groups</Badge> : null}
        </div>
        <div className={groupCss.groupActions}>
          <Button variant="secondary" size="sm" aria-label={`Edit ${role.name}`} onPress={() => rolesRef.send({ type: "role.editRequested", id: role.id })}>
            Edit
          </Button>
          <Button variant="secondary" size="sm" aria-label={`Delete ${role.name}`} onPress={() => rolesRef.send({ type: "role.deleteRequested", id: role.id })}>
            Delete
          </Button>
        </div>
      </div>
      <p className={groupCss.accountNames}>{`Permissions: ${role.permissions.map((p) => permissionText(p.name)).join(", ")}`}</p>
      <p className={groupCss.note}>{`Accounts: ${accessText(role, groups)}`}</p>
    </li>
  )
}

function RoleForm({ rolesRef }: { readonly rolesRef: RolesRef }) {
  const values = useSelector(rolesRef, (s) => s.context.values)
  const errors = useSelector(rolesRef, (s) => s.context.fieldErrors)
  const saveError = useSelector(rolesRef, (s) => s.context.saveError)
  const editing = useSelector(rolesRef, (s) => s.context.editingId !== null)
  const groups = useSelector(rolesRef, (s) => s.context.groups)
  const saving = useSelector(rolesRef, (s) => s.matches("saving"))
  const title = editing ? "Edit custom role" : "New custom role"
  const errorProps = (m: string | undefined) => (m === undefined ? { isInvalid: false } : { isInvalid: true, errorMessage: m })
  return (
    <Dialog
      title={title}
      isOpen
      size="lg"
      onOpenChange={(open) => {
        if (!open && !saving) rolesRef.send({ type: "form.cancelled" })
      }}
      isDismissable={!saving}
      isKeyboardDismissDisabled={saving}
      showCloseButton={!saving}
    >
      <Form
        validationBehavior="aria"
        aria-label={title}
        className={groupCss.form}
        onSubmit={(e) => {
          e.preventDefault()
          rolesRef.send({ type: "form.submitted" })
        }}
      >
        {saveError === null ? null : <AlertBox tone="error">{saveError}</AlertBox>}
        <TextField label="Role name" autoComplete="off" value={values.name} isDisabled={saving} onChange={(value) => rolesRef.send({ type: "field.changed", field: "name", value })} {...errorProps(errors["name"])} />
        <TextField label="Description" autoComplete="off" value={values.description} isDisabled={saving} onChange={(value) => rolesRef.send({ type: "field.changed", field: "description", value })} {...errorProps(errors["description"])} />
        <fieldset className={groupCss.picker} aria-describedby={errors["permissions"] === undefined ? undefined : "role-permissions-error"}>
          <legend className={groupCss.legend}>Permissions</legend>
          {PERMISSIONS.map((p: PermissionName) => (
            <Checkbox key={p} isSelected={values.permissions.includes(p)} isDisabled={saving} onChange={() => rolesRef.send({ type: "permission.toggled", permission: p })}>
              {permissionText(p)}
            </Checkbox>
          ))}
          {errors["permissions"] === undefined ? null : (
            <p id="role-permissions-error" className={groupCss.fieldError}>
              {errors["permissions"]}
            </p>
          )}
        </fieldset>
        {groups === null ? (
          <p className={groupCss.note}>Only workspace admins with access to every account can limit a role to account groups; the role keeps its accounts.</p>
        ) : (
          <>
            <RadioGroup
              className={choiceCss.methodGroup}
              value={values.limited ? "limited" : "all"}
              isDisabled={saving}
              orientation="horizontal"
              onChange={(v) => rolesRef.send({ type: "access.changed", limited: v === "limited" })}
            >
              <Label className={choiceCss.methodLabel}>Accounts</Label>
              <div className={choiceCss.methodOptions}>
                <Radio value="all" className={choiceCss.methodOption}>
                  Every account
                </Radio>
                <Radio value="limited" className={choiceCss.methodOption}>
                  Only the accounts of these groups
                </Radio>
              </div>
            </RadioGroup>
            {values.limited ? (
              <fieldset className={groupCss.picker}>
                <legend className={groupCss.legend}>Account groups</legend>
                {groups.length === 0 ? <p className={groupCss.note}>No account group yet: create one on the Account groups page.</p> : null}
                {groups.map((g) => (
                  <Checkbox key={g.id} isSelected={values.groupIds.includes(g.id as AccountGroupId)} isDisabled={saving} onChange={() => rolesRef.send({ type: "group.toggled", id: g.id as AccountGroupId })}>
                    {g.name}
                  </Checkbox>
                ))}
                {values.groupIds.length === 0 ? <p className={groupCss.note}>{NO_GROUP_WARNING}</p> : null}
              </fieldset>
            ) : null}
          </>
        )}
        <DialogFooter>
          <Button variant="secondary" isDisabled={saving} onPress={() => rolesRef.send({ type: "form.cancelled" })}>
            Cancel
          </Button>
          <Button type="submit" isPending={saving} isDisabled={saving}>
            {editing ? "Save role" : "Create role"}
          </Button>
        </DialogFooter>
      </Form>
    </Dialog>
  )
}

function DeleteRoleDialog({ rolesRef }: { readonly rolesRef: RolesRef }) {
  const role = useSelector(rolesRef, (s) => (s.context.roles ?? []).find((r) => r.id === s.context.deletingId) ?? null)
  const error = useSelector(rolesRef, (s) => s.context.deleteError)
  const deleting = useSelector(rolesRef, (s) => s.matches("deleting"))
  if (role === null) return null
  return (
    <Dialog
      title="Delete custom role"
      role="alertdialog"
      size="sm"
      isOpen
      onOpenChange={(open) => {
        if (!open && !deleting) rolesRef.send({ type: "delete.cancelled" })
      }}
      isDismissable={!deleting}
      showCloseButton={!deleting}
    >
      <div className={groupCss.dialogBody}>
        {error === null ? null : <AlertBox tone="error">{error}</AlertBox>}
        <p className={groupCss.accountNames}>{`Delete the role ${role.name}?`}</p>
        <DialogFooter>
          <Button variant="secondary" isDisabled={deleting} onPress={() => rolesRef.send({ type: "delete.cancelled" })}>
            Cancel
          </Button>
          <Button variant="danger" isPending={deleting} isDisabled={deleting} onPress={() => rolesRef.send({ type: "delete.confirmed" })}>
            Delete role
          </Button>
        </DialogFooter>
      </div>
    </Dialog>
  )
}

export function CustomRolesCard() {
  const options = useTeamActorOptions()
  const rolesRef = useActorRef(useCustomRolesLogic(), options)
  const loading = useSelector(rolesRef, (s) => s.matches("loading"))
  const failed = useSelector(rolesRef, (s) => s.matches("failed"))
  const error = useSelector(rolesRef, (s) => s.context.loadError)
  const roles = useSelector(rolesRef, (s) => s.context.roles)
  const editing = useSelector(rolesRef, (s) => s.matches("editing") || s.matches("saving"))
  const confirming = useSelector(rolesRef, (s) => s.matches("confirmingDelete") || s.matches("deleting"))
  return (
    <Card
      title="Custom roles"
      aria-label="Custom roles"
      description="Roles of your own: a set of permissions, for every account or only the accounts of chosen account groups."
      actions={<Button onPress={() => rolesRef.send({ type: "role.createRequested" })} isDisabled={roles === null}>New custom role</Button>}
    >
      {loading ? <LoadingBox label="Loading custom roles" /> : null}
      {failed ? (
        <ErrorBox
          title="Custom roles could not be loaded"
          message={error ?? ""}
          actions={<Button variant="secondary" size="sm" onPress={() => rolesRef.send({ type: "roles.retryRequested" })}>Retry custom roles</Button>}
        />
      ) : null}
      {roles === null ? null : roles.length === 0 ? (
        <p className={groupCss.note}>No custom role yet.</p>
      ) : (
        <ul className={scanCss.cardList} aria-label="Custom roles">
          {roles.map((r) => (
            <RoleItem key={r.id} rolesRef={rolesRef} role={r} />
          ))}
        </ul>
      )}
      {editing ? <RoleForm rolesRef={rolesRef} /> : null}
      {confirming ? <DeleteRoleDialog rolesRef={rolesRef} /> : null}
    </Card>
  )
}
