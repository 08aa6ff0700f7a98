/**
 * Dashboard layout skeleton (access §2 "Layouts"): a collapsible sidebar (80 px collapsed, 300 px expanded) on
 * desktop (≥ 1024 px); below that it becomes an off-canvas drawer opened from the header. Header and content are
 * slots: breadcrumbs / back button (`headerStart`), user menu (`headerEnd`), navigation items (`navigation`).
 */
import { useEffect, useState, type ComponentType, type ReactNode } from "react"
import { Button as AriaButton, Link as AriaLink } from "react-aria-components"
import { useLocation } from "wouter"
import { Button } from "../ui/button.tsx"
import { ChevronLeftIcon, ChevronRightIcon, CloseIcon, MenuIcon, ShieldCheckIcon, type IconProps } from "../ui/icons.tsx"
import { PRODUCT_NAME } from "./auth-layout.tsx"
import * as css from "./dashboard-layout.css.ts"

export interface DashboardLayoutProps {
  readonly children: ReactNode
  readonly navigation?: ReactNode
  readonly headerStart?: ReactNode
  readonly headerEnd?: ReactNode
  /** Bottom of the sidebar (the user card comes here). */
  readonly sidebarFooter?: ReactNode
}

const flag = (on: boolean) => (on ? "" : undefined)

export function DashboardLayout({ children, navigation, headerStart, headerEnd, sidebarFooter }: DashboardLayoutProps) {
  const [collapsed, setCollapsed] = useState(false)
  const [mobileOpen, setMobileOpen] = useState(false)
  const [location] = useLocation()

  // The drawer closes whenever the route changes (a nav item was followed).
  useEffect(() => setMobileOpen(false), [location])

  useEffect(() => {
    if (!mobileOpen) return
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.key === "Escape") setMobileOpen(false)
    }
    window.addEventListener("keydown", onKeyDown)
    return () => window.removeEventListener("keydown", onKeyDown)
  }, [mobileOpen])

  return (
    <div className={css.shell} data-collapsed={flag(collapsed)}>
      <aside
        id="app-sidebar"
        className={css.sidebar}
        aria-label="Sidebar"
        data-collapsed={flag(collapsed)}
        data-mobile-open={flag(mobileOpen)}
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
            onPress={() => setMobileOpen(false)}
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
            if (event.target instanceof Element && event.target.closest("a") !== null) setMobileOpen(false)
          }}
        >
          {navigation}
        </nav>
        <div className={css.sidebarBottom}>
          {sidebarFooter}
          <AriaButton
            className={css.collapseButton}
            aria-controls="app-sidebar"
            aria-expanded={!collapsed}
            aria-label={collapsed ? "Expand sidebar" : "Collapse sidebar"}
            onPress={() => setCollapsed((value) => !value)}
          >
            {collapsed ? <ChevronRightIcon /> : <ChevronLeftIcon />}
            <span className={css.collapsibleText} aria-hidden="true">
              Collapse
            </span>
          </AriaButton>
        </div>
      </aside>
      {mobileOpen ? (
        <button type="button" className={css.backdrop} aria-label="Close navigation" tabIndex={-1} onClick={() => setMobileOpen(false)} />
      ) : null}
      <div className={css.main}>
        <header className={css.header}>
          <Button
            variant="ghost"
            size="icon"
            className={css.menuButton}
            aria-label="Open navigation"
            aria-controls="app-sidebar"
            aria-expanded={mobileOpen}
            onPress={() => setMobileOpen(true)}
          >
            <MenuIcon />
          </Button>
          <div className={css.headerStart}>{headerStart}</div>
          <div className={css.headerEnd}>{headerEnd}</div>
        </header>
        <main className={css.content}>{children}</main>
      </div>
    </div>
  )
}

export interface SidebarLinkProps {
  readonly href: string
  readonly label: string
  readonly icon: ComponentType<IconProps>
  /** Active also on nested paths (e.g. /dashboard/scans/12 for Scans). */
  readonly matchPrefix?: boolean
}

export function SidebarLink({ href, label, icon: Icon, matchPrefix = false }: SidebarLinkProps) {
  const [location] = useLocation()
  const active = matchPrefix ? location === href || location.startsWith(`${href}/`) : location === href
  return (
    <AriaLink href={href} className={css.navLink} {...(active ? { "aria-current": "page" as const } : {})}>
      <Icon size={20} />
      <span className={css.collapsibleText}>{label}</span>
    </AriaLink>
  )
}
