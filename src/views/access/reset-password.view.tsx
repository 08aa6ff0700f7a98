/**
 * /reset-password?token=… (access §2 "Screens: Reset password", §5, §8): renders `resetPasswordMachine`. The token is
 * validated first (validating, then invalid or valid), then the form (new password + confirmation, show/hide toggles),
 * then the success screen ('Password reset successfully!') with a sign-in button.
 */
import { useMemo } from "react"
import { useActorRef, useSelector } from "@xstate/react"
import { useSearchParams } from "wouter"
import type { ActorRefFrom } from "xstate"
import { OtherMessages, SuccessMessages } from "../../contracts/messages.ts"
import { resetPasswordMachine, type ResetPasswordField } from "../../machines/reset-password.machine.ts"
import { AuthLayout } from "../layouts/auth-layout.tsx"
import { AlertBox } from "../ui/alert-box.tsx"
import { Button } from "../ui/button.tsx"
import { Form } from "../ui/form.tsx"
import { Link } from "../ui/link.tsx"
import { PasswordField } from "../ui/password-field.tsx"
import { AuthHeader, StatusPanel } from "./auth-parts.tsx"
import { effectActor, useAuthEffects, useNavigateAction, useScreenActorOptions } from "./auth-effects-context.tsx"
import * as css from "./auth-parts.css.ts"

type ResetRef = ActorRefFrom<typeof resetPasswordMachine>

function PasswordInput({
  actorRef,
  field,
  label,
  description,
}: {
  readonly actorRef: ResetRef
  readonly field: ResetPasswordField
  readonly label: string
  readonly description?: string
}) {
  const value = useSelector(actorRef, (s) => s.context.values[field])
  const visible = useSelector(actorRef, (s) => s.context.visible[field])
  const error = useSelector(actorRef, (s) => s.context.fieldErrors[field])
  return (
    <PasswordField
      label={label}
      autoComplete="new-password"
      value={value}
      onChange={(next) => actorRef.send({ type: "field.changed", field, value: next })}
      isRevealed={visible}
      onRevealedChange={() => actorRef.send({ type: "visibility.toggled", field })}
      isInvalid={error !== undefined}
      {...(error === undefined ? {} : { errorMessage: error })}
      {...(description === undefined ? {} : { description })}
    />
  )
}

function ResetForm({ actorRef }: { readonly actorRef: ResetRef }) {
  const email = useSelector(actorRef, (s) => s.context.email)
  const error = useSelector(actorRef, (s) => s.context.error)
  const isSubmitting = useSelector(actorRef, (s) => s.matches({ valid: "submitting" }))
  return (
    <div className={css.screen}>
      <AuthHeader
        title="Reset password"
        subtitle={
          email === "" ? (
            "Choose a new password for your account."
          ) : (
            <>
              Choose a new password for <span className={css.strong}>{email}</span>.
            </>
          )
        }
      />
      {error === undefined ? null : <AlertBox tone="error">{error}</AlertBox>}
      <Form
        className={css.form}
        validationBehavior="aria"
        aria-label="Set a new password"
        onSubmit={(e) => {
          e.preventDefault()
          actorRef.send({ type: "form.submitted" })
        }}
      >
        <PasswordInput
          actorRef={actorRef}
          field="new_password"
          label="New password"
          description="At least 8 characters, with an uppercase letter, a lowercase letter and a number."
        />
        <PasswordInput actorRef={actorRef} field="confirm_password" label="Confirm new password" />
        <Button type="submit" size="lg" fullWidth isPending={isSubmitting}>
          Reset password
        </Button>
      </Form>
      <p className={css.footer}>
        Remembered it? <Link href="/login">Back to sign in</Link>
      </p>
    </div>
  )
}

export function ResetPasswordView() {
  const effects = useAuthEffects()
  const navigate = useNavigateAction()
  const [query] = useSearchParams()
  const logic = useMemo(
    () =>
      resetPasswordMachine.provide({
        actors: {
          validateResetToken: effectActor(effects.validateResetToken),
          resetPassword: effectActor(effects.resetPassword),
        },
        actions: { navigate },
      }),
    [effects, navigate],
  )
  const actorRef = useActorRef(logic, useScreenActorOptions({ token: query.get("token") }))
  const view = useSelector(actorRef, (s) =>
    s.matches("validating") || s.matches("checking")
      ? "validating"
      : s.matches("invalid")
        ? "invalid"
        : s.matches("unavailable")
          ? "unavailable"
          : s.matches("succeeded") || s.matches("leaving")
            ? "succeeded"
            : "form",
  )
  const error = useSelector(actorRef, (s) => s.context.error)

  if (view === "form") {
    return (
      <AuthLayout>
        <ResetForm actorRef={actorRef} />
      </AuthLayout>
    )
  }
  return (
    <AuthLayout>
      <div className={css.screen}>
        <AuthHeader title="Reset password" />
        {view === "validating" ? (
          <StatusPanel level={2} tone="loading" title="Checking your reset link...">
            <p>This only takes a moment.</p>
          </StatusPanel>
        ) : view === "invalid" ? (
          <StatusPanel
            level={2}
            tone="error"
            title={OtherMessages.invalidResetLink}
            actions={
              <Link href="/login" variant="button">
                Back to sign in
              </Link>
            }
          >
            <p>Reset links work once and expire. Request a new one with 'Forgot your password?' on the sign-in page.</p>
          </StatusPanel>
        ) : view === "unavailable" ? (
          <StatusPanel
            level={2}
            tone="warning"
            title="We couldn't check your reset link"
            actions={
              <Button fullWidth onPress={() => actorRef.send({ type: "validation.retried" })}>
                Try again
              </Button>
            }
          >
            <p>{error}</p>
          </StatusPanel>
        ) : (
          <StatusPanel
            level={2}
            tone="success"
            title={SuccessMessages.passwordReset}
            actions={
              <Button size="lg" fullWidth onPress={() => actorRef.send({ type: "signIn.requested" })}>
                Sign in
              </Button>
            }
          >
            <p>You can now sign in with your new password.</p>
          </StatusPanel>
        )}
      </div>
    </AuthLayout>
  )
}
