/**
 * The scanning screens' effects (`scanEffectsFrom`) on the real API client and query cache, with a scripted fetch and
 * a simulated clock: paths and queries sent, contract decoding, the §8 texts of each flow, the §9 cache times
 * (providers 5 min, accounts 1 s, account-detail prefetch 60 s), the viewer's permissions and the export file.
 */
import { describe, expect, it } from "vitest"
import type { AccountId, CloudProviderId, FindingId, ScanId, ServiceId } from "../../src/contracts/ids.ts"
import { createAppServices } from "../../src/services/app-services.ts"
import type { Schema } from "effect"
import { HttpApi } from "effect/http-api"
import { Api } from "../../src/contracts/api.ts"
import { ERROR_FLOWS } from "../../src/contracts/error-mapping.ts"
import { createMemo, SCANNING_ENDPOINTS, scanEffectsFrom } from "../../src/services/scan-api.ts"
import { memoryStorage } from "../../src/services/storage.ts"
import type { SimulatedClock } from "xstate"
import { advance, json, newClock, scriptedFetch, type RecordedCall } from "../services/support.ts"
import { account, accountDetail, finding, providers, scan, scanPage } from "./scan-fakes.ts"

type Route = (call: RecordedCall) => Response | undefined

const setup = (routes: Route) => {
  const clock = newClock()
  const { fetch, calls } = scriptedFetch(clock, (call) => routes(call) ?? json(404, { _tag: "NotFound", message: "no route" }))
  const local = memoryStorage({
    access_token: "access-1",
    refresh_token: "refresh-1",
    "workspace-store": JSON.stringify({ state: { selectedWorkspaceId: 7, lastAccessedWorkspaces: {}, newlyAddedWorkspaces: {} }, version: 0 }),
  })
  const services = createAppServices({ fetch, clock, isProduction: false, local, sessionStorage: memoryStorage() })
  return { clock, calls, services, effects: scanEffectsFrom(services) }
}

/** Runs the simulated clock while `promise` retries (1 s, 2 s … between attempts), then returns it. */
const settle = async <T>(clock: SimulatedClock, promise: Promise<T>): Promise<T> => {
  promise.catch(() => {})
  await advance(clock, 10_000, 500)
  return promise
}

const path = (call: RecordedCall) => new URL(call.url, "http://localhost").pathname
const query = (call: RecordedCall) => Object.fromEntries(new URL(call.url, "http://localhost").searchParams)

/** Same kind of node with the same field names (the schema HttpApi keeps may be a rebuilt copy of ours). */
const sameShape = (a: Schema.Top, b: Schema.Top): boolean => {
  const fields = (s: Schema.Top) =>
    ((s.ast as unknown as { propertySignatures?: ReadonlyArray<{ name: PropertyKey }> }).propertySignatures ?? []).map((p) => String(p.name))
  return a.ast._tag === b.ast._tag && JSON.stringify(fields(a)) === JSON.stringify(fields(b)) && fields(a).length > 0
}

describe("scanning endpoints match the contract", () => {
  const contract: Array<{ group: string; method: string; path: string; success: ReadonlyArray<Schema.Top> }> = []
  HttpApi.reflect(Api, {
    onGroup: () => {},
    onEndpoint: ({ group, endpoint, successes }) => {
      contract.push({ group: group.identifier, method: endpoint.method, path: endpoint.path, success: [...successes.values()].flat() })
    },
  })

  it.each(Object.entries(SCANNING_ENDPOINTS))("%s: method, path and response schema are the contract's", (name, e) => {
    const match = contract.filter((c) => c.method === e.method && c.path === e.path)
    expect(match.length, `${e.method} ${e.path} in Api`).toBe(1)
    // The export's success is a byte stream: the SPA reads whatever the client parsed (text or JSON). The findings
    // group's schemas come back re-built by HttpApi (their rows carry free fields), so those compare by shape.
    // A union answer (remediate: 200 with the row, or 202 with the approval request) names each of the contract's answers.
    const responses: ReadonlyArray<Schema.Top> = "members" in e.response ? (e.response.members as ReadonlyArray<Schema.Top>) : [e.response]
    if (name !== "exportScan") for (const r of responses) expect(match[0]!.success.some((s) => s === r || sameShape(s, r))).toBe(true)
    if (e.flow !== undefined) expect(ERROR_FLOWS).toContain(e.flow)
  })

  it("covers every endpoint of the providers, accounts, scans and findings groups", () => {
    const ours = new Set(Object.values(SCANNING_ENDPOINTS).map((e) => `${e.method} ${e.path}`))
    const scanning = contract.filter((c) => ["providers", "accounts", "scans", "findings"].includes(c.group))
    expect(scanning.filter((c) => !ours.has(`${c.method} ${c.path}`)).map((c) => `${c.method} ${c.path}`)).toEqual([])
  })
})

