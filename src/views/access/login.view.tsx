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
import { forgotPasswordMachine } from "../../machines/forgot-password.machine.ts"
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
import {
  effectActor,
  useAuthEffects,
  useNotifyAction,
  useResendVerificationLogic,
  useRouteState,
  useScreenActorOptions,
} from "./auth-effects-context.tsx"
import * as css from "./auth-parts.css.ts"

type LoginRef = ActorRefFrom<typeof loginMachine>

function useLoginActors() {
  const effects = useAuthEffects()
  const notify = useNotifyAction()
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
  const forgotLogic = useMemo(
    () =>
      forgotPasswordMachine.provide({
        actors: { forgotPassword: effectActor(effects.forgotPassword) },
        actions: { notify },
      }),
    [effects, notify],
  )
  const login = useActorRef(loginLogic, useScreenActorOptions({ routeState, pendingInvitation: readLoginQuery(search) }))
  const forgot = useActorRef(forgotLogic, useScreenActorOptions({}))
  return { login, forgot }
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
const ForgotPasswordDialog = lazyScreen(() =>
  import("./forgot-password-dialog.tsx").then((m) => m.ForgotPasswordDialog),
)

function ForgotPassword({ actorRef }: { readonly actorRef: ActorRefFrom<typeof forgotPasswordMachine> }) {
  const used = useSelector(actorRef, (s) => !s.matches("closed"))
  const [opened, setOpened] = useState(false)
  if (used && !opened) setOpened(true)
  useEffect(() => {
    ForgotPasswordDialog.preload().catch(() => {
      // Offline: opening the dialog tries again.
    })
  }, [])
  return opened ? (
    <Suspense fallback={null}>
      <ForgotPasswordDialog actorRef={actorRef} />
    </Suspense>
  ) : null
}

export function LoginView() {
  const { login, forgot } = useLoginActors()
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
              onPress={() => forgot.send({ type: "dialog.opened", email: login.getSnapshot().context.email.trim() })}
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
      <ForgotPassword actorRef={forgot} />
    </AuthLayout>
  )
}
