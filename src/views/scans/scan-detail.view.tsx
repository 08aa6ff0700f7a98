/** /dashboard/scans/:scanId (scanning §2 "Scan detail"). Placeholder; lazy-loaded as its own chunk. */
import { useParams } from "wouter"
import { scanTitle } from "../../contracts/messages.ts"
import { PlaceholderScreen } from "../ui/placeholder.tsx"

export function ScanDetailView() {
  const { scanId = "" } = useParams<{ scanId: string }>()
  return <PlaceholderScreen title={scanTitle(scanId)} route="/dashboard/scans/:scanId" details={{ scanId }} />
}
