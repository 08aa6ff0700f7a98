/**
 * /verify-email?token=…&email=… (access §2 "Screens: Verify-email", §4, §5, §8): renders `verifyEmailMachine`. The link
 * is checked first, then verified (loading); a bad link or a failure shows the §8 text with a resend button (or, when
 * the link's address is unusable, a way to /verification-pending); success moves on to /email-verification-success.
 */
import { useMemo } from "react"
import { useActorRef, useSelector } from "@xstate/react"
import { useSearchParams } from "wouter"
import { verifyEmailMachine } from "../../machines/verify-email.machine.ts"
import { AuthLayout } from "../layouts/auth-layout.tsx"
import { Button } from "../ui/button.tsx"
import { Link } from "../ui/link.tsx"
import { AuthHeader, ResendVerification, StatusPanel, type ResendRef } from "./auth-parts.tsx"
import {
  effectActor,
  useAuthEffects,
  useNavigateAction,
  useResendVerificationLogic,
  useScreenActorOptions,
} from "./auth-effects-context.tsx"
import * as css from "./auth-parts.css.ts"

export function VerifyEmailView() {
  const effects = useAuthEffects()
  const navigate = useNavigateAction()
  const resendLogic = useResendVerificationLogic()
  const [query] = useSearchParams()
  const logic = useMemo(
    () =>
      verifyEmailMachine.provide({
        actors: { verifyEmail: effectActor(effects.verifyEmail), resendVerification: resendLogic },
        actions: { navigate },
      }),
    [effects, resendLogic, navigate],
  )
  const actorRef = useActorRef(logic, useScreenActorOptions({ token: query.get("token"), email: query.get("email") }))
  const isLoading = useSelector(actorRef, (s) => s.matches("verifying") || s.matches("verified"))
  const isInvalid = useSelector(actorRef, (s) => s.matches({ problem: "invalid" }))
  const canRetry = useSelector(actorRef, (s) => s.can({ type: "verification.retried" }))
  const message = useSelector(actorRef, (s) => s.context.message)
  const resendRef = useSelector(actorRef, (s) => s.children["resend"] as ResendRef | undefined)
  const canResend = useSelector(resendRef, (s) => s?.can({ type: "resend.requested" }) ?? false)
  const resendBusy = useSelector(resendRef, (s) => (s === undefined ? false : !s.matches("idle")))

  if (isLoading) {
    return (
      <AuthLayout>
        <div className={css.screen}>
          <AuthHeader title="Email verification" />
          <StatusPanel level={2} tone="loading" title="Verifying your email...">
            <p>This only takes a moment.</p>
          </StatusPanel>
        </div>
      </AuthLayout>
    )
  }
  return (
    <AuthLayout>
      <div className={css.screen}>
        <AuthHeader title="Email verification" />
        <StatusPanel
          level={2}
          tone="error"
          title={isInvalid ? "Invalid verification link" : "Verification failed"}
          actions={
            <>
              {canRetry ? (
                <Button onPress={() => actorRef.send({ type: "verification.retried" })} fullWidth>
                  Try again
                </Button>
              ) : null}
              {resendRef !== undefined && (canResend || resendBusy) ? (
                <ResendVerification actorRef={resendRef} variant={canRetry ? "secondary" : "primary"} />
              ) : (
                <Link href="/verification-pending" variant="button">
                  Request a new verification email
                </Link>
              )}
            </>
          }
        >
          <p>{message}</p>
          <p className={css.note}>
            <Link href="/login">Back to sign in</Link>
          </p>
        </StatusPanel>
      </div>
    </AuthLayout>
  )
}
