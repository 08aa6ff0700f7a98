/**
 * What the User Management machines need from the outside world (access spec §2 "User Management", §4, §7), as
 * types, plus the two helpers that turn the SPA services into those effects (`createTeamEffects`) and a cache
 * observation into machine events (`queryWatcher`).
 *
 * Reads go through the shared query cache with the spec's stale times (team members, roles and workspace info
 * 5 minutes, invitations 30 s): lists are *watched* (`QueryWatch`), so a mutation's invalidation refreshes every
 * screen showing the list without machines messaging each other. Mutations run once (never retried) through
 * `cache.mutate`, which invalidates the lists they change on success.
 *
 * Failures: every call rejects with a catalogue error value `{ type, message, status?, data? }` (the API client maps
 * each failure with the endpoint's §8 flow: 'Failed to add team member', 'Failed to send invitations', …), so
 * machines show `message` verbatim.
 */
import { fromCallback, type AnyEventObject } from "xstate"
import type { OkMessage } from "../contracts/common.ts"
import type { InvitationId, UserId } from "../contracts/ids.ts"
import type {
  BulkInvitePayload,
  BulkInviteResponse,
  Invitation,
  ResendInvitationResponse,
} from "../contracts/invitations.ts"
import type {
  CreateUserPayload,
  CreateUserResponse,
  MemberPasswordResetPayload,
  TeamMember,
  UpdateTeamMemberPayload,
  UpdateTeamMemberResponse,
} from "../contracts/team.ts"
import type { RoleWithPermissions, WorkspaceInfoResponse } from "../contracts/workspaces.ts"
import type { AccessQueries, AuthApi } from "../services/auth-api.ts"
import type { QueryCache } from "../services/query-cache.ts"
import type { EffectCall } from "./auth-effects.ts"

// ---------------------------------------------------------------------------------------------------
// Watching a cached query

/** What a machine needs to know of a cached query (structurally the cache's `QueryState`). */
export interface QueryView<T> {
  readonly status: "pending" | "success" | "error"
  readonly data: T | undefined
  readonly error: unknown
  readonly isFetching: boolean
}

/** Observe a query and keep it loaded; returns the cleanup. */
export type QueryWatch<T> = (listener: (state: QueryView<T>) => void) => () => void

export type QueryPhase<T> =
  | { readonly kind: "loading" }
  | { readonly kind: "loaded"; readonly data: T }
  | { readonly kind: "failed"; readonly error: unknown }

/**
 * The phase a query is in. `first` marks the report made when watching starts: an error then is stale (watching
 * refetches an errored entry at once), so it reads as loading rather than failing a second time. An error while a
 * retry is under way is loading too.
 */
export const queryPhase = <T>(state: QueryView<T>, first: boolean): QueryPhase<T> => {
  if (state.status === "success" && state.data !== undefined) return { kind: "loaded", data: state.data }
  if (state.status === "error" && !state.isFetching && !first) return { kind: "failed", error: state.error }
  return { kind: "loading" }
}

const samePhase = <T>(a: QueryPhase<T>, b: QueryPhase<T>): boolean => {
  if (a.kind !== b.kind) return false
  if (a.kind === "loaded" && b.kind === "loaded") return a.data === b.data
  if (a.kind === "failed" && b.kind === "failed") return a.error === b.error
  return true
}

/**
 * A `fromCallback` actor reporting a watched query to its parent as events: one event per *change* of phase (the
 * cache notifies on every internal change — fetching flags, invalidation — which must not repeat a toast).
 */
export const queryWatcher = <T, E extends AnyEventObject>(watch: QueryWatch<T>, toEvent: (phase: QueryPhase<T>) => E) =>
  fromCallback<AnyEventObject>(({ sendBack }) => {
    let first = true
    let last: QueryPhase<T> | undefined
    return watch((state) => {
      const phase = queryPhase(state, first)
      first = false
      if (last !== undefined && samePhase(last, phase)) return
      last = phase
      sendBack(toEvent(phase))
    })
  })

// ---------------------------------------------------------------------------------------------------
// Effects

