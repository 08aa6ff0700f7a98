/**
 * /dashboard/settings/account-groups (beyond the spec, issue 31 item 5; docs/permissions.md "Account groups"),
 * rendered from `accountGroupsMachine`; lazy-loaded as its own chunk, for workspace admins only (the permission gate
 * sends anyone else to the dashboard; a limited admin reaching it sees the server's refusal, 'Only workspace admins
 * with access to every account can manage account groups').
 *
 * - 'Account groups': one card per group (by name) with its kind, what defines it (an organisation unit and every unit
 *   below it, a tag, or hand-picked accounts), the accounts it holds now and how many custom roles it limits; Edit and
 *   Delete on each, New group above.
 * - The group dialog: name, kind, and the unit (a picker of every organisation's units), the tag (key, value) or the
 *   accounts (checkboxes); each field's error tied to it, a refusal above the form.
 * - The delete confirmation, which shows a refusal (a group that limits a role is kept: 'This group limits a role;
 *   remove it from the role first').
 */
import { useMemo } from "react"
import { useActorRef, useSelector } from "@xstate/react"
import type { ActorRefFrom } from "xstate"
import { AccountGroupMessages, type AccountGroup, type AccountGroupKind } from "../../contracts/account-groups.ts"
import type { AccountId } from "../../contracts/ids.ts"
import type { AccountChoice } from "../../machines/account-groups-effects.ts"
import { accountGroupsMachine, unitKey } from "../../machines/account-groups.machine.ts"
import { AlertBox } from "../ui/alert-box.tsx"
import { Badge } from "../ui/badge.tsx"
import { Button } from "../ui/button.tsx"
import { Card } from "../ui/card.tsx"
import { Checkbox } from "../ui/checkbox.tsx"
import { Dialog, DialogFooter } from "../ui/dialog.tsx"
import { Form } from "../ui/form.tsx"
import { Select, SelectItem } from "../ui/select.tsx"
import { TextField } from "../ui/text-field.tsx"
import { effectActor, useNotifyAction } from "../screen-actors.ts"
import { ErrorBox, LoadingBox } from "../scanning/scan-parts.tsx"
import * as scanCss from "../scanning/scanning.css.ts"
import { useAccountGroupsEnvironment } from "./account-groups-effects-context.tsx"
import * as css from "./account-groups.css.ts"

type GroupsRef = ActorRefFrom<typeof accountGroupsMachine>

function useAccountGroupsLogic() {
  const { effects } = useAccountGroupsEnvironment()
  const notify = useNotifyAction()
  return useMemo(
    () =>
      accountGroupsMachine.provide({
        actors: {
          loadAccountGroups: effectActor(effects.loadAccountGroups),
          saveAccountGroup: effectActor(effects.saveAccountGroup),
          deleteAccountGroup: effectActor(effects.deleteAccountGroup),
        },
        actions: { notify },
      }),
    [effects, notify],
  )
}

export const KIND_LABELS: { readonly [K in AccountGroupKind]: string } = {
  unit: "Organisation unit",
  tag: "Tag",
  manual: "Hand-picked accounts",
}

const KIND_CHOICES = (Object.keys(KIND_LABELS) as Array<AccountGroupKind>).map((id) => ({ id, name: KIND_LABELS[id] }))

const plural = (n: number, one: string, many: string) => `${n.toLocaleString("en-US")} ${n === 1 ? one : many}`

/** What defines a group, in words. */
export const definitionText = (group: AccountGroup, organizationName: string | undefined): string => {
  if (group.kind === "unit") {
    const where = group.unit_path ?? group.unit_id ?? "an unknown unit"
    return `${organizationName === undefined ? "" : `${organizationName} · `}${where} and every unit below it`
  }
  if (group.kind === "tag") return group.tag_value === null ? `Tag ${group.tag_key} with any value` : `Tag ${group.tag_key} = ${group.tag_value}`
  return `${plural(group.account_ids.length, "account", "accounts")} chosen by hand`
}

const accountLabel = (a: AccountChoice): string => (a.cloudId === null ? a.name : `${a.name} (${a.cloudId})`)

function GroupCard({ groupsRef, group }: { readonly groupsRef: GroupsRef; readonly group: AccountGroup }) {
  const choices = useSelector(groupsRef, (s) => s.context.choices)
  const organizationName = choices.units.find((u) => u.organizationId === group.organization_id)?.organizationName
  const byId = new Map(choices.accounts.map((a) => [a.id as number, a]))
  const held = group.matched_account_ids.map((id) => byId.get(id)?.name ?? `Account ${id}`)
  return (
    <li className={scanCss.itemCard} aria-label={group.name}>
      <div className={scanCss.itemCardHeader}>
        <div className={css.groupTitle}>
          <h3 className={css.groupName}>{group.name}</h3>
          <Badge tone="neutral">{KIND_LABELS[group.kind]}</Badge>
        </div>
        <div className={css.groupActions}>
          <Button variant="secondary" size="sm" aria-label={`Edit ${group.name}`} onPress={() => groupsRef.send({ type: "group.editRequested", id: group.id })}>
            Edit
          </Button>
          <Button variant="secondary" size="sm" aria-label={`Delete ${group.name}`} onPress={() => groupsRef.send({ type: "group.deleteRequested", id: group.id })}>
            Delete
          </Button>
        </div>
      </div>
      <p className={css.note}>{definitionText(group, organizationName)}</p>
      <p className={css.accountNames}>
        {held.length === 0 ? "Holds no account now." : `Holds ${plural(held.length, "account", "accounts")}: ${held.join(", ")}`}
      </p>
      <p className={css.note}>
        {group.role_ids.length === 0 ? "No role is limited to this group." : `Limits ${plural(group.role_ids.length, "custom role", "custom roles")}.`}
      </p>
    </li>
  )
}

