/** /verify-email?token=&email= (access §2 "Screens: Verify-email"). Placeholder. */
import { useSearchParams } from "wouter"
import { AuthLayout } from "../layouts/auth-layout.tsx"
import { PlaceholderScreen } from "../ui/placeholder.tsx"

export function VerifyEmailView() {
  const [query] = useSearchParams()
  return (
    <AuthLayout>
      <PlaceholderScreen
        title="Email verification"
        route="/verify-email"
        details={{ token: query.get("token") ?? undefined, email: query.get("email") ?? undefined }}
      />
    </AuthLayout>
  )
}