describe("scan effects", () => {
  it("loadExternalId reads the workspace's id from GET /api/accounts/external-id; a malformed answer rejects", async () => {
    const { effects, calls } = setup((call) =>
      path(call) === "/api/accounts/external-id" && call.method === "GET"
        ? json(200, { ok: true, data: { external_id: "ca-abcdefghijklmnopqrstuvwx" } })
        : undefined,
    )
    await expect(effects.loadExternalId()).resolves.toBe("ca-abcdefghijklmnopqrstuvwx")
    expect(calls).toHaveLength(1)
    expect(calls[0]!.headers["x-workspace-id"]).toBe("7")
    expect(calls[0]!.headers["authorization"]).toBe("Bearer access-1")

    const broken = setup((call) => (path(call) === "/api/accounts/external-id" ? json(200, { ok: true, data: {} }) : undefined))
    await expect(broken.effects.loadExternalId()).rejects.toBeDefined()
  })

  it("providers are cached 5 minutes, accounts 1 s; each call carries the workspace", async () => {
    const { effects, calls, clock } = setup((call) => {
      if (path(call) === "/api/cloud-providers") return json(200, { ok: true, data: { cloud_providers: providers } })
      if (path(call) === "/api/accounts") return json(200, { ok: true, data: { accounts: [account(1)] } })
      return undefined
    })
    await effects.loadProviders()
    await effects.loadProviders()
    clock.increment(4 * 60_000)
    await effects.loadProviders()
    expect(calls.filter((c) => path(c) === "/api/cloud-providers")).toHaveLength(1)
    clock.increment(60_000)
    await effects.loadProviders()
    expect(calls.filter((c) => path(c) === "/api/cloud-providers")).toHaveLength(2)

    const aws = 1 as CloudProviderId
    await Promise.all([effects.loadAccounts({ cloud_provider_id: aws }), effects.loadAccounts({ cloud_provider_id: aws })])
    expect(calls.filter((c) => path(c) === "/api/accounts")).toHaveLength(1)
    clock.increment(1_000)
    const accounts = await effects.loadAccounts({ cloud_provider_id: aws })
    expect(accounts.map((a) => a.id)).toEqual([1])
    const accountCalls = calls.filter((c) => path(c) === "/api/accounts")
    expect(accountCalls).toHaveLength(2)
    expect(query(accountCalls[0]!)).toEqual({ cloud_provider_id: "1" })
    expect(accountCalls[0]!.headers["x-workspace-id"]).toBe("7")
    expect(accountCalls[0]!.headers["authorization"]).toBe("Bearer access-1")
  })

  it("dashboard-load texts: 401 after a successful token refresh, and 5xx after the retries", async () => {
    const { effects, clock } = setup((call) => {
      if (path(call) === "/api/refresh-token") return json(200, { access_token: "access-2", refresh_token: "refresh-2" })
      if (path(call) === "/api/accounts") return json(401, { message: "nope" })
      if (path(call) === "/api/cloud-providers") return json(503, { message: "down" })
      return undefined
    })
    await expect(effects.loadAccounts({ cloud_provider_id: 1 as CloudProviderId })).rejects.toMatchObject({
      message: "You are not authorized to view this data. Please sign in again.",
    })
    await expect(settle(clock, effects.loadProviders())).rejects.toMatchObject({
      message: "We're experiencing technical difficulties. Please try again later.",
    })
  })

  it("a prefetched account detail is used for 60 s; Refresh always asks again", async () => {
    const { effects, calls, clock } = setup((call) =>
      path(call) === "/api/accounts/3" ? json(200, { ok: true, data: accountDetail(3) }) : undefined,
    )
    effects.prefetchAccountDetail(3 as AccountId)
    const first = await effects.loadAccountDetail({ id: 3 as AccountId })
    expect(first.account_name).toBe("Production 3")
    expect(calls).toHaveLength(1)
    clock.increment(59_000)
    await effects.loadAccountDetail({ id: 3 as AccountId })
    expect(calls).toHaveLength(1)
    await effects.refreshAccountDetail({ id: 3 as AccountId })
    expect(calls).toHaveLength(2)
    clock.increment(61_000)
    await effects.loadAccountDetail({ id: 3 as AccountId })
    expect(calls).toHaveLength(3)
  })

  it("account texts: 409 'Account already exists'; detail 404 keeps the server's message; refresh uses its own text", async () => {
    const { effects, clock } = setup((call) => {
      if (path(call) === "/api/accounts" && call.method === "POST") return json(409, { _tag: "Conflict", message: "dup" })
      if (path(call) === "/api/accounts/4") return json(404, { _tag: "NotFound", message: "Account not found" })
      if (path(call) === "/api/accounts/5") return json(500, { _tag: "ServerError", message: "boom" })
      return undefined
    })
    const payload = {
      cloud_provider_id: 1 as CloudProviderId,
      account_name: "Prod",
      is_organization: false,
      credentials: { access_key: "A", secret_key: "B" },
    }
    await expect(effects.addAccount(payload)).rejects.toMatchObject({ message: "Account already exists" })
    await expect(effects.loadAccountDetail({ id: 4 as AccountId })).rejects.toMatchObject({ message: "Account not found" })
    await expect(settle(clock, effects.refreshAccountDetail({ id: 5 as AccountId }))).rejects.toMatchObject({
      message: "Failed to refresh account details",
    })
  })

  it("the viewer: user id and permissions as the union of the roles (owner holds all)", async () => {
    const role = (names: ReadonlyArray<string>) => ({ id: 2, name: "R", permissions: names.map((name, i) => ({ id: i + 1, name })) })
    const { effects } = setup((call) => {
      if (path(call) === "/api/user-info")
        return json(200, {
          ok: true,
          data: { id: 9, email: "a@b.c", email_verified: true, first_name: "A", last_name: "B", workspace_name: null, roles: [], timezone: null },
        })
      if (path(call) === "/api/user/permissions") return json(200, { ok: true, is_owner: false, roles: [role(["read_only", "scan_service"])], custom_roles: [] })
      return undefined
    })
    expect(await effects.loadViewer()).toEqual({ userId: 9, canLaunchScans: true, canRemediate: false })
  })

  it("scans, findings, remediation and cancel hit the spec's paths with the spec's queries", async () => {
    const { effects, calls, clock } = setup((call) => {
      const p = path(call)
      if (p === "/api/scans" && call.method === "GET") return json(200, scanPage([scan(11)], 1, 1))
      if (p === "/api/scans" && call.method === "POST") return json(200, { ok: true, message: "Scan started", data: scan(12, { status: "pending" }) })
      if (p === "/api/scans/11") return json(200, { ok: true, data: scan(11) })
      if (p === "/api/scans/11/cancel") return json(200, { ok: true, message: "Scan canceled", data: scan(11, { status: "failed" }) })
      if (p === "/api/findings") return json(200, { ok: true, data: [finding(5)], pagination: { page: 1, total_pages: 1, total: 1 } })
      if (p === "/api/findings/5/remediate") return json(200, { ok: true, message: "Remediation started", data: { details: call.body && (call.body as { details: unknown }).details } })
      if (p === "/api/findings/6") return json(500, { _tag: "ServerError", message: "x" })
      return undefined
    })
    await effects.listScans({ page: 2, page_size: 20 })
    expect(query(calls.at(-1)!)).toEqual({ page: "2", page_size: "20" })
    expect((await effects.getScan({ id: 11 as ScanId })).id).toBe(11)
    await effects.startScan({ user_id: 9 as never, account_id: 1 as AccountId, cloud_provider_id: 1 as CloudProviderId, cloud_provider_name: "aws" })
    expect(calls.at(-1)!.body).toEqual({ user_id: 9, account_id: 1, cloud_provider_id: 1, cloud_provider_name: "aws" })
    await effects.cancelScan({ id: 11 as ScanId })
    expect(calls.at(-1)!.method).toBe("POST")
    await effects.listFindings({ scan_id: 11 as ScanId, service_id: 101 as ServiceId, page: 1, page_size: 20 })
    expect(query(calls.at(-1)!)).toEqual({ scan_id: "11", service_id: "101", page: "1", page_size: "20" })
    const row = { resource_id: "b", compliance: false }
    const answer = await effects.remediate({ id: 5 as FindingId, details: row })
    expect(calls.at(-1)!.body).toEqual({ details: row })
    expect(answer.data.details).toEqual(row)
    await expect(settle(clock, effects.getFinding({ id: 6 as FindingId }))).rejects.toMatchObject({
      message: "Failed to load finding details. Please try again.",
    })
  })

  it("export: the query with the filters, CSV kept as text, JSON serialised, the spec's file name", async () => {
    const { effects, calls } = setup((call) => {
      if (path(call) !== "/api/scans/11/export") return undefined
      const format = query(call)["format"]
      if (format === "csv") return new Response("id,severity\n5,high\n", { status: 200, headers: { "content-type": "text/csv; charset=utf-8" } })
      if (format === "json") return json(200, [{ id: 5, severity: "high" }])
      return json(409, { _tag: "Conflict", message: "Findings can be exported only when the scan is completed" })
    })
    const csv = await effects.exportFindings({ scanId: 11 as ScanId, format: "csv", service_id: 101 as ServiceId, status: "fail,remediated", severity: "high" })
    expect(query(calls.at(-1)!)).toEqual({ format: "csv", service_id: "101", status: "fail,remediated", severity: "high" })
    expect(csv).toEqual({
      fileName: "scan-11-findings-2025-03-01T12-00-00-000Z.csv",
      contentType: "text/csv; charset=utf-8",
      content: "id,severity\n5,high\n",
    })
    const js = await effects.exportFindings({ scanId: 11 as ScanId, format: "json" })
    expect(JSON.parse(js.content)).toEqual([{ id: 5, severity: "high" }])
    expect(js.fileName).toBe("scan-11-findings-2025-03-01T12-00-00-000Z.json")
    await expect(effects.exportFindings({ scanId: 11 as ScanId, format: "ocsf" })).rejects.toMatchObject({
      message: "Findings can be exported only when the scan is completed",
    })
  })

  it("the memo drops failures so the next reader asks again", async () => {
    const clock = newClock()
    const memo = createMemo(clock)
    let n = 0
    await expect(memo.get("k", 1000, async () => { n += 1; throw new Error("x") })).rejects.toThrow("x")
    await memo.get("k", 1000, async () => { n += 1; return 1 })
    expect(n).toBe(2)
  })
})
