/**
 * Invitation sign-up, /invitation/signup?token= and /accept-invite?token= (access spec §2 "Screens: Invitation signup",
 * §4 "Invitation signup with tokens goes to /dashboard, without tokens to /login", §5 invitation signup rules, §8
 * "Invitation" completion texts; calls GET /api/invitation/verify/{token} and POST /api/invitations/accept with the
 * completion payload).
 *
 * Input: the token from the query, the browser's timezone.
 * Flow: no token → `invalid` ('Invalid invitation' with 'Go to login'); else `verifying` the token → the form
 * (`ready.editing`: first name, last name, password, confirm password with show/hide toggles and a live
 * password-requirement checklist) or `invalid` (the §8 text) / `alreadyAccepted` (→ /login after 1.5 s) / `unavailable`
 * (Retry). `form.submitted` validates with the contract's rules (§5), then `submitting` → tokens returned: the session
 * takes over (→ /dashboard); no tokens: /login with 'Registration Complete!'. An invitee who already has an account is
 * sent to /login with the invitation kept. Other failures stay on the form with the §8 completion text.
 *
 * Events accepted:
 * - `field.changed` { field, value } — the user typed in first name, last name, password or confirm password.
 * - `visibility.toggled` { field } — the user showed or hid one of the two password fields.
 * - `form.submitted` — the user submitted the form: a valid one is sent, otherwise the field errors show.
 * - `invitation.retried` — the user pressed Retry after the token check could not run.
 * - `login.requested` — the user pressed 'Go to login' on the invalid-invitation screen.
 * - `xstate.done.actor.checkInvitation` — the token is valid: the completion form shows for the invited email.
 * - `xstate.error.actor.checkInvitation` — the check refused the token: already accepted (→ /login after 1.5 s), unreachable (Retry) or invalid (the §8 text).
 * - `xstate.after.alreadyAcceptedRedirect.invitationSignup.alreadyAccepted` — 1.5 s after the already-accepted notice: on to /login.
 */
import { assertEvent, assign, fromPromise, setup } from "xstate"
import { Limits, Redirects } from "../contracts/constants.ts"
import {
  validateInvitationSignup,
  type AcceptInvitationResponse,
  type InvitationCheckResponse,
  type InvitationCompletionPayload,
} from "../contracts/invitations.ts"
import { InvitationMessages, ValidationMessages } from "../contracts/messages.ts"
import type { FieldErrors } from "../contracts/validation.ts"
import { AuthPaths, toFailure, type LoginRouteState, type NavigateParams } from "./auth-effects.ts"
import {
  InvitationPaths,
  isAccountExistsFailure,
  isAlreadyAcceptedFailure,
  isExpiredFailure,
  isUnreachableFailure,
  serverReason,
  type InvitationEffects,
} from "./invitation-effects.ts"
import type { ScreenEnvironment, SessionHandOff } from "./screen-environment.ts"
import { invitationCheck, invitationSessionHandOff, notProvided, type SecretForm, type SecretFormEvent } from "./building-blocks.ts"
import { errorOf, outputOf } from "./actor-output.ts"

// ---------------------------------------------------------------------------------------------------
// Types

export type InvitationSignupField = "first_name" | "last_name" | "password" | "confirm_password"
export type SecretField = "password" | "confirm_password"

export interface InvitationSignupInput {
  readonly token: string | null | undefined
  readonly timezone: string
  readonly initialValues?: Partial<Readonly<Record<InvitationSignupField, string>>>
}

export interface InvitationSignupContext extends SecretForm<InvitationSignupField, SecretField> {
  readonly token: string
  readonly timezone: string
  readonly invitation: InvitationCheckResponse | null
  /** The reason the link cannot be used, or the last completion failure (§8 texts). */
  readonly error: string | null
}

export type InvitationSignupEvent =
  | SecretFormEvent<InvitationSignupField, SecretField>
  | { readonly type: "invitation.retried" }
  | { readonly type: "login.requested" }

/** One line of the live password checklist. */
export interface PasswordRequirement {
  readonly id: "length" | "uppercase" | "lowercase" | "number"
  readonly label: string
  readonly met: boolean
}

/**
 * Access §5 password rule as a checklist: at least 8 characters, an uppercase letter, a lowercase letter and a digit
 * (the same tests as the contract's `hasPasswordComposition`). All met ⇔ the password passes the composition rule.
 */
export const passwordRequirements = (password: string): ReadonlyArray<PasswordRequirement> => [
  { id: "length", label: `At least ${Limits.passwordMin} characters`, met: password.length >= Limits.passwordMin },
  { id: "uppercase", label: "One uppercase letter", met: /[A-Z]/.test(password) },
  { id: "lowercase", label: "One lowercase letter", met: /[a-z]/.test(password) },
  { id: "number", label: "One number", met: /\d/.test(password) },
]

