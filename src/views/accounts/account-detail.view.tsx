/**
 * /dashboard/accounts/:accountId (scanning §2 "Account details"). The screen is its own lazy chunk
 * (account-detail-screen.tsx, with its machines); the route table's Suspense shows the loading state meanwhile.
 */
import { lazyScreen } from "../lazy-screen.tsx"

export const AccountDetailView = lazyScreen(() =>
  import("./account-detail-screen.tsx").then((m) => m.AccountDetailScreen),
)
