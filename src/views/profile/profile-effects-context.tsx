/**
 * How Profile Settings gets its effects without importing `src/services`, following the auth screens' pattern: the
 * composition root (src/main.tsx) builds a `ProfileEffects` (`createProfileEffects`) and renders
 * `<ProfileEffectsProvider effects={...}>`; tests render it with fakes. The hooks turn the effects into the two
 * machines' named actors and supply `notify` (the toast queue).
 *
 * Without a provider every call fails with the catalogue's "no response" text and a console warning names the
 * missing provider: the screen still renders.
 */
import { createContext, useContext, useMemo, type ReactNode } from "react"
import { StatusMessages } from "../../contracts/messages.ts"
import type { EffectFailure } from "../../machines/auth-effects.ts"
import type { ProfileEffects } from "../../machines/profile-effects.ts"
import type { Clock } from "../app-actors.tsx"

export type { ProfileEffects } from "../../machines/profile-effects.ts"

let warned = false
const unwired = (): Promise<never> => {
  if (!warned) {
    warned = true
    console.warn("Profile effects are not provided: render the app inside <ProfileEffectsProvider> (src/main.tsx).")
  }
  return Promise.reject({ type: "NETWORK_ERROR", message: StatusMessages.noResponse } satisfies EffectFailure)
}

export const UNWIRED_PROFILE_EFFECTS: ProfileEffects = {
  loadProfile: unwired,
  loadTimezones: unwired,
  updateProfile: unwired,
  changePassword: unwired,
}

interface ProfileEnvironment {
  readonly effects: ProfileEffects
  readonly clock: Clock | undefined
}

const ProfileEffectsContext = createContext<ProfileEnvironment>({ effects: UNWIRED_PROFILE_EFFECTS, clock: undefined })

export function ProfileEffectsProvider({
  effects,
  clock,
  children,
}: {
  readonly effects: ProfileEffects
  readonly clock?: Clock
  readonly children: ReactNode
}) {
  const value = useMemo(() => ({ effects, clock }), [effects, clock])
  return <ProfileEffectsContext value={value}>{children}</ProfileEffectsContext>
}

/** Actor options carrying the provider's clock (when one was given). */
export function useProfileActorOptions(): { readonly clock?: Clock } {
  const { clock } = useContext(ProfileEffectsContext)
  return useMemo(() => (clock === undefined ? {} : { clock }), [clock])
}

export function useProfileEffects(): ProfileEffects {
  return useContext(ProfileEffectsContext).effects
}
