/**
 * Invitation page, /invitation/accept/{token} and /invitation/accept?token= (access spec §2 "Screens: Invitation page",
 * §4 "Invitation accept", §8 "Invitation", §9 redirects 3 s / 1.5 s; calls GET /api/invitation/verify/{token} and
 * POST /api/invitations/accept).
 *
 * Input: the token (path or query), whether someone is signed in, the browser's timezone, and `now` (the badge).
 * Flow:
 * - `verifying` the link → `ready`: the workspace, the invited email and the role, with 'Accept Invitation' (signed
 *   in) or 'Accept and Continue' (signed out). No token, or a refused one → `invalid` ('Invalid or expired invitation
 *   link'); expired → `expired`; already accepted → `alreadyAccepted`, then /login after 1.5 s; no answer → `unavailable`
 *   (Retry).
 * - `invitation.accepted`:
 *   - signed out and the check says the invitee has no account → /invitation/signup?token= (the completion form);
 *   - signed out and the invitee has an account → /login carrying the invitation (accepted after sign-in, on the
 *     workspace selection screen);
 *   - otherwise `accepting` (POST accept with invitation_token + timezone): tokens returned → the session takes over
 *     (→ dashboard); signed in → the workspace is marked new, "You've been added to …" (5 s), → /dashboard; signed out
 *     without tokens → `completed` ('Registration Complete!') → /login after 3 s. Refusals land on the §8 texts.
 *
 * Events accepted:
 * - `invitation.accepted` — the user pressed 'Accept Invitation' (signed in) or 'Accept and Continue' (signed out).
 * - `invitation.retried` — the user pressed Retry after the token check could not run.
 * - `xstate.done.actor.checkInvitation` — the link is valid: the workspace, invited email and role are shown.
 * - `xstate.error.actor.checkInvitation` — the check refused the link: already accepted, expired, unreachable (Retry) or invalid.
 * - `xstate.after.completionRedirect.invitationAccept.completed` — 3 s after 'Registration Complete!': on to /login.
 * - `xstate.after.alreadyAcceptedRedirect.invitationAccept.alreadyAccepted` — 1.5 s after the already-accepted notice: on to /login.
 */
import { assign, fromPromise, setup } from "xstate"
import { Redirects, Toasts } from "../contracts/constants.ts"
import type { AcceptInvitationPayload, AcceptInvitationResponse, InvitationCheckResponse } from "../contracts/invitations.ts"
import { InvitationMessages, addedToWorkspaceMessage } from "../contracts/messages.ts"
import { markNewlyAdded } from "../services/storage.ts"
import { AuthPaths, toFailure, type LoginRouteState, type NavigateParams } from "./auth-effects.ts"
import {
  InvitationPaths,
  acceptFailureMessage,
  isAccountExistsFailure,
  isAlreadyAcceptedFailure,
  isExpiredFailure,
  isUnreachableFailure,
  serverReason,
  type InvitationEffects,
} from "./invitation-effects.ts"
import type { ScreenEnvironment, SessionHandOff, ToastRequest, WorkspaceStoreTransition } from "./screen-environment.ts"
import { invitationCheck, invitationSessionHandOff, notProvided } from "./building-blocks.ts"
import { errorOf, outputOf } from "./actor-output.ts"

// ---------------------------------------------------------------------------------------------------
// Types

export interface InvitationAcceptInput {
  readonly token: string | null | undefined
  readonly signedIn: boolean
  /** IANA name from the browser (`Intl.DateTimeFormat().resolvedOptions().timeZone`). */
  readonly timezone: string
  readonly now: () => number
}

export interface InvitationAcceptContext {
  readonly token: string
  readonly signedIn: boolean
  readonly timezone: string
  readonly now: () => number
  readonly invitation: InvitationCheckResponse | null
  /** The §8 text of the last failure (screen or accept). */
  readonly error: string | null
}

export type InvitationAcceptEvent = { readonly type: "invitation.accepted" } | { readonly type: "invitation.retried" }

/** Text of the sign-in hand-off for an invitee who already has an account (the spec shows none). */
export const signInToAcceptMessage = (workspaceName: string): string => `Sign in to join ${workspaceName}.`

// ---------------------------------------------------------------------------------------------------
// Machine

