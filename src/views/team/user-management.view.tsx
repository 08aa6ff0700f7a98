/**
 * /dashboard/users (access §2 "User Management"): heading 'User Management', subtitle 'Manage workspace members and
 * their permissions', the 'Invite team members' button, the Pending invitations card, the Team members card and (beyond
 * the spec) the Custom roles card (custom-roles-card.tsx: permissions and the account groups a role is limited to).
 *
 * Four actors, no god machine: `teamMembersMachine` (table, row rules, add / edit / delete dialogs),
 * `invitationsListMachine` (invitations, resend, cancel), `inviteMembersMachine` (the invite modal) and one
 * `rowActionMenuMachine` per table. They share no messages: each list watches its cached query, and a mutation's
 * invalidation refreshes whichever list it changed.
 */
import { useActorRef, useSelector } from "@xstate/react"
import { Button } from "../ui/button.tsx"
import { CustomRolesCard } from "./custom-roles-card.tsx"
import { InvitationsCard } from "./invitations-card.tsx"
import { InviteMembersDialog } from "./invite-members-dialog.tsx"
import { MemberDialogs } from "./member-dialogs.tsx"
import { TeamMembersCard } from "./team-members-card.tsx"
import { useTeamActorOptions, useTeamEffects } from "./team-effects-context.tsx"
import { useInvitationsListLogic, useInviteMembersLogic, useRowActionMenuLogic, useTeamMembersLogic } from "./team-logic.ts"
import { MailPlusIcon } from "../ui/icons.tsx"
import * as css from "./team.css.ts"

export function UserManagementView() {
  const options = useTeamActorOptions()
  const { origin } = useTeamEffects()
  const team = useActorRef(useTeamMembersLogic(), options)
  const invitations = useActorRef(useInvitationsListLogic(), options)
  const invite = useActorRef(useInviteMembersLogic(), options)
  const menuLogic = useRowActionMenuLogic()
  const teamMenu = useActorRef(menuLogic, options)
  const invitationMenu = useActorRef(menuLogic, options)
  const canInvite = useSelector(invite, (s) => s.can({ type: "dialog.opened" }))
  return (
    <div className={css.page}>
      <header className={css.pageHeader}>
        <div className={css.titles}>
          <h1 className={css.title}>User Management</h1>
          <p className={css.subtitle}>Manage workspace members and their permissions</p>
        </div>
        <Button isDisabled={!canInvite} onPress={() => invite.send({ type: "dialog.opened" })}>
          <MailPlusIcon size={16} />
          Invite team members
        </Button>
      </header>
      <InvitationsCard listRef={invitations} menuRef={invitationMenu} origin={origin} />
      <TeamMembersCard teamRef={team} menuRef={teamMenu} />
      <CustomRolesCard />
      <MemberDialogs teamRef={team} />
      <InviteMembersDialog actorRef={invite} />
    </div>
  )
}
