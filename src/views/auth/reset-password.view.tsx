/** /reset-password?token= (access §2 "Screens: Reset password"). Placeholder. */
import { useSearchParams } from "wouter"
import { AuthLayout } from "../layouts/auth-layout.tsx"
import { PlaceholderScreen } from "../ui/placeholder.tsx"

export function ResetPasswordView() {
  const [query] = useSearchParams()
  return (
    <AuthLayout>
      <PlaceholderScreen title="Reset password" route="/reset-password" details={{ token: query.get("token") ?? undefined }} />
    </AuthLayout>
  )
}