export const invitationAcceptMachine = setup({
  types: {
    context: {} as InvitationAcceptContext,
    events: {} as InvitationAcceptEvent,
    input: {} as InvitationAcceptInput,
  },
  actors: {
    /** Checks the invitation token (GET /api/invitation/verify/{token}). */
    checkInvitation: fromPromise<InvitationCheckResponse, { readonly token: string }>(notProvided("checkInvitation")),
    /** Accepts the invitation with the token and the browser's timezone (POST /api/invitations/accept). */
    acceptInvitation: fromPromise<AcceptInvitationResponse, AcceptInvitationPayload>(notProvided("acceptInvitation")),
    /** Hands the returned tokens to the session, which loads the user and the workspaces and goes to the dashboard. */
    startSession: fromPromise<void, SessionHandOff>(notProvided("startSession")),
  },
  delays: {
    /** Access §9: redirect after invitation completion 3 s. */
    completionRedirect: Redirects.afterInvitationCompletionMs,
    /** Access §9: after an already-accepted notice 1.5 s. */
    alreadyAcceptedRedirect: Redirects.afterAlreadyAcceptedMs,
  },
  guards: {
    /** The link carried a token. */
    hasToken: ({ context }) => context.token !== "",
    /** Someone is signed in in this tab. */
    isSignedIn: ({ context }) => context.signedIn,
    /** Signed out, and the check says nobody has an account under the invited address. */
    needsSignup: ({ context }) => !context.signedIn && context.invitation?.user_exists === false,
    /** Signed out, and the invited address already has an account. */
    needsSignIn: ({ context }) => !context.signedIn && context.invitation?.user_exists === true,
    /** The acceptance answered with an access and a refresh token. */
    hasTokens: ({ event }) => {
      const out = outputOf<AcceptInvitationResponse>(event)
      return out.access_token !== undefined && out.refresh_token !== undefined
    },
    /** The failure says the invitation was already accepted. */
    isAlreadyAccepted: ({ event }) => isAlreadyAcceptedFailure(errorOf(event)),
    /** The failure says the invitation has expired. */
    isExpired: ({ event }) => isExpiredFailure(errorOf(event)),
    /** The call could not reach the server or got no usable answer (network, 429, 5xx). */
    isUnreachable: ({ event }) => isUnreachableFailure(errorOf(event)),
    /** The failure says the invited address already has an account. */
    isAccountExists: ({ event }) => isAccountExistsFailure(errorOf(event)),
    /** Signed out and the server wants the completion details: the sign-up form is the way on. */
    needsDetails: ({ context, event }) => !context.signedIn && toFailure(errorOf(event)).type === "VALIDATION_ERROR",
  },
  actions: {
    // environment
    navigate: (_, _params: NavigateParams) => {},
    notify: (_, _params: ToastRequest) => {},
    updateWorkspaceStore: (_, _params: { readonly transition: WorkspaceStoreTransition }) => {},
    // context
    assignInvitation: assign({
      invitation: ({ event }) => outputOf<InvitationCheckResponse>(event),
      error: null,
    }),
    assignInvalid: assign({ error: InvitationMessages.pageInvalid }),
    assignExpired: assign({ error: InvitationMessages.screenExpired }),
    assignAlreadyAccepted: assign({ error: InvitationMessages.screenAlreadyAccepted }),
    assignUnreachable: assign({ error: ({ event }) => toFailure(errorOf(event)).message }),
    assignAcceptError: assign({ error: ({ event }) => acceptFailureMessage(errorOf(event)) }),
    clearError: assign({ error: null }),
  },
}).createMachine({
  id: "invitationAccept",
  context: ({ input }) => ({
    token: (input.token ?? "").trim(),
    signedIn: input.signedIn,
    timezone: input.timezone,
    now: input.now,
    invitation: null,
    error: null,
  }),
  initial: "checking",
  states: {
    ...invitationCheck("assignInvalid", [
      { guard: "isExpired", target: "expired", actions: "assignExpired" },
      { guard: "isUnreachable", target: "unavailable", actions: "assignUnreachable" },
      { target: "invalid", actions: "assignInvalid" },
    ]),

    ready: {
      description: "The invitation is shown: the workspace, the invited email and the role, with 'Accept Invitation' (signed in) or 'Accept and Continue' (signed out).",
      on: {
        "invitation.accepted": [
          {
            guard: "needsSignup",
            target: "leaving",
            actions: { type: "navigate", params: ({ context }) => ({ to: InvitationPaths.signup(context.token) }) },
          },
          {
            guard: "needsSignIn",
            target: "leaving",
            actions: {
              type: "navigate",
              params: ({ context }) => ({
                to: InvitationPaths.loginWithInvitation(context.token),
                state: {
                  ...(context.invitation === null ? {} : { email: context.invitation.email }),
                  ...(context.invitation === null ? {} : { message: signInToAcceptMessage(context.invitation.workspace_name) }),
                } satisfies LoginRouteState,
              }),
            },
          },
          { target: "accepting", actions: "clearError" },
        ],
      },
    },

    accepting: {
      description: "The invitation is being accepted (with the browser's timezone).",
      invoke: {
        id: "acceptInvitation",
        src: "acceptInvitation",
        input: ({ context }) => ({ invitation_token: context.token, timezone: context.timezone }),
        /** Accepted: with tokens the session takes over; signed in, the workspace is marked new, "You've been added to …" toasts and the dashboard opens; otherwise 'Registration Complete!'. */
        onDone: [
          { guard: "hasTokens", target: "startingSession" },
          {
            guard: "isSignedIn",
            target: "leaving",
            actions: [
              {
                type: "updateWorkspaceStore",
                params: ({ context, event }) => {
                  const id = event.output.data.workspace_id
                  const at = context.now()
                  return { transition: (s) => (id === undefined ? s : markNewlyAdded(s, id, at)) }
                },
              },
              {
                type: "notify",
                params: ({ event }) => ({
                  kind: "success",
                  message: addedToWorkspaceMessage(event.output.data.workspace_name),
                  durationMs: Toasts.addedToWorkspaceMs,
                }),
              },
              { type: "navigate", params: { to: AuthPaths.dashboard } },
            ],
          },
          { target: "completed" },
        ],
        /** An existing account goes to /login with the invitation kept; missing details go to the sign-up form; already accepted or expired show that screen; other refusals show their §8 text on the invitation. */
        onError: [
          {
            guard: "isAccountExists",
            target: "leaving",
            actions: {
              type: "navigate",
              params: ({ context, event }) => ({
                to: InvitationPaths.loginWithInvitation(context.token),
                state: {
                  ...(context.invitation === null ? {} : { email: context.invitation.email }),
                  message: serverReason(event.error),
                } satisfies LoginRouteState,
              }),
            },
          },
          {
            guard: "needsDetails",
            target: "leaving",
            actions: { type: "navigate", params: ({ context }) => ({ to: InvitationPaths.signup(context.token) }) },
          },
          { guard: "isAlreadyAccepted", target: "alreadyAccepted", actions: "assignAlreadyAccepted" },
          { guard: "isExpired", target: "expired", actions: "assignExpired" },
          { target: "ready", actions: "assignAcceptError" },
        ],
      },
    },

    /** Tokens came back: the session stores them, loads the user and the workspaces and goes to the dashboard. */
    startingSession: {
      invoke: {
        id: "startSession",
        src: "startSession",
        input: invitationSessionHandOff,
        /** The session started: on to the dashboard. */
        onDone: { target: "leaving" },
        /** The session could not start: back to the invitation with the error. */
        onError: { target: "ready", actions: "assignAcceptError" },
      },
    },

    /** 'Registration Complete!', then /login after 3 s. */
    completed: {
      after: {
        completionRedirect: { target: "leaving", actions: { type: "navigate", params: { to: AuthPaths.login } } },
      },
    },

    /** 'This invitation has already been accepted. You can sign in now.', then /login after 1.5 s. */
    alreadyAccepted: {
      after: {
        alreadyAcceptedRedirect: { target: "leaving", actions: { type: "navigate", params: { to: AuthPaths.login } } },
      },
    },

    expired: { description: "The invitation has expired: its §8 text is shown." },
    invalid: { description: "'Invalid or expired invitation link' (no token, or a refused one)." },
    leaving: { description: "The user left the page (to sign-up, /login or the dashboard).", type: "final" },
  },
})

