/**
 * Resend of the verification email (access spec §4 "Login with a 401 … email_not_verified automatically triggers a
 * verification resend", §8 "Resend", §9 "Resend cool-down default 60 s"; calls `POST /api/resend-verification-link`).
 *
 * A child actor shared by every screen that offers a resend: the login warning box, sign-up step 2, the verify-email
 * failure screen and /verification-pending. The parent invokes it with `{ email, autoSend }`; views send
 * `resend.requested` to it directly and derive the resend button's enablement from `snapshot.can(...)`.
 *
 * Events accepted:
 * - `resend.requested` { email? } — the user pressed a resend button; the address defaults to the one from input / the last request, and is ignored unless valid.
 * - `xstate.after.cooldown.resendVerification.sent` — the 60 s cool-down after a successful send is over: resend is allowed again.
 * - `xstate.after.rateLimitWait.resendVerification.rateLimited` — the server's rate-limit wait is over: resend is allowed again.
 *
 * Outcomes: `sent` (inline + toast: `resendSuccessMessage`, the link lifetime from `expires_in_minutes`), then a 60 s
 * cool-down during which resend is refused; `rateLimited` ('Please wait N minute(s) before requesting another
 * verification email', N from `retry_after_seconds`, default 60) until that wait is over; `alreadyVerified` ('Email is
 * already verified! You can sign in now.', no further resend); `failed` (the §8 resend text, resend allowed again).
 */
import { assertEvent, assign, fromPromise, setup } from "xstate"
import type { ResendVerificationPayload, ResendVerificationResponse } from "../contracts/auth.ts"
import { Verification } from "../contracts/constants.ts"
import { retryAfterSeconds } from "../contracts/error-body.ts"
import { ResendMessages, resendSuccessMessage } from "../contracts/messages.ts"
import { isValidEmail } from "../contracts/sign-in-rules.ts"
import { toFailure, type NotifyParams } from "./auth-effects.ts"

export interface ResendVerificationInput {
  readonly email?: string | undefined
  /** Send once as soon as the actor starts (the login's automatic resend). */
  readonly autoSend?: boolean
}

export type ResendTone = "success" | "warning" | "error"

export interface ResendVerificationContext {
  readonly email: string
  readonly autoSend: boolean
  /** The outcome of the last request, shown next to the resend button. */
  readonly message: string | undefined
  readonly tone: ResendTone | undefined
  /** How long the rate-limit wait lasts (ms), from `retry_after_seconds`. */
  readonly waitMs: number
}

export type ResendVerificationEvent = { readonly type: "resend.requested"; readonly email?: string }

const COOLDOWN_MS = Verification.resendCooldownSeconds * 1000

export const resendVerificationMachine = setup({
  types: {
    context: {} as ResendVerificationContext,
    events: {} as ResendVerificationEvent,
    input: {} as ResendVerificationInput,
  },
  actors: {
    /** Resends the verification email (POST /api/resend-verification-link). */
    resendVerification: fromPromise<ResendVerificationResponse, ResendVerificationPayload>(async () => {
      throw new Error("resendVerification is not provided")
    }),
  },
  guards: {
    /** The parent asked for an automatic send and the email is well formed. */
    shouldAutoSend: ({ context }) => context.autoSend && isValidEmail(context.email),
    /** The request names a well-formed address (the event's, else the one already known). */
    hasValidEmail: ({ context, event }) => isValidEmail((event.email ?? context.email).trim()),
    /** The server refused with a rate limit (429). */
    isRateLimited: ({ event }) => toFailure((event as { error?: unknown }).error).type === "RATE_LIMIT_ERROR",
    /** The server says the email is already verified. */
    isAlreadyVerified: ({ event }) => toFailure((event as { error?: unknown }).error).type === "ALREADY_VERIFIED",
  },
  delays: {
    /** The cool-down after a successful send: 60 s. */
    cooldown: COOLDOWN_MS,
    /** The server's rate-limit wait (`retry_after_seconds`, default 60 s). */
    rateLimitWait: ({ context }) => context.waitMs,
  },
  actions: {
    /** Environment: a toast (supplied at the React boundary). */
    notify: (_, _params: NotifyParams) => {},
    assignRequestEmail: assign({
      email: ({ context, event }) => {
        assertEvent(event, "resend.requested")
        return (event.email ?? context.email).trim()
      },
    }),
    assignSent: assign(({ context, event }) => {
      const output = (event as { output?: ResendVerificationResponse }).output
      return {
        message: resendSuccessMessage(output?.data.email ?? context.email, output?.data.expires_in_minutes),
        tone: "success" as const,
      }
    }),
    assignRateLimited: assign(({ event }) => {
      const failure = toFailure((event as { error?: unknown }).error, ResendMessages.fallback)
      const seconds = retryAfterSeconds(failure.data) ?? Verification.resendCooldownSeconds
      return { message: failure.message, tone: "warning" as const, waitMs: Math.max(1, seconds) * 1000 }
    }),
    assignFailure: assign(({ event }) => ({
      message: toFailure((event as { error?: unknown }).error, ResendMessages.fallback).message,
      tone: "error" as const,
    })),
    assignAlreadyVerified: assign({ message: ResendMessages.alreadyVerified, tone: "success" as const }),
  },
}).createMachine({
  id: "resendVerification",
  context: ({ input }) => ({
    email: (input.email ?? "").trim(),
    autoSend: input.autoSend ?? false,
    message: undefined,
    tone: undefined,
    waitMs: COOLDOWN_MS,
  }),
  initial: "starting",
  states: {
    starting: {
      description: "The child has just started: it sends at once when asked to (`autoSend`) and the email is valid, else waits.",
      /** Sends at once when the parent asked for an automatic resend (with a valid email), else waits for a request. */
      always: [{ guard: "shouldAutoSend", target: "sending" }, { target: "idle" }],
    },
    idle: {
      description: "Nothing sent yet: the resend button is enabled.",
      on: {
        "resend.requested": { guard: "hasValidEmail", target: "sending", actions: "assignRequestEmail" },
      },
    },
    sending: {
      description: "The verification email is being resent.",
      invoke: {
        id: "resendVerification",
        src: "resendVerification",
        input: ({ context }) => ({ email: context.email }),
        /** Sent: the success text (with the link's lifetime) shows inline and as a toast, then the cool-down starts. */
        onDone: {
          target: "sent",
          actions: ["assignSent", { type: "notify", params: ({ context }) => ({ kind: "success", message: context.message ?? "" }) }],
        },
        /** Rate limited: 'Please wait N minute(s) …'; already verified: 'Email is already verified! You can sign in now.'; anything else: the §8 resend text. */
        onError: [
          { guard: "isRateLimited", target: "rateLimited", actions: "assignRateLimited" },
          { guard: "isAlreadyVerified", target: "alreadyVerified", actions: "assignAlreadyVerified" },
          { target: "failed", actions: "assignFailure" },
        ],
      },
    },
    /** Cool-down after a successful send: resend is refused for 60 s. */
    sent: {
      after: { cooldown: { target: "idle" } },
    },
    rateLimited: {
      description: "The server refused for now: 'Please wait N minute(s) before requesting another verification email' until the wait is over.",
      after: { rateLimitWait: { target: "idle" } },
    },
    failed: {
      description: "The resend failed: the §8 resend text shows and the user can try again.",
      on: {
        "resend.requested": { guard: "hasValidEmail", target: "sending", actions: "assignRequestEmail" },
      },
    },
    alreadyVerified: { description: "'Email is already verified! You can sign in now.'; no further resend." },
  },
})
