// @vitest-environment happy-dom
import { cleanup, screen } from "@testing-library/react"
import { afterEach, describe, expect, it } from "vitest"
import { decideAccess, rootTarget } from "../../src/views/route-gates.tsx"
import { ROUTES, preloadScreens } from "../../src/views/routes.tsx"
import type { SessionStatus } from "../../src/views/session-status.tsx"
import { renderApp } from "./render-app.tsx"

// Every screen but sign-in loads lazily; fetched up front, rendering a route is synchronous as in a warm browser.
await preloadScreens()

afterEach(cleanup)

/** Every route of both specs (access §2 route table, scanning §2) with a concrete URL and the screen's heading. */
const PUBLIC = [
  ["/login", "/login", "Sign in"],
  ["/signup", "/signup", "Create your account"],
  ["/login/sso", "/login/sso", "Sign in with SSO"],
  ["/reset-password", "/reset-password?token=abc", "Reset password"],
  ["/verify-email", "/verify-email?token=t&email=a%40b.co", "Email verification"],
  ["/verification-pending", "/verification-pending", "Verify your email"],
  ["/email-verification-success", "/email-verification-success?email=a%40b.co", "Email verified successfully!"],
  ["/invitation/accept/:token", "/invitation/accept/tok-123", "Workspace invitation"],
  ["/invitation/accept", "/invitation/accept?token=tok-123", "Workspace invitation"],
  ["/invitation/signup", "/invitation/signup?token=tok-123", "Complete your signup"],
  ["/accept-invite", "/accept-invite?token=tok-123", "Complete your signup"],
] as const

/**
 * Every authenticated route with a concrete URL and what identifies its screen: the level-1 heading, or (screens whose
 * heading comes from data the unwired effects cannot load) the text of the screen's own load-error state.
 */
const AUTHENTICATED: ReadonlyArray<readonly [string, string, { readonly heading: string | RegExp } | { readonly text: string | RegExp }]> = [
  ["/workspace-selection", "/workspace-selection", { heading: "Select a workspace" }],
  ["/dashboard", "/dashboard", { heading: "Dashboard" }],
  ["/dashboard/profile", "/dashboard/profile", { heading: "Profile Settings" }],
  ["/dashboard/accounts/:accountId", "/dashboard/accounts/7", { text: "Failed to load account details" }],
  ["/dashboard/accounts/:accountId/resource", "/dashboard/accounts/7/resource?uid=arn%3Aaws%3As3%3A%3A%3Ab", { text: "Failed to load the resource. Please try again." }],
  ["/dashboard/accounts/:accountId/organization", "/dashboard/accounts/7/organization", { text: "Failed to load the organization. Please try again." }],
  ["/dashboard/organizations/:organizationId/fleet", "/dashboard/organizations/7/fleet", { heading: "Fleet" }],
  ["/dashboard/organizations/:organizationId/findings", "/dashboard/organizations/7/findings", { heading: "Findings across members" }],
  ["/dashboard/scans", "/dashboard/scans", { heading: "Security Scans" }],
  ["/dashboard/scans/:scanId", "/dashboard/scans/12", { heading: "Scan #12" }],
  ["/dashboard/scans/:scanId/findings", "/dashboard/scans/12/findings?service=s3", { heading: /^s3 findings$/i }],
  ["/dashboard/scans/:scanId/findings/:findingId", "/dashboard/scans/12/findings/99?service=s3", { text: "Finding #99" }],
  ["/dashboard/users", "/dashboard/users", { heading: "User Management" }],
  ["/dashboard/storage", "/dashboard/storage", { heading: "Storage" }],
  ["/dashboard/approvals", "/dashboard/approvals", { heading: "Approvals" }],
  ["/dashboard/remediations/batches", "/dashboard/remediations/batches", { heading: "Remediation batches" }],
  ["/dashboard/remediations/batches/:batchId", "/dashboard/remediations/batches/12", { heading: "Remediation batch #12" }],
  ["/dashboard/settings/account-groups", "/dashboard/settings/account-groups", { heading: "Account groups" }],
  ["/dashboard/settings/sso", "/dashboard/settings/sso", { heading: "Single sign-on" }],
  ["/dashboard/settings/api-keys", "/dashboard/settings/api-keys", { heading: "API keys" }],
  ["/dashboard/settings/integrations", "/dashboard/settings/integrations", { heading: "Integrations" }],
  ["/dashboard/settings/webhooks", "/dashboard/settings/webhooks", { heading: "Webhooks" }],
  ["/dashboard/compliance", "/dashboard/compliance", { heading: "Compliance" }],
  ["/dashboard/compliance/scans/:scanId/:frameworkId", "/dashboard/compliance/scans/12/cis-aws-3.0.0", { heading: "Framework" }],
  ["/dashboard/compliance/scans/:scanId/:frameworkId/:requirementId", "/dashboard/compliance/scans/12/cis-aws-3.0.0/1.10", { heading: "Requirement 1.10" }],
]

