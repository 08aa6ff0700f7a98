/**
 * /dashboard/profile (access §2 "Profile Settings"): 'Profile Settings', 'Manage your personal information and account
 * settings.', the personal-information form (`profileMachine`) and the change-password form
 * (`changePasswordMachine`), each confirmed in a dialog before anything is sent.
 */
import { useActorRef, useSelector } from "@xstate/react"
import { useEffect, useRef } from "react"
import type { ActorRefFrom } from "xstate"
import type { Timezone } from "../../contracts/auth.ts"
import type { ProfileField } from "../../contracts/profile.ts"
import type { changePasswordMachine, PasswordField } from "../../machines/change-password.machine.ts"
import { profileChanges, type profileMachine } from "../../machines/profile.machine.ts"
import { AlertBox } from "../ui/alert-box.tsx"
import { Button } from "../ui/button.tsx"
import { Card } from "../ui/card.tsx"
import { Dialog, DialogFooter } from "../ui/dialog.tsx"
import { Form } from "../ui/form.tsx"
import { PasswordField as PasswordInput } from "../ui/password-field.tsx"
import { Select, SelectItem } from "../ui/select.tsx"
import { Spinner } from "../ui/spinner.tsx"
import { TextField } from "../ui/text-field.tsx"
import { ArrowRightIcon } from "../ui/icons.tsx"
import { timezoneText } from "../team/team-format.ts"
import { useProfileActorOptions } from "./profile-effects-context.tsx"
import { useChangePasswordLogic, useProfileLogic } from "./profile-logic.ts"
import * as css from "./profile.css.ts"
import { DigestCard } from "./digest-card.tsx"

type ProfileRef = ActorRefFrom<typeof profileMachine>
type PasswordRef = ActorRefFrom<typeof changePasswordMachine>

const errorProps = (message: string | undefined) =>
  message === undefined ? { isInvalid: false } : { isInvalid: true, errorMessage: message }

/**
 * Ctrl+Enter (Cmd+Enter on a Mac) confirms an open dialog (access §2). Listened to on the document in the capture
 * phase, so it works wherever the focus is inside the dialog (the dialog itself when it opens, or a focused Cancel
 * button, which must not take the key as its own press).
 */
function useConfirmShortcut(active: boolean, confirm: () => void) {
  const latest = useRef(confirm)
  latest.current = confirm
  useEffect(() => {
    if (!active) return
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
        event.preventDefault()
        event.stopPropagation()
        latest.current()
      }
    }
    document.addEventListener("keydown", onKeyDown, true)
    return () => document.removeEventListener("keydown", onKeyDown, true)
  }, [active])
}

const timezoneDisplay = (value: string, zones: ReadonlyArray<Timezone>): string => {
  if (value === "") return ""
  const zone = zones.find((z) => z.value === value)
  return zone === undefined ? value : timezoneText(zone)
}

function ChangeValue({ value }: { readonly value: string }) {
  return value === "" ? <span className={css.emptyValue}>(empty)</span> : <>{value}</>
}

function ConfirmProfileDialog({ actorRef }: { readonly actorRef: ProfileRef }) {
  const open = useSelector(actorRef, (s) => s.matches({ profile: "confirming" }) || s.matches({ profile: "saving" }))
  const saving = useSelector(actorRef, (s) => s.matches({ profile: "saving" }))
  const changes = useSelector(actorRef, (s) => (open ? profileChanges(s.context) : []))
  const zones = useSelector(actorRef, (s) => s.context.timezones)
  const canCancel = useSelector(actorRef, (s) => s.can({ type: "confirm.cancelled" }))
  const canConfirm = useSelector(actorRef, (s) => s.can({ type: "confirm.accepted" }))
  const confirm = () => {
    if (canConfirm) actorRef.send({ type: "confirm.accepted" })
  }
  useConfirmShortcut(open, confirm)
  if (!open) return null
  const shown = (field: ProfileField, value: string) => (field === "timezone" ? timezoneDisplay(value, zones) : value)
  return (
    <Dialog
      title="Confirm profile update"
      isOpen
      onOpenChange={(isOpen) => {
        if (!isOpen && canCancel) actorRef.send({ type: "confirm.cancelled" })
      }}
      isDismissable={canCancel}
      isKeyboardDismissDisabled={!canCancel}
      showCloseButton={canCancel}
    >
      <div className={css.dialogBody}>
        <p className={css.dialogText}>Please review the changes to your profile:</p>
        <ul className={css.changes} aria-label="Changed fields">
          {changes.map((c) => (
            <li key={c.field} className={css.change}>
              <span className={css.changeLabel}>{c.label}</span>
              <span className={css.changeValues}>
                <span className={css.oldValue}>
                  <ChangeValue value={shown(c.field, c.from)} />
                </span>
                <ArrowRightIcon size={14} className={css.arrow} title="changes to" />
                <span className={css.newValue}>
                  <ChangeValue value={shown(c.field, c.to)} />
                </span>
              </span>
            </li>
          ))}
        </ul>
        <p className={css.shortcut}>
          Press <kbd className={css.kbd}>Ctrl</kbd> + <kbd className={css.kbd}>Enter</kbd> to confirm.
        </p>
        <DialogFooter>
          <Button variant="secondary" isDisabled={!canCancel} onPress={() => actorRef.send({ type: "confirm.cancelled" })}>
            Cancel
          </Button>
          <Button isPending={saving} onPress={confirm}>
            Update profile
          </Button>
        </DialogFooter>
      </div>
    </Dialog>
  )
}

