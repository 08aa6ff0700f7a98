/**
 * Every route of both specs (access §2 route table, scanning §2), as data (`ROUTES`) and as the wouter tree
 * (`AppRoutes`). Public routes sit behind the authentication gate's public rules; authenticated routes need a
 * session; the dashboard routes share one `DashboardShell`, which stays mounted while moving between them.
 * The scanning screens, User Management and Profile Settings are lazy: each one is its own chunk, loaded on first visit.
 * Any other path shows the 404 page.
 */
import { lazy, Suspense, type ComponentType, type ReactNode } from "react"
import { Route, Switch } from "wouter"
import { AccountDetailView } from "./accounts/account-detail.view.tsx"
import { EmailVerificationSuccessView } from "./auth/email-verification-success.view.tsx"
import { LoginView } from "./auth/login.view.tsx"
import { ResetPasswordView } from "./auth/reset-password.view.tsx"
import { SignupView } from "./auth/signup.view.tsx"
import { VerificationPendingView } from "./auth/verification-pending.view.tsx"
import { VerifyEmailView } from "./auth/verify-email.view.tsx"
import { DashboardView } from "./dashboard/dashboard.view.tsx"
import { InvitationAcceptView } from "./invitations/invitation-accept.view.tsx"
import { InvitationSignupView } from "./invitations/invitation-signup.view.tsx"
import { DashboardLayout } from "./layouts/dashboard-layout.tsx"
import { NotFoundView } from "./not-found.view.tsx"
import { PermissionGate, RootRedirect, RouteGate, RouteStateMessage, WorkspaceGate, type RouteAccess } from "./route-gates.tsx"
import { Spinner } from "./ui/spinner.tsx"
import { WorkspaceSelectionView } from "./workspaces/workspace-selection.view.tsx"
import * as css from "./routes.css.ts"

// User Management (with its table library) and Profile Settings are visited rarely: their own chunks too.
const UserManagementView = lazy(() =>
  import("./team/user-management.view.tsx").then((m) => ({ default: m.UserManagementView })),
)
const ProfileView = lazy(() => import("./profile/profile.view.tsx").then((m) => ({ default: m.ProfileView })))
const ScanListView = lazy(() => import("./scans/scan-list.view.tsx").then((m) => ({ default: m.ScanListView })))
const ScanDetailView = lazy(() => import("./scans/scan-detail.view.tsx").then((m) => ({ default: m.ScanDetailView })))
const FindingsView = lazy(() => import("./scans/findings.view.tsx").then((m) => ({ default: m.FindingsView })))
const ComplianceOverviewView = lazy(() =>
  import("./compliance/compliance-overview.view.tsx").then((m) => ({ default: m.ComplianceOverviewView })),
)
const ComplianceFrameworkView = lazy(() =>
  import("./compliance/compliance-framework.view.tsx").then((m) => ({ default: m.ComplianceFrameworkView })),
)
const ComplianceRequirementView = lazy(() =>
  import("./compliance/compliance-requirement.view.tsx").then((m) => ({ default: m.ComplianceRequirementView })),
)
const ResourceHistoryView = lazy(() =>
  import("./accounts/resource-history.view.tsx").then((m) => ({ default: m.ResourceHistoryView })),
)
const FindingDetailView = lazy(() =>
  import("./scans/finding-detail.view.tsx").then((m) => ({ default: m.FindingDetailView })),
)

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
  route("/dashboard/scans", ScanListView, "authenticated", true),
  route("/dashboard/scans/:scanId", ScanDetailView, "authenticated", true),
  route("/dashboard/scans/:scanId/findings", FindingsView, "authenticated", true),
  route("/dashboard/scans/:scanId/findings/:findingId", FindingDetailView, "authenticated", true),
  route("/dashboard/users", UserManagementView, "authenticated", true),
  route("/dashboard/compliance", ComplianceOverviewView, "authenticated", true),
  route("/dashboard/compliance/scans/:scanId/:frameworkId", ComplianceFrameworkView, "authenticated", true),
  route("/dashboard/compliance/scans/:scanId/:frameworkId/:requirementId", ComplianceRequirementView, "authenticated", true),
]

/** /dashboard and everything below it: one route, so the shell is not remounted between dashboard pages. */
const DASHBOARD_AREA = /^\/dashboard(?:\/.*)?$/

function RouteLoading() {
  return (
    <div className={css.loading}>
      <Spinner size="lg" />
    </div>
  )
}

/**
 * The authenticated shell: sidebar (navigation, user card), header (back button, breadcrumbs, user menu), content.
 * The workspace gate guards the whole shell (it needs a selected workspace the user still belongs to); the permission
 * gate guards the page inside it; a message carried by a redirect (the permission gate's) shows above the page.
 */
export function DashboardShell({ children }: { readonly children: ReactNode }) {
  return (
    <WorkspaceGate>
      <DashboardLayout>
        <RouteStateMessage />
        <PermissionGate>{children}</PermissionGate>
      </DashboardLayout>
    </WorkspaceGate>
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
            <View />
          </RouteGate>
        </Route>
      ))}
      <Route path={DASHBOARD_AREA}>
        <RouteGate access="authenticated">
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
        </RouteGate>
      </Route>
      <Route>
        <NotFoundView />
      </Route>
    </Switch>
  )
}