describe("route table", () => {
  it("lists exactly the spec's routes", () => {
    expect(ROUTES.map((r) => r.path).sort()).toEqual([...PUBLIC, ...AUTHENTICATED].map(([pattern]) => pattern).sort())
    expect(ROUTES.filter((r) => r.path.startsWith("/dashboard")).every((r) => r.inDashboard)).toBe(true)
  })

  it.each(PUBLIC)("%s renders its screen for a signed-out visitor (%s)", async (_pattern, url, heading) => {
    const { currentPath } = renderApp(url)
    expect(await screen.findByRole("heading", { level: 1, name: heading })).toBeTruthy()
    expect(currentPath()).toBe(url.split("?")[0])
  })

  it.each(AUTHENTICATED)("%s renders its screen when signed in (%s)", async (_pattern, url, marker) => {
    renderApp(url, { status: "authenticated" })
    if ("heading" in marker) expect(await screen.findByRole("heading", { level: 1, name: marker.heading })).toBeTruthy()
    else expect(await screen.findByText(marker.text)).toBeTruthy()
    expect(screen.queryByText("Page Not Found")).toBeNull()
  })

  it("shows the dashboard shell (sidebar and header) around dashboard routes", async () => {
    renderApp("/dashboard/scans/12", { status: "authenticated" })
    await screen.findByRole("heading", { level: 1, name: "Scan #12" })
    expect(screen.getByRole("navigation", { name: "Main" })).toBeTruthy()
    expect(screen.getByRole("button", { name: "Collapse sidebar" })).toBeTruthy()
  })

  it("passes route parameters and query values to the screen", async () => {
    // :scanId and ?service reach the findings screen, :findingId the finding screen.
    renderApp("/dashboard/scans/12/findings?service=s3", { status: "authenticated" })
    expect(await screen.findByRole("heading", { level: 1, name: /^s3 findings$/i })).toBeTruthy()
    cleanup()
    renderApp("/dashboard/scans/12/findings/99?service=s3", { status: "authenticated" })
    expect(await screen.findByText("Finding #99")).toBeTruthy()
  })

  it.each([["/nope"], ["/login/extra"], ["/dashboards"], ["/invitation"]])("unknown path %s shows the 404 page", (url) => {
    renderApp(url)
    expect(screen.getByRole("heading", { level: 1, name: "Page Not Found" })).toBeTruthy()
  })

  it("an unknown path inside the dashboard shows the 404 page in the shell when signed in", () => {
    renderApp("/dashboard/nope", { status: "authenticated" })
    expect(screen.getByRole("heading", { level: 1, name: "Page Not Found" })).toBeTruthy()
    expect(screen.getByRole("navigation", { name: "Main" })).toBeTruthy()
  })
})

describe("route gates", () => {
  it("/ redirects a signed-out visitor to /login", async () => {
    const { currentPath } = renderApp("/")
    expect(await screen.findByRole("heading", { level: 1, name: "Sign in" })).toBeTruthy()
    expect(currentPath()).toBe("/login")
  })

  it("/ redirects to /dashboard when signed in", async () => {
    const { currentPath } = renderApp("/", { status: "authenticated" })
    expect(await screen.findByRole("heading", { level: 1, name: "Dashboard" })).toBeTruthy()
    expect(currentPath()).toBe("/dashboard")
  })

  it("sends a signed-out visitor of an authenticated route to /login, keeping the origin", async () => {
    const { currentPath, location } = renderApp("/dashboard/scans/12/findings?service=s3")
    expect(await screen.findByRole("heading", { level: 1, name: "Sign in" })).toBeTruthy()
    expect(currentPath()).toBe("/login")
    expect(location.state).toEqual({ from: "/dashboard/scans/12/findings?service=s3" })
  })

  it("sends a signed-in user away from public pages, but not from invitation pages", async () => {
    const first = renderApp("/signup", { status: "authenticated" })
    await screen.findByRole("heading", { level: 1, name: "Dashboard" })
    expect(first.currentPath()).toBe("/dashboard")
    cleanup()
    const second = renderApp("/invitation/accept/tok-1", { status: "authenticated" })
    expect(await screen.findByRole("heading", { level: 1, name: "Workspace invitation" })).toBeTruthy()
    expect(second.currentPath()).toBe("/invitation/accept/tok-1")
  })

  it("shows 'Authenticating...' while the session loads", () => {
    renderApp("/dashboard", { status: "loading" })
    expect(screen.getAllByText("Authenticating...").length).toBeGreaterThan(0)
  })

  it("decides access per route class and session status", () => {
    const statuses: ReadonlyArray<SessionStatus> = ["loading", "unauthenticated", "unverified", "authenticated"]
    const table = Object.fromEntries(
      (["public", "verification", "invitation", "authenticated"] as const).map((access) => [
        access,
        statuses.map((status) => {
          const decision = decideAccess(access, status)
          return decision.kind === "redirect" ? decision.to : decision.kind
        }),
      ]),
    )
    expect(table).toEqual({
      public: ["loading", "render", "/verification-pending", "/dashboard"],
      verification: ["loading", "render", "render", "/dashboard"],
      invitation: ["loading", "render", "/verification-pending", "render"],
      authenticated: ["loading", "/login", "/verification-pending", "render"],
    })
    expect(statuses.map(rootTarget)).toEqual([undefined, "/login", "/verification-pending", "/dashboard"])
  })
})
