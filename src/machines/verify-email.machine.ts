/**
 * The email-verification link screen, /verify-email?token=…&email=… (access spec §2 "Verify-email", §4 "Email
 * verification", §5 verification link, §8 "Email verification"; calls `GET /api/verify-email`).
 *
 * Input: the `token` and `email` query parameters.
 * Flow: `checking` the link first (missing parameter → 'Invalid verification link. Missing required parameters.',
 * token shorter than 32 → 'Invalid verification token format.', bad address → 'Invalid email format in verification
 * link.'), then `verifying` (loading), then:
 * - success, or an 'already verified' answer (treated as success) → /email-verification-success?email=… carrying
 *   'Email verified successfully!' or 'Email is already verified!';
 * - `problem.invalid` (bad link, invalid or expired token, unknown user) or `problem.failed` (network, anything
 *   else), with the §8 screen text and a `resendVerification` child for the resend button (when the link's address
 *   is usable; otherwise the view links to /verification-pending).
 *
 * Events accepted:
 * - `verification.retried` — the user pressed Retry after a failure that was not the link's fault (network or server): the link is verified again.
 */
import { assign, fromPromise, setup } from "xstate"
import { checkVerificationLink, type VerifyEmailParams, type VerifyEmailResponse } from "../contracts/auth.ts"
import { verificationScreen } from "../contracts/error-mapping.ts"
import { VerificationMessages } from "../contracts/messages.ts"
import { isValidEmail } from "../contracts/validation.ts"
import { AuthPaths, toFailure, type NavigateParams, type VerificationSuccessRouteState } from "./auth-effects.ts"
import { resendVerificationMachine } from "./resend-verification.machine.ts"
import { errorOf } from "./actor-output.ts"

export interface VerifyEmailInput {
  readonly token?: string | null
  readonly email?: string | null
}

export interface VerifyEmailContext {
  readonly token: string
  readonly email: string
  /** What the screen says in the current state (link problem, §8 screen text, or the success text). */
  readonly message: string | undefined
}

export type VerifyEmailEvent = { readonly type: "verification.retried" }

/** Where a verified address goes next. */
export const verificationSuccessTarget = (email: string, message: string): NavigateParams => ({
  to: `${AuthPaths.emailVerificationSuccess}${email === "" ? "" : `?${new URLSearchParams({ email }).toString()}`}`,
  state: { message } satisfies VerificationSuccessRouteState,
  replace: true,
})

/** §8 screen texts that mean "this link is no good" rather than "something went wrong". */
const LINK_PROBLEMS = new Set<string>([
  VerificationMessages.screenInvalid,
  VerificationMessages.screenExpired,
  VerificationMessages.screenUserNotFound,
])

export const verifyEmailMachine = setup({
  types: {
    context: {} as VerifyEmailContext,
    events: {} as VerifyEmailEvent,
    input: {} as VerifyEmailInput,
  },
  actors: {
    /** Verifies the link's token and email (GET /api/verify-email). */
    verifyEmail: fromPromise<VerifyEmailResponse, VerifyEmailParams>(async () => {
      throw new Error("verifyEmail is not provided")
    }),
    /** The resend-verification child behind the problem screen's resend button. */
    resendVerification: resendVerificationMachine,
  },
  guards: {
    /** The link has both parameters, a token of at least 32 characters and a well-formed address. */
    isLinkWellFormed: ({ context }) => checkVerificationLink(context) === undefined,
    /** Access §8: an 'already verified' answer is a success. */
    isAlreadyVerified: ({ event }) => verificationScreen(toFailure(errorOf(event))).kind === "success",
    /** The failure is the link's fault (bad link, invalid or expired token, unknown user). */
    isLinkProblem: ({ event }) => LINK_PROBLEMS.has(verificationScreen(toFailure(errorOf(event))).message),
  },
  actions: {
    /** Environment: wouter navigation (supplied at the React boundary). */
    navigate: (_, _params: NavigateParams) => {},
    assignLinkProblem: assign({ message: ({ context }) => checkVerificationLink(context) }),
    assignScreenMessage: assign({ message: ({ event }) => verificationScreen(toFailure(errorOf(event))).message }),
    clearMessage: assign({ message: undefined }),
  },
}).createMachine({
  id: "verifyEmail",
  context: ({ input }) => ({ token: (input.token ?? "").trim(), email: (input.email ?? "").trim(), message: undefined }),
  initial: "checking",
  states: {
    checking: {
      description: "The link's parameters are checked first: a missing parameter, a token shorter than 32 characters or a bad address make it invalid.",
      /** A well-formed link is verified with the server; otherwise the screen says what is wrong with it. */
      always: [{ guard: "isLinkWellFormed", target: "verifying" }, { target: "problem.invalid", actions: "assignLinkProblem" }],
    },
    verifying: {
      description: "The link is being verified with the server (loading).",
      invoke: {
        id: "verifyEmail",
        src: "verifyEmail",
        input: ({ context }) => ({ token: context.token, email: context.email }),
        /** Verified: on to /email-verification-success with 'Email verified successfully!'. */
        onDone: {
          target: "verified",
          actions: {
            type: "navigate",
            params: ({ context }) => verificationSuccessTarget(context.email, VerificationMessages.verifiedSuccess),
          },
        },
        /** 'Already verified' counts as success ('Email is already verified!'); a bad link, invalid or expired token or unknown user is `problem.invalid`; anything else is `problem.failed`. */
        onError: [
          {
            guard: "isAlreadyVerified",
            target: "verified",
            actions: {
              type: "navigate",
              params: ({ context }) => verificationSuccessTarget(context.email, VerificationMessages.alreadyVerifiedSuccess),
            },
          },
          { guard: "isLinkProblem", target: "problem.invalid", actions: "assignScreenMessage" },
          { target: "problem.failed", actions: "assignScreenMessage" },
        ],
      },
    },
    /** The link cannot be used: say why and offer a new one. */
    problem: {
      invoke: {
        id: "resend",
        src: "resendVerification",
        input: ({ context }) => ({ email: isValidEmail(context.email) ? context.email : "", autoSend: false }),
      },
      initial: "invalid",
      states: {
        invalid: { description: "The link is invalid (bad link, invalid or expired token, unknown user): the §8 text with a resend button when the address is usable." },
        failed: {
          description: "The verification failed for another reason (network, anything else): the §8 text with Retry and a resend button when the address is usable.",
          on: { "verification.retried": { target: "#verifyEmail.verifying", actions: "clearMessage" } },
        },
      },
    },
    verified: { description: "The email is verified: the success screen took over.", type: "final" },
  },
})
