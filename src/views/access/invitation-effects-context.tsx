/**
 * How the invitation page and the invitation sign-up get their effects without importing `src/services`: the
 * composition root builds an `InvitationEffects` (`invitationEffectsFromServices` in
 * src/machines/invitation-effects.ts) and renders `<InvitationEffectsProvider effects={...}>`; tests render fakes.
 *
 * Without a provider every call fails with the catalogue's "no response" text (the screens offer a retry) and a console
 * warning names the missing provider.
 */
import { createContext, useContext, type ReactNode } from "react"
import { StatusMessages } from "../../contracts/messages.ts"
import type { EffectFailure } from "../../machines/auth-effects.ts"
import type { InvitationEffects } from "../../machines/invitation-effects.ts"

export type { InvitationEffects } from "../../machines/invitation-effects.ts"

let warned = false
const warnUnwired = () => {
  if (warned) return
  warned = true
  console.warn("Invitation effects are not provided: render the app inside <InvitationEffectsProvider> (src/main.tsx).")
}

const unwired = (): Promise<never> => {
  warnUnwired()
  return Promise.reject({ type: "NETWORK_ERROR", message: StatusMessages.noResponse } satisfies EffectFailure)
}

export const UNWIRED_INVITATION_EFFECTS: InvitationEffects = {
  checkInvitation: unwired,
  acceptInvitation: unwired,
  completeInvitation: unwired,
  startSession: unwired,
  updateWorkspaceStore: () => warnUnwired(),
  now: () => Date.now(),
}

const InvitationEffectsContext = createContext<InvitationEffects>(UNWIRED_INVITATION_EFFECTS)

export function InvitationEffectsProvider({ effects, children }: { readonly effects: InvitationEffects; readonly children: ReactNode }) {
  return <InvitationEffectsContext value={effects}>{children}</InvitationEffectsContext>
}

export function useInvitationEffects(): InvitationEffects {
  return useContext(InvitationEffectsContext)
}

/** The browser's IANA time zone (sent with the acceptance and the sign-up, access §3), or "" when unknown. */
export const browserTimezone = (): string => {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone ?? ""
  } catch {
    return ""
  }
}
