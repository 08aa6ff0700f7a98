/**
 * Renders the whole SPA at an access route with fake auth effects (every call recorded and answered by the test), an
 * in-memory location, history state for the screen, and one simulated clock shared by the toasts and the screens.
 */
import { act, fireEvent, render, screen } from "@testing-library/react"
import { memoryLocation } from "wouter/memory-location"
import { SimulatedClock } from "xstate"
import type { AuthEffects, EffectCall } from "../../src/machines/auth-effects.ts"
import { App } from "../../src/views/app.tsx"
import { AuthEffectsProvider } from "../../src/views/access/auth-effects-context.tsx"
import { SessionStatusContext } from "../../src/views/session-status.tsx"
import { deferred, flush, type Deferred } from "../machines/auth-fakes.ts"
import { preloadScreens } from "../../src/views/routes.tsx"

// Every screen but sign-in loads lazily; fetched up front, rendering a route is synchronous as in a warm browser.
await preloadScreens()

type CallName = Exclude<keyof AuthEffects, "storePendingInvitation">
type PayloadOf<K extends CallName> = AuthEffects[K] extends EffectCall<infer P, infer _A> ? P : never
type AnswerOf<K extends CallName> = AuthEffects[K] extends EffectCall<infer _P, infer A> ? A : never

/** Fake effects: each call is recorded and waits until the test answers it (`resolve` / `reject` the oldest open call). */
export const fakeAuthEffects = () => {
  const calls: { [K in CallName]: PayloadOf<K>[] } = {
    login: [],
    startSession: [],
    forgotPassword: [],
    signup: [],
    verifyEmail: [],
    resendVerification: [],
    validateResetToken: [],
    resetPassword: [],
    ssoStart: [],
    ssoExchange: [],
  }
  const open: { [K in CallName]: Deferred<AnswerOf<K>>[] } = {
    login: [],
    startSession: [],
    forgotPassword: [],
    signup: [],
    verifyEmail: [],
    resendVerification: [],
    validateResetToken: [],
    resetPassword: [],
    ssoStart: [],
    ssoExchange: [],
  }
  const stored: Array<{ token: string; workspaceId: number | null }> = []
  const call =
    <K extends CallName>(name: K) =>
    (payload: PayloadOf<K>): Promise<AnswerOf<K>> => {
      calls[name].push(payload)
      const d = deferred<AnswerOf<K>>()
      open[name].push(d)
      return d.promise
    }
  const effects: AuthEffects = {
    login: call("login"),
    startSession: call("startSession"),
    forgotPassword: call("forgotPassword"),
    signup: call("signup"),
    verifyEmail: call("verifyEmail"),
    resendVerification: call("resendVerification"),
    validateResetToken: call("validateResetToken"),
    resetPassword: call("resetPassword"),
    ssoStart: call("ssoStart"),
    ssoExchange: call("ssoExchange"),
    storePendingInvitation: (pending) => void stored.push(pending),
  }
  const settle = async <K extends CallName>(name: K, fn: (d: Deferred<AnswerOf<K>>) => void) => {
    const next = open[name].shift()
    if (next === undefined) throw new Error(`no open ${name} call`)
    await act(async () => {
      fn(next)
      await flush()
    })
  }
  return {
    effects,
    calls,
    stored,
    resolve: <K extends CallName>(name: K, value: AnswerOf<K>) => settle(name, (d) => d.resolve(value)),
    reject: <K extends CallName>(name: K, error: unknown) => settle(name, (d) => d.reject(error)),
  }
}

export type FakeAuthEffects = ReturnType<typeof fakeAuthEffects>

export interface RenderAuthOptions {
  /** History state left by the previous screen. */
  readonly state?: unknown
  readonly fakes?: FakeAuthEffects
}

export const renderAuth = (path: string, { state, fakes = fakeAuthEffects() }: RenderAuthOptions = {}) => {
  window.history.replaceState(state ?? null, "")
  const location = memoryLocation({ path, record: true })
  const clock = new SimulatedClock()
  const result = render(
    <SessionStatusContext value="unauthenticated">
      <AuthEffectsProvider effects={fakes.effects} clock={clock}>
        <App clock={clock} location={location} />
      </AuthEffectsProvider>
    </SessionStatusContext>,
  )
  const currentPath = () => (location.history.at(-1) ?? "").split("?")[0]
  /** Advances the simulated clock inside act(). */
  const tick = (ms: number) => act(() => clock.increment(ms))
  return { ...result, location, clock, currentPath, tick, fakes }
}

/** Types into a field found by its label (RAC inputs are controlled by the machine). */
export const typeInto = (label: string | RegExp, value: string) =>
  fireEvent.change(screen.getByLabelText(label, { selector: "input" }), { target: { value } })

/** Submits the form a button belongs to, as pressing it would. */
export const press = (name: string | RegExp) => fireEvent.click(screen.getByRole("button", { name }))
