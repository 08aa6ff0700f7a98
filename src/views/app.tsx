/**
 * The SPA root below the composition root (main.tsx): app-level actors, the wouter router, react-aria's router
 * bridge (so react-aria links and menu items navigate with wouter), the composition's providers (session, every
 * screen family's effects, the dashboard gates), the routes, the toast region and the loading overlay.
 * Tests render it with a memory location and a SimulatedClock, with or without a composition.
 */
import type { ReactNode } from "react"
import { RouterProvider } from "react-aria-components"
import { Router, useLocation, type BaseLocationHook, type BaseSearchHook } from "wouter"
import { AppActorsProvider, type Clock } from "./app-actors.tsx"
import { CompositionProvider, type CompositionSource } from "./composition.tsx"
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
  /** The session, effects and gates built from the services (main.tsx); absent in tests of single screens. */
  readonly composition?: CompositionSource
}

export function App({ clock, location, children, composition }: AppProps) {
  const routerProps =
    location === undefined
      ? {}
      : { hook: location.hook, ...(location.searchHook === undefined ? {} : { searchHook: location.searchHook }) }
  return (
    <AppActorsProvider {...(clock === undefined ? {} : { clock })}>
      <Router {...routerProps}>
        <AriaRouterBridge>
          {composition === undefined ? (
            (children ?? <AppRoutes />)
          ) : (
            <CompositionProvider composition={composition} {...(clock === undefined ? {} : { clock })}>
              {children ?? <AppRoutes />}
            </CompositionProvider>
          )}
          <ToastRegion />
          <LoadingOverlay />
        </AriaRouterBridge>
      </Router>
    </AppActorsProvider>
  )
}
