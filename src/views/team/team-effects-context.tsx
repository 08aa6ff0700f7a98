/**
 * How the User Management screen gets its effects without importing `src/services` (views never do), following the
 * auth screens' pattern: the composition root (src/main.tsx) builds a `TeamEffects` from the services
 * (`createTeamEffects`) and renders `<TeamEffectsProvider effects={...}>`; tests render it with fakes.
 *
 * The hooks that turn the effects into each machine's named actors (team-logic.ts) load with the screen; this provider
 * stays light because the composition renders it around every page. The optional `clock` (a `SimulatedClock` in tests)
 * drives the row menu's 100 ms listener delay.
 *
 * Without a provider (a composition root that forgot to wire them, or a test of something else) every call fails with
 * the catalogue's "no response" text and a console warning names the missing provider: the screen still renders.
 */
import { createContext, useContext, useMemo, type ReactNode } from "react"
import { StatusMessages } from "../../contracts/messages.ts"
import type { EffectFailure } from "../../machines/auth-effects.ts"
import type { QueryWatch, TeamEffects } from "../../machines/team-effects.ts"
import type { Clock } from "../app-actors.tsx"

export type { TeamEffects } from "../../machines/team-effects.ts"

interface TeamEnvironment {
  readonly effects: TeamEffects
  readonly clock: Clock | undefined
}

let warned = false
const warnUnwired = () => {
  if (warned) return
  warned = true
  console.warn("Team effects are not provided: render the app inside <TeamEffectsProvider> (src/main.tsx).")
}

const noResponse: EffectFailure = { type: "NETWORK_ERROR", message: StatusMessages.noResponse }

const unwired = (): Promise<never> => {
  warnUnwired()
  return Promise.reject(noResponse)
}

/** An unwired list: loading, then failing as if the server could not be reached. */
const unwiredWatch: QueryWatch<never> = (listener) => {
  warnUnwired()
  let active = true
  listener({ status: "pending", data: undefined, error: undefined, isFetching: true })
  queueMicrotask(() => {
    if (active) listener({ status: "error", data: undefined, error: noResponse, isFetching: false })
  })
  return () => {
    active = false
  }
}

/** What the screen gets without a provider. */
export const UNWIRED_TEAM_EFFECTS: TeamEffects = {
  watchTeamMembers: unwiredWatch,
  refetchTeamMembers: warnUnwired,
  loadWorkspaceInfo: unwired,
  loadRoles: unwired,
  createUser: unwired,
  updateMember: unwired,
  deleteMember: unwired,
  sendPasswordReset: unwired,
  watchInvitations: unwiredWatch,
  refetchInvitations: warnUnwired,
  inviteMembers: unwired,
  resendInvitation: unwired,
  cancelInvitation: unwired,
  origin: "",
}

const TeamEffectsContext = createContext<TeamEnvironment>({ effects: UNWIRED_TEAM_EFFECTS, clock: undefined })

export function TeamEffectsProvider({
  effects,
  clock,
  children,
}: {
  readonly effects: TeamEffects
  readonly clock?: Clock
  readonly children: ReactNode
}) {
  const value = useMemo(() => ({ effects, clock }), [effects, clock])
  return <TeamEffectsContext value={value}>{children}</TeamEffectsContext>
}

function useTeamEnvironment(): TeamEnvironment {
  return useContext(TeamEffectsContext)
}

export function useTeamEffects(): TeamEffects {
  return useTeamEnvironment().effects
}

/** Actor options carrying the environment's clock (when one was given). */
export function useTeamActorOptions(): { readonly clock?: Clock } {
  const { clock } = useTeamEnvironment()
  return useMemo(() => (clock === undefined ? {} : { clock }), [clock])
}
