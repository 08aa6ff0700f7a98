/**
 * Dashboard layout (access §2 "Layouts"), rendering `shellMachine`: a collapsible sidebar (80 px collapsed, 300 px
 * expanded) on desktop (≥ 1024 px), an off-canvas drawer opened from the header below that. The sidebar holds the
 * navigation (Dashboard; Scans with scan_service or read_only) and the user card (email, workspace name, role names);
 * the header holds the back button (account and scan detail pages), the breadcrumbs (except on findings pages) and the
 * user menu. The slots can be replaced (tests of other parts); by default they are the shell's own parts.
 *
 * The view only forwards facts to the machine (route changes, viewport changes, Escape) and renders its snapshot.
 */
import { useEffect, useMemo, type ReactNode } from "react"
import { useActorRef, useSelector } from "@xstate/react"
import { Button as AriaButton } from "react-aria-components"
import { useLocation } from "wouter"
import type { NavigateParams } from "../../machines/auth-effects.ts"
import { selectIsCollapsed, selectIsDrawerOpen, shellImplementations, shellMachine } from "../../machines/shell.machine.ts"
import { useNavigateAction } from "../access/auth-effects-context.tsx"
import { Button } from "../ui/button.tsx"
import { ChevronLeftIcon, ChevronRightIcon, CloseIcon, MenuIcon, ShieldCheckIcon } from "../ui/icons.tsx"
import { desktopMedia } from "../ui/theme.css.ts"
import { PRODUCT_NAME } from "./auth-layout.tsx"
import { HeaderNavigation } from "./breadcrumbs.tsx"
import { ShellActorContext, type ShellActorRef } from "./shell-actor-context.tsx"
import { useShellEffects } from "./shell-effects-context.tsx"
import { SidebarNavigation, SidebarUserCard } from "./sidebar.tsx"
import { UserMenu } from "./user-menu.tsx"
import * as css from "./dashboard-layout.css.ts"

export { SidebarLink } from "./sidebar.tsx"

export interface DashboardLayoutProps {
  readonly children: ReactNode
  readonly navigation?: ReactNode
  readonly headerStart?: ReactNode
  readonly headerEnd?: ReactNode
  /** Bottom of the sidebar (the user card by default). */
  readonly sidebarFooter?: ReactNode
}

const flag = (on: boolean) => (on ? "" : undefined)

/** `(min-width: 1024px)` now; true where the environment cannot tell (no `matchMedia`). */
const matchesDesktop = (): boolean =>
  typeof window === "undefined" || typeof window.matchMedia !== "function" ? true : window.matchMedia(desktopMedia).matches

/** Tells the shell about route changes, viewport changes and Escape while the drawer is open. */
function useShellFacts(shell: ShellActorRef, drawerOpen: boolean) {
  const [location] = useLocation()
  useEffect(() => shell.send({ type: "route.changed", path: location }), [shell, location])

  useEffect(() => {
    if (typeof window === "undefined" || typeof window.matchMedia !== "function") return
    const query = window.matchMedia(desktopMedia)
    const onChange = () => shell.send({ type: "viewport.changed", isDesktop: query.matches })
    query.addEventListener("change", onChange)
    return () => query.removeEventListener("change", onChange)
  }, [shell])

  useEffect(() => {
    if (!drawerOpen) return
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.key === "Escape") shell.send({ type: "drawer.closed" })
    }
    window.addEventListener("keydown", onKeyDown)
    return () => window.removeEventListener("keydown", onKeyDown)
  }, [shell, drawerOpen])
}

export function DashboardLayout({ children, navigation, headerStart, headerEnd, sidebarFooter }: DashboardLayoutProps) {
  const effects = useShellEffects()
  const navigateAction = useNavigateAction()
  const logic = useMemo(
    () => shellMachine.provide(shellImplementations(effects, { navigate: (p: NavigateParams) => navigateAction(undefined, p) })),
    [effects, navigateAction],
  )
  const shell = useActorRef(logic, { input: { isDesktop: matchesDesktop() } })
  const collapsed = useSelector(shell, selectIsCollapsed)
  const drawerOpen = useSelector(shell, selectIsDrawerOpen)
  useShellFacts(shell, drawerOpen)

  return (
    <ShellActorContext value={shell}>
      <div className={css.shell} data-collapsed={flag(collapsed)}>
        <aside
          id="app-sidebar"
          className={css.sidebar}
          aria-label="Sidebar"
          data-collapsed={flag(collapsed)}
          data-mobile-open={flag(drawerOpen)}
        >
          <div className={css.sidebarTop}>
            <span className={css.brand}>
              <span className={css.brandMark}>
                <ShieldCheckIcon size={20} />
              </span>
              <span className={css.collapsibleText}>{PRODUCT_NAME}</span>
            </span>
            <Button
              variant="ghost"
              size="icon"
              className={css.closeMobile}
              aria-label="Close navigation"
              onPress={() => shell.send({ type: "drawer.closed" })}
            >
              <CloseIcon />
            </Button>
          </div>
          <nav
            className={css.nav}
            aria-label="Main"
            // Following any nav link closes the drawer, also when it points at the current page (capture phase:
            // react-aria press handling stops the click from bubbling).
            onClickCapture={(event) => {
              if (event.target instanceof Element && event.target.closest("a") !== null) shell.send({ type: "drawer.closed" })
            }}
          >
            {navigation ?? <SidebarNavigation />}
          </nav>
          <div className={css.sidebarBottom}>
            {sidebarFooter ?? <SidebarUserCard />}
            <AriaButton
              className={css.collapseButton}
              aria-controls="app-sidebar"
              aria-expanded={!collapsed}
              aria-label={collapsed ? "Expand sidebar" : "Collapse sidebar"}
              onPress={() => shell.send({ type: "sidebar.toggled" })}
            >
              {collapsed ? <ChevronRightIcon /> : <ChevronLeftIcon />}
              <span className={css.collapsibleText} aria-hidden="true">
                Collapse
              </span>
            </AriaButton>
          </div>
        </aside>
        {drawerOpen ? (
          <button
            type="button"
            className={css.backdrop}
            aria-label="Close navigation"
            tabIndex={-1}
            onClick={() => shell.send({ type: "drawer.closed" })}
          />
        ) : null}
        <div className={css.main}>
          <header className={css.header}>
            <Button
              variant="ghost"
              size="icon"
              className={css.menuButton}
              aria-label="Open navigation"
              aria-controls="app-sidebar"
              aria-expanded={drawerOpen}
              onPress={() => shell.send({ type: "drawer.opened" })}
            >
              <MenuIcon />
            </Button>
            <div className={css.headerStart}>{headerStart ?? <HeaderNavigation />}</div>
            <div className={css.headerEnd}>{headerEnd ?? <UserMenu />}</div>
          </header>
          <main className={css.content}>{children}</main>
        </div>
      </div>
    </ShellActorContext>
  )
}
