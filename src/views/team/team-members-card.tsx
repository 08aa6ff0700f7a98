/**
 * The 'Team members' card (access §2 "Team table"): a TanStack Table (v9, core features only) over the rows of
 * `teamMembersMachine`. Columns: User (initial avatar, full name else email, owner crown, email or workspace name
 * beneath), Role (badge, emphasised for Owner/Admin, 'No Role' when empty), Last login (date with time, or 'Never
 * logged in'), Actions (row menu). 5 skeleton rows while loading; 'No team members found' when empty.
 *
 * Row menu entries follow the machine's guards (`snapshot.can`): Edit and Reset password always, Change role and
 * Delete only where allowed.
 */
import { useMemo } from "react"
import { createColumnHelper, tableFeatures, useTable } from "@tanstack/react-table"
import { useSelector } from "@xstate/react"
import type { ActorRefFrom } from "xstate"
import { TeamFailureMessages } from "../../contracts/messages.ts"
import { isEmphasisedRole, OWNER_LABEL } from "../../contracts/permissions.ts"
import { displayName, type TeamMember } from "../../contracts/team.ts"
import { Layout } from "../../contracts/constants.ts"
import type { teamMembersMachine } from "../../machines/team-members.machine.ts"
import { Badge } from "../ui/badge.tsx"
import { Button } from "../ui/button.tsx"
import { Card } from "../ui/card.tsx"
import { SkeletonRows } from "../ui/skeleton-row.tsx"
import { RowActionMenu, type RowAction, type RowMenuRef } from "./row-action-menu.tsx"
import { formatDateTime, initialOf } from "./team-format.ts"
import { CrownIcon, KeyIcon, PencilIcon, ShieldUserIcon, TrashIcon, UserPlusIcon, UsersIcon } from "../ui/icons.tsx"
import * as css from "./team.css.ts"

export type TeamMembersRef = ActorRefFrom<typeof teamMembersMachine>

const features = tableFeatures({})
const helper = createColumnHelper<typeof features, TeamMember>()

/** Access §2: 'No Role' if the member has none (the owner without a role reads 'Owner'). */
export const roleLabel = (m: Pick<TeamMember, "role_name" | "is_owner">): string =>
  m.role_name !== null && m.role_name.trim() !== "" ? m.role_name : m.is_owner ? OWNER_LABEL : "No Role"

function MemberUser({ teamRef, member }: { readonly teamRef: TeamMembersRef; readonly member: TeamMember }) {
  const workspaceName = useSelector(teamRef, (s) => s.context.viewer?.workspaceName)
  const name = displayName(member)
  const hasName = name !== member.email
  const beneath = hasName ? member.email : workspaceName
  return (
    <div className={css.userCell} data-user-cell="">
      <span className={`${css.avatar} ${member.is_owner ? css.avatarOwner : ""}`} aria-hidden="true">
        {initialOf(name)}
      </span>
      <span className={css.userText}>
        <span className={css.userName}>
          {name}
          {member.is_owner ? <CrownIcon size={15} className={css.crown} title={OWNER_LABEL} /> : null}
        </span>
        {beneath === undefined || beneath === "" ? null : <span className={css.muted}>{beneath}</span>}
      </span>
    </div>
  )
}

function RoleBadge({ member }: { readonly member: TeamMember }) {
  const emphasised = isEmphasisedRole(member.role_name, member.is_owner)
  const label = roleLabel(member)
  return (
    <Badge tone={emphasised ? "accent" : "neutral"} emphasis={emphasised}>
      {label}
    </Badge>
  )
}

function MemberActions({
  teamRef,
  menuRef,
  member,
}: {
  readonly teamRef: TeamMembersRef
  readonly menuRef: RowMenuRef
  readonly member: TeamMember
}) {
  const memberId = member.id
  const canReset = useSelector(teamRef, (s) => s.can({ type: "member.passwordResetRequested", memberId }))
  const canChangeRole = useSelector(teamRef, (s) => s.can({ type: "member.roleChangeRequested", memberId }))
  const canDelete = useSelector(teamRef, (s) => s.can({ type: "member.deleteRequested", memberId }))
  const actions: RowAction[] = [
    { id: "edit", label: "Edit", icon: PencilIcon, onAction: () => teamRef.send({ type: "member.editRequested", memberId }) },
    {
      id: "reset-password",
      label: "Reset password",
      icon: KeyIcon,
      isDisabled: !canReset,
      onAction: () => teamRef.send({ type: "member.passwordResetRequested", memberId }),
    },
  ]
  if (canChangeRole) {
    actions.push({
      id: "change-role",
      label: "Change role",
      icon: ShieldUserIcon,
      onAction: () => teamRef.send({ type: "member.roleChangeRequested", memberId }),
    })
  }
  if (canDelete) {
    actions.push({
      id: "delete",
      label: "Delete",
      icon: TrashIcon,
      tone: "danger",
      onAction: () => teamRef.send({ type: "member.deleteRequested", memberId }),
    })
  }
  return <RowActionMenu menuRef={menuRef} rowId={String(memberId)} label={`Actions for ${displayName(member)}`} actions={actions} />
}

