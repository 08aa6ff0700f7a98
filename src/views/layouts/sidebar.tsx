/**
 * The sidebar's parts (access §2 "Layouts"): the navigation items — Dashboard always, Scans only when the user may open
 * the scans pages (scan_service or read_only: the shell machine's `navigation.requested` guard) — and the user card
 * (email, workspace name, role names).
 */
import type { ComponentType } from "react"
import { useSelector } from "@xstate/react"
import { Button as AriaButton, Link as AriaLink } from "react-aria-components"
import { useLocation } from "wouter"
import { roleNamesShown, type ShellData } from "../../machines/shell.machine.ts"
import { ClipboardCheckIcon, DashboardIcon, ScanIcon, type IconProps } from "../ui/icons.tsx"
import { useShellActor } from "./shell-actor-context.tsx"
import * as layoutCss from "./dashboard-layout.css.ts"
import * as css from "./shell.css.ts"

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
    <AriaLink href={href} className={layoutCss.navLink} {...(active ? { "aria-current": "page" as const } : {})}>
      <Icon size={20} />
      <span className={layoutCss.collapsibleText}>{label}</span>
    </AriaLink>
  )
}

export const SCANS_HREF = "/dashboard/scans"
export const COMPLIANCE_HREF = "/dashboard/compliance"

/** Dashboard, and Scans when the permission rule lets the user open it. */
export function SidebarNavigation() {
  const shell = useShellActor()
  const canSeeScans = useSelector(shell, (s) => s.can({ type: "navigation.requested", to: SCANS_HREF }))
  const canSeeCompliance = useSelector(shell, (s) => s.can({ type: "navigation.requested", to: COMPLIANCE_HREF }))
  return (
    <>
      <SidebarLink href="/dashboard" label="Dashboard" icon={DashboardIcon} />
      {canSeeScans ? <SidebarLink href={SCANS_HREF} label="Scans" icon={ScanIcon} matchPrefix /> : null}
      {canSeeCompliance ? <SidebarLink href={COMPLIANCE_HREF} label="Compliance" icon={ClipboardCheckIcon} matchPrefix /> : null}
    </>
  )
}

/** First letter of the name, else of the email. */
export const initialOf = (data: Pick<ShellData, "firstName" | "email"> | null): string =>
  (data?.firstName.trim() || data?.email || "?").charAt(0).toUpperCase()

/** The sidebar user card: email, workspace name and role names; a retry when the facts could not be loaded. */
export function SidebarUserCard() {
  const shell = useShellActor()
  const data = useSelector(shell, (s) => s.context.data)
  const failed = useSelector(shell, (s) => s.matches({ data: "failed" }) && s.context.data === null)
  if (data === null) {
    return (
      <div className={css.userCard} aria-busy={failed ? undefined : true}>
        <span className={css.avatar} aria-hidden="true">
          ?
        </span>
        <div className={css.userCardText} style={{ flex: 1 }}>
          {failed ? (
            <>
              <span className={css.userCardMessage}>Your account details could not be loaded.</span>
              <AriaButton className={css.cardRetry} onPress={() => shell.send({ type: "shell.retried" })}>
                Try again
              </AriaButton>
            </>
          ) : (
            <>
              <span className={css.skeletonLine} style={{ width: "80%" }} />
              <span className={css.skeletonLine} style={{ width: "50%" }} />
            </>
          )}
        </div>
      </div>
    )
  }
  const roles = roleNamesShown(data)
  return (
    <section className={css.userCard} aria-label="Signed in as">
      <span className={css.avatar} aria-hidden="true">
        {initialOf(data)}
      </span>
      <div className={css.userCardText}>
        <span className={css.userEmail} title={data.email}>
          {data.email}
        </span>
        {data.workspaceName === null ? null : (
          <span className={css.userWorkspace} title={data.workspaceName}>
            {data.workspaceName}
          </span>
        )}
        {roles.length === 0 ? null : (
          <ul className={css.roleList} aria-label="Roles">
            {roles.map((role) => (
              <li key={role} className={css.roleChip}>
                {role}
              </li>
            ))}
          </ul>
        )}
      </div>
    </section>
  )
}
