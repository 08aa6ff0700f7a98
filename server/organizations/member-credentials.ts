/**
 * The credentials a member account of an organisation is scanned with (issue 31): the organisation's own, pointed at
 * the member. One principal reads every member, so onboarding a fleet asks for one secret, and rotating it is one change.
 * - GCP: the organisation's service-account key with `project_id` = the member project (the key's own project_id is
 *   where the service account lives, not what is scanned; server/scanner/gcp/session.ts reads `project_id` first);
 * - Azure: the organisation's tenant, client and secret with `subscription_id` = the member subscription.
 *
 * The result is what is sealed for the member (server/accounts/credential-vault.ts) and what its connection test,
 * scans and fixes open. AWS members (a role assumed in each account) are built elsewhere.
 */
import { ProviderIds } from "../../src/contracts/constants.ts"
import { credentialsForProvider } from "../accounts/connection-test.ts"
import type { StoredCredentials } from "../accounts/credential-vault.ts"

const present = (v: string | undefined): v is string => v !== undefined && v.trim() !== ""

/**
 * The member's credentials; undefined when the organisation's credentials lack what the provider needs (GCP: the key;
 * Azure: tenant, client and secret), the member id is blank, or the provider is not GCP or Azure.
 */
export const memberCredentials = (cloudProviderId: number, orgStored: StoredCredentials, cloudAccountId: string): StoredCredentials | undefined => {
  const member = cloudAccountId.trim()
  if (member === "") return undefined
  if (cloudProviderId === ProviderIds.GCP) {
    if (!present(orgStored.service_account_key)) return undefined
    return credentialsForProvider(cloudProviderId, { service_account_key: orgStored.service_account_key, project_id: member })
  }
  if (cloudProviderId === ProviderIds.Azure) {
    const { tenant_id, client_id, client_secret } = orgStored
    if (!present(tenant_id) || !present(client_id) || !present(client_secret)) return undefined
    return credentialsForProvider(cloudProviderId, { tenant_id, client_id, client_secret, subscription_id: member })
  }
  return undefined
}
