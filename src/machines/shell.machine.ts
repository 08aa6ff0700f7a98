/**
 * The dashboard shell (access spec §2 "Layouts": dashboard layout, sidebar, user card, header, user menu; §6 "The Users
 * menu entry and page need any one of the eight user and role management permissions … The Scans entry needs
 * scan_service or read_only"; §9 sidebar 80 / 300 px, desktop breakpoint 1024 px).
 *
 * Parallel regions:
 * - `data`: `loading` the shell's facts (`loadShell`: email, workspace name, owner flag, role names, permissions,
 *   number of workspaces) → `ready` | `failed` (`shell.retried`). While ready, `watchShellData` reports
 *   `shell.invalidated` when the user, the workspaces or the permissions change (profile update, switch in another
 *   tab), and the facts are loaded again; the previous facts stay on screen meanwhile.
 * - `sidebar`: `expanded` (300 px) ⇄ `collapsed` (80 px) on `sidebar.toggled` (desktop only: below 1024 px the sidebar
 *   is a drawer and always full width).
 * - `drawer`: the mobile drawer, `open` on `drawer.opened`; closed by `drawer.closed`, `route.changed` and by the
 *   viewport becoming desktop (`viewport.changed`).
 * - `account`: `active` → `signingOut` on `signOut.requested` (the session's logout takes it from there).
 * Menu and navigation intents, guarded so that views derive visibility from `snapshot.can(event)`:
 * - `navigation.requested` { to } — allowed when the route's permission rule holds (`mayVisit`);
 * - `workspace.switchRequested` — only with more than one workspace (→ /workspace-selection).
 * Effects: actors `loadShell`, `watchShellData`; environment actions `navigate`, `signOut`.
 *
 * Events accepted (besides the two intents above):
 * - `shell.invalidated` — reported by `watchShellData`: the user, the workspaces or the permissions changed; the facts are loaded again.
 * - `shell.retried` — the user pressed 'Try again' on the user card after the shell's facts failed to load.
 * - `sidebar.toggled` — the user pressed the sidebar's collapse / expand button.
 * - `drawer.opened` — the user opened the mobile navigation drawer (menu button).
 * - `drawer.closed` — the user closed the mobile drawer.
 * - `route.changed` { path } — the location changed (sent by the dashboard layout on every route change); an open drawer closes.
 * - `viewport.changed` { isDesktop } — the viewport crossed the 1024 px desktop breakpoint; an open drawer closes when it became desktop.
 * - `signOut.requested` — the user chose Sign out in the user menu; the session's logout takes over.
 */
import { assertEvent, assign, fromCallback, fromPromise, setup } from "xstate"
import {
  ACCOUNT_ROUTE_PERMISSIONS,
  ADMIN_REQUIREMENT,
  APPROVALS_ROUTE_PERMISSIONS,
  COMPLIANCE_ROUTE_PERMISSIONS,
  OWNER_LABEL,
  SCANS_ROUTE_PERMISSIONS,
  USER_MANAGEMENT_PERMISSIONS,
  meetsRequirement,
  unionPermissions,
  type PermissionName,
  type PermissionRequirement,
  type PermissionSubject,
} from "../contracts/permissions.ts"
import type { AppServices } from "../services/app-services.ts"
import { toFailure, type NavigateParams } from "./auth-effects.ts"
import { pathSegments } from "./breadcrumbs.ts"
import { errorOf, outputOf } from "./actor-output.ts"
import { notProvided } from "./building-blocks.ts"

// ---------------------------------------------------------------------------------------------------
// Types

/** What the shell shows about the signed-in user in the selected workspace. */
export interface ShellData {
  readonly email: string
  readonly firstName: string
  readonly lastName: string
  readonly workspaceName: string | null
  readonly isOwner: boolean
  /** Names of the user's roles in the workspace (built-in and custom). */
  readonly roleNames: ReadonlyArray<string>
  readonly permissions: ReadonlyArray<PermissionName>
  readonly workspaceCount: number
}

export interface ShellInput {
  /** Whether the viewport is at least the 1024 px desktop breakpoint when the shell mounts. */
  readonly isDesktop: boolean
}

