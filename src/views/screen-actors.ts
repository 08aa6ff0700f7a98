/**
 * What every screen family's hooks use to turn injected effects into a machine's named actors and actions: one
 * `effectActor` (a promise actor backed by one effect call, cancelled through the actor's signal) and one `notify`
 * action (a toast). Lives apart from the families' providers so that a provider stays light and the hooks that build
 * machines load with their screens.
 */
import { useMemo } from "react"
import { fromPromise } from "xstate"
import type { EffectCall, NotifyParams } from "../machines/auth-effects.ts"
import { useToasts } from "./app-actors.tsx"

/** A machine's named promise actor backed by one effect call; the actor's signal cancels the request. */
export const effectActor = <P, A>(call: EffectCall<P, A>) => fromPromise<A, P>(({ input, signal }) => call(input, signal))

/**
 * The `notify` environment action: a toast of the given kind. Deferred by a microtask: showing a toast drives the toast
 * actor, which must not run inside the calling machine's action execution (xstate warns about built-in actions created
 * while a custom action runs).
 */
export function useNotifyAction(): (_: unknown, params: NotifyParams) => void {
  const toasts = useToasts()
  return useMemo(
    () => (_: unknown, { kind, message }: NotifyParams) => queueMicrotask(() => toasts.show(kind, message)),
    [toasts],
  )
}
