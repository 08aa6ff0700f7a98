/**
 * The header's start: the back button (account and scan detail pages) and the breadcrumb bar (hidden with a single
 * crumb and on findings pages). Both are pure functions of the path (src/machines/breadcrumbs.ts); this file only
 * renders them. The back button asks the shell to navigate.
 */
import { useSelector } from "@xstate/react"
import { Breadcrumb, Breadcrumbs as AriaBreadcrumbs, Link as AriaLink } from "react-aria-components"
import { useLocation } from "wouter"
import { backTargetFor, visibleBreadcrumbs, type Crumb } from "../../machines/breadcrumbs.ts"
import { Button } from "../ui/button.tsx"
import { ArrowLeftIcon, ChevronRightIcon } from "../ui/icons.tsx"
import { useShellActor } from "./shell-actor-context.tsx"
import * as css from "./shell.css.ts"

export function BreadcrumbBar({ crumbs }: { readonly crumbs: ReadonlyArray<Crumb> }) {
  if (crumbs.length === 0) return null
  return (
    <nav aria-label="Breadcrumbs" style={{ minWidth: 0 }}>
      <AriaBreadcrumbs className={css.breadcrumbs}>
        {crumbs.map((crumb, index) => (
          <Breadcrumb key={`${index}-${crumb.label}`} className={css.crumb}>
            {crumb.href === undefined ? (
              <AriaLink className={`${css.crumbLink} ${css.crumbCurrent}`}>{crumb.label}</AriaLink>
            ) : (
              <>
                <AriaLink href={crumb.href} className={css.crumbLink}>
                  {crumb.label}
                </AriaLink>
                <span className={css.crumbSeparator} aria-hidden="true">
                  <ChevronRightIcon size={14} />
                </span>
              </>
            )}
          </Breadcrumb>
        ))}
      </AriaBreadcrumbs>
    </nav>
  )
}

export function BackButton({ to }: { readonly to: string }) {
  const shell = useShellActor()
  const canGo = useSelector(shell, (s) => s.can({ type: "navigation.requested", to }))
  return (
    <Button
      variant="ghost"
      size="icon"
      className={css.backButton}
      aria-label="Back"
      isDisabled={!canGo}
      onPress={() => shell.send({ type: "navigation.requested", to })}
    >
      <ArrowLeftIcon />
    </Button>
  )
}

/** Back button (when the page has one) and breadcrumbs for the current location. */
export function HeaderNavigation() {
  const [location] = useLocation()
  const back = backTargetFor(location)
  return (
    <>
      {back === undefined ? null : <BackButton to={back} />}
      <BreadcrumbBar crumbs={visibleBreadcrumbs(location)} />
    </>
  )
}
