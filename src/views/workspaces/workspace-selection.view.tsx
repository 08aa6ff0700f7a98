/** /workspace-selection (access §2 "Screens: Workspace selection"). Placeholder. */
import { PlaceholderScreen } from "../ui/placeholder.tsx"
import * as css from "./workspace-selection.css.ts"

export function WorkspaceSelectionView() {
  return (
    <main className={css.page}>
      <PlaceholderScreen title="Select a workspace" route="/workspace-selection" />
    </main>
  )
}
