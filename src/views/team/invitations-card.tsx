/**
 * The 'Pending invitations' card (access §2 "Pending invitations card", §4 "Invitation status" and "Invitation
 * link"): 'Track the status of sent invitations ({n} total)'; columns Invitee (email, 'Invited by' name or email or a
 * dash), Role badge, Invited (created date and 'Expires' date), actions menu — only for pending invitations, with
 * 'Resend invitation' and 'Cancel invitation' (confirmation first). 3 skeleton rows while loading; 'No invitations sent
 * yet' / 'Invitations you send will appear here' when empty; 'Failed to load invitations' with 'Try again'.
 *
 * The link of a pending invitation is shown beneath its invitee (no copy action in the menu): `invite_link`, else the
 * site origin + /invitation/signup?token=…, else 'No invitation link available'. Only pending invitations are listed
 * (the machine drops the other statuses).
 */
import { useMemo } from "react"
import { createColumnHelper, tableFeatures, useTable } from "@tanstack/react-table"
import { useSelector } from "@xstate/react"
import type { ActorRefFrom } from "xstate"
import { Layout } from "../../contracts/constants.ts"
import { canResendOrCancel, invitationLink, invitedBy, type Invitation } from "../../contracts/invitations.ts"
import { cancelInvitationConfirmMessage, invitationsTotalMessage, TeamFailureMessages } from "../../contracts/messages.ts"
import { isEmphasisedRole } from "../../contracts/permissions.ts"
import type { invitationsListMachine } from "../../machines/invitations-list.machine.ts"
import { AlertBox } from "../ui/alert-box.tsx"
import { Badge } from "../ui/badge.tsx"
import { Button } from "../ui/button.tsx"
import { Card } from "../ui/card.tsx"
import { Dialog, DialogFooter } from "../ui/dialog.tsx"
import { SkeletonRows } from "../ui/skeleton-row.tsx"
import { RowActionMenu, type RowMenuRef } from "./row-action-menu.tsx"
import { formatDate } from "./team-format.ts"
import { InboxIcon, LinkIcon, SendIcon, XCircleIcon } from "../ui/icons.tsx"
import * as css from "./team.css.ts"

export type InvitationsListRef = ActorRefFrom<typeof invitationsListMachine>

const features = tableFeatures({})
const helper = createColumnHelper<typeof features, Invitation>()

function Invitee({ invitation, origin }: { readonly invitation: Invitation; readonly origin: string }) {
  const pending = canResendOrCancel(invitation.status)
  const link = pending ? invitationLink(invitation, origin) : undefined
  return (
    <div className={css.userText}>
      <span className={css.userName}>{invitation.email}</span>
      <span className={css.muted}>Invited by {invitedBy(invitation)}</span>
      {pending ? (
        link === undefined ? (
          <span className={css.subtle}>{TeamFailureMessages.noInvitationLink}</span>
        ) : (
          <span className={css.link} title={link}>
            <LinkIcon size={12} />
            <span className={css.linkText}>{link}</span>
          </span>
        )
      ) : null}
    </div>
  )
}

function InvitationActions({
  listRef,
  menuRef,
  invitation,
}: {
  readonly listRef: InvitationsListRef
  readonly menuRef: RowMenuRef
  readonly invitation: Invitation
}) {
  const invitationId = invitation.id
  const canResend = useSelector(listRef, (s) => s.can({ type: "invitation.resendRequested", invitationId }))
  const canCancel = useSelector(listRef, (s) => s.can({ type: "invitation.cancelRequested", invitationId }))
  // Access §4: only a pending invitation has actions.
  if (!canResendOrCancel(invitation.status)) return null
  return (
    <RowActionMenu
      menuRef={menuRef}
      rowId={String(invitationId)}
      label={`Actions for the invitation to ${invitation.email}`}
      actions={[
        {
          id: "resend",
          label: "Resend invitation",
          icon: SendIcon,
          isDisabled: !canResend,
          onAction: () => listRef.send({ type: "invitation.resendRequested", invitationId }),
        },
        {
          id: "cancel",
          label: "Cancel invitation",
          icon: XCircleIcon,
          tone: "danger",
          isDisabled: !canCancel,
          onAction: () => listRef.send({ type: "invitation.cancelRequested", invitationId }),
        },
      ]}
    />
  )
}

