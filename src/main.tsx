/**
 * Composition root of the SPA: global styles and theme, the real clock and the React root, at once; the browser
 * services (storage, query cache, API client, session signals), the session actor and every screen family's effects
 * (src/browser-boot.ts → src/app-composition.ts) in a chunk loaded right after, so that /login shows before them
 * (`deferComposition`). The only module that wires services into views (views never import src/services).
 */
import { createRoot } from "react-dom/client"
import { navigate } from "wouter/use-browser-location"
import "./views/ui/global.css.ts"
import { deferComposition } from "./deferred-composition.ts"
import { browserClock } from "./services/clock.ts"
import { App } from "./views/app.tsx"
import { keepAnnouncementsPlain } from "./views/ui/live-announcer.ts"

const container = document.getElementById("root")
if (container === null) throw new Error("index.html has no #root element")

const ready = import("./browser-boot.ts").then(({ bootBrowserApp }) =>
  bootBrowserApp(window, {
    navigate: (to, { replace, state }) => navigate(to, { ...(replace === undefined ? {} : { replace }), state: state ?? null }),
    origin: window.location.origin,
  }),
)
ready.catch((error: unknown) => {
  // The rest of the application could not be downloaded (offline, or a deploy replaced it): say so and offer a reload.
  console.error(error)
  const notice = document.createElement("p")
  notice.setAttribute("role", "alert")
  notice.textContent = "The application could not be loaded. Check your connection and reload the page."
  document.body.prepend(notice)
})

let local: Storage | null = null
try {
  local = window.localStorage
} catch {
  local = null
}

// No <StrictMode>: in development builds it unmounts and remounts every component once, and @xstate/react then
// restarts each screen's actor from its persisted snapshot. A request the first mount started (verify-email,
// reset-token check, invitation check…) is aborted, and its AbortError still reaches the restarted machine as the
// invoked actor's error, so one-time links fail in development. Production builds never double-mount, so the app
// behaves the same in both builds without it.
// Pending buttons' announcements become plain text as they are made (no stale role="img" left in the live region).
keepAnnouncementsPlain(document)

createRoot(container).render(<App clock={browserClock} composition={deferComposition(ready, local)} />)
