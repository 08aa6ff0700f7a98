/** /invitation/signup?token= and /accept-invite?token= share this screen (access §2 "Screens: Invitation signup"). Placeholder. */
import { useLocation, useSearchParams } from "wouter"
import { AuthLayout } from "../layouts/auth-layout.tsx"
import { Link } from "../ui/link.tsx"
import { PlaceholderScreen } from "../ui/placeholder.tsx"

export function InvitationSignupView() {
  const [location] = useLocation()
  const [query] = useSearchParams()
  return (
    <AuthLayout>
      <PlaceholderScreen
        title="Complete your signup"
        route={location}
        details={{ token: query.get("token") ?? undefined }}
        footer={
          <span>
            Already have an account? <Link href="/login">Sign in</Link>
          </span>
        }
      />
    </AuthLayout>
  )
}