function CancelInvitationDialog({ listRef }: { readonly listRef: InvitationsListRef }) {
  const target = useSelector(listRef, (s) => (s.matches({ cancel: "idle" }) ? null : s.context.cancelTarget))
  const canceling = useSelector(listRef, (s) => s.matches({ cancel: "canceling" }))
  if (target === null) return null
  return (
    <Dialog
      title="Cancel invitation"
      role="alertdialog"
      size="sm"
      isOpen
      onOpenChange={(open) => {
        if (!open) listRef.send({ type: "cancel.dismissed" })
      }}
      isDismissable={!canceling}
      isKeyboardDismissDisabled={canceling}
      showCloseButton={!canceling}
    >
      <div className={css.dialogBody}>
        <p className={css.dialogText}>{cancelInvitationConfirmMessage(target.email)}</p>
        <DialogFooter>
          <Button variant="secondary" isDisabled={canceling} onPress={() => listRef.send({ type: "cancel.dismissed" })}>
            Keep invitation
          </Button>
          <Button variant="danger" isPending={canceling} onPress={() => listRef.send({ type: "cancel.confirmed" })}>
            Cancel invitation
          </Button>
        </DialogFooter>
      </div>
    </Dialog>
  )
}

const COLUMN_COUNT = 4

export function InvitationsCard({
  listRef,
  menuRef,
  origin,
}: {
  readonly listRef: InvitationsListRef
  readonly menuRef: RowMenuRef
  readonly origin: string
}) {
  const invitations = useSelector(listRef, (s) => s.context.invitations)
  const isLoading = useSelector(listRef, (s) => s.matches({ list: "loading" }))
  const loadError = useSelector(listRef, (s) => (s.matches({ list: "failed" }) ? s.context.loadError : undefined))

  const columns = useMemo(
    () =>
      helper.columns([
        helper.accessor("email", {
          id: "invitee",
          header: "Invitee",
          cell: ({ row }) => <Invitee invitation={row.original} origin={origin} />,
        }),
        helper.accessor("role_name", {
          id: "role",
          header: "Role",
          cell: ({ getValue }) => {
            const name = getValue()
            const emphasised = isEmphasisedRole(name, false)
            return (
              <Badge tone={emphasised ? "accent" : "neutral"} emphasis={emphasised}>
                {name ?? "No Role"}
              </Badge>
            )
          },
        }),
        helper.accessor("created_at", {
          id: "invited",
          header: "Invited",
          cell: ({ row }) => (
            <span className={css.dateCell}>
              <span>{formatDate(row.original.created_at)}</span>
              {row.original.expires_at === null ? null : (
                <span className={css.subtle}>Expires {formatDate(row.original.expires_at)}</span>
              )}
            </span>
          ),
        }),
        helper.display({
          id: "actions",
          header: "Actions",
          cell: ({ row }) => <InvitationActions listRef={listRef} menuRef={menuRef} invitation={row.original} />,
        }),
      ]),
    [listRef, menuRef, origin],
  )
  const table = useTable({ features, columns, data: invitations as Invitation[], getRowId: (i) => String(i.id) })

  return (
    <Card title="Pending invitations" description={invitationsTotalMessage(invitations.length)} padding="lg">
      {loadError === undefined ? null : (
        <AlertBox
          tone="error"
          title={TeamFailureMessages.loadInvitations}
          action={
            <Button variant="secondary" size="sm" onPress={() => listRef.send({ type: "invitations.retryRequested" })}>
              Try again
            </Button>
          }
        >
          {loadError === TeamFailureMessages.loadInvitations ? undefined : loadError}
        </AlertBox>
      )}
      {loadError !== undefined ? null : (
        <div className={css.tableWrap}>
          <table className={`${css.table} ${css.flatRows}`} aria-label="Pending invitations" aria-busy={isLoading}>
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
                <SkeletonRows rows={Layout.invitationSkeletonRows} columns={COLUMN_COUNT} />
              ) : invitations.length === 0 ? (
                <tr>
                  <td colSpan={COLUMN_COUNT} className={css.stateCell}>
                    <div className={css.stateBox}>
                      <InboxIcon size={28} className={css.stateIcon} />
                      <span className={css.stateTitle}>No invitations sent yet</span>
                      <span>Invitations you send will appear here</span>
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
      )}
      <CancelInvitationDialog listRef={listRef} />
    </Card>
  )
}
