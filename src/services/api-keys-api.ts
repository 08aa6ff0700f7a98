/**
 * Typed calls of the API keys settings page (issue 33; /api/api-keys, docs/api-keys.md) on the shared API client, and
 * the page's effects built from them (`apiKeysEffectsFrom(services)`, handed to `<ApiKeysEffectsProvider>` by the
 * composition root). Answers are decoded with src/contracts/api-keys.ts; failures reject with the client's catalogue
 * error (the server's message for 4xx).
 *
 * The roles offered (fewest permissions first) are those whose permissions the member holds (GET /api/roles, with the member's own roles from
 * GET /api/user/permissions; the owner holds all): the server refuses any other anyway. The account groups come from
 * GET /api/account-groups; a member who may not read them (403) is offered none.
 */
import { AccountGroupsResponse } from "../contracts/account-groups.ts"
import { ApiKeyCreatedResponse, ApiKeyMessages, ApiKeysResponse } from "../contracts/api-keys.ts"
import { OkMessage } from "../contracts/common.ts"
import { RolesResponse } from "../contracts/team.ts"
import { UserPermissionsResponse } from "../contracts/workspaces.ts"
import type { ApiKeysEffects, KeyRoleChoice } from "../machines/api-keys-effects.ts"
import { endpoint, pathWith, type Endpoint } from "./api-client.ts"
import type { AppServices } from "./app-services.ts"

export const API_KEY_ENDPOINTS = {
  list: endpoint({ method: "GET", path: "/api/api-keys", response: ApiKeysResponse }),
  create: endpoint({ method: "POST", path: "/api/api-keys", response: ApiKeyCreatedResponse }),
  revoke: endpoint({ method: "DELETE", path: "/api/api-keys/:id", response: OkMessage }),
  roles: endpoint({ method: "GET", path: "/api/roles", response: RolesResponse }),
  permissions: endpoint({ method: "GET", path: "/api/user/permissions", response: UserPermissionsResponse }),
  groups: endpoint({ method: "GET", path: "/api/account-groups", response: AccountGroupsResponse }),
} satisfies Record<string, Endpoint<unknown>>

const signalOpt = (signal: AbortSignal | undefined) => (signal === undefined ? {} : { signal })

export const apiKeysEffectsFrom = (services: Pick<AppServices, "client">): ApiKeysEffects => {
  const { client } = services
  const E = API_KEY_ENDPOINTS
  return {
    loadApiKeys: async (_, signal) => {
      const [keys, roles, mine, groups] = await Promise.all([
        client.request(E.list, signalOpt(signal)).then((r) => r.data),
        client.request(E.roles, signalOpt(signal)).then((r) => r.data),
        client.request(E.permissions, signalOpt(signal)),
        client.request(E.groups, signalOpt(signal)).then(
          (r) => r.data.map((g) => ({ id: g.id as number, name: g.name })),
          (error: unknown) => {
            if ((error as { status?: unknown }).status === 403) return []
            throw error
          },
        ),
      ])
      const held = new Set([...mine.roles, ...mine.custom_roles].flatMap((r) => r.permissions.map((p) => p.name)))
      const grantable = (r: { readonly permissions: ReadonlyArray<{ readonly name: string }> }) =>
        mine.is_owner === true || r.permissions.every((p) => held.has(p.name))
      // Least privilege first: the dialog preselects the first choice.
      const choices: ReadonlyArray<KeyRoleChoice> = [
        ...roles.roles.filter(grantable).map((r) => ({ id: r.id as number, name: r.name, isCustom: false, weight: r.permissions.length })),
        ...roles.custom_roles.filter(grantable).map((r) => ({ id: r.id as number, name: r.name, isCustom: true, weight: r.permissions.length })),
      ].sort((a, b) => a.weight - b.weight).map((c) => ({ id: c.id, name: c.name, isCustom: c.isCustom }))
      return { keys, roles: choices, groups }
    },
    createApiKey: async (payload, signal) => {
      const answer = await client.request(E.create, { body: payload, ...signalOpt(signal) })
      const { secret, ...key } = answer.data
      return { message: answer.message || ApiKeyMessages.created, key, secret }
    },
    revokeApiKey: async (id, signal) => {
      const answer = await client.request({ ...E.revoke, path: pathWith(E.revoke.path, { id }) }, signalOpt(signal))
      return answer.message || ApiKeyMessages.revoked
    },
  }
}
