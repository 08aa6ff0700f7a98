/**
 * Composition root of the SPA: global styles and theme, the browser services (storage, query cache, API client, session
 * signals), the session actor and every screen family's effects (src/app-composition.ts), the real clock, and the React
 * root. The only module that wires services into views (views never import src/services).
 */
import { StrictMode } from "react"
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

createRoot(container).render(
  <StrictMode>
    <App clock={browserClock} composition={composition} />
  </StrictMode>,
)
