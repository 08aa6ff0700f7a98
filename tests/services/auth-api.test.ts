import { describe, expect, it } from "vitest"
import type { Schema } from "effect"
import { HttpApi } from "effect/http-api"
import { Api } from "../../src/contracts/api.ts"
import { ERROR_FLOWS } from "../../src/contracts/error-mapping.ts"
import { createApiClient } from "../../src/services/api-client.ts"
import { ACCESS_ENDPOINTS, createAuthApi } from "../../src/services/auth-api.ts"
import { createSessionStorage, memoryStorage } from "../../src/services/storage.ts"
import { json, newClock, scriptedFetch, type FetchHandler } from "./support.ts"

interface ContractEndpoint {
  readonly group: string
  readonly name: string
  readonly method: string
  readonly path: string
  readonly success: ReadonlyArray<Schema.Top>
}

const contractEndpoints = (): ReadonlyArray<ContractEndpoint> => {
  const out: ContractEndpoint[] = []
  HttpApi.reflect(Api, {
    onGroup: () => {},
    onEndpoint: ({ group, endpoint, successes }) => {
      out.push({
        group: group.identifier,
        name: endpoint.name,
        method: endpoint.method,
        path: endpoint.path,
        success: [...successes.values()].flat(),
      })
    },
  })
  return out
}

describe("access endpoints match the contract", () => {
  const contract = contractEndpoints()

  it.each(Object.entries(ACCESS_ENDPOINTS))("%s: method, path and response schema are the contract's", (_name, e) => {
    const match = contract.filter((c) => c.method === e.method && c.path === e.path)
    expect(match.length, `${e.method} ${e.path} in Api`).toBeGreaterThan(0)
    const schemas = match.flatMap((m) => m.success)
    expect(schemas.some((s) => s === e.response || s.ast === e.response.ast)).toBe(true)
    if (e.flow !== undefined) expect(ERROR_FLOWS).toContain(e.flow)
  })

  it("covers every endpoint of the access groups", () => {
    const access = contract.filter((c) => ["auth", "workspaces", "team", "invitations", "profile"].includes(c.group))
    const ours = new Set(Object.values(ACCESS_ENDPOINTS).map((e) => `${e.method} ${e.path}`))
    const missing = access
      .filter((c) => !ours.has(`${c.method} ${c.path}`))
      // Aliases served for compatibility: one of each pair is enough for the SPA.
      .filter((c) => !(c.method === "POST" && c.path === "/api/verify-email") && c.path !== "/api/invitation/accept")
    expect(missing.map((c) => `${c.group}.${c.name} ${c.method} ${c.path}`)).toEqual([])
  })

  it("login, sign-up and refresh-token never trigger a refresh; refresh-token is never retried", () => {
    expect(ACCESS_ENDPOINTS.login.refreshOn401).toBe(false)
    expect(ACCESS_ENDPOINTS.signup.refreshOn401).toBe(false)
    expect(ACCESS_ENDPOINTS.refreshToken.refreshOn401).toBe(false)
    expect(ACCESS_ENDPOINTS.refreshToken.retry).toBe(false)
  })
})

describe("request shapes", () => {
  const setup = (handler: FetchHandler) => {
    const clock = newClock()
    const server = scriptedFetch(clock, handler)
    const client = createApiClient({
      fetch: server.fetch,
      clock,
      session: createSessionStorage(memoryStorage({ access_token: "a", refresh_token: "r" })),
      selectedWorkspaceId: () => 3,
      isProduction: false,
    })
    return { api: createAuthApi(client), calls: server.calls }
  }

  it("verify-email sends token and email in the query", async () => {
    const t = setup(() => json(200, { ok: true, message: "Email verified successfully!" }))
    await t.api.verifyEmail({ token: "t".repeat(32), email: "a+b@example.com" })
    const url = new URL(t.calls[0]!.url, "http://x")
    expect(t.calls[0]!.method).toBe("GET")
    expect(url.pathname).toBe("/api/verify-email")
    expect(url.searchParams.get("email")).toBe("a+b@example.com")
  })

  it("delete user uses the user_to_delete query; invitation calls fill their path ids", async () => {
    const t = setup(() => json(200, { ok: true, message: "done" }))
    await t.api.deleteUser({ user_to_delete: 12 })
    await t.api.resendInvitation({ invitation_id: 5 })
    await t.api.cancelInvitation({ id: 6 })
    expect(t.calls.map((c) => `${c.method} ${c.url}`)).toEqual([
      "DELETE /api/admin/users?user_to_delete=12",
      "POST /api/admin/users/invitations/5/resend",
      "DELETE /api/admin/users/invitations/6",
    ])
  })

  it("the invitation token is URL-encoded into the check path", async () => {
    const t = setup(() => json(200, { email: "a@b.c", workspace_name: "Acme", role_name: "Auditor" }))
    const r = await t.api.checkInvitation({ token: "a/b?c" })
    expect(r).toEqual({ email: "a@b.c", workspace_name: "Acme", role_name: "Auditor" })
    expect(t.calls[0]!.url).toBe("/api/invitation/verify/a%2Fb%3Fc")
  })

  it("switch workspace posts workspace_id and decodes both tokens", async () => {
    const t = setup(() => json(200, { access_token: "a2", refresh_token: "r2" }))
    const r = await t.api.switchWorkspace({ workspace_id: 4 as never })
    expect(r).toEqual({ access_token: "a2", refresh_token: "r2" })
    expect(t.calls[0]!.body).toEqual({ workspace_id: 4 })
  })

  it("a load failure lands on the flow's text (team members)", async () => {
    // (a 4xx: a 5xx would be retried on the simulated clock first)
    const t = setup(() => json(403, { _tag: "Forbidden", message: "No" }))
    await expect(t.api.teamMembers()).rejects.toMatchObject({ type: "UNAUTHORIZED", message: "Failed to load team members", status: 403 })
  })
})
