/** /dashboard: connected cloud provider accounts (scanning §2 "Dashboard"). Placeholder. */
import { PlaceholderScreen } from "../ui/placeholder.tsx"

export function DashboardView() {
  return <PlaceholderScreen title="Dashboard" subtitle="Connected cloud provider accounts." route="/dashboard" />
}
