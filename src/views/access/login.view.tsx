/**
 * /login (access §2 "Screens: Login", §4 sign-in and EMAIL_NOT_VERIFIED): renders `loginMachine` and the forgot-password
 * modal's `forgotPasswordMachine`. The message passed by the previous route (history state) shows with error or success
 * styling; an invitation token and workspace id in the query are stored for /workspace-selection on arrival.
 */
import { Suspense, useEffect, useMemo, useState } from "react"
import { useActorRef, useSelector } from "@xstate/react"
import { Button as AriaButton } from "react-aria-components"
import { useSearch } from "wouter"
import type { ActorRefFrom } from "xstate"
import { StatusMessages } from "../../contracts/messages.ts"
import { readLoginRouteState } from "../../machines/auth-effects.ts"
import { loginMachine, readLoginQuery } from "../../machines/login.machine.ts"
import { lazyScreen } from "../lazy-screen.tsx"
import { AuthLayout } from "../layouts/auth-layout.tsx"
import { AlertBox } from "../ui/alert-box.tsx"
import { Button } from "../ui/button.tsx"
import { CloseIcon } from "../ui/icons.tsx"
import { Form } from "../ui/form.tsx"
import { Link } from "../ui/link.tsx"
import { PasswordField } from "../ui/password-field.tsx"
import { TextField } from "../ui/text-field.tsx"
import { AuthHeader, ResendVerification, type ResendRef } from "./auth-parts.tsx"
import type { ForgotPasswordRequest } from "./forgot-password-dialog.tsx"
import {
  effectActor,
  useAuthEffects,
  useResendVerificationLogic,
  useRouteState,
  useScreenActorOptions,
} from "./auth-effects-context.tsx"
import * as css from "./auth-parts.css.ts"

type LoginRef = ActorRefFrom<typeof loginMachine>

function useLoginActors() {
  const effects = useAuthEffects()
  const resendLogic = useResendVerificationLogic()
  const routeState = readLoginRouteState(useRouteState())
  const search = useSearch()
  const loginLogic = useMemo(
    () =>
      loginMachine.provide({
        actors: {
          login: effectActor(effects.login),
          startSession: effectActor(effects.startSession),
          resendVerification: resendLogic,
        },
        actions: { storePendingInvitation: (_, pending) => effects.storePendingInvitation(pending) },
      }),
    [effects, resendLogic],
  )
  const login = useActorRef(loginLogic, useScreenActorOptions({ routeState, pendingInvitation: readLoginQuery(search) }))
  return { login }
}

function RouteMessage({ actorRef }: { readonly actorRef: LoginRef }) {
  const flash = useSelector(actorRef, (s) => s.context.flash)
  if (flash === undefined) return null
  return (
    <AlertBox
      tone={flash.tone}
      action={
        <Button variant="ghost" size="icon" aria-label="Dismiss message" onPress={() => actorRef.send({ type: "message.dismissed" })}>
          <CloseIcon size={16} />
        </Button>
      }
    >
      {flash.message}
    </AlertBox>
  )
}

function UnverifiedBox({ actorRef }: { readonly actorRef: LoginRef }) {
  const resendRef = useSelector(actorRef, (s) => s.children["resend"] as ResendRef | undefined)
  const email = useSelector(actorRef, (s) => s.context.unverifiedEmail)
  if (resendRef === undefined) return null
  return (
    <AlertBox tone="warning" title={StatusMessages.emailNotVerifiedAtLogin}>
      <p>
        The account <span className={css.strong}>{email}</span> is not verified yet. Follow the link in the verification
        email, or send a new one.
      </p>
      <div className={css.boxActions}>
        <ResendVerification actorRef={resendRef} fullWidth={false} />
      </div>
    </AlertBox>
  )
}

// The modal (and react-aria's overlay code) is not part of the first load: sign-in shows without it, and the module is
// fetched once the page is up, so that opening it is immediate.
const ForgotPasswordFlow = lazyScreen(() => import("./forgot-password-dialog.tsx").then((m) => m.ForgotPasswordFlow))

/** The modal's flow, once the link was pressed (the module is fetched once the page is up, so opening is immediate). */
function ForgotPassword({ request }: { readonly request: ForgotPasswordRequest | null }) {
  useEffect(() => {
    ForgotPasswordFlow.preload().catch(() => {
      // Offline: opening the dialog tries again.
    })
  }, [])
  return request === null ? null : (
    <Suspense fallback={null}>
      <ForgotPasswordFlow request={request} />
    </Suspense>
  )
}

export function LoginView() {
  const { login } = useLoginActors()
  // Which press of 'Forgot your password?' the modal answers (null: never pressed); its flow is the modal's machine.
  const [forgotRequest, setForgotRequest] = useState<ForgotPasswordRequest | null>(null)
  const email = useSelector(login, (s) => s.context.email)
  const password = useSelector(login, (s) => s.context.password)
  const passwordVisible = useSelector(login, (s) => s.context.passwordVisible)
  const emailError = useSelector(login, (s) => s.context.fieldErrors["email"])
  const passwordError = useSelector(login, (s) => s.context.fieldErrors["password"])
  const error = useSelector(login, (s) => s.context.error)
  const isBusy = useSelector(
    login,
    (s) => s.matches({ form: "submitting" }) || s.matches({ form: "startingSession" }) || s.matches("signedIn"),
  )
  return (
    <AuthLayout>
      <div className={css.screen}>
        <AuthHeader title="Sign in" subtitle="Sign in to your account to continue." />
        <RouteMessage actorRef={login} />
        <UnverifiedBox actorRef={login} />
        {error === undefined ? null : <AlertBox tone="error">{error}</AlertBox>}
        <Form
          className={css.form}
          validationBehavior="aria"
          aria-label="Sign in"
          onSubmit={(e) => {
            e.preventDefault()
            login.send({ type: "form.submitted" })
          }}
        >
          <TextField
            label="Email"
            type="email"
            autoComplete="username"
            placeholder="you@company.com"
            value={email}
            onChange={(value) => login.send({ type: "field.changed", field: "email", value })}
            isInvalid={emailError !== undefined}
            {...(emailError === undefined ? {} : { errorMessage: emailError })}
          />
          <div className={css.fieldWithAction}>
            <PasswordField
              label="Password"
              autoComplete="current-password"
              placeholder="Your password"
              value={password}
              onChange={(value) => login.send({ type: "field.changed", field: "password", value })}
              isRevealed={passwordVisible}
              onRevealedChange={() => login.send({ type: "password.visibilityToggled" })}
              isInvalid={passwordError !== undefined}
              {...(passwordError === undefined ? {} : { errorMessage: passwordError })}
            />
            <AriaButton
              className={`${css.linkButton} ${css.fieldAction}`}
              onPress={() => setForgotRequest((r) => ({ email: login.getSnapshot().context.email.trim(), press: (r?.press ?? 0) + 1 }))}
            >
              Forgot your password?
            </AriaButton>
          </div>
          <Button type="submit" size="lg" fullWidth isPending={isBusy}>
            Sign in
          </Button>
        </Form>
        <Link href="/login/sso">Sign in with SSO</Link>
        <p className={css.footer}>
          Don't have an account? <Link href="/signup">Sign up</Link>
        </p>
      </div>
      <ForgotPassword request={forgotRequest} />
    </AuthLayout>
  )
}
