/**
 * Every route of both specs (access §2 route table, scanning §2), as data (`ROUTES`) and as the wouter tree
 * (`AppRoutes`). Public routes sit behind the authentication gate's public rules; authenticated routes need a
 * session; the dashboard routes share one `DashboardShell`, which stays mounted while moving between them.
 * Every screen but sign-in is lazy (`lazyScreen`): its own chunk, loaded on first visit, so /login loads only what it shows.
 * Any other path shows the 404 page.
 */
import { Suspense, type ComponentType } from "react"
import { Route, Switch } from "wouter"
import { AccountDetailView } from "./accounts/account-detail.view.tsx"
import { LoginView } from "./access/login.view.tsx"
import { DashboardView } from "./accounts/dashboard.view.tsx"
import { lazyScreen } from "./lazy-screen.tsx"
import { NotFoundView } from "./not-found.view.tsx"
import { RootRedirect, RouteGate, type RouteAccess } from "./route-gates.tsx"
import { Spinner } from "./ui/spinner.tsx"
import * as css from "./routes.css.ts"

// Every screen but sign-in is its own chunk, loaded on first visit (issue 17: /login loads only what it shows).
const EmailVerificationSuccessView = lazyScreen(() =>
  import("./access/email-verification-success.view.tsx").then((m) => m.EmailVerificationSuccessView),
)
const ResetPasswordView = lazyScreen(() => import("./access/reset-password.view.tsx").then((m) => m.ResetPasswordView))
const SignupView = lazyScreen(() => import("./access/signup.view.tsx").then((m) => m.SignupView))
const SsoSignInView = lazyScreen(() => import("./access/sso-sign-in.view.tsx").then((m) => m.SsoSignInView))
const VerificationPendingView = lazyScreen(() =>
  import("./access/verification-pending.view.tsx").then((m) => m.VerificationPendingView),
)
const VerifyEmailView = lazyScreen(() => import("./access/verify-email.view.tsx").then((m) => m.VerifyEmailView))
const InvitationAcceptView = lazyScreen(() =>
  import("./access/invitation-accept.view.tsx").then((m) => m.InvitationAcceptView),
)
const InvitationSignupView = lazyScreen(() =>
  import("./access/invitation-signup.view.tsx").then((m) => m.InvitationSignupView),
)
const WorkspaceSelectionView = lazyScreen(() =>
  import("./workspaces/workspace-selection.view.tsx").then((m) => m.WorkspaceSelectionView),
)
const DashboardShell = lazyScreen(() => import("./layouts/dashboard-shell.tsx").then((m) => m.DashboardShell))

// User Management (with its table library) and Profile Settings are visited rarely: their own chunks too.
const UserManagementView = lazyScreen(() => import("./team/user-management.view.tsx").then((m) => m.UserManagementView))
const ProfileView = lazyScreen(() => import("./profile/profile.view.tsx").then((m) => m.ProfileView))
const ScanListView = lazyScreen(() => import("./scans/scan-list.view.tsx").then((m) => m.ScanListView))
const ScanDetailView = lazyScreen(() => import("./scans/scan-detail.view.tsx").then((m) => m.ScanDetailView))
const FindingsView = lazyScreen(() => import("./scans/findings.view.tsx").then((m) => m.FindingsView))
const ComplianceOverviewView = lazyScreen(() =>
  import("./compliance/compliance-overview.view.tsx").then((m) => m.ComplianceOverviewView),
)
const ComplianceFrameworkView = lazyScreen(() =>
  import("./compliance/compliance-framework.view.tsx").then((m) => m.ComplianceFrameworkView),
)
const ComplianceRequirementView = lazyScreen(() =>
  import("./compliance/compliance-requirement.view.tsx").then((m) => m.ComplianceRequirementView),
)
const ResourceHistoryView = lazyScreen(() =>
  import("./accounts/resource-history.view.tsx").then((m) => m.ResourceHistoryView),
)
const FindingDetailView = lazyScreen(() => import("./scans/finding-detail.view.tsx").then((m) => m.FindingDetailView))
const StorageView = lazyScreen(() => import("./storage/storage.view.tsx").then((m) => m.StorageView))
const IntegrationsView = lazyScreen(() => import("./settings/integrations.view.tsx").then((m) => m.IntegrationsView))
const SsoSettingsView = lazyScreen(() => import("./settings/sso-settings.view.tsx").then((m) => m.SsoSettingsView))
const ApiKeysView = lazyScreen(() => import("./settings/api-keys.view.tsx").then((m) => m.ApiKeysView))
const WebhooksView = lazyScreen(() => import("./settings/webhooks.view.tsx").then((m) => m.WebhooksView))
const OrganizationView = lazyScreen(() => import("./organizations/organization.view.tsx").then((m) => m.OrganizationView))
const FleetView = lazyScreen(() => import("./organizations/fleet.view.tsx").then((m) => m.FleetView))
const FleetFindingsView = lazyScreen(() => import("./organizations/fleet-findings.view.tsx").then((m) => m.FleetFindingsView))
const AccountGroupsView = lazyScreen(() => import("./account-groups/account-groups.view.tsx").then((m) => m.AccountGroupsView))
const ApprovalsView = lazyScreen(() => import("./approvals/approvals.view.tsx").then((m) => m.ApprovalsView))
const RemediationBatchesView = lazyScreen(() => import("./remediations/remediation-batches.view.tsx").then((m) => m.RemediationBatchesView))
const RemediationBatchView = lazyScreen(() => import("./remediations/remediation-batch.view.tsx").then((m) => m.RemediationBatchView))