// ---------------------------------------------------------------------------------------------------
// Selectors and the `.provide()` mapping

type Snapshot = ReturnType<typeof invitationAcceptMachine.transition>

/** The button text of access §2: 'Accept Invitation' when signed in, 'Accept and Continue' when not. */
export const acceptLabel = (signedIn: boolean): string => (signedIn ? "Accept Invitation" : "Accept and Continue")

export const selectAcceptLabel = (snapshot: Pick<Snapshot, "context">): string => acceptLabel(snapshot.context.signedIn)

export const invitationAcceptImplementations = (effects: InvitationEffects, env: ScreenEnvironment) => ({
  actors: {
    checkInvitation: fromPromise<InvitationCheckResponse, { readonly token: string }>(({ input, signal }) =>
      effects.checkInvitation(input, signal),
    ),
    acceptInvitation: fromPromise<AcceptInvitationResponse, AcceptInvitationPayload>(({ input, signal }) =>
      effects.acceptInvitation(input, signal),
    ),
    startSession: fromPromise<void, SessionHandOff>(({ input, signal }) => effects.startSession(input, signal)),
  },
  actions: {
    navigate: (_: unknown, params: NavigateParams) => env.navigate(params),
    notify: (_: unknown, params: ToastRequest) => env.notify(params),
    updateWorkspaceStore: (_: unknown, { transition }: { readonly transition: WorkspaceStoreTransition }) =>
      effects.updateWorkspaceStore(transition),
  },
})
