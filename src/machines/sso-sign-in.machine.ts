/**
 * Sign in with SSO (issue 33 part 3; docs/sso.md "How a sign-in goes"): the /login/sso screen.
 *
 * Two ways in, chosen by the input:
 * - from the sign-in page ("Sign in with SSO"): the work email is asked, `POST /api/sso/start` answers the identity
 *   provider's URL and the browser leaves for it (`leaveForProvider`, supplied at the React boundary);
 * - back from the provider (`/login/sso?code=…` or `?error=…`): the one-time code is exchanged for the session
 *   (`POST /api/sso/exchange`), which the session then takes over (`startSession`, as after a password sign-in), or
 *   the provider's refusal is shown in the contract's words (`ssoErrorMessage`).
 *
 * Events accepted:
 * - `field.changed` { value } — the user typed the email.
 * - `form.submitted` — the user asked to continue with SSO: a valid email is sent, otherwise the field error shows.
 * - `retry.requested` — after a failed return, the user asks to start again (back to the email form).
 */
import { assertEvent, assign, fromPromise, setup } from "xstate"
import type { SsoExchangeResponse, SsoStartPayload, SsoStartResponse } from "../contracts/sso.ts"
import { emailProblem } from "../contracts/sign-in-rules.ts"
import { SsoMessages, ssoErrorMessage } from "../contracts/sso.ts"
import { errorOf } from "./actor-output.ts"
import { toFailure, type SessionStart } from "./auth-effects.ts"

export type SsoSignInInput =
  | { readonly mode: "start"; readonly email?: string; readonly returnTo?: string }
  | { readonly mode: "return"; readonly code: string | null; readonly error: string | null }

export interface SsoSignInContext {
  readonly email: string
  readonly fieldError: string | undefined
  readonly error: string | undefined
  readonly returnTo: string | undefined
  readonly code: string | null
  readonly providerError: string | null
  readonly redirectUrl: string | undefined
  readonly response: SsoExchangeResponse | undefined
}

export type SsoSignInEvent =
  | { readonly type: "field.changed"; readonly value: string }
  | { readonly type: "form.submitted" }
  | { readonly type: "retry.requested" }

/** Reads `/login/sso?code=…&error=…` (no code and no error: the email form). */
export const readSsoQuery = (search: string): SsoSignInInput => {
  const params = new URLSearchParams(search.startsWith("?") ? search.slice(1) : search)
  const code = params.get("code")
  const error = params.get("error")
  if (code === null && error === null) {
    const email = params.get("email")
    return { mode: "start", ...(email === null ? {} : { email }) }
  }
  return { mode: "return", code, error }
}

/** The exchange's answer as the session's hand-off. */
export const sessionStartOfSso = (response: SsoExchangeResponse): SessionStart => ({
  accessToken: response.access_token,
  refreshToken: response.refresh_token,
  email: response.data.email,
  ...(response.return_to === null ? {} : { returnTo: response.return_to }),
})

