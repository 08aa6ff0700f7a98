/** /dashboard/accounts/:accountId (scanning §2 "Account details"). Placeholder. */
import { useParams } from "wouter"
import { accountTitle } from "../../contracts/messages.ts"
import { PlaceholderScreen } from "../ui/placeholder.tsx"

export function AccountDetailView() {
  const { accountId = "" } = useParams<{ accountId: string }>()
  return <PlaceholderScreen title={accountTitle(accountId)} route="/dashboard/accounts/:accountId" details={{ accountId }} />
}