export interface AppRoute {
  /** wouter pattern, absolute. */
  readonly path: string
  readonly view: ComponentType
  readonly access: RouteAccess
  /** Rendered inside the dashboard shell (sidebar + header). */
  readonly inDashboard: boolean
}

const route = (path: string, view: ComponentType, access: RouteAccess, inDashboard = false): AppRoute => ({
  path,
  view,
  access,
  inDashboard,
})

/** The route table. "/" is not listed: it only redirects (see `RootRedirect`). */
export const ROUTES: ReadonlyArray<AppRoute> = [
  route("/login", LoginView, "public"),
  route("/signup", SignupView, "public"),
  route("/login/sso", SsoSignInView, "public"),
  route("/reset-password", ResetPasswordView, "public"),
  route("/verify-email", VerifyEmailView, "verification"),
  route("/verification-pending", VerificationPendingView, "verification"),
  route("/email-verification-success", EmailVerificationSuccessView, "verification"),
  route("/invitation/accept/:token", InvitationAcceptView, "invitation"),
  route("/invitation/accept", InvitationAcceptView, "invitation"),
  route("/invitation/signup", InvitationSignupView, "invitation"),
  route("/accept-invite", InvitationSignupView, "invitation"),
  route("/workspace-selection", WorkspaceSelectionView, "authenticated"),
  route("/dashboard", DashboardView, "authenticated", true),
  route("/dashboard/profile", ProfileView, "authenticated", true),
  route("/dashboard/accounts/:accountId", AccountDetailView, "authenticated", true),
  route("/dashboard/accounts/:accountId/resource", ResourceHistoryView, "authenticated", true),
  route("/dashboard/accounts/:accountId/organization", OrganizationView, "authenticated", true),
  route("/dashboard/organizations/:organizationId/fleet", FleetView, "authenticated", true),
  route("/dashboard/organizations/:organizationId/findings", FleetFindingsView, "authenticated", true),
  route("/dashboard/scans", ScanListView, "authenticated", true),
  route("/dashboard/scans/:scanId", ScanDetailView, "authenticated", true),
  route("/dashboard/scans/:scanId/findings", FindingsView, "authenticated", true),
  route("/dashboard/scans/:scanId/findings/:findingId", FindingDetailView, "authenticated", true),
  route("/dashboard/users", UserManagementView, "authenticated", true),
  route("/dashboard/storage", StorageView, "authenticated", true),
  route("/dashboard/approvals", ApprovalsView, "authenticated", true),
  route("/dashboard/remediations/batches", RemediationBatchesView, "authenticated", true),
  route("/dashboard/remediations/batches/:batchId", RemediationBatchView, "authenticated", true),
  route("/dashboard/settings/integrations", IntegrationsView, "authenticated", true),
  route("/dashboard/settings/sso", SsoSettingsView, "authenticated", true),
  route("/dashboard/settings/webhooks", WebhooksView, "authenticated", true),
  route("/dashboard/settings/api-keys", ApiKeysView, "authenticated", true),
  route("/dashboard/settings/account-groups", AccountGroupsView, "authenticated", true),
  route("/dashboard/compliance", ComplianceOverviewView, "authenticated", true),
  route("/dashboard/compliance/scans/:scanId/:frameworkId", ComplianceFrameworkView, "authenticated", true),
  route("/dashboard/compliance/scans/:scanId/:frameworkId/:requirementId", ComplianceRequirementView, "authenticated", true),
]

/** Fetches every lazy screen ahead of a visit (tests: rendering any route is then synchronous). */
export const preloadScreens = async (): Promise<void> => {
  const screens: ReadonlyArray<object> = [DashboardShell, ...ROUTES.map((r) => r.view)]
  const preloads = screens.flatMap((screen) => ("preload" in screen ? [(screen as { preload: () => Promise<void> }).preload()] : []))
  await Promise.all(preloads)
}

/** /dashboard and everything below it: one route, so the shell is not remounted between dashboard pages. */
const DASHBOARD_AREA = /^\/dashboard(?:\/.*)?$/

function RouteLoading() {
  return (
    <div className={css.loading}>
      <Spinner size="lg" />
    </div>
  )
}

export function AppRoutes() {
  const outside = ROUTES.filter((r) => !r.inDashboard)
  const inside = ROUTES.filter((r) => r.inDashboard)
  return (
    <Switch>
      <Route path="/">
        <RootRedirect />
      </Route>
      {outside.map(({ path, view: View, access }) => (
        <Route key={path} path={path}>
          <RouteGate access={access}>
            <Suspense fallback={<RouteLoading />}>
              <View />
            </Suspense>
          </RouteGate>
        </Route>
      ))}
      <Route path={DASHBOARD_AREA}>
        <RouteGate access="authenticated">
          <Suspense fallback={<RouteLoading />}>
            <DashboardShell>
              <Suspense fallback={<RouteLoading />}>
                <Switch>
                  {inside.map(({ path, view: View }) => (
                    <Route key={path} path={path}>
                      <View />
                    </Route>
                  ))}
                  <Route>
                    <NotFoundView />
                  </Route>
                </Switch>
              </Suspense>
            </DashboardShell>
          </Suspense>
        </RouteGate>
      </Route>
      <Route>
        <NotFoundView />
      </Route>
    </Switch>
  )
}
