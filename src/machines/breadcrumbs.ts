/**
 * Breadcrumbs and the header's back button of the dashboard shell (access spec §2 "Layouts": "Breadcrumbs: start with
 * Dashboard; built from URL path segments; hidden when only one crumb exists; the last crumb is plain text. A numeric
 * or colon-prefixed segment after scans gives 'Scan #{id}'; after accounts it gives 'Accounts' (linking to the
 * dashboard with section=accounts) then 'Account #{id}'; after findings it gives 'Finding #{id}'. Other segments are
 * capitalised; the dashboard and accounts segments are skipped." and "The header has a back button on account and scan
 * detail pages and a breadcrumb bar except on findings pages.").
 *
 * Pure functions of the path name: no router, no state. Invariants (property-tested in tests/machines/breadcrumbs.test.ts):
 * the first crumb is always Dashboard → /dashboard; only the last crumb lacks a link; every other crumb links.
 */
import { accountTitle, findingTitle, scanTitle } from "../contracts/messages.ts"
import { organizationPath } from "./organization-effects.ts"

export interface Crumb {
  readonly label: string
  /** Absent on the last crumb (plain text). */
  readonly href?: string
}

export const DASHBOARD_PATH = "/dashboard"
/** Where the 'Accounts' crumb (and the account page's back button) lead: the dashboard's accounts section. */
export const ACCOUNTS_SECTION_HREF = "/dashboard?section=accounts"
export const SCANS_PATH = "/dashboard/scans"

const DASHBOARD_CRUMB_LABEL = "Dashboard"