export interface ShellContext {
  readonly data: ShellData | null
  readonly error: string | null
  readonly isDesktop: boolean
}

export type ShellEvent =
  | { readonly type: "sidebar.toggled" }
  | { readonly type: "drawer.opened" }
  | { readonly type: "drawer.closed" }
  | { readonly type: "route.changed"; readonly path: string }
  | { readonly type: "viewport.changed"; readonly isDesktop: boolean }
  | { readonly type: "navigation.requested"; readonly to: string }
  | { readonly type: "workspace.switchRequested" }
  | { readonly type: "signOut.requested" }
  | { readonly type: "shell.retried" }
  | { readonly type: "shell.invalidated" }

export const WORKSPACE_SELECTION_PATH = "/workspace-selection"

/**
 * Access §2 "Route guards" / §6: the permissions a dashboard path needs (any one of them), or undefined when the page
 * is open to every member. /dashboard/accounts/{id}: create_account or read_only; the scans pages: scan_service or
 * read_only; /dashboard/users: any of the eight user and role management permissions; beyond the spec (issue 30)
 * /dashboard/storage: all 12 (workspace admins).
 */
export const requiredPermissionsFor = (path: string): PermissionRequirement | undefined => {
  const [root, area] = pathSegments(path)
  if (root !== "dashboard") return undefined
  switch (area) {
    case "scans":
      return SCANS_ROUTE_PERMISSIONS
    case "accounts":
      return ACCOUNT_ROUTE_PERMISSIONS
    case "users":
      return USER_MANAGEMENT_PERMISSIONS
    case "compliance":
      return COMPLIANCE_ROUTE_PERMISSIONS
    case "storage":
      return ADMIN_REQUIREMENT
    // Beyond the spec (issue 32, four eyes): the approvals inbox is for the members who may remediate, and so approve.
    case "approvals":
      return APPROVALS_ROUTE_PERMISSIONS
    // Beyond the spec (issue 32 part 4): bulk remediations, for the members who may remediate.
    case "remediations":
      return APPROVALS_ROUTE_PERMISSIONS
    // Beyond the spec (issue 31 item 5): the workspace settings pages (/dashboard/settings/account-groups) are admins',
    // except API keys (issue 33), where every member manages their own.
    case "settings":
      return pathSegments(path)[2] === "api-keys" ? undefined : ADMIN_REQUIREMENT
    default:
      return undefined
  }
}

export const permissionSubjectOf = (data: ShellData | null): PermissionSubject =>
  data === null
    ? { isOwner: false, permissions: [], roles: [] }
    : { isOwner: data.isOwner, permissions: data.permissions, roles: data.roleNames }

/** The page's permission rule holds for the user (open pages always do). */
export const mayVisit = (data: ShellData | null, path: string): boolean => {
  const required = requiredPermissionsFor(path)
  return required === undefined || meetsRequirement(permissionSubjectOf(data), required)
}

// ---------------------------------------------------------------------------------------------------
// Machine

