/**
 * Composition root of the SPA: global styles and theme, the browser services (storage, query cache, API client, session
 * signals), the session actor and every screen family's effects (src/app-composition.ts), the real clock, and the React
 * root. The only module that wires services into views (views never import src/services).
 */
import { createRoot } from "react-dom/client"
import { navigate } from "wouter/use-browser-location"
import "./views/ui/global.css.ts"
import { composeApp } from "./app-composition.ts"
import { createBrowserServices } from "./services/app-services.ts"
import { browserClock } from "./services/clock.ts"
import { App } from "./views/app.tsx"

const container = document.getElementById("root")
if (container === null) throw new Error("index.html has no #root element")

const services = createBrowserServices(window)
const composition = composeApp(services, {
  navigate: (to, { replace, state }) => navigate(to, { ...(replace === undefined ? {} : { replace }), state: state ?? null }),
  origin: window.location.origin,
})

// No <StrictMode>: in development builds it unmounts and remounts every component once, and @xstate/react then
// restarts each screen's actor from its persisted snapshot. A request the first mount started (verify-email,
// reset-token check, invitation check…) is aborted, and its AbortError still reaches the restarted machine as the
// invoked actor's error, so one-time links fail in development. Production builds never double-mount, so the app
// behaves the same in both builds without it.
createRoot(container).render(<App clock={browserClock} composition={composition} />)
