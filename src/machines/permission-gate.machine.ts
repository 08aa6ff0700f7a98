/**
 * Permission gate (access spec §2 "Route guards", §6): a route that needs a permission the user lacks in the
 * selected workspace redirects to /dashboard with 'You do not have permission to access this page', shown as
 * an error (route state `{ message, error: true }`).
 *
 * Route requirements (any one suffices): /dashboard/accounts/{id} and its /resource page → create_account or read_only; the scans
 * routes → scan_service or read_only; /dashboard/users → any of the eight user and role management
 * permissions; beyond the spec (issue 30) /dashboard/storage → all 12 (workspace admins). The owner holds every
 * permission; otherwise permissions are the union over built-in and custom roles (`src/contracts/permissions.ts`).
 *
 * `decidePermissionGate` is the pure rule; `permissionGateMachine` follows the permissions query of the
 * selected workspace through the `watchPermissions` actor.
 *
 * Events accepted:
 * - `gate.permissionsChanged` { state } — from `watchPermissions`: the permissions query changed; the gate decides again
 *   (while denied, an answer that still denies does not navigate again).
 * - `gate.requirementChanged` { required } — another route inside the shell, with its own requirement: decides again.
 * - `gate.retryRequested` — the user pressed retry after the permissions failed to load: they are fetched again.
 *
 * Environment actions: `navigate`, `refetchPermissions`.
 */
import { assertEvent, assign, fromCallback, setup } from "xstate"
import { OtherMessages, StatusMessages } from "../contracts/messages.ts"
import {
  ACCOUNT_ROUTE_PERMISSIONS,
  ADMIN_REQUIREMENT,
  APPROVALS_ROUTE_PERMISSIONS,
  SCANS_ROUTE_PERMISSIONS,
  USER_MANAGEMENT_PERMISSIONS,
  meetsRequirement,
  unionPermissions,
  type PermissionRequirement,
  type PermissionSubject,
} from "../contracts/permissions.ts"
import type { UserPermissionsResponse } from "../contracts/workspaces.ts"
import type { AccessQueries } from "../services/auth-api.ts"
import type { QueryCache, QueryState } from "../services/query-cache.ts"
import type { WorkspaceStore } from "../services/storage.ts"
import type { DashboardRouteState, NavigationRequest } from "./navigation.ts"