export const shellMachine = setup({
  types: {
    context: {} as ShellContext,
    events: {} as ShellEvent,
    input: {} as ShellInput,
  },
  actors: {
    /** Loads the shell's facts from the cached user, workspace list and permissions of the selected workspace. */
    loadShell: fromPromise<ShellData>(notProvided("loadShell")),
    /** Sends `shell.invalidated` whenever the facts behind `loadShell` change. */
    watchShellData: fromCallback<ShellEvent>(() => () => {}),
  },
  guards: {
    /** The route has no permission rule, or the user holds one of the permissions it needs in the selected workspace. */
    mayVisit: ({ context, event }) => {
      assertEvent(event, "navigation.requested")
      return mayVisit(context.data, event.to)
    },
    /** The user belongs to more than one workspace. */
    hasSeveralWorkspaces: ({ context }) => (context.data?.workspaceCount ?? 0) > 1,
    /** The viewport is now desktop width (1024 px or more). */
    becameDesktop: ({ event }) => {
      assertEvent(event, "viewport.changed")
      return event.isDesktop
    },
  },
  actions: {
    // environment
    navigate: (_, _params: NavigateParams) => {},
    signOut: () => {},
    // context
    assignData: assign({ data: ({ event }) => outputOf<ShellData>(event), error: null }),
    assignError: assign({ error: ({ event }) => toFailure(errorOf(event)).message }),
    assignViewport: assign({
      isDesktop: ({ event }) => {
        assertEvent(event, "viewport.changed")
        return event.isDesktop
      },
    }),
  },
}).createMachine({
  id: "shell",
  type: "parallel",
  context: ({ input }) => ({ data: null, error: null, isDesktop: input.isDesktop }),
  on: {
    "navigation.requested": {
      guard: "mayVisit",
      actions: { type: "navigate", params: ({ event }) => ({ to: event.to }) },
    },
    "workspace.switchRequested": {
      guard: "hasSeveralWorkspaces",
      actions: { type: "navigate", params: { to: WORKSPACE_SELECTION_PATH } },
    },
    "viewport.changed": { actions: "assignViewport" },
  },
  states: {
    data: {
      description: "The shell's facts about the signed-in user in the selected workspace (email, name, workspace, owner flag, roles, permissions, number of workspaces).",
      initial: "loading",
      states: {
        loading: {
          description: "The shell's facts are being loaded; after an invalidation the previous facts stay on screen meanwhile.",
          invoke: {
            id: "loadShell",
            src: "loadShell",
            /** The facts arrived: the user card, user menu and permission-guarded menu entries show them. */
            onDone: { target: "ready", actions: "assignData" },
            /** The facts could not be loaded: the user card offers 'Try again'. */
            onError: { target: "failed", actions: "assignError" },
          },
        },
        ready: {
          description: "The shell's facts are shown and watched: a change of user, workspaces or permissions loads them again.",
          invoke: { id: "watchShellData", src: "watchShellData" },
          on: { "shell.invalidated": "loading" },
        },
        failed: {
          description: "The shell's facts could not be loaded: without earlier facts the user card says 'Your account details could not be loaded.' with 'Try again'.",
          on: { "shell.retried": "loading" },
        },
      },
    },
    sidebar: {
      description: "The desktop sidebar's width (below 1024 px the sidebar is a drawer, always full width).",
      initial: "expanded",
      states: {
        expanded: { description: "The sidebar is expanded (300 px) with labels.", on: { "sidebar.toggled": "collapsed" } },
        collapsed: { description: "The sidebar is collapsed to 80 px.", on: { "sidebar.toggled": "expanded" } },
      },
    },
    drawer: {
      description: "The mobile navigation drawer (below 1024 px).",
      initial: "closed",
      states: {
        closed: { description: "The mobile drawer is closed.", on: { "drawer.opened": "open" } },
        open: {
          description: "The mobile drawer is open over the page.",
          on: {
            "drawer.closed": "closed",
            "route.changed": "closed",
            // Handled here rather than by the root's handler (a transition of a region pre-empts its ancestors').
            "viewport.changed": { guard: "becameDesktop", target: "closed", actions: "assignViewport" },
          },
        },
      },
    },
    account: {
      description: "Whether the user is signing out.",
      initial: "active",
      states: {
        active: { description: "The user is signed in and using the dashboard.", on: { "signOut.requested": { target: "signingOut", actions: "signOut" } } },
        signingOut: { description: "Sign out was requested; the session's logout clears everything and goes to /login." },
      },
    },
  },
})

// ---------------------------------------------------------------------------------------------------
// Selectors (views select narrowly)

type Snapshot = ReturnType<typeof shellMachine.transition>

/** The user menu's second line (access §2): 'Owner', else the role names. */
export const roleSummary = (data: ShellData | null): string => {
  if (data === null) return ""
  if (data.isOwner) return OWNER_LABEL
  return data.roleNames.join(", ")
}

/** The user card's role list: 'Owner' first for the owner, then the role names (no duplicates). */
export const roleNamesShown = (data: ShellData | null): ReadonlyArray<string> => {
  if (data === null) return []
  const names = data.roleNames.filter((n) => n.trim() !== "")
  return data.isOwner && !names.some((n) => n.toLowerCase() === OWNER_LABEL.toLowerCase()) ? [OWNER_LABEL, ...names] : names
}

