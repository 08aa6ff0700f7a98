/**
 * How the dashboard shell gets its effects without importing `src/services`: the composition root builds a
 * `ShellEffects` (`shellEffectsFromServices` in src/machines/shell.machine.ts) and renders
 * `<ShellEffectsProvider effects={...}>`; tests render fakes.
 *
 * Without a provider the shell still renders (navigation, header, content); its facts fail to load (the user card
 * offers a retry) and a console warning names the missing provider.
 */
import { createContext, useContext, type ReactNode } from "react"
import { StatusMessages } from "../../contracts/messages.ts"
import type { EffectFailure } from "../../machines/auth-effects.ts"
import type { ShellEffects } from "../../machines/shell.machine.ts"

export type { ShellEffects } from "../../machines/shell.machine.ts"

let warned = false
const warnUnwired = () => {
  if (warned) return
  warned = true
  console.warn("Shell effects are not provided: render the app inside <ShellEffectsProvider> (src/main.tsx).")
}

export const UNWIRED_SHELL_EFFECTS: ShellEffects = {
  loadShell: () => {
    warnUnwired()
    return Promise.reject({ type: "NETWORK_ERROR", message: StatusMessages.noResponse } satisfies EffectFailure)
  },
  watchShellData: () => () => {},
  signOut: () => warnUnwired(),
}

const ShellEffectsContext = createContext<ShellEffects>(UNWIRED_SHELL_EFFECTS)

export function ShellEffectsProvider({ effects, children }: { readonly effects: ShellEffects; readonly children: ReactNode }) {
  return <ShellEffectsContext value={effects}>{children}</ShellEffectsContext>
}

export function useShellEffects(): ShellEffects {
  return useContext(ShellEffectsContext)
}
