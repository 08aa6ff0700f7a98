/** /dashboard/scans (scanning §2 "Scan list"). Placeholder; lazy-loaded as its own chunk. */
import { PlaceholderScreen } from "../ui/placeholder.tsx"

export function ScanListView() {
  return <PlaceholderScreen title="Security Scans" route="/dashboard/scans" />
}
