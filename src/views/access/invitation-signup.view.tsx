/**
 * /invitation/signup?token= and /accept-invite?token= share this screen (access §2 "Screens: Invitation signup"):
 * renders `invitationSignupMachine`. 'Invalid invitation' with 'Go to login' when the token is missing or refused;
 * otherwise first name, last name, password and confirm password (show/hide toggles), a live password-requirement
 * checklist, 'Complete signup' and 'Already have an account? Sign in'.
 */
import { useMemo } from "react"
import { useActorRef, useSelector } from "@xstate/react"
import { useSearchParams } from "wouter"
import type { ActorRefFrom } from "xstate"
import { InvitationMessages } from "../../contracts/messages.ts"
import type { NavigateParams } from "../../machines/auth-effects.ts"
import {
  invitationSignupImplementations,
  invitationSignupMachine,
  selectPasswordRequirements,
  type InvitationSignupField,
  type PasswordRequirement,
  type SecretField,
} from "../../machines/invitation-signup.machine.ts"
import { AuthHeader, StatusPanel } from "./auth-parts.tsx"
import * as authCss from "./auth-parts.css.ts"
import { useNavigateAction, useScreenActorOptions } from "./auth-effects-context.tsx"
import { AuthLayout } from "../layouts/auth-layout.tsx"
import { CheckCircleIcon, CircleIcon } from "../ui/icons.tsx"
import { AlertBox } from "../ui/alert-box.tsx"
import { Button } from "../ui/button.tsx"
import { Form } from "../ui/form.tsx"
import { Link } from "../ui/link.tsx"
import { PasswordField } from "../ui/password-field.tsx"
import { TextField } from "../ui/text-field.tsx"
import { browserTimezone, useInvitationEffects } from "./invitation-effects-context.tsx"
import * as css from "./invitations.css.ts"

type SignupRef = ActorRefFrom<typeof invitationSignupMachine>

const TITLE = "Complete your signup"

function NameInput({ actorRef, field, label, autoComplete }: { readonly actorRef: SignupRef; readonly field: InvitationSignupField; readonly label: string; readonly autoComplete: string }) {
  const value = useSelector(actorRef, (s) => s.context.values[field])
  const error = useSelector(actorRef, (s) => s.context.fieldErrors[field])
  return (
    <TextField
      label={label}
      autoComplete={autoComplete}
      isRequired
      value={value}
      onChange={(next) => actorRef.send({ type: "field.changed", field, value: next })}
      isInvalid={error !== undefined}
      {...(error === undefined ? {} : { errorMessage: error })}
    />
  )
}

function SecretInput({ actorRef, field, label }: { readonly actorRef: SignupRef; readonly field: SecretField; readonly label: string }) {
  const value = useSelector(actorRef, (s) => s.context.values[field])
  const visible = useSelector(actorRef, (s) => s.context.visible[field])
  const error = useSelector(actorRef, (s) => s.context.fieldErrors[field])
  return (
    <PasswordField
      label={label}
      autoComplete="new-password"
      isRequired
      value={value}
      onChange={(next) => actorRef.send({ type: "field.changed", field, value: next })}
      isRevealed={visible}
      onRevealedChange={() => actorRef.send({ type: "visibility.toggled", field })}
      isInvalid={error !== undefined}
      {...(error === undefined ? {} : { errorMessage: error })}
    />
  )
}

const requirementsEqual = (a: ReadonlyArray<PasswordRequirement>, b: ReadonlyArray<PasswordRequirement>) =>
  a.length === b.length && a.every((r, i) => r.met === b[i]?.met)

/** The live checklist under the password (access §2); announced politely as it changes. */
function PasswordChecklist({ actorRef }: { readonly actorRef: SignupRef }) {
  const requirements = useSelector(actorRef, selectPasswordRequirements, requirementsEqual)
  return (
    <ul className={css.checklist} aria-label="Password requirements" aria-live="polite">
      {requirements.map((r) => (
        <li key={r.id} className={css.requirement({ met: r.met })}>
          {r.met ? <CheckCircleIcon size={16} /> : <CircleIcon size={16} />}
          <span>
            {r.label}
            <span className={css.visuallyHidden}>
              {r.met ? " (met)" : " (not met)"}
            </span>
          </span>
        </li>
      ))}
    </ul>
  )
}