export const ssoSignInMachine = setup({
  types: {
    context: {} as SsoSignInContext,
    events: {} as SsoSignInEvent,
    input: {} as SsoSignInInput,
  },
  actors: {
    /** POST /api/sso/start: the provider's URL for the email's domain. */
    ssoStart: fromPromise<SsoStartResponse, SsoStartPayload>(async () => {
      throw new Error("ssoStart is not provided")
    }),
    /** POST /api/sso/exchange: the one-time code → the session's tokens. */
    ssoExchange: fromPromise<SsoExchangeResponse, { readonly code: string }>(async () => {
      throw new Error("ssoExchange is not provided")
    }),
    /** Hands the tokens to the session, which fetches the user and the workspaces and navigates. */
    startSession: fromPromise<void, SessionStart>(async () => {
      throw new Error("startSession is not provided")
    }),
  },
  guards: {
    /** The screen was opened by the provider's return (code or error in the query). */
    isReturn: ({ context }) => context.code !== null || context.providerError !== null,
    /** The return carries a code to exchange (and no error). */
    hasCode: ({ context }) => context.code !== null && context.providerError === null,
    /** The typed email passes the §5 email rule. */
    isEmailValid: ({ context }) => emailProblem(context.email.trim()) === undefined,
  },
  actions: {
    /** Environment: sends the browser to the identity provider (supplied at the React boundary). */
    leaveForProvider: (_, _params: { readonly url: string }) => {},
    assignEmail: assign(({ event }) => {
      assertEvent(event, "field.changed")
      return { email: event.value, fieldError: undefined }
    }),
    showFieldError: assign({ fieldError: ({ context }) => emailProblem(context.email.trim()) }),
    clearMessages: assign({ fieldError: undefined, error: undefined }),
    assignRedirect: assign({ redirectUrl: ({ event }) => (event as { output?: SsoStartResponse }).output?.data.redirect_url }),
    assignResponse: assign({ response: ({ event }) => (event as { output?: SsoExchangeResponse }).output }),
    assignError: assign({ error: ({ event }) => toFailure(errorOf(event)).message }),
    assignProviderError: assign({
      error: ({ context }) => (context.providerError !== null ? ssoErrorMessage(context.providerError) : SsoMessages.codeInvalid),
    }),
    forgetReturn: assign({ code: null, providerError: null, error: undefined }),
  },
}).createMachine({
  id: "ssoSignIn",
  context: ({ input }) => ({
    email: input.mode === "start" ? (input.email ?? "") : "",
    fieldError: undefined,
    error: undefined,
    returnTo: input.mode === "start" ? input.returnTo : undefined,
    code: input.mode === "return" ? input.code : null,
    providerError: input.mode === "return" ? input.error : null,
    redirectUrl: undefined,
    response: undefined,
  }),
  initial: "arriving",
  states: {
    arriving: {
      description: "The screen has just opened: back from the provider with a code, back with a refusal, or to ask for the work email.",
      always: [
        { guard: "hasCode", target: "exchanging" },
        { guard: "isReturn", target: "failed", actions: "assignProviderError" },
        { target: "editing" },
      ],
    },
    editing: {
      description: "The work email is asked; its domain names the identity provider.",
      on: {
        "field.changed": { actions: "assignEmail" },
        "form.submitted": [
          { guard: "isEmailValid", target: "starting", actions: "clearMessages" },
          { actions: "showFieldError" },
        ],
      },
    },
    starting: {
      description: "The server looks up the email's identity provider and prepares the sign-in.",
      invoke: {
        id: "ssoStart",
        src: "ssoStart",
        input: ({ context }) => ({ email: context.email.trim(), ...(context.returnTo === undefined ? {} : { return_to: context.returnTo }) }),
        /** The browser leaves for the identity provider. */
        onDone: { target: "redirecting", actions: "assignRedirect" },
        /** No SSO for this domain, or the provider cannot be reached: the server's words. */
        onError: { target: "editing", actions: "assignError" },
      },
    },
    redirecting: {
      description: "The browser is on its way to the identity provider's sign-in page.",
      entry: { type: "leaveForProvider", params: ({ context }) => ({ url: context.redirectUrl ?? "" }) },
    },
    exchanging: {
      description: "Back from the provider: the one-time code is exchanged for a session.",
      invoke: {
        id: "ssoExchange",
        src: "ssoExchange",
        input: ({ context }) => ({ code: context.code ?? "" }),
        onDone: { target: "startingSession", actions: "assignResponse" },
        onError: { target: "failed", actions: "assignError" },
      },
    },
    startingSession: {
      description: "The session stores the tokens, fetches the user and the workspaces and navigates.",
      invoke: {
        id: "startSession",
        src: "startSession",
        input: ({ context }) => sessionStartOfSso(context.response!),
        onDone: { target: "signedIn" },
        onError: { target: "failed", actions: "assignError" },
      },
    },
    failed: {
      description: "The sign-in did not complete; the reason shows and the user can start again.",
      on: {
        "retry.requested": { target: "editing", actions: "forgetReturn" },
      },
    },
    signedIn: { type: "final" },
  },
})
