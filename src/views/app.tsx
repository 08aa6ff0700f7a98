/**
 * The SPA root below the composition root (main.tsx): app-level actors, the wouter router, react-aria's router
 * bridge (so react-aria links and menu items navigate with wouter), the routes, the toast region and the loading
 * overlay. Tests render it with a memory location and a SimulatedClock.
 */
import type { ReactNode } from "react"
import { RouterProvider } from "react-aria-components"
import { Router, useLocation, type BaseLocationHook, type BaseSearchHook } from "wouter"
import { AppActorsProvider, type Clock } from "./app-actors.tsx"
import { AppRoutes } from "./routes.tsx"
import { LoadingOverlay } from "./ui/loading-overlay.tsx"
import { ToastRegion } from "./ui/toast-region.tsx"

/** Lets react-aria `Link`/`MenuItem` hrefs navigate client-side through wouter. */
function AriaRouterBridge({ children }: { readonly children: ReactNode }) {
  const [, navigate] = useLocation()
  return (
    <RouterProvider navigate={(path, options?: { replace?: boolean; state?: unknown }) => navigate(path, options ?? {})}>
      {children}
    </RouterProvider>
  )
}

export interface AppProps {
  readonly clock?: Clock
  /** Location hooks for tests (`memoryLocation()` from wouter/memory-location); the browser location otherwise. */
  readonly location?: { readonly hook: BaseLocationHook; readonly searchHook?: BaseSearchHook }
  /** Replaces the route tree (tests of the shell parts). */
  readonly children?: ReactNode
}

export function App({ clock, location, children }: AppProps) {
  const routerProps =
    location === undefined
      ? {}
      : { hook: location.hook, ...(location.searchHook === undefined ? {} : { searchHook: location.searchHook }) }
  return (
    <AppActorsProvider {...(clock === undefined ? {} : { clock })}>
      <Router {...routerProps}>
        <AriaRouterBridge>
          {children ?? <AppRoutes />}
          <ToastRegion />
          <LoadingOverlay />
        </AriaRouterBridge>
      </Router>
    </AppActorsProvider>
  )
}
