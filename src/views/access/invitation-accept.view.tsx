/**
 * /invitation/accept/:token and /invitation/accept?token= share this screen (access §2 "Screens: Invitation page"):
 * renders `invitationAcceptMachine`. Shows the workspace, the invited email and the role with 'Accept Invitation'
 * (signed in) or 'Accept and Continue' (signed out); 'Invalid or expired invitation link' for a bad link;
 * 'Registration Complete!' then sign-in after 3 s; an already-accepted notice then sign-in after 1.5 s.
 */
import { useMemo } from "react"
import { useActorRef, useSelector } from "@xstate/react"
import { useParams, useSearchParams } from "wouter"
import type { ActorRefFrom } from "xstate"
import { InvitationMessages } from "../../contracts/messages.ts"
import type { NavigateParams } from "../../machines/auth-effects.ts"
import {
  invitationAcceptImplementations,
  invitationAcceptMachine,
  selectAcceptLabel,
} from "../../machines/invitation-accept.machine.ts"
import type { ToastRequest } from "../../machines/screen-environment.ts"
import { useToasts } from "../app-actors.tsx"
import { AuthHeader, StatusPanel } from "./auth-parts.tsx"
import * as authCss from "./auth-parts.css.ts"
import { useNavigateAction, useScreenActorOptions } from "./auth-effects-context.tsx"
import { AuthLayout } from "../layouts/auth-layout.tsx"
import { BuildingIcon } from "../ui/icons.tsx"
import { useSessionStatus } from "../session-status.tsx"
import { AlertBox } from "../ui/alert-box.tsx"
import { Button } from "../ui/button.tsx"
import { Link } from "../ui/link.tsx"
import { browserTimezone, useInvitationEffects } from "./invitation-effects-context.tsx"
import * as css from "./invitations.css.ts"

type AcceptRef = ActorRefFrom<typeof invitationAcceptMachine>

const TITLE = "Workspace invitation"

function InvitationDetails({ actorRef }: { readonly actorRef: AcceptRef }) {
  const invitation = useSelector(actorRef, (s) => s.context.invitation)
  const error = useSelector(actorRef, (s) => s.context.error)
  const label = useSelector(actorRef, selectAcceptLabel)
  const signedIn = useSelector(actorRef, (s) => s.context.signedIn)
  const canAccept = useSelector(actorRef, (s) => s.can({ type: "invitation.accepted" }))
  const isAccepting = useSelector(actorRef, (s) => s.matches("accepting") || s.matches("startingSession"))
  if (invitation === null) return null
  return (
    <div className={authCss.screen}>
      <AuthHeader title={TITLE} subtitle="You have been invited to join a workspace." />
      <section className={css.invitationCard} aria-label="Invitation">
        <div className={css.invitedTo}>
          <span className={css.workspaceMark}>
            <BuildingIcon size={24} />
          </span>
          <div>
            <p className={css.invitedLead}>You're invited to join</p>
            <p className={css.workspaceName}>{invitation.workspace_name}</p>
          </div>
        </div>
        <dl className={css.details}>
          <dt className={css.term}>Workspace</dt>
          <dd className={css.value}>{invitation.workspace_name}</dd>
          <dt className={css.term}>Invited email</dt>
          <dd className={css.value}>{invitation.email}</dd>
          <dt className={css.term}>Role</dt>
          <dd className={css.value}>{invitation.role_name ?? "No role"}</dd>
        </dl>
        {error === null ? null : <AlertBox tone="error">{error}</AlertBox>}
        <div className={css.actions}>
          <Button
            size="lg"
            fullWidth
            isDisabled={!canAccept && !isAccepting}
            isPending={isAccepting}
            onPress={() => actorRef.send({ type: "invitation.accepted" })}
          >
            {label}
          </Button>
        </div>
      </section>
      <p className={authCss.footer}>
        {signedIn ? (
          <Link href="/dashboard">Back to the dashboard</Link>
        ) : (
          <>
            Not {invitation.email}? <Link href="/login">Sign in with another account</Link>
          </>
        )}
      </p>
    </div>
  )
}

const toLogin = (
  <Link href="/login" variant="button">
    Go to login
  </Link>
)

export function InvitationAcceptView() {
  const params = useParams<{ token?: string }>()
  const [query] = useSearchParams()
  const signedIn = useSessionStatus() === "authenticated"
  const effects = useInvitationEffects()
  const navigateAction = useNavigateAction()
  const toasts = useToasts()
  const logic = useMemo(
    () =>
      invitationAcceptMachine.provide(
        invitationAcceptImplementations(effects, {
          navigate: (p: NavigateParams) => navigateAction(undefined, p),
          notify: ({ kind, message, durationMs }: ToastRequest) => toasts.show(kind, message, durationMs),
        }),
      ),
    [effects, navigateAction, toasts],
  )
  const actorRef = useActorRef(
    logic,
    useScreenActorOptions({
      token: params.token ?? query.get("token"),
      signedIn,
      timezone: browserTimezone(),
      now: effects.now,
    }),
  )
  const view = useSelector(actorRef, (s) =>
    s.matches("checking") || s.matches("verifying")
      ? "verifying"
      : s.matches("invalid")
        ? "invalid"
        : s.matches("expired")
          ? "expired"
          : s.matches("alreadyAccepted")
            ? "alreadyAccepted"
            : s.matches("completed")
              ? "completed"
              : s.matches("unavailable")
                ? "unavailable"
                : "details",
  )
  const error = useSelector(actorRef, (s) => s.context.error)

  if (view === "details") {
    return (
      <AuthLayout>
        <InvitationDetails actorRef={actorRef} />
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
          <StatusPanel level={2} tone="error" title={InvitationMessages.pageInvalid} actions={toLogin}>
            <p>Ask the person who invited you to send a new invitation.</p>
          </StatusPanel>
        ) : view === "expired" ? (
          <StatusPanel level={2} tone="warning" title={InvitationMessages.screenExpired} actions={toLogin} />
        ) : view === "alreadyAccepted" ? (
          <StatusPanel level={2} tone="info" title={InvitationMessages.screenAlreadyAccepted}>
            <p>Taking you to the sign-in page...</p>
          </StatusPanel>
        ) : view === "completed" ? (
          <StatusPanel
            level={2}
            tone="success"
            title={InvitationMessages.registrationComplete}
            actions={
              <Link href="/login" variant="button">
                Sign in now
              </Link>
            }
          >
            <p>You will be redirected to the sign-in page in a few seconds.</p>
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
