/** /dashboard/scans/:scanId/findings?service= (scanning §2 "Findings list"). Placeholder; lazy-loaded as its own chunk. */
import { useParams, useSearchParams } from "wouter"
import { PlaceholderScreen } from "../ui/placeholder.tsx"

export function FindingsView() {
  const { scanId = "" } = useParams<{ scanId: string }>()
  const [query] = useSearchParams()
  return (
    <PlaceholderScreen
      title="Findings"
      route="/dashboard/scans/:scanId/findings"
      details={{ scanId, service: query.get("service") ?? undefined }}
    />
  )
}
