/** /dashboard/scans/:scanId/findings/:findingId?service= (scanning §2 "Finding detail"). Placeholder; lazy-loaded. */
import { useParams, useSearchParams } from "wouter"
import { findingTitle } from "../../contracts/messages.ts"
import { PlaceholderScreen } from "../ui/placeholder.tsx"

export function FindingDetailView() {
  const { scanId = "", findingId = "" } = useParams<{ scanId: string; findingId: string }>()
  const [query] = useSearchParams()
  return (
    <PlaceholderScreen
      title={findingTitle(findingId)}
      route="/dashboard/scans/:scanId/findings/:findingId"
      details={{ scanId, findingId, service: query.get("service") ?? undefined }}
    />
  )
}
