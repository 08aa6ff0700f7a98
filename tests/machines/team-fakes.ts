/**
 * Fakes for the User Management and Profile Settings machines: sample rows shaped by the contract, a controllable
 * watched query (what `cache.watch` would report), and an action recorder for the environment actions.
 */
import { fromCallback, type AnyEventObject } from "xstate"
import type { User } from "../../src/contracts/auth.ts"
import type { InvitationId, PermissionId, RoleId, UserId } from "../../src/contracts/ids.ts"
import type { Invitation } from "../../src/contracts/invitations.ts"
import type { TeamMember } from "../../src/contracts/team.ts"
import type { RoleWithPermissions, WorkspaceInfoResponse } from "../../src/contracts/workspaces.ts"
import type { NotifyParams } from "../../src/machines/auth-effects.ts"
import { queryWatcher, type QueryPhase, type QueryView, type QueryWatch } from "../../src/machines/team-effects.ts"

export const member = (id: number, overrides: Partial<TeamMember> = {}): TeamMember => ({
  id: id as UserId,
  email: `user${id}@example.com`,
  first_name: `First${id}`,
  last_name: `Last${id}`,
  is_owner: false,
  role_name: "Auditor",
  role_id: 3 as RoleId,
  is_custom_role: false,
  last_login: "2025-03-04T09:15:00.000Z",
  ...overrides,
})

/** Owner (1, Admin), a security engineer (2), an auditor without login (3), a member without role (4). */
export const sampleMembers: ReadonlyArray<TeamMember> = [
  member(1, { email: "ada@example.com", first_name: "Ada", last_name: "Lovelace", is_owner: true, role_name: "Admin", role_id: 1 as RoleId }),
  member(2, { email: "grace@example.com", first_name: "Grace", last_name: "Hopper", role_name: "Security Engineer", role_id: 2 as RoleId }),
  member(3, { email: "alan@example.com", first_name: "Alan", last_name: "Turing", last_login: null }),
  member(4, { email: "nobody@example.com", first_name: "", last_name: "", role_name: null, role_id: null }),
]

export const ownerInfo: WorkspaceInfoResponse = { ok: true, is_owner: true, user_id: 1 as UserId, workspace_name: "Analytical Engines" }
/** Grace (2), not the owner. */
export const memberInfo: WorkspaceInfoResponse = { ok: true, is_owner: false, user_id: 2 as UserId, workspace_name: "Analytical Engines" }

const role = (id: number, name: string, isCustom = false): RoleWithPermissions => ({
  id: id as RoleId,
  name,
  ...(isCustom ? { is_custom: true } : {}),
  permissions: [{ id: 1 as PermissionId, name: "read_only" }],
})
export const sampleRoles: ReadonlyArray<RoleWithPermissions> = [
  role(1, "Admin"),
  role(2, "Security Engineer"),
  role(3, "Auditor"),
  role(4, "Member Manager"),
]
export const customRole = role(101, "Contractors", true)

export const invitation = (id: number, overrides: Partial<Invitation> = {}): Invitation => ({
  id: id as InvitationId,
  email: `invitee${id}@example.com`,
  status: "pending",
  role_name: "Auditor",
  created_at: "2025-03-01T10:00:00.000Z",
  expires_at: "2025-03-08T10:00:00.000Z",
  invited_by_first_name: "Ada",
  invited_by_last_name: "Lovelace",
  invited_by_email: "ada@example.com",
  invite_link: `https://app.example.com/invitation/accept/token-${id}`,
  invitation_token: `token-${id}`,
  ...overrides,
})

export const sampleInvitations: ReadonlyArray<Invitation> = [
  invitation(11),
  invitation(12, { status: "accepted", invite_link: null, invitation_token: null }),
  invitation(13, { invite_link: null, invited_by_first_name: null, invited_by_last_name: null }),
  invitation(14, { status: "expired", invite_link: null, invitation_token: null, invited_by_first_name: null, invited_by_last_name: null, invited_by_email: null }),
]

export const sampleUser: User = {
  id: 1 as UserId,
  email: "ada@example.com",
  email_verified: true,
  first_name: "Ada",
  last_name: "Lovelace",
  workspace_name: "Analytical Engines",
  roles: [],
  timezone: { value: "Europe/London", label: "London", offset: "+00:00" },
}

/** A watched query the test drives: `emit(state)` reports to every watcher, `watchers()` counts live ones. */
export const fakeQuery = <T>() => {
  const listeners = new Set<(state: QueryView<T>) => void>()
  let current: QueryView<T> = { status: "pending", data: undefined, error: undefined, isFetching: true }
  const watch: QueryWatch<T> = (listener) => {
    listeners.add(listener)
    listener(current)
    return () => void listeners.delete(listener)
  }
  return {
    watch,
    emit: (state: Partial<QueryView<T>>) => {
      current = { ...current, ...state }
      for (const l of [...listeners]) l(current)
    },
    succeed: (data: T) => {
      current = { status: "success", data, error: undefined, isFetching: false }
      for (const l of [...listeners]) l(current)
    },
    fail: (error: unknown) => {
      current = { ...current, status: "error", error, isFetching: false }
      for (const l of [...listeners]) l(current)
    },
    watchers: () => listeners.size,
  }
}

/** The machine's watcher actor over a fake query. */
export const watcherOver = <T, E extends AnyEventObject>(q: { watch: QueryWatch<T> }, toEvent: (p: QueryPhase<T>) => E) =>
  queryWatcher(q.watch, toEvent)

/** A watcher that never reports (transition coverage sends the events itself). */
export const silentWatcher = () => fromCallback(() => () => {})

/** Records the `notify` environment action. */
export const toastRecorder = () => {
  const toasts: NotifyParams[] = []
  return { toasts, notify: (_: unknown, params: NotifyParams) => void toasts.push(params) }
}