export interface TeamEffects {
  /** GET /api/team-members through the cache (stale after 5 minutes). */
  readonly watchTeamMembers: QueryWatch<ReadonlyArray<TeamMember>>
  /** 'Try again' after a failed members load: fetch again now. */
  readonly refetchTeamMembers: () => void
  /** Current workspace info (is_owner, user_id, workspace_name), cached 5 minutes. */
  readonly loadWorkspaceInfo: EffectCall<void, WorkspaceInfoResponse>
  /** The default (built-in) roles only: access §6 "Only default roles are offered when adding, inviting or editing". */
  readonly loadRoles: EffectCall<void, ReadonlyArray<RoleWithPermissions>>
  readonly createUser: EffectCall<CreateUserPayload, CreateUserResponse>
  readonly updateMember: EffectCall<UpdateTeamMemberPayload, UpdateTeamMemberResponse>
  readonly deleteMember: EffectCall<{ readonly user_to_delete: UserId }, OkMessage>
  readonly sendPasswordReset: EffectCall<MemberPasswordResetPayload, OkMessage>
  /** GET /api/admin/users/invitations through the cache (stale after 30 s; no retry on 4xx). */
  readonly watchInvitations: QueryWatch<ReadonlyArray<Invitation>>
  readonly refetchInvitations: () => void
  readonly inviteMembers: EffectCall<BulkInvitePayload, BulkInviteResponse>
  readonly resendInvitation: EffectCall<{ readonly invitation_id: InvitationId }, ResendInvitationResponse>
  readonly cancelInvitation: EffectCall<{ readonly id: InvitationId }, OkMessage>
  /** The site origin, for the invitation-link fallback (access §4). */
  readonly origin: string
}

/** What `createTeamEffects` needs from the SPA services (`AppServices` satisfies it). */
export interface TeamServices {
  readonly cache: QueryCache
  readonly api: AuthApi
  readonly queries: AccessQueries
  readonly workspaceStore: { readonly getSnapshot: () => { readonly selectedWorkspaceId: number | null } }
}

const swallow = () => {}

/** Access §6: built-in roles are those not flagged custom. */
export const defaultRoles = (roles: ReadonlyArray<RoleWithPermissions>): ReadonlyArray<RoleWithPermissions> =>
  roles.filter((r) => r.is_custom !== true)

/**
 * The real effects. Workspace-scoped keys read the selected workspace at call time, so a workspace switch never
 * shows another workspace's rows.
 */
export const createTeamEffects = (services: TeamServices, origin: string): TeamEffects => {
  const { cache, api, queries } = services
  const workspaceId = () => services.workspaceStore.getSnapshot().selectedWorkspaceId
  const members = () => queries.teamMembers(workspaceId())
  const invitations = () => queries.invitations(workspaceId())
  const signalOf = (signal: AbortSignal | undefined) => (signal === undefined ? {} : { signal })
  const TEAM = ["team-members"] as const
  const INVITATIONS = ["invitations"] as const
  return {
    watchTeamMembers: (listener) => {
      const q = members()
      return cache.watch(q.key, q.fetch, listener)
    },
    refetchTeamMembers: () => {
      const q = members()
      cache.refetch(q.key, q.fetch).catch(swallow)
    },
    loadWorkspaceInfo: (_, signal) => {
      const q = queries.workspaceInfo(workspaceId())
      return cache.fetchQuery(q.key, q.fetch, signal)
    },
    loadRoles: async (_, signal) => {
      const q = queries.roles(workspaceId())
      return defaultRoles((await cache.fetchQuery(q.key, q.fetch, signal)).roles)
    },
    createUser: (payload, signal) => cache.mutate((s) => api.createUser(payload, s), { invalidates: [TEAM], ...signalOf(signal) }),
    updateMember: (payload, signal) =>
      cache.mutate((s) => api.updateMember(payload, s), { invalidates: [TEAM], ...signalOf(signal) }),
    deleteMember: (payload, signal) =>
      cache.mutate((s) => api.deleteUser(payload, s), { invalidates: [TEAM], ...signalOf(signal) }),
    sendPasswordReset: (payload, signal) => cache.mutate((s) => api.memberPasswordReset(payload, s), signalOf(signal)),
    watchInvitations: (listener) => {
      const q = invitations()
      return cache.watch(q.key, q.fetch, listener)
    },
    refetchInvitations: () => {
      const q = invitations()
      cache.refetch(q.key, q.fetch).catch(swallow)
    },
    inviteMembers: (payload, signal) =>
      cache.mutate((s) => api.inviteMembers(payload, s), { invalidates: [INVITATIONS], ...signalOf(signal) }),
    resendInvitation: (payload, signal) =>
      cache.mutate((s) => api.resendInvitation(payload, s), { invalidates: [INVITATIONS], ...signalOf(signal) }),
    cancelInvitation: (payload, signal) =>
      cache.mutate((s) => api.cancelInvitation(payload, s), { invalidates: [INVITATIONS], ...signalOf(signal) }),
    origin,
  }
}
