/** /verification-pending (access §2 "Screens: Verification-pending"). Placeholder. */
import { AuthLayout } from "../layouts/auth-layout.tsx"
import { PlaceholderScreen } from "../ui/placeholder.tsx"

export function VerificationPendingView() {
  return (
    <AuthLayout>
      <PlaceholderScreen title="Verify your email" route="/verification-pending" />
    </AuthLayout>
  )
}
