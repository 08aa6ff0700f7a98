/**
 * /signup (access §2 "Screens: Signup", §4 "Signup", §5, §8): renders `signupMachine`. Step 1 is the form; step 2 is
 * 'Verification email sent' with a resend button and a link to sign in. The timezone sent with the form is the
 * browser's.
 */
import { useMemo } from "react"
import { useActorRef, useSelector } from "@xstate/react"
import type { ActorRefFrom } from "xstate"
import { signupMachine, type SignupField } from "../../machines/signup.machine.ts"
import { AuthLayout } from "../layouts/auth-layout.tsx"
import { AlertBox } from "../ui/alert-box.tsx"
import { Button } from "../ui/button.tsx"
import { Form } from "../ui/form.tsx"
import { Link } from "../ui/link.tsx"
import { PasswordField } from "../ui/password-field.tsx"
import { TextField, type TextFieldProps } from "../ui/text-field.tsx"
import { AuthHeader, ResendVerification, StatusPanel, type ResendRef } from "./auth-parts.tsx"
import {
  effectActor,
  useAuthEffects,
  useNavigateAction,
  useResendVerificationLogic,
  useScreenActorOptions,
} from "./auth-effects-context.tsx"
import * as css from "./auth-parts.css.ts"

type SignupRef = ActorRefFrom<typeof signupMachine>

/** Access §3: "timezone (taken from the browser)". */
const browserTimezone = (): string | undefined => {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || undefined
  } catch {
    return undefined
  }
}

const LABELS: Readonly<Record<SignupField, string>> = {
  first_name: "First name",
  last_name: "Last name",
  email: "Email",
  password: "Password",
  confirm_password: "Confirm password",
  workspace_name: "Workspace name",
}

type FieldOptions = Pick<TextFieldProps, "autoComplete" | "type" | "placeholder" | "description">

function Field({ actorRef, field, ...props }: { readonly actorRef: SignupRef; readonly field: SignupField } & FieldOptions) {
  const value = useSelector(actorRef, (s) => s.context.values[field])
  const error = useSelector(actorRef, (s) => s.context.fieldErrors[field])
  const common = {
    label: LABELS[field],
    value,
    onChange: (next: string) => actorRef.send({ type: "field.changed", field, value: next }),
    isInvalid: error !== undefined,
    ...(error === undefined ? {} : { errorMessage: error }),
    ...props,
  }
  if (field === "password" || field === "confirm_password") {
    const { type: _type, ...passwordProps } = common
    return <PasswordField {...passwordProps} />
  }
  return <TextField {...common} />
}

function StepOne({ actorRef }: { readonly actorRef: SignupRef }) {
  const error = useSelector(actorRef, (s) => s.context.error)
  const isSubmitting = useSelector(actorRef, (s) => s.matches({ form: "submitting" }) || s.matches("redirected"))
  return (
    <div className={css.screen}>
      <AuthHeader title="Create your account" subtitle="Sign up and create your workspace." />
      {error === undefined ? null : <AlertBox tone="error">{error}</AlertBox>}
      <Form
        className={css.form}
        validationBehavior="aria"
        aria-label="Create your account"
        onSubmit={(e) => {
          e.preventDefault()
          actorRef.send({ type: "form.submitted" })
        }}
      >
        <div className={css.pair}>
          <Field actorRef={actorRef} field="first_name" autoComplete="given-name" />
          <Field actorRef={actorRef} field="last_name" autoComplete="family-name" />
        </div>
        <Field actorRef={actorRef} field="email" type="email" autoComplete="email" placeholder="you@company.com" />
        <Field
          actorRef={actorRef}
          field="workspace_name"
          autoComplete="organization"
          description="Your team's workspace. You can invite people to it later."
        />
        <Field
          actorRef={actorRef}
          field="password"
          autoComplete="new-password"
          description="At least 8 characters, with an uppercase letter, a lowercase letter and a number."
        />
        <Field actorRef={actorRef} field="confirm_password" autoComplete="new-password" />
        <Button type="submit" size="lg" fullWidth isPending={isSubmitting}>
          Create account
        </Button>
      </Form>
      <p className={css.footer}>
        Already have an account? <Link href="/login">Sign in</Link>
      </p>
    </div>
  )
}

function StepTwo({ actorRef }: { readonly actorRef: SignupRef }) {
  const email = useSelector(actorRef, (s) => s.context.submittedEmail)
  const resendRef = useSelector(actorRef, (s) => s.children["resend"] as ResendRef | undefined)
  return (
    <StatusPanel
      tone="success"
      title="Verification email sent"
      actions={
        <>
          {resendRef === undefined ? null : <ResendVerification actorRef={resendRef} />}
          <Button variant="primary" fullWidth onPress={() => actorRef.send({ type: "signIn.requested" })}>
            Go to sign in
          </Button>
        </>
      }
    >
      <p>
        We sent a verification link to <span className={css.strong}>{email}</span>. Follow the link in the email to activate
        your account, then sign in.
      </p>
    </StatusPanel>
  )
}

export function SignupView() {
  const effects = useAuthEffects()
  const navigate = useNavigateAction()
  const resendLogic = useResendVerificationLogic()
  const logic = useMemo(
    () =>
      signupMachine.provide({
        actors: { signup: effectActor(effects.signup), resendVerification: resendLogic },
        actions: { navigate },
      }),
    [effects, resendLogic, navigate],
  )
  const timezone = browserTimezone()
  const actorRef = useActorRef(logic, useScreenActorOptions(timezone === undefined ? {} : { timezone }))
  const isStepTwo = useSelector(actorRef, (s) => s.matches("sent"))
  return <AuthLayout>{isStepTwo ? <StepTwo actorRef={actorRef} /> : <StepOne actorRef={actorRef} />}</AuthLayout>
}
