/** /dashboard/profile (access §2 "Screens: Profile Settings"). Placeholder. */
import { PlaceholderScreen } from "../ui/placeholder.tsx"

export function ProfileView() {
  return (
    <PlaceholderScreen
      title="Profile Settings"
      subtitle="Manage your personal information and account settings."
      route="/dashboard/profile"
    />
  )
}
