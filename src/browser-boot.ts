/**
 * The real composition for the browser, in a chunk of its own (src/main.tsx imports it dynamically): the browser
 * services (storage, query cache, API client, session signals) and `composeApp`, which starts the session actor.
 */
import { composeApp, type CompositionEnvironment, type ComposedApp } from "./app-composition.ts"
import { createBrowserServices } from "./services/app-services.ts"

export const bootBrowserApp = (win: Window, env: CompositionEnvironment): ComposedApp =>
  composeApp(createBrowserServices(win), env)
