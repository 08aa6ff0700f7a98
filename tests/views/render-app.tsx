/** Renders the whole SPA at a path, on an in-memory location, with a session status and a simulated clock. */
import { render } from "@testing-library/react"
import type { ReactNode } from "react"
import { memoryLocation } from "wouter/memory-location"
import { SimulatedClock } from "xstate"
import { App } from "../../src/views/app.tsx"
import { SessionStatusContext, type SessionStatus } from "../../src/views/session-status.tsx"
import { preloadScreens } from "../../src/views/routes.tsx"

// Every screen but sign-in loads lazily; fetched up front, rendering a route is synchronous as in a warm browser.
await preloadScreens()

export interface RenderAppOptions {
  readonly status?: SessionStatus
  readonly children?: ReactNode
}

export const renderApp = (path: string, { status = "unauthenticated", children }: RenderAppOptions = {}) => {
  const location = memoryLocation({ path, record: true })
  const clock = new SimulatedClock()
  const result = render(
    <SessionStatusContext value={status}>
      <App clock={clock} location={location}>
        {children}
      </App>
    </SessionStatusContext>,
  )
  /** Current path (without the query) of the in-memory location. */
  const currentPath = () => (location.history.at(-1) ?? "").split("?")[0]
  return { ...result, location, clock, currentPath }
}
