/**
 * /login/sso (issue 33 part 3; docs/sso.md): renders `ssoSignInMachine`. Without a query it asks for the work email and
 * sends the browser to the identity provider; back from the provider (`?code=` / `?error=`) it exchanges the code for the
 * session or shows the refusal with a way to start again.
 */
import { useMemo } from "react"
import { useActorRef, useSelector } from "@xstate/react"
import { useSearch } from "wouter"
import { readLoginRouteState } from "../../machines/auth-effects.ts"
import { readSsoQuery, ssoSignInMachine } from "../../machines/sso-sign-in.machine.ts"
import { AuthLayout } from "../layouts/auth-layout.tsx"
import { AlertBox } from "../ui/alert-box.tsx"
import { Button } from "../ui/button.tsx"
import { Form } from "../ui/form.tsx"
import { Link } from "../ui/link.tsx"
import { Spinner } from "../ui/spinner.tsx"
import { TextField } from "../ui/text-field.tsx"
import { AuthHeader } from "./auth-parts.tsx"
import { effectActor, useAuthEffects, useRouteState, useScreenActorOptions } from "./auth-effects-context.tsx"
import * as css from "./auth-parts.css.ts"

export function SsoSignInView() {
  const effects = useAuthEffects()
  const search = useSearch()
  const from = readLoginRouteState(useRouteState()).from
  const logic = useMemo(
    () =>
      ssoSignInMachine.provide({
        actors: {
          ssoStart: effectActor(effects.ssoStart),
          ssoExchange: effectActor(effects.ssoExchange),
          startSession: effectActor(effects.startSession),
        },
        actions: { leaveForProvider: (_, { url }) => window.location.assign(url) },
      }),
    [effects],
  )
  const input = readSsoQuery(search)
  const actor = useActorRef(logic, useScreenActorOptions(input.mode === "start" && from !== undefined ? { ...input, returnTo: from } : input))
  const email = useSelector(actor, (s) => s.context.email)
  const fieldError = useSelector(actor, (s) => s.context.fieldError)
  const error = useSelector(actor, (s) => s.context.error)
  const busy = useSelector(actor, (s) => s.matches("starting") || s.matches("redirecting"))
  const signingIn = useSelector(actor, (s) => s.matches("exchanging") || s.matches("startingSession") || s.matches("signedIn"))
  const failed = useSelector(actor, (s) => s.matches("failed"))
  return (
    <AuthLayout>
      <div className={css.screen}>
        <AuthHeader title="Sign in with SSO" subtitle="Use your work email: we send you to your organization's sign-in page." />
        {error === undefined ? null : <AlertBox tone="error">{error}</AlertBox>}
        {signingIn ? (
          <p className={css.note} role="status">
            <Spinner size="sm" /> Signing you in…
          </p>
        ) : failed ? (
          <Button size="lg" fullWidth onPress={() => actor.send({ type: "retry.requested" })}>
            Try again
          </Button>
        ) : (
          <Form
            className={css.form}
            validationBehavior="aria"
            aria-label="Sign in with SSO"
            onSubmit={(e) => {
              e.preventDefault()
              actor.send({ type: "form.submitted" })
            }}
          >
            <TextField
              label="Work email"
              type="email"
              autoComplete="username"
              placeholder="you@company.com"
              value={email}
              onChange={(value) => actor.send({ type: "field.changed", value })}
              isInvalid={fieldError !== undefined}
              {...(fieldError === undefined ? {} : { errorMessage: fieldError })}
            />
            <Button type="submit" size="lg" fullWidth isPending={busy}>
              Continue with SSO
            </Button>
          </Form>
        )}
        <p className={css.footer}>
          <Link href="/login">Sign in with a password</Link>
        </p>
      </div>
    </AuthLayout>
  )
}