const payloadOf = (context: InvitationSignupContext): InvitationCompletionPayload => ({
  invitation_token: context.token,
  first_name: context.values.first_name.trim(),
  last_name: context.values.last_name.trim(),
  password: context.values.password,
  confirm_password: context.values.confirm_password,
  ...(context.timezone === "" ? {} : { timezone: context.timezone }),
})

const formErrorsOf = (context: InvitationSignupContext): FieldErrors => {
  const { invitation_token: _token, ...fields } = validateInvitationSignup(payloadOf(context))
  return fields
}

// ---------------------------------------------------------------------------------------------------
// Machine

export const invitationSignupMachine = setup({
  types: {
    context: {} as InvitationSignupContext,
    events: {} as InvitationSignupEvent,
    input: {} as InvitationSignupInput,
  },
  actors: {
    /** Checks the invitation token (GET /api/invitation/verify/{token}). */
    checkInvitation: fromPromise<InvitationCheckResponse, { readonly token: string }>(notProvided("checkInvitation")),
    /** Completes the invitation with the sign-up details (POST /api/invitations/accept). */
    completeInvitation: fromPromise<AcceptInvitationResponse, InvitationCompletionPayload>(notProvided("completeInvitation")),
    /** Hands the returned tokens to the session, which loads the user and the workspaces and goes to the dashboard. */
    startSession: fromPromise<void, SessionHandOff>(notProvided("startSession")),
  },
  delays: {
    /** Access §9: after an already-accepted notice 1.5 s. */
    alreadyAcceptedRedirect: Redirects.afterAlreadyAcceptedMs,
  },
  guards: {
    /** The link carried a token. */
    hasToken: ({ context }) => context.token !== "",
    /** The form passes the invitation sign-up rules (§5). */
    isFormValid: ({ context }) => Object.keys(formErrorsOf(context)).length === 0,
    /** The completion answered with an access and a refresh token. */
    hasTokens: ({ event }) => {
      const out = outputOf<AcceptInvitationResponse>(event)
      return out.access_token !== undefined && out.refresh_token !== undefined
    },
    /** The failure says the invitation was already accepted. */
    isAlreadyAccepted: ({ event }) => isAlreadyAcceptedFailure(errorOf(event)),
    /** The call could not reach the server or got no usable answer (network, 429, 5xx). */
    isUnreachable: ({ event }) => isUnreachableFailure(errorOf(event)),
    /** The failure says the invited address already has an account. */
    isAccountExists: ({ event }) => isAccountExistsFailure(errorOf(event)),
  },
  actions: {
    navigate: (_, _params: NavigateParams) => {},
    assignInvitation: assign({ invitation: ({ event }) => outputOf<InvitationCheckResponse>(event), error: null }),
    assignMissingToken: assign({ error: ValidationMessages.invitationTokenInvalid }),
    /** The check refused the link: expired gets its screen text, anything else the mapped §8 text. */
    assignInvalidLink: assign({
      error: ({ event }) =>
        isExpiredFailure(errorOf(event))
          ? InvitationMessages.screenExpired
          : toFailure(errorOf(event), InvitationMessages.pageInvalid).message,
    }),
    assignAlreadyAccepted: assign({ error: InvitationMessages.screenAlreadyAccepted }),
    assignUnreachable: assign({ error: ({ event }) => toFailure(errorOf(event)).message }),
    assignCompletionError: assign({
      error: ({ event }) => toFailure(errorOf(event), InvitationMessages.completionFailed).message,
    }),
    clearError: assign({ error: null }),
    assignField: assign(({ context, event }) => {
      assertEvent(event, "field.changed")
      const { [event.field]: _cleared, ...fieldErrors } = context.fieldErrors
      return { values: { ...context.values, [event.field]: event.value }, fieldErrors }
    }),
    toggleVisibility: assign({
      visible: ({ context, event }) => {
        assertEvent(event, "visibility.toggled")
        return { ...context.visible, [event.field]: !context.visible[event.field] }
      },
    }),
    showFieldErrors: assign({ fieldErrors: ({ context }) => formErrorsOf(context) }),
    clearFieldErrors: assign({ fieldErrors: {}, error: null }),
    /** Nothing typed survives the end of the flow. */
    clearPasswords: assign(({ context }) => ({
      values: { ...context.values, password: "", confirm_password: "" },
      visible: { password: false, confirm_password: false },
    })),
  },
}).createMachine({
  id: "invitationSignup",
  context: ({ input }) => ({
    token: (input.token ?? "").trim(),
    timezone: input.timezone,
    invitation: null,
    values: { first_name: "", last_name: "", password: "", confirm_password: "", ...input.initialValues },
    visible: { password: false, confirm_password: false },
    fieldErrors: {},
    error: null,
  }),
  initial: "checking",
  states: {
    ...invitationCheck("assignMissingToken", [
      { guard: "isUnreachable", target: "unavailable", actions: "assignUnreachable" },
      { target: "invalid", actions: "assignInvalidLink" },
    ]),

    /** 'Invalid invitation' with 'Go to login'. */
    invalid: {
      on: {
        "login.requested": { target: "leaving", actions: { type: "navigate", params: { to: AuthPaths.login } } },
      },
    },

    /** Access §4: an already-accepted invitation redirects to login after 1.5 s. */
    alreadyAccepted: {
      after: {
        alreadyAcceptedRedirect: { target: "leaving", actions: { type: "navigate", params: { to: AuthPaths.login } } },
      },
    },

    ready: {
      description: "The invitation is valid: the completion form (first name, last name, password, confirm password) is shown.",
      initial: "editing",
      on: {
        "field.changed": { actions: "assignField" },
        "visibility.toggled": { actions: "toggleVisibility" },
      },
      states: {
        editing: {
          description: "The user fills in the form, with show/hide toggles and a live password-requirement checklist.",
          on: {
            "form.submitted": [
              { guard: "isFormValid", target: "submitting", actions: "clearFieldErrors" },
              { actions: "showFieldErrors" },
            ],
          },
        },
        submitting: {
          description: "The completion is being sent with the invitation token.",
          invoke: {
            id: "completeInvitation",
            src: "completeInvitation",
            input: ({ context }) => payloadOf(context),
            /** Completed: with tokens the session takes over (→ /dashboard); without, /login with 'Registration Complete!'. */
            onDone: [
              { guard: "hasTokens", target: "startingSession" },
              {
                target: "#invitationSignup.leaving",
                actions: [
                  "clearPasswords",
                  {
                    type: "navigate",
                    params: ({ context, event }) => {
                      const email = event.output.data.email ?? context.invitation?.email
                      return {
                        to: AuthPaths.login,
                        state: {
                          ...(email === undefined ? {} : { email }),
                          message: InvitationMessages.registrationComplete,
                        } satisfies LoginRouteState,
                      }
                    },
                  },
                ],
              },
            ],
            /** An invitee who already has an account goes to /login with the invitation kept; an already-accepted invitation shows that notice; other failures stay on the form with the §8 completion text. */
            onError: [
              {
                guard: "isAccountExists",
                target: "#invitationSignup.leaving",
                actions: [
                  "clearPasswords",
                  {
                    type: "navigate",
                    params: ({ context, event }) => ({
                      to: InvitationPaths.loginWithInvitation(context.token),
                      state: {
                        ...(context.invitation === null ? {} : { email: context.invitation.email }),
                        message: serverReason(event.error),
                      } satisfies LoginRouteState,
                    }),
                  },
                ],
              },
              { guard: "isAlreadyAccepted", target: "#invitationSignup.alreadyAccepted", actions: "assignAlreadyAccepted" },
              { target: "editing", actions: "assignCompletionError" },
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
            onDone: { target: "#invitationSignup.leaving", actions: "clearPasswords" },
            /** The session could not start: back to the form with the error. */
            onError: { target: "editing", actions: "assignCompletionError" },
          },
        },
      },
    },

    leaving: { description: "The user left the page (to /login or the dashboard).", type: "final" },
  },
})

// ---------------------------------------------------------------------------------------------------
// Selectors and the `.provide()` mapping

type Snapshot = ReturnType<typeof invitationSignupMachine.transition>

export const selectPasswordRequirements = (snapshot: Pick<Snapshot, "context">): ReadonlyArray<PasswordRequirement> =>
  passwordRequirements(snapshot.context.values.password)

export const invitationSignupImplementations = (effects: InvitationEffects, env: Pick<ScreenEnvironment, "navigate">) => ({
  actors: {
    checkInvitation: fromPromise<InvitationCheckResponse, { readonly token: string }>(({ input, signal }) =>
      effects.checkInvitation(input, signal),
    ),
    completeInvitation: fromPromise<AcceptInvitationResponse, InvitationCompletionPayload>(({ input, signal }) =>
      effects.completeInvitation(input, signal),
    ),
    startSession: fromPromise<void, SessionHandOff>(({ input, signal }) => effects.startSession(input, signal)),
  },
  actions: {
    navigate: (_: unknown, params: NavigateParams) => env.navigate(params),
  },
})
