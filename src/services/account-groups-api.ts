/**
 * Typed calls of the Account groups page (beyond the spec, issue 31 item 5) on the shared API client, and the page's
 * effects built from them (`accountGroupsEffectsFrom(services)`, handed to `<AccountGroupsEffectsProvider>` by the
 * composition root). Answers are decoded with the contracts' schemas (src/contracts/account-groups.ts, organizations.ts,
 * accounts.ts); failures reject with the client's catalogue error (the server's message for 4xx, with a 400's field
 * errors in `data.errors`). The workspace travels in the client's `X-Workspace-ID` header like every account call.
 *
 * The team page's custom-role editor reads the custom roles (GET /api/roles) and the groups it can limit them to, and
 * saves and deletes roles (POST, PUT, DELETE /api/roles/custom).
 *
 * The page's choices are read alongside the groups: every organisation's units (GET /api/organizations, then each
 * organisation's detail) and the workspace's accounts of each provider (GET /api/accounts?cloud_provider_id=), without
 * the organisation rows themselves.
 */
import {
  AccountGroupDeleteResponse,
  AccountGroupMessages,
  AccountGroupResponse,
  AccountGroupsResponse,
} from "../contracts/account-groups.ts"
import { AccountsResponse } from "../contracts/accounts.ts"
import { OkMessage } from "../contracts/common.ts"
import { ProviderIds } from "../contracts/constants.ts"
import { AccessServerMessages } from "../contracts/server-messages.ts"
import { CustomRoleResponse, RolesResponse } from "../contracts/team.ts"
import { OrganizationResponse, OrganizationsResponse } from "../contracts/organizations.ts"
import type { AccountChoice, AccountGroupsEffects, UnitChoice } from "../machines/account-groups-effects.ts"
import { endpoint, pathWith, type Endpoint } from "./api-client.ts"
import type { AppServices } from "./app-services.ts"

export const ACCOUNT_GROUP_ENDPOINTS = {
  list: endpoint({ method: "GET", path: "/api/account-groups", response: AccountGroupsResponse }),
  create: endpoint({ method: "POST", path: "/api/account-groups", response: AccountGroupResponse }),
  update: endpoint({ method: "PUT", path: "/api/account-groups/:id", response: AccountGroupResponse }),
  remove: endpoint({ method: "DELETE", path: "/api/account-groups/:id", response: AccountGroupDeleteResponse }),
  organizations: endpoint({ method: "GET", path: "/api/organizations", response: OrganizationsResponse }),
  organization: endpoint({ method: "GET", path: "/api/organizations/:id", response: OrganizationResponse }),
  accounts: endpoint({ method: "GET", path: "/api/accounts", response: AccountsResponse }),
  roles: endpoint({ method: "GET", path: "/api/roles", response: RolesResponse }),
  createRole: endpoint({ method: "POST", path: "/api/roles/custom", response: CustomRoleResponse }),
  updateRole: endpoint({ method: "PUT", path: "/api/roles/custom/:id", response: CustomRoleResponse }),
  deleteRole: endpoint({ method: "DELETE", path: "/api/roles/custom/:id", response: OkMessage }),
} satisfies Record<string, Endpoint<unknown>>

const signalOpt = (signal: AbortSignal | undefined) => (signal === undefined ? {} : { signal })
const at = <A>(e: Endpoint<A>, id: number): Endpoint<A> => ({ ...e, path: pathWith(e.path, { id }) })

export const accountGroupsEffectsFrom = (services: Pick<AppServices, "client">): AccountGroupsEffects => {
  const { client } = services
  const E = ACCOUNT_GROUP_ENDPOINTS
  const loadUnits = async (signal: AbortSignal | undefined): Promise<ReadonlyArray<UnitChoice>> => {
    const { organizations } = (await client.request(E.organizations, signalOpt(signal))).data
    const details = await Promise.all(organizations.map(async (o) => (await client.request(at(E.organization, o.id), signalOpt(signal))).data))
    return details.flatMap((o) =>
      [...o.units]
        .sort((a, b) => a.path.localeCompare(b.path, "en-US"))
        .map((u) => ({ organizationId: o.id, organizationName: o.account_name, unitId: u.unit_id, path: u.path })),
    )
  }
  const loadAccounts = async (signal: AbortSignal | undefined): Promise<ReadonlyArray<AccountChoice>> => {
    const lists = await Promise.all(
      Object.values(ProviderIds).map(async (cloud_provider_id) =>
        (await client.request(E.accounts, { query: { cloud_provider_id }, ...signalOpt(signal) })).data.accounts),
    )
    return lists
      .flat()
      .filter((a) => a.is_organization !== true)
      .map((a) => ({ id: a.id, name: a.account_name, cloudId: a.account_id, provider: a.cloud_provider_name }))
      .sort((a, b) => a.name.localeCompare(b.name, "en-US", { sensitivity: "base" }) || a.id - b.id)
  }
  return {
    loadAccountGroups: async (_, signal) => {
      const [groups, units, accounts] = await Promise.all([
        client.request(E.list, signalOpt(signal)).then((r) => r.data),
        loadUnits(signal),
        loadAccounts(signal),
      ])
      return { groups, choices: { units, accounts } }
    },
    saveAccountGroup: async ({ id, payload }, signal) => {
      const answer = await client.request(id === null ? E.create : at(E.update, id), { body: payload, ...signalOpt(signal) })
      return { message: answer.message || (id === null ? AccountGroupMessages.groupCreated : AccountGroupMessages.groupUpdated), group: answer.data }
    },
    deleteAccountGroup: async ({ id }, signal) => {
      const answer = await client.request(at(E.remove, id), signalOpt(signal))
      return { message: answer.message || AccountGroupMessages.groupDeleted }
    },
    loadCustomRoles: async (_, signal) => {
      const [roles, groups] = await Promise.all([
        client.request(E.roles, signalOpt(signal)).then((r) => r.data.custom_roles),
        // Only admins whose own role is not limited may read (and so choose) groups: anyone else edits the rest of a role.
        client.request(E.list, signalOpt(signal)).then(
          (r) => r.data.map((g) => ({ id: g.id, name: g.name })),
          (error: unknown) => {
            if ((error as { status?: unknown }).status === 403) return null
            throw error
          },
        ),
      ])
      return { roles, groups }
    },
    saveCustomRole: async ({ id, payload }, signal) => {
      const answer = await client.request(id === null ? E.createRole : at(E.updateRole, id), { body: payload, ...signalOpt(signal) })
      return { message: answer.message || (id === null ? AccessServerMessages.roleCreated : AccessServerMessages.roleUpdated), role: answer.data }
    },
    deleteCustomRole: async ({ id }, signal) => {
      const answer = await client.request(at(E.deleteRole, id), signalOpt(signal))
      return { message: answer.message || AccessServerMessages.roleDeleted }
    },
  }
}
