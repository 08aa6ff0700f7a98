/**
 * A screen loaded on first visit (issue 17: the first load carries only what /login shows). Unlike `React.lazy`, once
 * the module has arrived the screen renders synchronously on every later mount, and `preload()` fetches it ahead of a
 * visit (tests preload every screen so that rendering a route is synchronous, as it is in a warm browser).
 * While the module loads, the nearest `<Suspense>` shows its fallback.
 */
import { use, type ComponentType } from "react"

export function lazyScreen<P extends object = Record<string, never>>(
  load: () => Promise<ComponentType<P>>,
): ComponentType<P> & { readonly preload: () => Promise<void> } {
  let loaded: ComponentType<P> | undefined
  let pending: Promise<ComponentType<P>> | undefined
  const fetchScreen = () =>
    (pending ??= load().then(
      (screen) => (loaded = screen),
      (error: unknown) => {
        // A failed download (network, deploy in between) may be retried on the next visit.
        pending = undefined
        throw error
      },
    ))
  function Screen(props: P) {
    const Loaded = loaded ?? use(fetchScreen())
    return <Loaded {...props} />
  }
  return Object.assign(Screen, { preload: () => fetchScreen().then(() => undefined) })
}
