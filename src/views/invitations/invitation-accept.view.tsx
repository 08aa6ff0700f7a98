/**
 * /invitation/accept/:token and /invitation/accept?token= share this screen (access §2 "Screens: Invitation page").
 * Placeholder.
 */
import { useParams, useSearchParams } from "wouter"
import { AuthLayout } from "../layouts/auth-layout.tsx"
import { PlaceholderScreen } from "../ui/placeholder.tsx"

export function InvitationAcceptView() {
  const params = useParams<{ token?: string }>()
  const [query] = useSearchParams()
  return (
    <AuthLayout>
      <PlaceholderScreen
        title="Workspace invitation"
        route={params.token === undefined ? "/invitation/accept" : "/invitation/accept/:token"}
        details={{ token: params.token ?? query.get("token") ?? undefined }}
      />
    </AuthLayout>
  )
}