/** Splits a path name ("/dashboard/scans/12?x#y") into its non-empty, decoded segments. */
export const pathSegments = (pathname: string): ReadonlyArray<string> =>
  pathname
    .replace(/[?#].*$/, "")
    .split("/")
    .filter((segment) => segment !== "")
    .map((segment) => {
      try {
        return decodeURIComponent(segment)
      } catch {
        return segment
      }
    })

/** Access §2: "a numeric or colon-prefixed segment". */
export const isIdSegment = (segment: string): boolean => /^\d+$/.test(segment) || /^:./.test(segment)

const idOf = (segment: string): string => (segment.startsWith(":") ? segment.slice(1) : segment)

/** "scans" → "Scans" (first letter upper-cased, the rest kept). */
export const capitalise = (segment: string): string =>
  segment === "" ? segment : segment.charAt(0).toLocaleUpperCase("en-US") + segment.slice(1)

/**
 * Beyond the spec: the settings pages (/dashboard/settings/<page>) have no settings index, so the "settings" segment
 * is skipped like "dashboard", and each page is named as its menu entry names it.
 */
const SETTINGS_SEGMENT = "settings"
const SETTINGS_PAGE_LABELS: Readonly<Record<string, string>> = {
  "account-groups": "Account groups",
  "api-keys": "API keys",
  integrations: "Integrations",
  sso: "Single sign-on",
  webhooks: "Webhooks",
}

const REMEDIATIONS_SEGMENT = "remediations"

/** The crumbs of a path, Dashboard first; the last one has no link. */
export const breadcrumbsFor = (pathname: string): ReadonlyArray<Crumb> => {
  const segments = pathSegments(pathname)
  const crumbs: Array<{ label: string; href: string }> = [{ label: DASHBOARD_CRUMB_LABEL, href: DASHBOARD_PATH }]
  let href = ""
  segments.forEach((segment, index) => {
    href += `/${encodeURIComponent(segment)}`
    const previous = index === 0 ? undefined : segments[index - 1]
    if (segment === "dashboard" || segment === "accounts") return
    if (previous === "dashboard" && segment === SETTINGS_SEGMENT) return
    // Beyond the spec (issue 32 part 4): /dashboard/remediations has no page of its own; its batches are named.
    if (previous === "dashboard" && segment === REMEDIATIONS_SEGMENT) return
    if (previous === REMEDIATIONS_SEGMENT && segment === "batches") {
      crumbs.push({ label: "Remediation batches", href })
      return
    }
    const settingsLabel = index >= 2 && segments[index - 2] === "dashboard" && previous === SETTINGS_SEGMENT ? SETTINGS_PAGE_LABELS[segment] : undefined
    if (settingsLabel !== undefined) {
      crumbs.push({ label: settingsLabel, href })
      return
    }
    if (isIdSegment(segment) && previous === "scans") {
      crumbs.push({ label: scanTitle(idOf(segment)), href })
    } else if (isIdSegment(segment) && previous === "accounts") {
      crumbs.push({ label: "Accounts", href: ACCOUNTS_SECTION_HREF }, { label: accountTitle(idOf(segment)), href })
    } else if (isIdSegment(segment) && previous === "findings") {
      crumbs.push({ label: findingTitle(idOf(segment)), href })
    } else if (isIdSegment(segment) && previous === "batches" && segments[index - 2] === REMEDIATIONS_SEGMENT) {
      crumbs.push({ label: `Batch #${idOf(segment)}`, href })
    } else {
      crumbs.push({ label: capitalise(segment), href })
    }
  })
  return crumbs.map((crumb, index) => (index === crumbs.length - 1 ? { label: crumb.label } : crumb))
}

/** Access §2: the breadcrumb bar is hidden on findings pages. */
export const isFindingsPage = (pathname: string): boolean => pathSegments(pathname).includes("findings")

/** Compliance pages below the overview draw their own trail (framework and requirement names, not path segments). */
export const isComplianceDetailPage = (pathname: string): boolean => {
  const segments = pathSegments(pathname)
  return segments[0] === "dashboard" && segments[1] === "compliance" && segments.length > 2
}

/**
 * Beyond the spec: the organisation pages (/dashboard/organizations/{id}/fleet, …/findings, and the organisation page
 * itself, /dashboard/accounts/{id}/organization) draw their own trail, naming the organisation account by its name
 * once read (`organizationCrumbs`, `organizationPageCrumbs`), not by its id.
 */
export const isOrganizationPage = (pathname: string): boolean => {
  const segments = pathSegments(pathname)
  if (segments[0] !== "dashboard") return false
  if (segments[1] === "organizations") return segments.length > 2
  return segments[1] === "accounts" && segments.length === 4 && isIdSegment(segments[2]!) && segments[3] === "organization"
}

/**
 * The organisation page's trail: Dashboard › Accounts › the organisation account (its name; 'Account #{id}' until it
 * is read) linking to its account page › Organization (plain text).
 */
export const organizationPageCrumbs = (organizationId: number | string, name: string | null): ReadonlyArray<Crumb> => [
  { label: DASHBOARD_CRUMB_LABEL, href: DASHBOARD_PATH },
  { label: "Accounts", href: ACCOUNTS_SECTION_HREF },
  { label: name ?? accountTitle(organizationId), href: `/dashboard/accounts/${encodeURIComponent(String(organizationId))}` },
  { label: "Organization" },
]

/**
 * The trail of an organisation page: Dashboard › Accounts › the organisation account (its name; 'Account #{id}' until
 * it is read) linking to its organisation page › the page. The last crumb is plain text.
 */
export const organizationCrumbs = (organizationId: number | string, name: string | null, page: string): ReadonlyArray<Crumb> => [
  { label: DASHBOARD_CRUMB_LABEL, href: DASHBOARD_PATH },
  { label: "Accounts", href: ACCOUNTS_SECTION_HREF },
  { label: name ?? accountTitle(organizationId), href: organizationPath(organizationId) },
  { label: page },
]

/** The crumbs to show, or none: hidden with a single crumb, on findings pages, on compliance detail pages and on organisation pages. */
export const visibleBreadcrumbs = (pathname: string): ReadonlyArray<Crumb> => {
  if (isFindingsPage(pathname) || isComplianceDetailPage(pathname) || isOrganizationPage(pathname)) return []
  const crumbs = breadcrumbsFor(pathname)
  return crumbs.length > 1 ? crumbs : []
}

/**
 * Access §2: a back button on account and scan detail pages (/dashboard/accounts/{id}, /dashboard/scans/{id}).
 * Returns where it leads (the list the page belongs to), or undefined when the page has no back button.
 */
export const backTargetFor = (pathname: string): string | undefined => {
  const segments = pathSegments(pathname)
  if (segments.length !== 3 || segments[0] !== "dashboard" || !isIdSegment(segments[2] ?? "")) return undefined
  if (segments[1] === "accounts") return ACCOUNTS_SECTION_HREF
  if (segments[1] === "scans") return SCANS_PATH
  return undefined
}
