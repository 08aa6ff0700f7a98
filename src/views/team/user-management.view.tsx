/** /dashboard/users (access §2 "Screens: User Management"). Placeholder. */
import { PlaceholderScreen } from "../ui/placeholder.tsx"

export function UserManagementView() {
  return (
    <PlaceholderScreen
      title="User Management"
      subtitle="Manage workspace members and their permissions"
      route="/dashboard/users"
    />
  )
}
