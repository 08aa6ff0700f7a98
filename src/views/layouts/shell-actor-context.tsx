/**
 * The dashboard shell's actor (one per mounted shell), reachable from its parts (sidebar, user menu, header) so each
 * selects only what it shows. Created by `DashboardLayout`.
 */
import { createContext, useContext } from "react"
import type { ActorRefFrom } from "xstate"
import type { shellMachine } from "../../machines/shell.machine.ts"

export type ShellActorRef = ActorRefFrom<typeof shellMachine>

export const ShellActorContext = createContext<ShellActorRef | null>(null)

export function useShellActor(): ShellActorRef {
  const actor = useContext(ShellActorContext)
  if (actor === null) throw new Error("The shell's parts render inside <DashboardLayout>")
  return actor
}