function PersonalInformationCard({ actorRef }: { readonly actorRef: ProfileRef }) {
  const loading = useSelector(actorRef, (s) => s.matches({ profile: "loading" }))
  const loadError = useSelector(actorRef, (s) => (s.matches({ profile: "failed" }) ? s.context.loadError : undefined))
  const values = useSelector(actorRef, (s) => s.context.values)
  const original = useSelector(actorRef, (s) => s.context.original)
  const errors = useSelector(actorRef, (s) => s.context.fieldErrors)
  const error = useSelector(actorRef, (s) => s.context.error)
  const notice = useSelector(actorRef, (s) => s.context.notice)
  const zones = useSelector(actorRef, (s) => s.context.timezones)
  const zonesLoading = useSelector(actorRef, (s) => s.matches({ timezones: "loading" }))
  const zonesError = useSelector(actorRef, (s) => s.context.timezonesError)
  const canSave = useSelector(actorRef, (s) => s.can({ type: "form.submitted" }))
  const canReset = useSelector(actorRef, (s) => s.can({ type: "form.reset" }))
  const editable = useSelector(actorRef, (s) => s.matches({ profile: "editing" }))
  const change = (field: ProfileField) => (value: string) => actorRef.send({ type: "field.changed", field, value })
  const current = timezoneDisplay(original.timezone, zones)
  return (
    <Card title="Personal information" description="Your name, email address and timezone.">
      {loading ? (
        <div className={css.loading}>
          <Spinner size="sm" aria-label="Loading profile" />
          Loading your profile…
        </div>
      ) : loadError !== undefined ? (
        <AlertBox
          tone="error"
          action={
            <Button variant="secondary" size="sm" onPress={() => actorRef.send({ type: "profile.retryRequested" })}>
              Try again
            </Button>
          }
        >
          {loadError}
        </AlertBox>
      ) : (
        <Form
          validationBehavior="aria"
          aria-label="Personal information"
          className={css.form}
          onSubmit={(e) => {
            e.preventDefault()
            actorRef.send({ type: "form.submitted" })
          }}
        >
          {notice === undefined ? null : <AlertBox tone="info">{notice}</AlertBox>}
          {error === undefined ? null : <AlertBox tone="error">{error}</AlertBox>}
          <div className={css.twoColumns}>
            <TextField
              label="First name"
              autoComplete="given-name"
              value={values.first_name}
              onChange={change("first_name")}
              isDisabled={!editable}
              {...errorProps(errors["first_name"])}
            />
            <TextField
              label="Last name"
              autoComplete="family-name"
              value={values.last_name}
              onChange={change("last_name")}
              isDisabled={!editable}
              {...errorProps(errors["last_name"])}
            />
          </div>
          <TextField
            label="Email address"
            type="email"
            autoComplete="email"
            value={values.email}
            onChange={change("email")}
            isDisabled={!editable}
            {...errorProps(errors["email"])}
          />
          <Select
            label="Timezone"
            items={zones}
            value={values.timezone === "" || !zones.some((z) => z.value === values.timezone) ? null : values.timezone}
            onChange={(key) => change("timezone")(key === null ? "" : String(key))}
            placeholder={zonesLoading ? "Loading timezones…" : "Select a timezone"}
            isDisabled={!editable || zonesLoading || zonesError !== undefined}
            description={`Current: ${current === "" ? "Not set" : current}`}
            {...errorProps(errors["timezone"] ?? zonesError)}
          >
            {(zone) => (
              <SelectItem id={zone.value} textValue={timezoneText(zone)}>
                {timezoneText(zone)}
              </SelectItem>
            )}
          </Select>
          {zonesError === undefined ? null : (
            <div>
              <Button variant="ghost" size="sm" onPress={() => actorRef.send({ type: "timezones.retryRequested" })}>
                Try loading timezones again
              </Button>
            </div>
          )}
          {canReset ? <AlertBox tone="warning">You have unsaved changes.</AlertBox> : null}
          <div className={css.actions}>
            <Button variant="secondary" isDisabled={!canReset} onPress={() => actorRef.send({ type: "form.reset" })}>
              Reset
            </Button>
            <Button type="submit" isDisabled={!canSave}>
              Save changes
            </Button>
          </div>
        </Form>
      )}
      <ConfirmProfileDialog actorRef={actorRef} />
    </Card>
  )
}

