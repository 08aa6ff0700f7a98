/** Breadcrumb and back-button rules of access §2 "Layouts": examples from the route table, then properties. */
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import {
  backTargetFor,
  breadcrumbsFor,
  capitalise,
  isFindingsPage,
  isIdSegment,
  isOrganizationPage,
  organizationCrumbs,
  organizationPageCrumbs,
  pathSegments,
  visibleBreadcrumbs,
} from "../../src/machines/breadcrumbs.ts"

describe("breadcrumbs: organisation pages name the organisation account", () => {
  it("the shell's bar is hidden on /dashboard/organizations/{id}/… (the page draws its own trail)", () => {
    expect(isOrganizationPage("/dashboard/organizations/7/fleet")).toBe(true)
    expect(visibleBreadcrumbs("/dashboard/organizations/7/fleet")).toEqual([])
    expect(visibleBreadcrumbs("/dashboard/organizations/7/findings")).toEqual([])
    expect(isOrganizationPage("/dashboard/accounts/7/organization")).toBe(true)
    expect(visibleBreadcrumbs("/dashboard/accounts/7/organization")).toEqual([])
    // Other account pages keep the shell's trail.
    expect(isOrganizationPage("/dashboard/accounts/7")).toBe(false)
    expect(isOrganizationPage("/dashboard/accounts/7/organization/x")).toBe(false)
    expect(visibleBreadcrumbs("/dashboard/accounts/7").map((c) => c.label)).toEqual(["Dashboard", "Accounts", "Account #7"])
  })

  it("the organisation page's trail names the organisation, linking to its account page", () => {
    expect(organizationPageCrumbs(7, "Acme root")).toEqual([
      { label: "Dashboard", href: "/dashboard" },
      { label: "Accounts", href: "/dashboard?section=accounts" },
      { label: "Acme root", href: "/dashboard/accounts/7" },
      { label: "Organization" },
    ])
    expect(organizationPageCrumbs(7, null).map((c) => c.label)).toEqual(["Dashboard", "Accounts", "Account #7", "Organization"])
  })

  it("the trail names the organisation by its name, linking to its organisation page; 'Account #{id}' until the name is read", () => {
    expect(organizationCrumbs(7, "Acme root", "Fleet")).toEqual([
      { label: "Dashboard", href: "/dashboard" },
      { label: "Accounts", href: "/dashboard?section=accounts" },
      { label: "Acme root", href: "/dashboard/accounts/7/organization" },
      { label: "Fleet" },
    ])
    expect(organizationCrumbs(7, null, "Fleet").map((c) => c.label)).toEqual(["Dashboard", "Accounts", "Account #7", "Fleet"])
  })
})

describe("breadcrumbs: the spec's routes", () => {
  it.each([
    ["/dashboard", [{ label: "Dashboard" }]],
    ["/dashboard/profile", [{ label: "Dashboard", href: "/dashboard" }, { label: "Profile" }]],
    ["/dashboard/users", [{ label: "Dashboard", href: "/dashboard" }, { label: "Users" }]],
    ["/dashboard/scans", [{ label: "Dashboard", href: "/dashboard" }, { label: "Scans" }]],
    [
      "/dashboard/scans/12",
      [{ label: "Dashboard", href: "/dashboard" }, { label: "Scans", href: "/dashboard/scans" }, { label: "Scan #12" }],
    ],
    [
      "/dashboard/accounts/7",
      [
        { label: "Dashboard", href: "/dashboard" },
        { label: "Accounts", href: "/dashboard?section=accounts" },
        { label: "Account #7" },
      ],
    ],
    [
      "/dashboard/scans/12/findings/99",
      [
        { label: "Dashboard", href: "/dashboard" },
        { label: "Scans", href: "/dashboard/scans" },
        { label: "Scan #12", href: "/dashboard/scans/12" },
        { label: "Findings", href: "/dashboard/scans/12/findings" },
        { label: "Finding #99" },
      ],
    ],
    ["/dashboard/scans/:scanId", [{ label: "Dashboard", href: "/dashboard" }, { label: "Scans", href: "/dashboard/scans" }, { label: "Scan #scanId" }]],
    ["/dashboard/accounts", [{ label: "Dashboard" }]],
    ["/dashboard/scans/12?tab=s3#top", [{ label: "Dashboard", href: "/dashboard" }, { label: "Scans", href: "/dashboard/scans" }, { label: "Scan #12" }]],
  ])("%s", (path, crumbs) => {
    expect(breadcrumbsFor(path)).toEqual(crumbs)
  })

  it("is hidden with one crumb and on findings pages", () => {
    expect(visibleBreadcrumbs("/dashboard")).toEqual([])
    expect(visibleBreadcrumbs("/dashboard/accounts")).toEqual([])
    expect(visibleBreadcrumbs("/dashboard/scans/12/findings")).toEqual([])
    expect(visibleBreadcrumbs("/dashboard/scans/12/findings/99")).toEqual([])
    expect(visibleBreadcrumbs("/dashboard/scans/12")).toHaveLength(3)
  })

  it("names the settings pages as their menu entries, without a crumb for the missing settings index", () => {
    expect(breadcrumbsFor("/dashboard/settings/api-keys")).toEqual([{ label: "Dashboard", href: "/dashboard" }, { label: "API keys" }])
    expect(breadcrumbsFor("/dashboard/settings/sso")).toEqual([{ label: "Dashboard", href: "/dashboard" }, { label: "Single sign-on" }])
    expect(breadcrumbsFor("/dashboard/settings/account-groups").map((c) => c.label)).toEqual(["Dashboard", "Account groups"])
    // Bulk remediation (issue 32 part 4): no crumb for the missing /dashboard/remediations page.
    expect(breadcrumbsFor("/dashboard/remediations/batches/5")).toEqual([
      { label: "Dashboard", href: "/dashboard" },
      { label: "Remediation batches", href: "/dashboard/remediations/batches" },
      { label: "Batch #5" },
    ])
  })

  it("has a back button on account and scan detail pages only", () => {
    expect(backTargetFor("/dashboard/accounts/7")).toBe("/dashboard?section=accounts")
    expect(backTargetFor("/dashboard/scans/12")).toBe("/dashboard/scans")
    for (const path of ["/dashboard", "/dashboard/scans", "/dashboard/profile", "/dashboard/users", "/dashboard/scans/12/findings", "/dashboard/scans/12/findings/3", "/dashboard/users/4"]) {
      expect([path, backTargetFor(path)]).toEqual([path, undefined])
    }
  })
})

