/**
 * Pieces several machines share where their flows really are the same, so that each machine file reads as its own flow.
 *
 * - `rolesRegion`: a form dialog's parallel region that loads the workspace's roles (for the role picker), with a retry
 *   after a failure. The machine provides the actor `loadRoles` and the actions `assignRoles: assign(rolesLoaded)` and
 *   `assignRolesError: assign(rolesFailed)`; its context has `roles` and `rolesError`. Used by add member, edit member
 *   and invite members.
 *
 * A fragment is plain statechart config: the generated statechart docs and the model-based tests see each machine whole.
 */
import type { RoleWithPermissions } from "../contracts/workspaces.ts"
import { errorOf, outputOf } from "./actor-output.ts"
import { toFailure } from "./auth-effects.ts"

export const rolesRegion = {
  initial: "loading",
  states: {
    loading: {
      invoke: {
        id: "loadRoles",
        src: "loadRoles",
        onDone: { target: "ready", actions: "assignRoles" },
        onError: { target: "failed", actions: "assignRolesError" },
      },
    },
    ready: {},
    failed: {
      on: { "roles.retryRequested": { target: "loading" } },
    },
  },
} as const

/** `assignRoles`: the loaded roles, and no error. */
export const rolesLoaded = ({ event }: { readonly event: unknown }) => ({
  roles: outputOf<ReadonlyArray<RoleWithPermissions> | undefined>(event) ?? [],
  rolesError: undefined,
})

/** `assignRolesError`: the failure's text for the role picker. */
export const rolesFailed = ({ event }: { readonly event: unknown }) => ({ rolesError: toFailure(errorOf(event)).message })