const PASSWORD_LABELS: { readonly [K in PasswordField]: string } = {
  current_password: "Current password",
  new_password: "New password",
  confirm_password: "Confirm new password",
}

const PASSWORD_AUTOCOMPLETE: { readonly [K in PasswordField]: string } = {
  current_password: "current-password",
  new_password: "new-password",
  confirm_password: "new-password",
}

function PasswordInputField({ actorRef, field }: { readonly actorRef: PasswordRef; readonly field: PasswordField }) {
  const value = useSelector(actorRef, (s) => s.context.values[field])
  const visible = useSelector(actorRef, (s) => s.context.visible[field])
  const error = useSelector(actorRef, (s) => s.context.fieldErrors[field])
  const editable = useSelector(actorRef, (s) => s.matches("editing"))
  return (
    <PasswordInput
      label={PASSWORD_LABELS[field]}
      autoComplete={PASSWORD_AUTOCOMPLETE[field]}
      value={value}
      onChange={(v) => actorRef.send({ type: "field.changed", field, value: v })}
      isRevealed={visible}
      onRevealedChange={() => actorRef.send({ type: "visibility.toggled", field })}
      isDisabled={!editable}
      {...(field === "new_password"
        ? { description: "At least 8 characters, with an uppercase letter, a lowercase letter and a number." }
        : {})}
      {...errorProps(error)}
    />
  )
}

function ConfirmPasswordDialog({ actorRef }: { readonly actorRef: PasswordRef }) {
  const open = useSelector(actorRef, (s) => s.matches("confirming") || s.matches("saving"))
  const saving = useSelector(actorRef, (s) => s.matches("saving"))
  const canCancel = useSelector(actorRef, (s) => s.can({ type: "confirm.cancelled" }))
  const canConfirm = useSelector(actorRef, (s) => s.can({ type: "confirm.accepted" }))
  const confirm = () => {
    if (canConfirm) actorRef.send({ type: "confirm.accepted" })
  }
  useConfirmShortcut(open, confirm)
  if (!open) return null
  return (
    <Dialog
      title="Confirm password change"
      isOpen
      onOpenChange={(isOpen) => {
        if (!isOpen && canCancel) actorRef.send({ type: "confirm.cancelled" })
      }}
      isDismissable={canCancel}
      isKeyboardDismissDisabled={!canCancel}
      showCloseButton={canCancel}
    >
      <div className={css.dialogBody}>
        <AlertBox tone="info" title="Security notice">
          <ul className={css.notice}>
            <li>Your password will be updated immediately.</li>
            <li>You will stay signed in on this device.</li>
            <li>Other sessions may need to sign in again with the new password.</li>
          </ul>
        </AlertBox>
        <DialogFooter>
          <Button variant="secondary" isDisabled={!canCancel} onPress={() => actorRef.send({ type: "confirm.cancelled" })}>
            Cancel
          </Button>
          <Button isPending={saving} onPress={confirm}>
            Change password
          </Button>
        </DialogFooter>
      </div>
    </Dialog>
  )
}

function ChangePasswordCard({ actorRef }: { readonly actorRef: PasswordRef }) {
  const error = useSelector(actorRef, (s) => s.context.error)
  const canSubmit = useSelector(actorRef, (s) => s.can({ type: "form.submitted" }))
  const canReset = useSelector(actorRef, (s) => s.can({ type: "form.reset" }))
  return (
    <Card title="Change password" description="Use a strong password you do not use anywhere else.">
      <Form
        validationBehavior="aria"
        aria-label="Change password"
        className={css.form}
        onSubmit={(e) => {
          e.preventDefault()
          actorRef.send({ type: "form.submitted" })
        }}
      >
        {error === undefined ? null : <AlertBox tone="error">{error}</AlertBox>}
        <PasswordInputField actorRef={actorRef} field="current_password" />
        <div className={css.twoColumns}>
          <PasswordInputField actorRef={actorRef} field="new_password" />
          <PasswordInputField actorRef={actorRef} field="confirm_password" />
        </div>
        <div className={css.actions}>
          <Button variant="secondary" isDisabled={!canReset} onPress={() => actorRef.send({ type: "form.reset" })}>
            Reset
          </Button>
          <Button type="submit" isDisabled={!canSubmit}>
            Update password
          </Button>
        </div>
      </Form>
      <ConfirmPasswordDialog actorRef={actorRef} />
    </Card>
  )
}

export function ProfileView() {
  const options = useProfileActorOptions()
  const profile = useActorRef(useProfileLogic(), options)
  const password = useActorRef(useChangePasswordLogic(), options)
  return (
    <div className={css.page}>
      <div className={css.titles}>
        <h1 className={css.title}>Profile Settings</h1>
        <p className={css.subtitle}>Manage your personal information and account settings.</p>
      </div>
      <PersonalInformationCard actorRef={profile} />
      <ChangePasswordCard actorRef={password} />
      <DigestCard />
    </div>
  )
}
