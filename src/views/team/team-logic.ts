/**
 * The User Management screen's machines with their effects (from `<TeamEffectsProvider>`) as named actors and the
 * environment actions (`notify`: the app's toast queue; `watchViewport`: window scroll and resize for the row menus).
 */
import { useMemo } from "react"
import { fromCallback } from "xstate"
import { addMemberMachine } from "../../machines/add-member.machine.ts"
import { deleteMemberMachine } from "../../machines/delete-member.machine.ts"
import { editMemberMachine } from "../../machines/edit-member.machine.ts"
import { invitationsEventOf, invitationsListMachine } from "../../machines/invitations-list.machine.ts"
import { inviteMembersMachine } from "../../machines/invite-members.machine.ts"
import { rowActionMenuMachine } from "../../machines/row-action-menu.machine.ts"
import { queryWatcher } from "../../machines/team-effects.ts"
import { membersEventOf, teamMembersMachine } from "../../machines/team-members.machine.ts"
import { effectActor, useNotifyAction } from "../screen-actors.ts"
import { useTeamEffects } from "./team-effects-context.tsx"

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
