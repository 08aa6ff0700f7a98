/** /signup (access §2 "Screens: Signup"). Placeholder. */
import { AuthLayout } from "../layouts/auth-layout.tsx"
import { Link } from "../ui/link.tsx"
import { PlaceholderScreen } from "../ui/placeholder.tsx"

export function SignupView() {
  return (
    <AuthLayout>
      <PlaceholderScreen
        title="Create your account"
        subtitle="Sign up and create your workspace."
        route="/signup"
        footer={
          <span>
            Already have an account? <Link href="/login">Sign in</Link>
          </span>
        }
      />
    </AuthLayout>
  )
}
