/** /login (access §2 "Screens: Login"). Placeholder until the sign-in flow lands; shows the auth layout already. */
import { AuthLayout } from "../layouts/auth-layout.tsx"
import { Link } from "../ui/link.tsx"
import { PlaceholderScreen } from "../ui/placeholder.tsx"

export function LoginView() {
  return (
    <AuthLayout>
      <PlaceholderScreen
        title="Sign in"
        subtitle="Sign in to your account to continue."
        route="/login"
        footer={
          <span>
            Don't have an account? <Link href="/signup">Sign up</Link>
          </span>
        }
      />
    </AuthLayout>
  )
}
