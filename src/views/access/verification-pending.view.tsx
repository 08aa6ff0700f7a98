/**
 * /verification-pending (access §2 "Screens: Verification-pending", §8 "Resend"): renders
 * `verificationPendingMachine`. An email form to resend the verification link, the note that links are valid 30
 * minutes, and the outcome of the last request (sent, 'Please wait N minute(s)…', already verified, failure).
 */
import { useMemo } from "react"
import { useActorRef, useSelector } from "@xstate/react"
import { VerificationMessages } from "../../contracts/messages.ts"
import { readEmailState } from "../../machines/auth-effects.ts"
import { verificationPendingMachine } from "../../machines/verification-pending.machine.ts"
import { AuthLayout } from "../layouts/auth-layout.tsx"
import { Form } from "../ui/form.tsx"
import { InfoIcon } from "../ui/icons.tsx"
import { Link } from "../ui/link.tsx"
import { TextField } from "../ui/text-field.tsx"
import { AuthHeader, ResendVerification, type ResendRef } from "./auth-parts.tsx"
import { useResendVerificationLogic, useRouteState, useScreenActorOptions } from "./auth-effects-context.tsx"
import * as css from "./auth-parts.css.ts"

export function VerificationPendingView() {
  const resendLogic = useResendVerificationLogic()
  const carried = readEmailState(useRouteState())
  const logic = useMemo(() => verificationPendingMachine.provide({ actors: { resendVerification: resendLogic } }), [resendLogic])
  const actorRef = useActorRef(logic, useScreenActorOptions(carried === undefined ? {} : { email: carried }))
  const email = useSelector(actorRef, (s) => s.context.email)
  const fieldError = useSelector(actorRef, (s) => s.context.fieldError)
  const resendRef = useSelector(actorRef, (s) => s.children["resend"] as ResendRef | undefined)
  return (
    <AuthLayout>
      <div className={css.screen}>
        <AuthHeader
          title="Verify your email"
          subtitle={
            carried === undefined ? (
              "We sent a verification link to your email address. Follow it to activate your account."
            ) : (
              <>
                We sent a verification link to <span className={css.strong}>{carried}</span>. Follow it to activate your
                account.
              </>
            )
          }
        />
        <p className={css.linkValidity}>
          <InfoIcon size={16} />
          {VerificationMessages.linkValidity}
        </p>
        <Form
          className={css.form}
          validationBehavior="aria"
          aria-label="Resend verification email"
          onSubmit={(e) => {
            e.preventDefault()
            actorRef.send({ type: "form.submitted" })
          }}
        >
          <TextField
            label="Email"
            type="email"
            autoComplete="email"
            placeholder="you@company.com"
            description="Didn't get the email? Check your spam folder, or send a new link."
            value={email}
            onChange={(value) => actorRef.send({ type: "field.changed", value })}
            isInvalid={fieldError !== undefined}
            {...(fieldError === undefined ? {} : { errorMessage: fieldError })}
          />
          {resendRef === undefined ? null : <ResendVerification actorRef={resendRef} variant="primary" submitsForm />}
        </Form>
        <p className={css.footer}>
          Already verified? <Link href="/login">Sign in</Link>
        </p>
      </div>
    </AuthLayout>
  )
}
