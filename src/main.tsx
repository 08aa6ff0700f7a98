/**
 * Composition root of the SPA: global styles and theme, the real clock for the app-level actors, and the React root.
 * The only module that wires services into views (views never import src/services).
 */
import { StrictMode } from "react"
import { createRoot } from "react-dom/client"
import "./views/ui/global.css.ts"
import { browserClock } from "./services/clock.ts"
import { App } from "./views/app.tsx"

const container = document.getElementById("root")
if (container === null) throw new Error("index.html has no #root element")

createRoot(container).render(
  <StrictMode>
    <App clock={browserClock} />
  </StrictMode>,
)