/** The permissions a path needs (any one of them, or all for admin pages), or null when it needs none beyond a session. */
export const requiredPermissionsFor = (location: string): PermissionRequirement | null => {
  const path = (location.split(/[?#]/)[0] ?? "").replace(/\/+$/, "")
  if (/^\/dashboard\/accounts\/[^/]+(?:\/resource|\/organization)?$/.test(path)) return ACCOUNT_ROUTE_PERMISSIONS
  // Organisations (issue 31): the fleet dashboard and the findings across its members read like an account page.
  if (/^\/dashboard\/organizations\/[^/]+\/(?:fleet|findings)$/.test(path)) return ACCOUNT_ROUTE_PERMISSIONS
  if (/^\/dashboard\/scans(?:\/.*)?$/.test(path)) return SCANS_ROUTE_PERMISSIONS
  if (path === "/dashboard/users") return USER_MANAGEMENT_PERMISSIONS
  if (path === "/dashboard/storage") return ADMIN_REQUIREMENT
  // The approvals inbox (issue 32, four eyes): members who may remediate, and so approve.
  if (path === "/dashboard/approvals") return APPROVALS_ROUTE_PERMISSIONS
  // Bulk remediations (issue 32 part 4): members who may remediate.
  if (/^\/dashboard\/remediations(?:\/.*)?$/.test(path)) return APPROVALS_ROUTE_PERMISSIONS
  // API keys (issue 33): every member manages their own keys.
  if (path === "/dashboard/settings/api-keys") return null
  // Account groups (issue 31 item 5) and the other workspace settings pages: workspace admins.
  if (/^\/dashboard\/settings\/[^/]+$/.test(path)) return ADMIN_REQUIREMENT
  return null
}

/** The checks' view of the permissions answer: owner flag, union of role permissions, role names. */
export const permissionSubjectOf = (answer: UserPermissionsResponse): PermissionSubject => {
  const roles = [...answer.roles, ...answer.custom_roles]
  return {
    isOwner: answer.is_owner === true,
    permissions: unionPermissions(roles),
    roles: roles.map((r) => r.name),
  }
}

export type PermissionGateDecision =
  | { readonly kind: "loading" }
  | { readonly kind: "render" }
  | { readonly kind: "denied"; readonly redirect: NavigationRequest }
  | { readonly kind: "failed"; readonly message: string }

export type PermissionsQuery = Pick<QueryState<UserPermissionsResponse>, "status" | "data" | "error" | "isFetching">

export interface PermissionGateFacts {
  readonly required: PermissionRequirement | null
  readonly permissions: PermissionsQuery
}

const deniedState: DashboardRouteState = { message: OtherMessages.permissionRequiredForPage, error: true }
export const PERMISSION_DENIED_REDIRECT: NavigationRequest = { to: "/dashboard", replace: true, state: deniedState }

const messageOf = (error: unknown): string =>
  typeof error === "object" && error !== null && typeof (error as { message?: unknown }).message === "string"
    ? (error as { message: string }).message
    : StatusMessages.unexpected

export const decidePermissionGate = ({ required, permissions }: PermissionGateFacts): PermissionGateDecision => {
  if (required === null || ("all" in required ? required.all : required).length === 0) return { kind: "render" }
  const answer = permissions.data
  if (answer === undefined) {
    return permissions.status === "error" && !permissions.isFetching
      ? { kind: "failed", message: messageOf(permissions.error) }
      : { kind: "loading" }
  }
  return meetsRequirement(permissionSubjectOf(answer), required) ? { kind: "render" } : { kind: "denied", redirect: PERMISSION_DENIED_REDIRECT }
}

export interface PermissionGateContext extends PermissionGateFacts {
  readonly decision: PermissionGateDecision
}

export interface PermissionGateInput {
  readonly required: PermissionRequirement | null
}

export type PermissionGateEvent =
  | { readonly type: "gate.permissionsChanged"; readonly state: PermissionsQuery }
  | { readonly type: "gate.requirementChanged"; readonly required: PermissionRequirement | null }
  | { readonly type: "gate.retryRequested" }

const withDecision = (facts: PermissionGateFacts): PermissionGateContext => ({
  required: facts.required,
  permissions: facts.permissions,
  decision: decidePermissionGate(facts),
})

export const permissionGateMachine = setup({
  types: {
    context: {} as PermissionGateContext,
    events: {} as PermissionGateEvent,
    input: {} as PermissionGateInput,
  },
  actors: {
    /** Sends `gate.permissionsChanged` for every state of the selected workspace's permissions query. */
    watchPermissions: fromCallback(() => () => {}),
  },
  guards: {
    /** `decidePermissionGate` lets the route render. */
    isAllowed: ({ context }) => context.decision.kind === "render",
    /** `decidePermissionGate` denies the route. */
    isDenied: ({ context }) => context.decision.kind === "denied",
    /** `decidePermissionGate` says the permissions query failed. */
    hasFailed: ({ context }) => context.decision.kind === "failed",
    /** The new permissions still deny the route. */
    staysDenied: ({ context, event }) =>
      event.type === "gate.permissionsChanged" &&
      decidePermissionGate({ required: context.required, permissions: event.state }).kind === "denied",
  },
  actions: {
    navigate: (_, _params: NavigationRequest) => {},
    refetchPermissions: () => {},
    assignPermissions: assign(({ context, event }) => {
      assertEvent(event, "gate.permissionsChanged")
      const { status, data, error, isFetching } = event.state
      return withDecision({ ...context, permissions: { status, data, error, isFetching } })
    }),
    assignRequirement: assign(({ context, event }) => {
      assertEvent(event, "gate.requirementChanged")
      return withDecision({ ...context, required: event.required })
    }),
  },
}).createMachine({
  id: "permissionGate",
  context: ({ input }) =>
    withDecision({
      required: input.required,
      permissions: { status: "pending", data: undefined, error: undefined, isFetching: false },
    }),
  invoke: { id: "permissions", src: "watchPermissions" },
  initial: "deciding",
  states: {
    deciding: {
      description: "Applies `decidePermissionGate` to the route's requirement and the permissions query of the selected workspace.",
      /** Allowed, denied (→ /dashboard with the error), failed, or still loading. */
      always: [
        { guard: "isAllowed", target: "allowed" },
        { guard: "isDenied", target: "denied" },
        { guard: "hasFailed", target: "failed" },
        { target: "loading" },
      ],
    },
    loading: { description: "The permissions have not been loaded yet: the route waits." },
    allowed: { description: "The user holds one of the permissions the route needs (the owner holds them all): the route renders." },
    /** Already redirecting: a repeated answer that still denies does not navigate again. */
    denied: {
      entry: { type: "navigate", params: PERMISSION_DENIED_REDIRECT },
      on: {
        "gate.permissionsChanged": [
          { guard: "staysDenied", actions: "assignPermissions" },
          { target: "deciding", actions: "assignPermissions" },
        ],
      },
    },
    failed: {
      description: "The permissions could not be loaded: an error with a retry.",
      on: { "gate.retryRequested": { target: "loading", actions: "refetchPermissions" } },
    },
  },
  on: {
    "gate.permissionsChanged": { target: ".deciding", actions: "assignPermissions" },
    "gate.requirementChanged": { target: ".deciding", actions: "assignRequirement" },
  },
})

// ---------------------------------------------------------------------------------------------------

export interface PermissionGateServices {
  readonly cache: QueryCache
  readonly queries: Pick<AccessQueries, "permissions">
  readonly workspaceStore: Pick<WorkspaceStore, "getSnapshot" | "subscribe">
}

/**
 * The gate with its watcher from the SPA services (the React boundary adds `navigate`). The watcher follows
 * the selected workspace: switching workspaces watches that workspace's permissions.
 */
export const permissionGateMachineWith = (services: PermissionGateServices) => {
  const current = () => services.queries.permissions(services.workspaceStore.getSnapshot().selectedWorkspaceId)
  return permissionGateMachine.provide({
    actors: {
      watchPermissions: fromCallback(({ sendBack }) => {
        let workspaceId = services.workspaceStore.getSnapshot().selectedWorkspaceId
        const watch = () => {
          const q = services.queries.permissions(workspaceId)
          return services.cache.watch(q.key, q.fetch, ({ status, data, error, isFetching }) =>
            sendBack({ type: "gate.permissionsChanged", state: { status, data, error, isFetching } }),
          )
        }
        let stopWatching = watch()
        const stopFollowing = services.workspaceStore.subscribe(() => {
          const next = services.workspaceStore.getSnapshot().selectedWorkspaceId
          if (next === workspaceId) return
          workspaceId = next
          stopWatching()
          stopWatching = watch()
        })
        return () => {
          stopFollowing()
          stopWatching()
        }
      }),
    },
    actions: {
      refetchPermissions: () => services.cache.invalidate(current().key),
    },
  })
}
