/**
 * Typed calls of the single-sign-on settings page (issue 33 part 3) on the shared API client, and the page's effects
 * built from them (`ssoSettingsEffectsFrom(services)`). Every call names the selected workspace in the path, read at
 * call time; answers are decoded with the contract's `SsoSettingsResponse`; failures reject with the client's catalogue
 * error (the server's message for 4xx).
 */
import { SsoMessages, SsoSettingsResponse } from "../contracts/sso.ts"
import { RolesResponse } from "../contracts/team.ts"
import type { SsoSettingsEffects } from "../machines/sso-effects.ts"
import { endpoint, pathWith, type ApiError, type Endpoint } from "./api-client.ts"
import type { AppServices } from "./app-services.ts"

export const SSO_ENDPOINTS = {
  get: endpoint({ method: "GET", path: "/api/workspaces/:id/sso", response: SsoSettingsResponse }),
  put: endpoint({ method: "PUT", path: "/api/workspaces/:id/sso", response: SsoSettingsResponse }),
  remove: endpoint({ method: "DELETE", path: "/api/workspaces/:id/sso", response: SsoSettingsResponse }),
  roles: endpoint({ method: "GET", path: "/api/roles", response: RolesResponse }),
} satisfies Record<string, Endpoint<unknown>>

const signalOpt = (signal: AbortSignal | undefined) => (signal === undefined ? {} : { signal })

export const ssoSettingsEffectsFrom = (services: Pick<AppServices, "client" | "workspaceStore">): SsoSettingsEffects => {
  const at = <A>(e: Endpoint<A>, fallback: string): Endpoint<A> => {
    const id = services.workspaceStore.getSnapshot().selectedWorkspaceId
    if (id === null) throw { type: "UNKNOWN_ERROR", message: fallback } satisfies ApiError
    return { ...e, path: pathWith(e.path, { id }) }
  }
  return {
    loadSettings: async (_, signal) => {
      const settings = (await services.client.request(at(SSO_ENDPOINTS.get, SsoMessages.loadFailed), signalOpt(signal))).data
      const roles = (await services.client.request(SSO_ENDPOINTS.roles, signalOpt(signal))).data
      return { settings, roles: [...roles.roles, ...roles.custom_roles].map((r) => ({ id: r.id, name: r.name })) }
    },
    saveSettings: async (payload, signal) =>
      (await services.client.request(at(SSO_ENDPOINTS.put, SsoMessages.saveFailed), { body: payload, ...signalOpt(signal) })).data,
    removeSettings: async (_, signal) =>
      (await services.client.request(at(SSO_ENDPOINTS.remove, SsoMessages.saveFailed), signalOpt(signal))).data,
  }
}
