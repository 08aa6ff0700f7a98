/**
 * /dashboard: connected cloud provider accounts (scanning §2 "Dashboard"). The screen is its own lazy chunk
 * (dashboard-screen.tsx, with its machines); the route table's Suspense shows the loading state meanwhile.
 */
import { lazyScreen } from "../lazy-screen.tsx"

export const DashboardView = lazyScreen(() => import("./dashboard-screen.tsx").then((m) => m.DashboardScreen))