function SignupForm({ actorRef }: { readonly actorRef: SignupRef }) {
  const invitation = useSelector(actorRef, (s) => s.context.invitation)
  const error = useSelector(actorRef, (s) => s.context.error)
  const isSubmitting = useSelector(actorRef, (s) => s.matches({ ready: "submitting" }) || s.matches({ ready: "startingSession" }))
  return (
    <div className={authCss.screen}>
      <AuthHeader
        title={TITLE}
        subtitle={
          invitation === null ? undefined : (
            <>
              Create your account to join <span className={authCss.strong}>{invitation.workspace_name}</span>
              {invitation.role_name === null ? "" : ` as ${invitation.role_name}`}.
            </>
          )
        }
      />
      {error === null ? null : <AlertBox tone="error">{error}</AlertBox>}
      <Form
        className={authCss.form}
        validationBehavior="aria"
        aria-label="Complete your signup"
        onSubmit={(e) => {
          e.preventDefault()
          actorRef.send({ type: "form.submitted" })
        }}
      >
        {invitation === null ? null : <TextField label="Email" value={invitation.email} isReadOnly autoComplete="email" />}
        <div className={authCss.pair}>
          <NameInput actorRef={actorRef} field="first_name" label="First name" autoComplete="given-name" />
          <NameInput actorRef={actorRef} field="last_name" label="Last name" autoComplete="family-name" />
        </div>
        <SecretInput actorRef={actorRef} field="password" label="Password" />
        <PasswordChecklist actorRef={actorRef} />
        <SecretInput actorRef={actorRef} field="confirm_password" label="Confirm password" />
        <Button type="submit" size="lg" fullWidth isPending={isSubmitting}>
          Complete signup
        </Button>
      </Form>
      <p className={authCss.footer}>
        Already have an account? <Link href="/login">Sign in</Link>
      </p>
    </div>
  )
}

export function InvitationSignupView() {
  const [query] = useSearchParams()
  const effects = useInvitationEffects()
  const navigateAction = useNavigateAction()
  const logic = useMemo(
    () =>
      invitationSignupMachine.provide(
        invitationSignupImplementations(effects, { navigate: (p: NavigateParams) => navigateAction(undefined, p) }),
      ),
    [effects, navigateAction],
  )
  const actorRef = useActorRef(logic, useScreenActorOptions({ token: query.get("token"), timezone: browserTimezone() }))
  const view = useSelector(actorRef, (s) =>
    s.matches("checking") || s.matches("verifying")
      ? "verifying"
      : s.matches("invalid")
        ? "invalid"
        : s.matches("alreadyAccepted")
          ? "alreadyAccepted"
          : s.matches("unavailable")
            ? "unavailable"
            : "form",
  )
  const error = useSelector(actorRef, (s) => s.context.error)

  if (view === "form") {
    return (
      <AuthLayout>
        <SignupForm actorRef={actorRef} />
      </AuthLayout>
    )
  }
  return (
    <AuthLayout>
      <div className={authCss.screen}>
        <AuthHeader title={TITLE} />
        {view === "verifying" ? (
          <StatusPanel level={2} tone="loading" title="Checking your invitation...">
            <p>This only takes a moment.</p>
          </StatusPanel>
        ) : view === "invalid" ? (
          <StatusPanel
            level={2}
            tone="error"
            title={InvitationMessages.invalidInvitationTitle}
            actions={
              <Button fullWidth onPress={() => actorRef.send({ type: "login.requested" })}>
                Go to login
              </Button>
            }
          >
            <p>{error}</p>
          </StatusPanel>
        ) : view === "alreadyAccepted" ? (
          <StatusPanel level={2} tone="info" title={InvitationMessages.screenAlreadyAccepted}>
            <p>Taking you to the sign-in page...</p>
          </StatusPanel>
        ) : (
          <StatusPanel
            level={2}
            tone="warning"
            title="We couldn't check your invitation"
            actions={
              <Button fullWidth onPress={() => actorRef.send({ type: "invitation.retried" })}>
                Try again
              </Button>
            }
          >
            <p>{error}</p>
          </StatusPanel>
        )}
      </div>
    </AuthLayout>
  )
}
