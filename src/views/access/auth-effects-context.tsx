/**
 * How the access screens get their effects without importing `src/services` (views never do).
 *
 * The composition root (src/main.tsx) builds an `AuthEffects` from the services and renders
 * `<AuthEffectsProvider effects={...}>` around the app; tests render it with fakes. Each screen reads the effects with
 * `useAuthEffects()` and turns them into its machine's named actors (`effectActor`), and supplies the environment
 * actions from the app: `navigate` (wouter, with history state) and `notify` (the toast queue).
 *
 * Without a provider (a composition root that forgot to wire them, or a test of something else) every call fails with
 * the catalogue's "no response" text and a console warning names the missing provider: the screens still render.
 */
import { createContext, useContext, useMemo, type ReactNode } from "react"
import { useLocation } from "wouter"
import { useHistoryState } from "wouter/use-browser-location"
import { StatusMessages } from "../../contracts/messages.ts"
import type { AuthEffects, EffectFailure, NavigateParams } from "../../machines/auth-effects.ts"
import { resendVerificationMachine } from "../../machines/resend-verification.machine.ts"
import type { Clock } from "../app-actors.tsx"
import { effectActor, useNotifyAction } from "../screen-actors.ts"

export { effectActor, useNotifyAction }

export type { AuthEffects } from "../../machines/auth-effects.ts"

const unwired = (): Promise<never> => {
  warnUnwired()
  return Promise.reject({ type: "NETWORK_ERROR", message: StatusMessages.noResponse } satisfies EffectFailure)
}

let warned = false
const warnUnwired = () => {
  if (warned) return
  warned = true
  console.warn("Auth effects are not provided: render the app inside <AuthEffectsProvider> (src/main.tsx).")
}

/** What the screens get without a provider: every call fails as if the server could not be reached. */
export const UNWIRED_AUTH_EFFECTS: AuthEffects = {
  login: unwired,
  startSession: unwired,
  storePendingInvitation: () => warnUnwired(),
  forgotPassword: unwired,
  signup: unwired,
  verifyEmail: unwired,
  resendVerification: unwired,
  validateResetToken: unwired,
  resetPassword: unwired,
  ssoStart: unwired,
  ssoExchange: unwired,
}

const AuthEffectsContext = createContext<AuthEffects>(UNWIRED_AUTH_EFFECTS)
const AuthClockContext = createContext<Clock | undefined>(undefined)

export interface AuthEffectsProviderProps {
  readonly effects: AuthEffects
  /** Timer source of the screens' machines (resend cool-down, rate-limit wait); a `SimulatedClock` in tests. */
  readonly clock?: Clock
  readonly children: ReactNode
}

export function AuthEffectsProvider({ effects, clock, children }: AuthEffectsProviderProps) {
  return (
    <AuthEffectsContext value={effects}>
      <AuthClockContext value={clock}>{children}</AuthClockContext>
    </AuthEffectsContext>
  )
}

export function useAuthEffects(): AuthEffects {
  return useContext(AuthEffectsContext)
}

/** Actor options for a screen's machine: its input, and the provider's clock when one was given. */
export function useScreenActorOptions<I>(input: I): { readonly input: I; readonly clock?: Clock } {
  const clock = useContext(AuthClockContext)
  return clock === undefined ? { input } : { input, clock }
}


/** The `navigate` environment action: wouter navigation carrying history state. */
export function useNavigateAction(): (_: unknown, params: NavigateParams) => void {
  const [, navigate] = useLocation()
  return useMemo(
    () =>
      (_: unknown, { to, state, replace }: NavigateParams) =>
        navigate(to, { ...(state === undefined ? {} : { state }), ...(replace === undefined ? {} : { replace }) }),
    [navigate],
  )
}


/** The resend child machine with its effect and toast, for the screens that invoke it. */
export function useResendVerificationLogic() {
  const { resendVerification } = useAuthEffects()
  const notify = useNotifyAction()
  return useMemo(
    () =>
      resendVerificationMachine.provide({
        actors: { resendVerification: effectActor(resendVerification) },
        actions: { notify },
      }),
    [resendVerification, notify],
  )
}

/** The history state the previous screen left for this one (browser history; anything, so read it defensively). */
export function useRouteState(): unknown {
  return useHistoryState<unknown>()
}
