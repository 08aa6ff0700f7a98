/**
 * How /workspace-selection gets its effects without importing `src/services` (views never do): the composition root
 * builds a `WorkspaceSelectionEffects` (`workspaceSelectionEffectsFromServices` in the machine file) and renders
 * `<WorkspaceSelectionEffectsProvider effects={...}>` around the app; tests render it with fakes.
 *
 * Without a provider every call fails with the catalogue's "no response" text and the store starts empty, so the
 * screen still renders (its error state) and a console warning names the missing provider.
 */
import { createContext, useContext, type ReactNode } from "react"
import { StatusMessages } from "../../contracts/messages.ts"
import { emptyWorkspaceStore } from "../../contracts/constants.ts"
import type { EffectFailure } from "../../machines/auth-effects.ts"
import type { WorkspaceSelectionEffects } from "../../machines/workspace-selection.machine.ts"

export type { WorkspaceSelectionEffects } from "../../machines/workspace-selection.machine.ts"

let warned = false
const warnUnwired = () => {
  if (warned) return
  warned = true
  console.warn("Workspace selection effects are not provided: render the app inside <WorkspaceSelectionEffectsProvider> (src/main.tsx).")
}

const unwired = (): Promise<never> => {
  warnUnwired()
  return Promise.reject({ type: "NETWORK_ERROR", message: StatusMessages.noResponse } satisfies EffectFailure)
}

export const UNWIRED_WORKSPACE_SELECTION_EFFECTS: WorkspaceSelectionEffects = {
  acceptWorkspaceInvitation: unwired,
  loadWorkspaces: unwired,
  switchWorkspace: unwired,
  refreshUser: unwired,
  storeTokens: () => warnUnwired(),
  persistWorkspaceName: () => warnUnwired(),
  updateWorkspaceStore: () => warnUnwired(),
  readWorkspaceStore: () => emptyWorkspaceStore,
  clearPendingInvitation: () => warnUnwired(),
  signOut: () => warnUnwired(),
  now: () => Date.now(),
}

const WorkspaceSelectionEffectsContext = createContext<WorkspaceSelectionEffects>(UNWIRED_WORKSPACE_SELECTION_EFFECTS)

export function WorkspaceSelectionEffectsProvider({
  effects,
  children,
}: {
  readonly effects: WorkspaceSelectionEffects
  readonly children: ReactNode
}) {
  return <WorkspaceSelectionEffectsContext value={effects}>{children}</WorkspaceSelectionEffectsContext>
}

export function useWorkspaceSelectionEffects(): WorkspaceSelectionEffects {
  return useContext(WorkspaceSelectionEffectsContext)
}
