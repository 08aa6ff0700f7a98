/**
 * How the User Management screen gets its effects without importing `src/services` (views never do), following the
 * auth screens' pattern: the composition root (src/main.tsx) builds a `TeamEffects` from the services
 * (`createTeamEffects`) and renders `<TeamEffectsProvider effects={...}>`; tests render it with fakes.
 *
 * The hooks below turn the effects into each machine's named actors and supply the environment actions (`notify`:
 * the app's toast queue; `watchViewport`: window scroll and resize for the row menus). The optional `clock` (a
 * `SimulatedClock` in tests) drives the row menu's 100 ms listener delay.
 *
 * Without a provider (a composition root that forgot to wire them, or a test of something else) every call fails with
 * the catalogue's "no response" text and a console warning names the missing provider: the screen still renders.
 */
import { createContext, useContext, useMemo, type ReactNode } from "react"
import { fromCallback, fromPromise } from "xstate"
import { StatusMessages } from "../../contracts/messages.ts"
import type { EffectCall, EffectFailure, NotifyParams } from "../../machines/auth-effects.ts"
import { addMemberMachine } from "../../machines/add-member.machine.ts"
import { deleteMemberMachine } from "../../machines/delete-member.machine.ts"
import { editMemberMachine } from "../../machines/edit-member.machine.ts"
import { invitationsEventOf, invitationsListMachine } from "../../machines/invitations-list.machine.ts"
import { inviteMembersMachine } from "../../machines/invite-members.machine.ts"
import { rowActionMenuMachine } from "../../machines/row-action-menu.machine.ts"
import { queryWatcher, type QueryWatch, type TeamEffects } from "../../machines/team-effects.ts"
import { membersEventOf, teamMembersMachine } from "../../machines/team-members.machine.ts"
import { useToasts, type Clock } from "../app-actors.tsx"

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

/** A machine's named promise actor backed by one effect call; the actor's signal cancels the request. */
const effectActor = <P, A>(call: EffectCall<P, A>) => fromPromise<A, P>(({ input, signal }) => call(input, signal))

/** The `notify` environment action: a toast of the given kind. */
export function useNotifyAction(): (_: unknown, params: NotifyParams) => void {
  const toasts = useToasts()
  // Deferred by a microtask: showing a toast drives the toast actor, which must not run inside this machine's
  // action execution (xstate warns about built-in actions created while a custom action runs).
  return useMemo(
    () => (_: unknown, { kind, message }: NotifyParams) => queueMicrotask(() => toasts.show(kind, message)),
    [toasts],
  )
}

/** Window scroll (any scroll container, capture phase) and resize, as `viewport.changed`. */
const windowViewport = fromCallback(({ sendBack }) => {
  const onChange = () => sendBack({ type: "viewport.changed" })
  window.addEventListener("scroll", onChange, { capture: true, passive: true })
  window.addEventListener("resize", onChange)
  return () => {
    window.removeEventListener("scroll", onChange, { capture: true })
    window.removeEventListener("resize", onChange)
  }
})

export function useRowActionMenuLogic() {
  return useMemo(() => rowActionMenuMachine.provide({ actors: { watchViewport: windowViewport } }), [])
}

export function useTeamMembersLogic() {
  const effects = useTeamEffects()
  const notify = useNotifyAction()
  return useMemo(() => {
    const loadRoles = effectActor(effects.loadRoles)
    return teamMembersMachine.provide({
      actors: {
        watchMembers: queryWatcher(effects.watchTeamMembers, membersEventOf),
        loadViewer: effectActor(effects.loadWorkspaceInfo),
        sendPasswordReset: effectActor(effects.sendPasswordReset),
        addMember: addMemberMachine.provide({ actors: { loadRoles, createUser: effectActor(effects.createUser) }, actions: { notify } }),
        editMember: editMemberMachine.provide({
          actors: { loadRoles, updateMember: effectActor(effects.updateMember) },
          actions: { notify },
        }),
        deleteMember: deleteMemberMachine.provide({ actors: { deleteMember: effectActor(effects.deleteMember) } }),
      },
      actions: { notify, refetchMembers: () => effects.refetchTeamMembers() },
    })
  }, [effects, notify])
}

export function useInvitationsListLogic() {
  const effects = useTeamEffects()
  const notify = useNotifyAction()
  return useMemo(
    () =>
      invitationsListMachine.provide({
        actors: {
          watchInvitations: queryWatcher(effects.watchInvitations, invitationsEventOf),
          resendInvitation: effectActor(effects.resendInvitation),
          cancelInvitation: effectActor(effects.cancelInvitation),
        },
        actions: { notify, refetchInvitations: () => effects.refetchInvitations() },
      }),
    [effects, notify],
  )
}

export function useInviteMembersLogic() {
  const effects = useTeamEffects()
  const notify = useNotifyAction()
  return useMemo(
    () =>
      inviteMembersMachine.provide({
        actors: { loadRoles: effectActor(effects.loadRoles), inviteMembers: effectActor(effects.inviteMembers) },
        actions: { notify },
      }),
    [effects, notify],
  )
}