export const selectShellData = (snapshot: Pick<Snapshot, "context">): ShellData | null => snapshot.context.data
export const selectIsCollapsed = (snapshot: Pick<Snapshot, "matches">): boolean => snapshot.matches({ sidebar: "collapsed" })
export const selectIsDrawerOpen = (snapshot: Pick<Snapshot, "matches">): boolean => snapshot.matches({ drawer: "open" })
export const selectIsSigningOut = (snapshot: Pick<Snapshot, "matches">): boolean => snapshot.matches({ account: "signingOut" })

// ---------------------------------------------------------------------------------------------------
// Effects and their mapping onto the machine

export interface ShellEffects {
  readonly loadShell: (signal?: AbortSignal) => Promise<ShellData>
  /** Calls `onChange` when the user, the workspaces or the permissions change; returns the unsubscribe function. */
  readonly watchShellData: (onChange: () => void) => () => void
  /** Hands over to the session's logout (it clears everything and goes to /login). */
  readonly signOut: () => void
}

export const shellImplementations = (effects: ShellEffects, env: { readonly navigate: (params: NavigateParams) => void }) => ({
  actors: {
    loadShell: fromPromise<ShellData>(({ signal }) => effects.loadShell(signal)),
    watchShellData: fromCallback<ShellEvent>(({ sendBack }) => effects.watchShellData(() => sendBack({ type: "shell.invalidated" }))),
  },
  actions: {
    navigate: (_: unknown, params: NavigateParams) => env.navigate(params),
    signOut: () => effects.signOut(),
  },
})

// ---------------------------------------------------------------------------------------------------
// The real effects, from the SPA services (built once in main.tsx)

/**
 * The shell's facts from the cached user, workspace list and permissions of the selected workspace (shared with the
 * gates and screens through the query cache, so no extra request when they are fresh). Role names are those of the
 * permissions answer (built-in and custom), else the workspace's role; the workspace name is the selected workspace's,
 * else the stored `workspace_name`.
 */
export const shellEffectsFromServices = (
  services: Pick<AppServices, "queries" | "cache" | "session" | "workspaceStore">,
  hooks: { readonly signOut: () => void },
): ShellEffects => {
  const keys = () => {
    const selected = services.workspaceStore.getSnapshot().selectedWorkspaceId
    return { selected, user: services.queries.user(), workspaces: services.queries.workspaces(), permissions: services.queries.permissions(selected) }
  }
  return {
    loadShell: async (signal) => {
      const q = keys()
      const [user, workspaces, permissions] = await Promise.all([
        services.cache.fetchQuery(q.user.key, q.user.fetch, signal),
        services.cache.fetchQuery(q.workspaces.key, q.workspaces.fetch, signal),
        services.cache.fetchQuery(q.permissions.key, q.permissions.fetch, signal),
      ])
      const workspace = workspaces.find((w) => w.workspace_id === q.selected)
      const roles = [...permissions.roles, ...permissions.custom_roles]
      const roleNames = roles.length > 0 ? roles.map((r) => r.name) : workspace?.role == null ? [] : [workspace.role]
      return {
        email: user.email,
        firstName: user.first_name,
        lastName: user.last_name,
        workspaceName: workspace?.workspace_name ?? services.session.read().workspaceName ?? user.workspace_name,
        isOwner: permissions.is_owner ?? workspace?.is_owner ?? false,
        roleNames,
        permissions: unionPermissions(roles),
        workspaceCount: workspaces.length,
      }
    },
    watchShellData: (onChange) => {
      const q = keys()
      const stops = [
        services.cache.subscribe(q.user.key, onChange),
        services.cache.subscribe(q.workspaces.key, onChange),
        services.cache.subscribe(q.permissions.key, onChange),
        services.workspaceStore.subscribe(onChange),
      ]
      return () => stops.forEach((stop) => stop())
    },
    signOut: hooks.signOut,
  }
}
