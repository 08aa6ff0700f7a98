/**
 * /email-verification-success?email=… (access §2 "Screens: Email-verification-success"): 'Email verified successfully!'
 * (or, after an 'already verified' answer, 'Email is already verified!' passed by the verify screen) with a button to
 * sign in, which carries the address to the sign-in form. No flow to model: a static screen.
 */
import { useLocation, useSearchParams } from "wouter"
import { VerificationMessages } from "../../contracts/messages.ts"
import { readMessageState, type LoginRouteState } from "../../machines/auth-effects.ts"
import { AuthLayout } from "../layouts/auth-layout.tsx"
import { Button } from "../ui/button.tsx"
import { StatusPanel } from "./auth-parts.tsx"
import { useRouteState } from "./auth-effects-context.tsx"
import * as css from "./auth-parts.css.ts"

const KNOWN = new Set<string>([VerificationMessages.verifiedSuccess, VerificationMessages.alreadyVerifiedSuccess])

export function EmailVerificationSuccessView() {
  const [query] = useSearchParams()
  const [, navigate] = useLocation()
  const carried = readMessageState(useRouteState())
  // Only the two texts this screen is for may replace its heading (history state is not trusted input).
  const title = carried !== undefined && KNOWN.has(carried) ? carried : VerificationMessages.verifiedSuccess
  const email = query.get("email")?.trim() ?? ""
  const signIn = () => navigate("/login", { state: (email === "" ? {} : { email }) satisfies LoginRouteState })
  return (
    <AuthLayout>
      <StatusPanel
        tone="success"
        title={title}
        actions={
          <Button size="lg" fullWidth onPress={signIn}>
            Sign in
          </Button>
        }
      >
        {email === "" ? (
          <p>Your email address has been verified. You can now sign in to your account.</p>
        ) : (
          <p>
            <span className={css.strong}>{email}</span> has been verified. You can now sign in to your account.
          </p>
        )}
      </StatusPanel>
    </AuthLayout>
  )
}