function GroupsCard({ groupsRef }: { readonly groupsRef: GroupsRef }) {
  const groups = useSelector(groupsRef, (s) => s.context.groups)
  if (groups === null) return null
  return (
    <Card
      title="Account groups"
      aria-label="Account groups"
      description="A custom role limited to groups sees and acts only on the accounts of those groups. Groups follow the organisation's units and the accounts' tags at every request."
      actions={<Button onPress={() => groupsRef.send({ type: "group.createRequested" })}>New group</Button>}
    >
      {groups.length === 0 ? (
        <p className={css.note}>No account group yet. Create one, then limit a custom role to it.</p>
      ) : (
        <ul className={scanCss.cardList} aria-label="Account groups">
          {groups.map((g) => (
            <GroupCard key={g.id} groupsRef={groupsRef} group={g} />
          ))}
        </ul>
      )}
    </Card>
  )
}

const errorProps = (message: string | undefined) => (message === undefined ? { isInvalid: false } : { isInvalid: true, errorMessage: message })

function GroupForm({ groupsRef }: { readonly groupsRef: GroupsRef }) {
  const values = useSelector(groupsRef, (s) => s.context.values)
  const errors = useSelector(groupsRef, (s) => s.context.fieldErrors)
  const saveError = useSelector(groupsRef, (s) => s.context.saveError)
  const editing = useSelector(groupsRef, (s) => s.context.editingId !== null)
  const choices = useSelector(groupsRef, (s) => s.context.choices)
  const saving = useSelector(groupsRef, (s) => s.matches("saving"))
  const unitItems = choices.units.map((u) => ({ id: unitKey(u.organizationId, u.unitId), name: `${u.organizationName} · ${u.path}` }))
  const title = editing ? "Edit account group" : "New account group"
  return (
    <Dialog
      title={title}
      isOpen
      size="lg"
      onOpenChange={(open) => {
        if (!open && !saving) groupsRef.send({ type: "form.cancelled" })
      }}
      isDismissable={!saving}
      isKeyboardDismissDisabled={saving}
      showCloseButton={!saving}
    >
      <Form
        validationBehavior="aria"
        aria-label={title}
        className={css.form}
        onSubmit={(e) => {
          e.preventDefault()
          groupsRef.send({ type: "form.submitted" })
        }}
      >
        {saveError === null ? null : <AlertBox tone="error">{saveError}</AlertBox>}
        <TextField
          label="Name"
          autoComplete="off"
          value={values.name}
          isDisabled={saving}
          onChange={(value) => groupsRef.send({ type: "field.changed", field: "name", value })}
          {...errorProps(errors["name"])}
        />
        <Select
          label="Kind"
          items={KIND_CHOICES}
          value={values.kind}
          isDisabled={saving}
          onChange={(key) => {
            if (key !== null) groupsRef.send({ type: "field.changed", field: "kind", value: String(key) })
          }}
        >
          {(choice) => <SelectItem id={choice.id}>{choice.name}</SelectItem>}
        </Select>
        {values.kind === "unit" ? (
          unitItems.length === 0 ? (
            <AlertBox tone="info">No organisation is connected yet: connect one to group its units.</AlertBox>
          ) : (
            <Select
              label="Organisation unit"
              description="The group holds the accounts in this unit and in every unit below it, as the organisation's last sync placed them."
              placeholder="Choose a unit"
              items={unitItems}
              value={values.unit === "" ? null : values.unit}
              isDisabled={saving}
              onChange={(key) => {
                if (key !== null) groupsRef.send({ type: "field.changed", field: "unit", value: String(key) })
              }}
              {...errorProps(errors["unit_id"])}
            >
              {(item) => <SelectItem id={item.id}>{item.name}</SelectItem>}
            </Select>
          )
        ) : null}
        {values.kind === "tag" ? (
          <>
            <TextField
              label="Tag key"
              autoComplete="off"
              value={values.tag_key}
              isDisabled={saving}
              onChange={(value) => groupsRef.send({ type: "field.changed", field: "tag_key", value })}
              {...errorProps(errors["tag_key"])}
            />
            <TextField
              label="Tag value"
              description="Leave empty to hold every account carrying the key, whatever its value."
              autoComplete="off"
              value={values.tag_value}
              isDisabled={saving}
              onChange={(value) => groupsRef.send({ type: "field.changed", field: "tag_value", value })}
              {...errorProps(errors["tag_value"])}
            />
          </>
        ) : null}
        {values.kind === "manual" ? (
          <fieldset className={css.picker} aria-describedby={errors["account_ids"] === undefined ? undefined : "account-ids-error"}>
            <legend className={css.legend}>Accounts ({values.account_ids.length.toLocaleString("en-US")} chosen)</legend>
            {choices.accounts.length === 0 ? <p className={css.note}>No account is connected yet.</p> : null}
            {choices.accounts.map((a) => (
              <Checkbox
                key={a.id}
                isSelected={values.account_ids.includes(a.id)}
                isDisabled={saving}
                onChange={() => groupsRef.send({ type: "account.toggled", id: a.id as AccountId })}
              >
                <span className={css.pickerLabel}>
                  <span>{accountLabel(a)}</span>
                  <span className={css.subtle}>{a.provider.toUpperCase()}</span>
                </span>
              </Checkbox>
            ))}
            {errors["account_ids"] === undefined ? null : (
              <p id="account-ids-error" className={css.fieldError}>
                {errors["account_ids"]}
              </p>
            )}
          </fieldset>
        ) : null}
        <DialogFooter>
          <Button variant="secondary" isDisabled={saving} onPress={() => groupsRef.send({ type: "form.cancelled" })}>
            Cancel
          </Button>
          <Button type="submit" isPending={saving} isDisabled={saving}>
            {editing ? "Save group" : "Create group"}
          </Button>
        </DialogFooter>
      </Form>
    </Dialog>
  )
}

