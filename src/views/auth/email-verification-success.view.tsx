/** /email-verification-success?email= (access §2 "Screens: Email-verification-success"). Placeholder. */
import { useSearchParams } from "wouter"
import { AuthLayout } from "../layouts/auth-layout.tsx"
import { PlaceholderScreen } from "../ui/placeholder.tsx"

export function EmailVerificationSuccessView() {
  const [query] = useSearchParams()
  return (
    <AuthLayout>
      <PlaceholderScreen
        title="Email verified successfully!"
        route="/email-verification-success"
        details={{ email: query.get("email") ?? undefined }}
      />
    </AuthLayout>
  )
}