/** The settings pages' names (beyond the spec: /dashboard/settings/<page>, the "settings" segment skipped). */
const SETTINGS_LABELS: Record<string, string> = {
  "account-groups": "Account groups",
  "api-keys": "API keys",
  integrations: "Integrations",
  sso: "Single sign-on",
  webhooks: "Webhooks",
}

const segment = fc.oneof(
  fc.constantFrom("dashboard", "scans", "accounts", "findings", "users", "profile", "settings", "sso", "api-keys", "remediations", "batches", "12", "7", ":id", "ünïcode", "a b"),
  fc.stringMatching(/^[a-z0-9:_-]{1,8}$/),
)
const pathArb = fc.array(segment, { maxLength: 7 }).map((segments) => `/${segments.map(encodeURIComponent).join("/")}`)

describe("breadcrumbs: properties", () => {
  it("start with Dashboard → /dashboard, link every crumb but the last, and never repeat Dashboard", () => {
    fc.assert(
      fc.property(pathArb, (path) => {
        const crumbs = breadcrumbsFor(path)
        expect(crumbs[0]?.label).toBe("Dashboard")
        expect(crumbs.at(-1)?.href).toBeUndefined()
        crumbs.slice(0, -1).forEach((c) => expect(typeof c.href).toBe("string"))
        if (crumbs.length > 1) expect(crumbs[0]?.href).toBe("/dashboard")
        expect(crumbs.slice(1).some((c) => c.label === "Dashboard")).toBe(false)
      }),
      { numRuns: 500 },
    )
  })

  it("one crumb per kept segment (dashboard and accounts skipped), plus 'Accounts' before each account id", () => {
    fc.assert(
      fc.property(pathArb, (path) => {
        const segments = pathSegments(path)
        const kept = segments.filter((s, i) =>
          s !== "dashboard" && s !== "accounts" && !((s === "settings" || s === "remediations") && segments[i - 1] === "dashboard")).length
        const accountIds = segments.filter((s, i) => i > 0 && segments[i - 1] === "accounts" && isIdSegment(s)).length
        expect(breadcrumbsFor(path)).toHaveLength(1 + kept + accountIds)
      }),
      { numRuns: 500 },
    )
  })

  it("names ids after scans, accounts and findings, and capitalises every other segment", () => {
    fc.assert(
      fc.property(pathArb, (path) => {
        const segments = pathSegments(path)
        const labels = breadcrumbsFor(path)
          .slice(1)
          .map((c) => c.label)
          .filter((l) => l !== "Accounts" || !segments.includes("accounts"))
        const expected = segments
          .map((s, i) => {
            const prev = segments[i - 1]
            const id = s.replace(/^:/, "")
            if (s === "dashboard" || s === "accounts") return undefined
            if (s === "settings" && prev === "dashboard") return undefined
            if (s === "remediations" && prev === "dashboard") return undefined
            if (s === "batches" && prev === "remediations") return "Remediation batches"
            if (prev === "settings" && segments[i - 2] === "dashboard" && s in SETTINGS_LABELS) return SETTINGS_LABELS[s]
            if (isIdSegment(s) && prev === "scans") return `Scan #${id}`
            if (isIdSegment(s) && prev === "accounts") return `Account #${id}`
            if (isIdSegment(s) && prev === "findings") return `Finding #${id}`
            if (isIdSegment(s) && prev === "batches" && segments[i - 2] === "remediations") return `Batch #${id}`
            return capitalise(s)
          })
          .filter((l): l is string => l !== undefined)
          .filter((l) => l !== "Accounts" || !segments.includes("accounts"))
        expect(labels).toEqual(expected)
      }),
      { numRuns: 500 },
    )
  })

  it("the bar shows iff there are at least two crumbs and the page is not a findings page", () => {
    fc.assert(
      fc.property(pathArb, (path) => {
        const shown = visibleBreadcrumbs(path)
        const all = breadcrumbsFor(path)
        expect(shown.length > 0).toBe(all.length > 1 && !isFindingsPage(path))
        if (shown.length > 0) expect(shown).toEqual(all)
      }),
      { numRuns: 500 },
    )
  })

  it("links stay inside the app", () => {
    fc.assert(
      fc.property(pathArb, (path) => {
        for (const c of breadcrumbsFor(path)) if (c.href !== undefined) expect(c.href.startsWith("/") && !c.href.startsWith("//")).toBe(true)
      }),
      { numRuns: 300 },
    )
  })
})
