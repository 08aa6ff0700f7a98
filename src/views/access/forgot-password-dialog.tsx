/**
 * The 'Forgot your password?' modal (access §2 "Login"): `ForgotPasswordFlow` owns the `forgotPasswordMachine` actor
 * (this module, machine included, loads after the sign-in page's first paint: tests/bundle-budget.test.ts) and sends it
 * `dialog.opened` with the sign-in form's email each time the link asks; `ForgotPasswordDialog` renders it. The send button is disabled while the email is empty (`can({ type: "form.submitted" })`); closing is
 * refused while the request is in flight.
 */
import { useEffect, useMemo } from "react"
import { useActorRef, useSelector } from "@xstate/react"
import type { ActorRefFrom } from "xstate"
import { forgotPasswordMachine } from "../../machines/forgot-password.machine.ts"
import { AlertBox } from "../ui/alert-box.tsx"
import { Button } from "../ui/button.tsx"
import { Dialog, DialogFooter } from "../ui/dialog.tsx"
import { Form } from "../ui/form.tsx"
import { TextField } from "../ui/text-field.tsx"
import { effectActor, useAuthEffects, useNotifyAction, useScreenActorOptions } from "./auth-effects-context.tsx"
import * as css from "./auth-parts.css.ts"

/** One press of 'Forgot your password?': the email typed so far, and a number that changes with every press. */
export interface ForgotPasswordRequest {
  readonly email: string
  readonly press: number
}

export function ForgotPasswordFlow({ request }: { readonly request: ForgotPasswordRequest }) {
  const effects = useAuthEffects()
  const notify = useNotifyAction()
  const logic = useMemo(
    () => forgotPasswordMachine.provide({ actors: { forgotPassword: effectActor(effects.forgotPassword) }, actions: { notify } }),
    [effects, notify],
  )
  const actorRef = useActorRef(logic, useScreenActorOptions({}))
  useEffect(() => {
    actorRef.send({ type: "dialog.opened", email: request.email })
  }, [actorRef, request])
  return <ForgotPasswordDialog actorRef={actorRef} />
}

export function ForgotPasswordDialog({ actorRef }: { readonly actorRef: ActorRefFrom<typeof forgotPasswordMachine> }) {
  const isOpen = useSelector(actorRef, (s) => !s.matches("closed"))
  const isSending = useSelector(actorRef, (s) => s.matches({ open: "sending" }))
  const canSend = useSelector(actorRef, (s) => s.can({ type: "form.submitted" }))
  const canClose = useSelector(actorRef, (s) => s.can({ type: "dialog.closed" }))
  const email = useSelector(actorRef, (s) => s.context.email)
  const fieldError = useSelector(actorRef, (s) => s.context.fieldError)
  const error = useSelector(actorRef, (s) => s.context.error)
  const close = () => actorRef.send({ type: "dialog.closed" })
  return (
    <Dialog
      title="Reset your password"
      isOpen={isOpen}
      onOpenChange={(open) => (open ? undefined : close())}
      isDismissable={canClose}
      isKeyboardDismissDisabled={!canClose}
      showCloseButton={canClose}
      size="sm"
    >
      <Form
        className={css.form}
        validationBehavior="aria"
        onSubmit={(e) => {
          e.preventDefault()
          actorRef.send({ type: "form.submitted" })
        }}
      >
        <p className={css.note}>Enter the email address of your account and we'll send you a link to reset your password.</p>
        {error === undefined ? null : <AlertBox tone="error">{error}</AlertBox>}
        <TextField
          label="Email"
          type="email"
          autoComplete="email"
          autoFocus
          placeholder="you@company.com"
          value={email}
          onChange={(value) => actorRef.send({ type: "field.changed", value })}
          isInvalid={fieldError !== undefined}
          {...(fieldError === undefined ? {} : { errorMessage: fieldError })}
          isReadOnly={isSending}
        />
        <DialogFooter>
          <Button variant="secondary" onPress={close} isDisabled={!canClose}>
            Cancel
          </Button>
          <Button type="submit" isDisabled={!canSend && !isSending} isPending={isSending}>
            Send reset link
          </Button>
        </DialogFooter>
      </Form>
    </Dialog>
  )
}