const COLUMN_COUNT = 4

export function TeamMembersCard({ teamRef, menuRef }: { readonly teamRef: TeamMembersRef; readonly menuRef: RowMenuRef }) {
  const members = useSelector(teamRef, (s) => s.context.members)
  const isLoading = useSelector(teamRef, (s) => s.matches({ list: "loading" }))
  const isFailed = useSelector(teamRef, (s) => s.matches({ list: "failed" }))
  const canAdd = useSelector(teamRef, (s) => s.can({ type: "member.addRequested" }))

  const columns = useMemo(
    () =>
      helper.columns([
        helper.display({ id: "user", header: "User", cell: ({ row }) => <MemberUser teamRef={teamRef} member={row.original} /> }),
        helper.accessor("role_name", { id: "role", header: "Role", cell: ({ row }) => <RoleBadge member={row.original} /> }),
        helper.accessor("last_login", {
          id: "lastLogin",
          header: "Last login",
          cell: ({ getValue }) => {
            const value = getValue()
            return <span className={css.nowrap}>{value === null ? "Never logged in" : formatDateTime(value)}</span>
          },
        }),
        helper.display({
          id: "actions",
          header: "Actions",
          cell: ({ row }) => <MemberActions teamRef={teamRef} menuRef={menuRef} member={row.original} />,
        }),
      ]),
    [teamRef, menuRef],
  )
  const table = useTable({ features, columns, data: members as TeamMember[], getRowId: (m) => String(m.id) })

  return (
    <Card
      title="Team members"
      description="Everyone with access to this workspace and their role."
      padding="lg"
      actions={
        <Button variant="secondary" size="sm" isDisabled={!canAdd} onPress={() => teamRef.send({ type: "member.addRequested" })}>
          <UserPlusIcon size={16} />
          Add team member
        </Button>
      }
    >
      <div className={css.tableWrap}>
        <table className={css.table} aria-label="Team members" aria-busy={isLoading}>
          <thead>
            {table.getHeaderGroups().map((group) => (
              <tr key={group.id}>
                {group.headers.map((header) => (
                  <th key={header.id} scope="col" className={`${css.th} ${header.column.id === "actions" ? css.thActions : ""}`}>
                    {header.isPlaceholder ? null : <table.FlexRender header={header} />}
                  </th>
                ))}
              </tr>
            ))}
          </thead>
          <tbody>
            {isLoading ? (
              <SkeletonRows rows={Layout.tableSkeletonRows} columns={COLUMN_COUNT} />
            ) : isFailed && members.length === 0 ? (
              <tr>
                <td colSpan={COLUMN_COUNT} className={css.stateCell}>
                  <div className={css.stateBox}>
                    <span className={css.stateTitle}>{TeamFailureMessages.loadTeamMembers}</span>
                    <Button variant="secondary" size="sm" onPress={() => teamRef.send({ type: "members.retryRequested" })}>
                      Try again
                    </Button>
                  </div>
                </td>
              </tr>
            ) : members.length === 0 ? (
              <tr>
                <td colSpan={COLUMN_COUNT} className={css.stateCell}>
                  <div className={css.stateBox}>
                    <UsersIcon size={28} className={css.stateIcon} />
                    <span>No team members found</span>
                  </div>
                </td>
              </tr>
            ) : (
              table.getRowModel().rows.map((row) => (
                <tr key={row.id} className={css.row}>
                  {row.getAllCells().map((cell) => (
                    <td
                      key={cell.id}
                      data-column={cell.column.id}
                      {...(cell.column.id === "lastLogin" ? { "data-label": "Last login" } : {})}
                      className={`${css.td} ${cell.column.id === "actions" ? css.tdActions : ""}`}
                    >
                      <table.FlexRender cell={cell} />
                    </td>
                  ))}
                </tr>
              ))
            )}
          </tbody>
        </table>
      </div>
    </Card>
  )
}
