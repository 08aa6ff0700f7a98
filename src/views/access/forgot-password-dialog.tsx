/**
 * The 'Forgot your password?' modal (access §2 "Login"): renders a `forgotPasswordMachine` actor owned by the sign-in
 * screen. The send button is disabled while the email is empty (`can({ type: "form.submitted" })`); closing is
 * refused while the request is in flight.
 */
import { useSelector } from "@xstate/react"
import type { ActorRefFrom } from "xstate"
import type { forgotPasswordMachine } from "../../machines/forgot-password.machine.ts"
import { AlertBox } from "../ui/alert-box.tsx"
import { Button } from "../ui/button.tsx"
import { Dialog, DialogFooter } from "../ui/dialog.tsx"
import { Form } from "../ui/form.tsx"
import { TextField } from "../ui/text-field.tsx"
import * as css from "./auth-parts.css.ts"

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