function DeleteDialog({ groupsRef }: { readonly groupsRef: GroupsRef }) {
  const group = useSelector(groupsRef, (s) => (s.context.groups ?? []).find((g) => g.id === s.context.deletingId) ?? null)
  const error = useSelector(groupsRef, (s) => s.context.deleteError)
  const deleting = useSelector(groupsRef, (s) => s.matches("deleting"))
  if (group === null) return null
  return (
    <Dialog
      title="Delete account group"
      role="alertdialog"
      size="sm"
      isOpen
      onOpenChange={(open) => {
        if (!open && !deleting) groupsRef.send({ type: "delete.cancelled" })
      }}
      isDismissable={!deleting}
      showCloseButton={!deleting}
    >
      <div className={css.dialogBody}>
        {error === null ? null : <AlertBox tone="error">{error}</AlertBox>}
        <p className={css.accountNames}>
          {`Delete the group ${group.name}? Its accounts are not affected. `}
          {group.role_ids.length > 0
            ? `It limits ${plural(group.role_ids.length, "custom role", "custom roles")}.`
            : "No role is limited to it."}
        </p>
        <DialogFooter>
          <Button variant="secondary" isDisabled={deleting} onPress={() => groupsRef.send({ type: "delete.cancelled" })}>
            Cancel
          </Button>
          <Button variant="danger" isPending={deleting} isDisabled={deleting} onPress={() => groupsRef.send({ type: "delete.confirmed" })}>
            Delete group
          </Button>
        </DialogFooter>
      </div>
    </Dialog>
  )
}

function AccountGroupsBody({ groupsRef }: { readonly groupsRef: GroupsRef }) {
  const loading = useSelector(groupsRef, (s) => s.matches("loading"))
  const failed = useSelector(groupsRef, (s) => s.matches("failed"))
  const error = useSelector(groupsRef, (s) => s.context.loadError)
  const editing = useSelector(groupsRef, (s) => s.matches("editing") || s.matches("saving"))
  const confirming = useSelector(groupsRef, (s) => s.matches("confirmingDelete") || s.matches("deleting"))
  if (loading) return <LoadingBox label="Loading account groups" />
  if (failed) {
    const denied = error === AccountGroupMessages.adminOnly
    return (
      <ErrorBox
        title={denied ? AccountGroupMessages.adminOnly : "Failed to load account groups"}
        message={denied ? "Ask the workspace owner or an admin whose role is not limited." : (error ?? "")}
        {...(denied
          ? {}
          : {
              actions: (
                <Button variant="secondary" size="sm" onPress={() => groupsRef.send({ type: "groups.retryRequested" })}>
                  Try again
                </Button>
              ),
            })}
      />
    )
  }
  return (
    <>
      <GroupsCard groupsRef={groupsRef} />
      {editing ? <GroupForm groupsRef={groupsRef} /> : null}
      {confirming ? <DeleteDialog groupsRef={groupsRef} /> : null}
    </>
  )
}

export function AccountGroupsView() {
  const { clock } = useAccountGroupsEnvironment()
  const groupsRef = useActorRef(useAccountGroupsLogic(), clock === undefined ? {} : { clock })
  return (
    <div className={scanCss.page}>
      <div className={scanCss.titles}>
        <h1 className={scanCss.title}>Account groups</h1>
        <p className={scanCss.subtitle}>Named sets of accounts that a custom role can be limited to.</p>
      </div>
      <AccountGroupsBody groupsRef={groupsRef} />
    </div>
  )
}
