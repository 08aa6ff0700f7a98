/**
 * The app-level actors: one toast queue and one loading overlay for the whole SPA, created once at the root and
 * reachable from any view through hooks. Views select narrowly (`useToastQueue`, `useLoadingOverlayState`) and send
 * events through the small command hooks (`useToasts`, `useLoadingOverlay`).
 *
 * The clock enters as a prop (main.tsx passes the browser clock, tests a `SimulatedClock`), so the 2 s / 4 s toast
 * lifetimes and the 30 s overlay limit are testable without waiting.
 */
import { createContext, useContext, useMemo, type ReactNode } from "react"
import { useActorRef, useSelector } from "@xstate/react"
import type { ActorOptions, ActorRefFrom, AnyActorLogic } from "xstate"
import { loadingOverlayMachine } from "../machines/loading-overlay.machine.ts"
import { toastMachine, type Toast, type ToastKind } from "../machines/toast.machine.ts"

/** xstate's timer interface (`setTimeout` / `clearTimeout`); a `SimulatedClock` in tests. */
export type Clock = NonNullable<ActorOptions<AnyActorLogic>["clock"]>

interface AppActors {
  readonly toast: ActorRefFrom<typeof toastMachine>
  readonly loadingOverlay: ActorRefFrom<typeof loadingOverlayMachine>
}

const AppActorsContext = createContext<AppActors | null>(null)

export interface AppActorsProviderProps {
  readonly children: ReactNode
  /** Timer source for every app-level actor; defaults to the real timers. */
  readonly clock?: Clock
}

export function AppActorsProvider({ children, clock }: AppActorsProviderProps) {
  const options = clock === undefined ? {} : { clock }
  const toast = useActorRef(toastMachine, { ...options, systemId: "toast" })
  const loadingOverlay = useActorRef(loadingOverlayMachine, { ...options, systemId: "loadingOverlay" })
  const actors = useMemo(() => ({ toast, loadingOverlay }), [toast, loadingOverlay])
  return <AppActorsContext value={actors}>{children}</AppActorsContext>
}

const useAppActors = (): AppActors => {
  const actors = useContext(AppActorsContext)
  if (actors === null) throw new Error("App actors are missing: render inside <AppActorsProvider>")
  return actors
}

export interface ToastCommands {
  readonly show: (kind: ToastKind, message: string, durationMs?: number) => void
  readonly success: (message: string, durationMs?: number) => void
  readonly error: (message: string, durationMs?: number) => void
  readonly info: (message: string, durationMs?: number) => void
  readonly warning: (message: string, durationMs?: number) => void
  readonly dismiss: (id: string) => void
}

/** Commands to show and dismiss toasts (stable across renders). */
export function useToasts(): ToastCommands {
  const { toast } = useAppActors()
  return useMemo(() => {
    const show = (kind: ToastKind, message: string, durationMs?: number) =>
      toast.send(durationMs === undefined ? { type: "toast.shown", kind, message } : { type: "toast.shown", kind, message, durationMs })
    return {
      show,
      success: (message, durationMs) => show("success", message, durationMs),
      error: (message, durationMs) => show("error", message, durationMs),
      info: (message, durationMs) => show("info", message, durationMs),
      warning: (message, durationMs) => show("warning", message, durationMs),
      dismiss: (id) => toast.send({ type: "toast.dismissed", id }),
    }
  }, [toast])
}

/** The toasts currently shown, oldest first. */
export function useToastQueue(): ReadonlyArray<Toast> {
  const { toast } = useAppActors()
  return useSelector(toast, (snapshot) => snapshot.context.toasts)
}

export interface LoadingOverlayCommands {
  readonly show: (message: string, progress?: number) => void
  readonly progress: (progress: number, message?: string) => void
  readonly hide: () => void
}

/** Commands for the global loading overlay (stable across renders). */
export function useLoadingOverlay(): LoadingOverlayCommands {
  const { loadingOverlay } = useAppActors()
  return useMemo(
    () => ({
      show: (message, progress) =>
        loadingOverlay.send(progress === undefined ? { type: "overlay.shown", message } : { type: "overlay.shown", message, progress }),
      progress: (progress, message) =>
        loadingOverlay.send(
          message === undefined ? { type: "overlay.progressed", progress } : { type: "overlay.progressed", progress, message },
        ),
      hide: () => loadingOverlay.send({ type: "overlay.hidden" }),
    }),
    [loadingOverlay],
  )
}

export interface LoadingOverlayState {
  readonly isVisible: boolean
  readonly message: string
  readonly progress: number | undefined
}

const overlayStateEqual = (a: LoadingOverlayState, b: LoadingOverlayState): boolean =>
  a.isVisible === b.isVisible && a.message === b.message && a.progress === b.progress

/** What the overlay shows right now. */
export function useLoadingOverlayState(): LoadingOverlayState {
  const { loadingOverlay } = useAppActors()
  return useSelector(
    loadingOverlay,
    (snapshot) => ({
      isVisible: snapshot.matches("visible"),
      message: snapshot.context.message,
      progress: snapshot.context.progress,
    }),
    overlayStateEqual,
  )
}
