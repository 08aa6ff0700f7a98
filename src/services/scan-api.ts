/**
 * Typed calls for every scanning-area endpoint (scanning spec §7), built on the shared API client, and the scanning
 * screens' effects built from the SPA services (`scanEffectsFrom(services)`, handed to `<ScanEffectsProvider>` in
 * src/main.tsx).
 *
 * `SCANNING_ENDPOINTS` lists each call once: method, path, the contract's response schema and the §8 error flow
 * whose texts apply (dashboard load, account details / refresh, account add / delete, scan start, scan load,
 * finding load, remediation, export). The client decodes every answer with the contract and retries timeouts and
 * 5xx (never 4xx); every failure rejects with an `ApiError` carrying the flow's text.
 *
 * Caching (scanning §9), per selected workspace: cloud providers are kept 5 minutes; each provider's accounts are
 * stale after 1 s (concurrent readers share one call); an account detail fetched by the dashboard's prefetch is used
 * for 60 s. Adding or deleting an account and starting a scan drop the accounts and account-detail entries.
 *
 * Export: the file comes through the same client (auth, refresh, retries, §8 texts); CSV arrives as text, JSON and
 * OCSF as parsed JSON, which is serialised again. The saved name is `exportFileName(scan id, format, now)`.
 */
import { Schema } from "effect"
import {
  AccountDetailResponse,
  AccountsResponse,
  AddAccountResponse,
  DeleteAccountResponse,
  ExternalIdResponse,
  RevealSecretResponse,
  type AccountDetail,
  type AddAccountPayload,
} from "../contracts/accounts.ts"
import { Query } from "../contracts/constants.ts"
import {
  FindingListResponse,
  FindingResponse,
  RemediateResponse,
  type DetailRow,
  type FindingDetailQuery,
  type FindingsQuery,
} from "../contracts/findings.ts"
import type { AccountId, CloudProviderId, FindingId, ScanId } from "../contracts/ids.ts"
import { hasPermission, unionPermissions } from "../contracts/permissions.ts"
import { CloudProvidersResponse, type CloudProvider } from "../contracts/providers.ts"
import {
  CancelScanResponse,
  EXPORT_CONTENT_TYPES,
  exportFileName,
  ScanListResponse,
  ScanResponse,
  ScanStartResponse,
  type ExportQuery,
  type ScanStartPayload,
} from "../contracts/scans.ts"
import {
  DigestPreferenceResponse,
  MuteRuleDeleteResponse,
  MuteRuleListResponse,
  MuteRuleResponse,
  PostureOverviewResponse,
  ResourceHistoryResponse,
  ScanScheduleResponse,
  type DigestPreference,
  type MuteRulePayload,
  type ScanSchedulePayload,
} from "../contracts/posture.ts"
import { RemediationRequestedResponse } from "../contracts/remediation-requests.ts"
import {
  RemediationListResponse,
  RemediationPreviewResponse,
  RemediationResponse,
  type RemediationId,
  type RemediationPreviewPayload,
} from "../contracts/remediations.ts"
import type { ExportedFile, ExportRequest, ScanEffects, ScanViewer } from "../machines/scan-effects.ts"
import { endpoint, pathWith, type ApiClient, type Clock, type Endpoint } from "./api-client.ts"
import type { AppServices } from "./app-services.ts"

/** Every scanning-area call (scanning §7), by name. */
export const SCANNING_ENDPOINTS = {
  providers: endpoint({ method: "GET", path: "/api/cloud-providers", response: CloudProvidersResponse, flow: "dashboard-load" }),
  accounts: endpoint({ method: "GET", path: "/api/accounts", response: AccountsResponse, flow: "dashboard-load" }),
  account: endpoint({ method: "GET", path: "/api/accounts/:id", response: AccountDetailResponse, flow: "account-details" }),
  /** The same call as `account`, made by the page's Refresh: 'Failed to refresh account details'. */
  accountRefresh: endpoint({ method: "GET", path: "/api/accounts/:id", response: AccountDetailResponse, flow: "account-refresh" }),
  addAccount: endpoint({ method: "POST", path: "/api/accounts", response: AddAccountResponse, flow: "account-add" }),
  deleteAccount: endpoint({ method: "DELETE", path: "/api/accounts/:id", response: DeleteAccountResponse, flow: "account-delete" }),
  revealSecret: endpoint({ method: "POST", path: "/api/accounts/:id/reveal-secret", response: RevealSecretResponse }),
  /** The workspace's AWS external id (created by the server on first use), shown by the add-account wizard. */
  externalId: endpoint({ method: "GET", path: "/api/accounts/external-id", response: ExternalIdResponse }),
  startScan: endpoint({ method: "POST", path: "/api/scans", response: ScanStartResponse, flow: "scan-start" }),
  scans: endpoint({ method: "GET", path: "/api/scans", response: ScanListResponse, flow: "scan-load" }),
  scan: endpoint({ method: "GET", path: "/api/scans/:id", response: ScanResponse, flow: "scan-load" }),
  cancelScan: endpoint({ method: "POST", path: "/api/scans/:id/cancel", response: CancelScanResponse }),
  findings: endpoint({ method: "GET", path: "/api/findings", response: FindingListResponse, flow: "scan-load" }),
  finding: endpoint({ method: "GET", path: "/api/findings/:id", response: FindingResponse, flow: "finding-load" }),
  /** 200 with the row, or 202 with the approval request created (an account that requires approval, issue 32). */
  remediate: endpoint({
    method: "POST",
    path: "/api/findings/:id/remediate",
    response: Schema.Union([RemediationRequestedResponse, RemediateResponse]),
    flow: "remediation",
  }),
  // Beyond the spec (issue 32): the preview of a fix, a finding's remediations and their undo (the server's messages).
  remediationPreview: endpoint({ method: "POST", path: "/api/findings/:id/remediation-preview", response: RemediationPreviewResponse }),
  remediations: endpoint({ method: "GET", path: "/api/remediations", response: RemediationListResponse }),
  undoRemediation: endpoint({ method: "POST", path: "/api/remediations/:id/undo", response: RemediationResponse }),
  /** The body is a file: text (CSV) or JSON (JSON, OCSF). */
  exportScan: endpoint({ method: "GET", path: "/api/scans/:id/export", response: Schema.Unknown, flow: "export" }),
  // Beyond the spec (issue 13): mute rules, schedules, digest preference (the server's own messages).
  muteRules: endpoint({ method: "GET", path: "/api/mute-rules", response: MuteRuleListResponse }),
  createMuteRule: endpoint({ method: "POST", path: "/api/mute-rules", response: MuteRuleResponse }),
  updateMuteRule: endpoint({ method: "PUT", path: "/api/mute-rules/:id", response: MuteRuleResponse }),
  deleteMuteRule: endpoint({ method: "DELETE", path: "/api/mute-rules/:id", response: MuteRuleDeleteResponse }),
  schedule: endpoint({ method: "GET", path: "/api/accounts/:id/schedule", response: ScanScheduleResponse }),
  putSchedule: endpoint({ method: "PUT", path: "/api/accounts/:id/schedule", response: ScanScheduleResponse }),
  digest: endpoint({ method: "GET", path: "/api/user/scan-digest", response: DigestPreferenceResponse }),
  postureOverview: endpoint({ method: "GET", path: "/api/posture/overview", response: PostureOverviewResponse }),
  resourceHistory: endpoint({ method: "GET", path: "/api/resources/history", response: ResourceHistoryResponse }),
  putDigest: endpoint({ method: "PUT", path: "/api/user/scan-digest", response: DigestPreferenceResponse }),
} satisfies Record<string, Endpoint<unknown>>

type Key = keyof typeof SCANNING_ENDPOINTS
type Response<K extends Key> = (typeof SCANNING_ENDPOINTS)[K] extends Endpoint<infer A> ? A : never

export interface ScanApi {
  readonly providers: (signal?: AbortSignal) => Promise<Response<"providers">>
  readonly accounts: (query: { readonly cloud_provider_id: CloudProviderId }, signal?: AbortSignal) => Promise<Response<"accounts">>
  readonly account: (params: { readonly id: AccountId }, signal?: AbortSignal) => Promise<Response<"account">>
  readonly accountRefresh: (params: { readonly id: AccountId }, signal?: AbortSignal) => Promise<Response<"accountRefresh">>
  readonly addAccount: (payload: AddAccountPayload, signal?: AbortSignal) => Promise<Response<"addAccount">>
  readonly deleteAccount: (params: { readonly id: AccountId }, signal?: AbortSignal) => Promise<Response<"deleteAccount">>
  readonly revealSecret: (params: { readonly id: AccountId }, signal?: AbortSignal) => Promise<Response<"revealSecret">>
  readonly externalId: (signal?: AbortSignal) => Promise<Response<"externalId">>
  readonly startScan: (payload: ScanStartPayload, signal?: AbortSignal) => Promise<Response<"startScan">>
  readonly scans: (query: { readonly page: number; readonly page_size: number }, signal?: AbortSignal) => Promise<Response<"scans">>
  readonly scan: (params: { readonly id: ScanId }, signal?: AbortSignal) => Promise<Response<"scan">>
  readonly cancelScan: (params: { readonly id: ScanId }, signal?: AbortSignal) => Promise<Response<"cancelScan">>
  readonly findings: (query: FindingsQuery, signal?: AbortSignal) => Promise<Response<"findings">>
  readonly finding: (params: { readonly id: FindingId; readonly query?: FindingDetailQuery }, signal?: AbortSignal) => Promise<Response<"finding">>
  readonly remediate: (params: { readonly id: FindingId; readonly details: DetailRow }, signal?: AbortSignal) => Promise<Response<"remediate">>
  readonly remediationPreview: (params: { readonly id: FindingId; readonly payload: RemediationPreviewPayload }, signal?: AbortSignal) => Promise<Response<"remediationPreview">>
  readonly remediations: (query: { readonly finding_id: FindingId }, signal?: AbortSignal) => Promise<Response<"remediations">>
  readonly undoRemediation: (params: { readonly id: RemediationId; readonly force: boolean }, signal?: AbortSignal) => Promise<Response<"undoRemediation">>
  readonly exportScan: (params: { readonly id: ScanId; readonly query: ExportQuery }, signal?: AbortSignal) => Promise<unknown>
  readonly muteRules: (query: { readonly account_id?: AccountId }, signal?: AbortSignal) => Promise<Response<"muteRules">>
  readonly createMuteRule: (payload: MuteRulePayload, signal?: AbortSignal) => Promise<Response<"createMuteRule">>
  readonly updateMuteRule: (params: { readonly id: number; readonly payload: MuteRulePayload }, signal?: AbortSignal) => Promise<Response<"updateMuteRule">>
  readonly deleteMuteRule: (params: { readonly id: number }, signal?: AbortSignal) => Promise<Response<"deleteMuteRule">>
  readonly schedule: (params: { readonly id: AccountId }, signal?: AbortSignal) => Promise<Response<"schedule">>
  readonly putSchedule: (params: { readonly id: AccountId; readonly schedule: ScanSchedulePayload }, signal?: AbortSignal) => Promise<Response<"putSchedule">>
  readonly digest: (signal?: AbortSignal) => Promise<Response<"digest">>
  readonly postureOverview: (signal?: AbortSignal) => Promise<Response<"postureOverview">>
  readonly resourceHistory: (query: { readonly account_id: AccountId; readonly uid: string }, signal?: AbortSignal) => Promise<Response<"resourceHistory">>
  readonly putDigest: (payload: DigestPreference, signal?: AbortSignal) => Promise<Response<"putDigest">>
}

const signalOpt = (signal: AbortSignal | undefined) => (signal === undefined ? {} : { signal })

type QueryValues = Readonly<Record<string, string | number | boolean | undefined>>

export const createScanApi = (client: ApiClient): ScanApi => {
  const E = SCANNING_ENDPOINTS
  const at = <K extends Key>(key: K, params: Readonly<Record<string, string | number>>): Endpoint<Response<K>> => {
    const e = E[key] as Endpoint<Response<K>>
    return { ...e, path: pathWith(e.path, params) }
  }
  return {
    providers: (signal) => client.request(E.providers, signalOpt(signal)),
    accounts: (query, signal) => client.request(E.accounts, { query, ...signalOpt(signal) }),
    account: ({ id }, signal) => client.request(at("account", { id }), signalOpt(signal)),
    accountRefresh: ({ id }, signal) => client.request(at("accountRefresh", { id }), signalOpt(signal)),
    addAccount: (payload, signal) => client.request(E.addAccount, { body: payload, ...signalOpt(signal) }),
    deleteAccount: ({ id }, signal) => client.request(at("deleteAccount", { id }), signalOpt(signal)),
    revealSecret: ({ id }, signal) => client.request(at("revealSecret", { id }), signalOpt(signal)),
    externalId: (signal) => client.request(E.externalId, signalOpt(signal)),
    startScan: (payload, signal) => client.request(E.startScan, { body: payload, ...signalOpt(signal) }),
    scans: (query, signal) => client.request(E.scans, { query, ...signalOpt(signal) }),
    scan: ({ id }, signal) => client.request(at("scan", { id }), signalOpt(signal)),
    cancelScan: ({ id }, signal) => client.request(at("cancelScan", { id }), signalOpt(signal)),
    findings: (query, signal) => client.request(E.findings, { query: query as QueryValues, ...signalOpt(signal) }),
    finding: ({ id, query }, signal) =>
      client.request(at("finding", { id }), { ...(query === undefined ? {} : { query: query as QueryValues }), ...signalOpt(signal) }),
    remediate: ({ id, details }, signal) => client.request(at("remediate", { id }), { body: { details }, ...signalOpt(signal) }),
    remediationPreview: ({ id, payload }, signal) => client.request(at("remediationPreview", { id }), { body: payload, ...signalOpt(signal) }),
    remediations: (query, signal) => client.request(E.remediations, { query, ...signalOpt(signal) }),
    undoRemediation: ({ id, force }, signal) => client.request(at("undoRemediation", { id }), { body: force ? { force } : {}, ...signalOpt(signal) }),
    exportScan: ({ id, query }, signal) => client.request(at("exportScan", { id }), { query: query as QueryValues, ...signalOpt(signal) }),
    muteRules: (query, signal) => client.request(E.muteRules, { query: query as QueryValues, ...signalOpt(signal) }),
    createMuteRule: (payload, signal) => client.request(E.createMuteRule, { body: payload, ...signalOpt(signal) }),
    updateMuteRule: ({ id, payload }, signal) => client.request(at("updateMuteRule", { id }), { body: payload, ...signalOpt(signal) }),
    deleteMuteRule: ({ id }, signal) => client.request(at("deleteMuteRule", { id }), signalOpt(signal)),
    schedule: ({ id }, signal) => client.request(at("schedule", { id }), signalOpt(signal)),
    putSchedule: ({ id, schedule }, signal) => client.request(at("putSchedule", { id }), { body: schedule, ...signalOpt(signal) }),
    digest: (signal) => client.request(E.digest, signalOpt(signal)),
    postureOverview: (signal) => client.request(E.postureOverview, signalOpt(signal)),
    resourceHistory: (query, signal) => client.request(E.resourceHistory, { query: query as QueryValues, ...signalOpt(signal) }),
    putDigest: (payload, signal) => client.request(E.putDigest, { body: payload, ...signalOpt(signal) }),
  }
}

// ---------------------------------------------------------------------------------------------------
// A small time-bounded memo (scanning §9 stale times), keyed per workspace.

interface MemoEntry<T> {
  readonly at: number
  readonly promise: Promise<T>
  settled: boolean
  failed: boolean
}

/** Keeps one answer per key for `ttlMs`; concurrent readers share the call; failures are not kept. */
export const createMemo = (clock: Pick<Clock, "now">) => {
  const entries = new Map<string, MemoEntry<unknown>>()
  const fresh = (entry: MemoEntry<unknown> | undefined, ttlMs: number): entry is MemoEntry<unknown> =>
    entry !== undefined && !entry.failed && (!entry.settled || clock.now() - entry.at < ttlMs)
  return {
    get<T>(key: string, ttlMs: number, load: () => Promise<T>): Promise<T> {
      const current = entries.get(key)
      if (fresh(current, ttlMs)) return current.promise as Promise<T>
      return this.put(key, load)
    },
    put<T>(key: string, load: () => Promise<T>): Promise<T> {
      const promise = load()
      const entry: MemoEntry<unknown> = { at: clock.now(), promise, settled: false, failed: false }
      entries.set(key, entry)
      promise.then(
        () => {
          entry.settled = true
        },
        () => {
          entry.settled = true
          entry.failed = true
          if (entries.get(key) === entry) entries.delete(key)
        },
      )
      return promise
    },
    /** Drops every key starting with `prefix`. */
    drop(prefix: string): void {
      for (const key of [...entries.keys()]) if (key.startsWith(prefix)) entries.delete(key)
    },
  }
}

// ---------------------------------------------------------------------------------------------------
// Effects

/** What `scanEffectsFrom` needs (`AppServices` satisfies it). */
export type ScanServices = Pick<AppServices, "client" | "cache" | "queries" | "workspaceStore" | "clock">

/** The export answer as a file's text: CSV is text already; JSON arrives parsed. */
export const exportContent = (body: unknown): string => (typeof body === "string" ? body : `${JSON.stringify(body, null, 2)}\n`)

export const scanEffectsFrom = (services: ScanServices, api: ScanApi = createScanApi(services.client)): ScanEffects => {
  const memo = createMemo(services.clock)
  const ws = () => String(services.workspaceStore.getSnapshot().selectedWorkspaceId)
  // Shared calls are made without the caller's signal: another reader may still want the answer.
  const dropAccounts = () => {
    memo.drop(`${ws()}:accounts:`)
    memo.drop(`${ws()}:account:`)
  }

  const loadViewer = async (_: void, signal?: AbortSignal): Promise<ScanViewer> => {
    const { cache, queries } = services
    const user = queries.user()
    const permissions = queries.permissions(services.workspaceStore.getSnapshot().selectedWorkspaceId)
    const [u, p] = await Promise.all([cache.fetchQuery(user.key, user.fetch, signal), cache.fetchQuery(permissions.key, permissions.fetch, signal)])
    const subject = {
      isOwner: p.is_owner ?? u.is_owner ?? false,
      permissions: unionPermissions([...p.roles, ...p.custom_roles]),
      roles: [],
    }
    return {
      userId: u.id,
      canLaunchScans: hasPermission(subject, "scan_service"),
      canRemediate: hasPermission(subject, "remediate_findings"),
    }
  }

  const exportFindings = async (request: ExportRequest, signal?: AbortSignal): Promise<ExportedFile> => {
    const { scanId, ...query } = request
    const body = await api.exportScan({ id: scanId, query }, signal)
    return {
      fileName: exportFileName(scanId, request.format, new Date(services.clock.now())),
      contentType: EXPORT_CONTENT_TYPES[request.format],
      content: exportContent(body),
    }
  }

  return {
    loadProviders: (): Promise<ReadonlyArray<CloudProvider>> =>
      memo.get(`${ws()}:providers`, Query.cloudProvidersCacheMs, () => api.providers().then((r) => r.data.cloud_providers)),
    loadAccounts: ({ cloud_provider_id }) =>
      memo.get(`${ws()}:accounts:${cloud_provider_id}`, Query.accountsStaleTimeMs, () =>
        api.accounts({ cloud_provider_id }).then((r) => r.data.accounts),
      ),
    loadAccountDetail: ({ id }, signal): Promise<AccountDetail> =>
      memo.get(`${ws()}:account:${id}`, Query.accountDetailPrefetchMs, () => api.account({ id }, signal).then((r) => r.data)),
    refreshAccountDetail: ({ id }, signal) =>
      memo.put(`${ws()}:account:${id}`, () => api.accountRefresh({ id }, signal).then((r) => r.data)),
    prefetchAccountDetail: (id) => {
      memo.get(`${ws()}:account:${id}`, Query.accountDetailPrefetchMs, () => api.account({ id }).then((r) => r.data)).catch(() => {})
    },
    addAccount: async (payload, signal) => {
      const answer = await api.addAccount(payload, signal)
      if (payload.test_only !== true) dropAccounts()
      return answer
    },
    deleteAccount: async ({ id }, signal) => {
      const answer = await api.deleteAccount({ id }, signal)
      dropAccounts()
      return answer
    },
    revealSecret: ({ id }, signal) => api.revealSecret({ id }, signal).then((r) => r.data.secret_key),
    // The workspace's AWS external id (GET /api/accounts/external-id, decoded with the contract's schema); the wizard
    // shows it next to the role ARN field. A failure rejects and the wizard keeps its "generated for the workspace" note.
    loadExternalId: (_: void, signal) => api.externalId(signal).then((r) => r.data.external_id),
    loadViewer,
    startScan: async (payload, signal) => {
      const answer = await api.startScan(payload, signal)
      dropAccounts()
      return answer
    },
    listScans: (query, signal) => api.scans(query, signal),
    getScan: ({ id }, signal) => api.scan({ id }, signal).then((r) => r.data),
    cancelScan: ({ id }, signal) => api.cancelScan({ id }, signal),
    listFindings: (query, signal) => api.findings(query, signal),
    getFinding: ({ id, ...query }, signal) => api.finding({ id, query }, signal).then((r) => r.data),
    remediate: (params, signal) => api.remediate(params, signal),
    previewRemediation: (params, signal) => api.remediationPreview(params, signal).then((r) => r.data),
    listRemediations: (query, signal) => api.remediations(query, signal).then((r) => r.data),
    undoRemediation: (params, signal) => api.undoRemediation(params, signal).then((r) => r.data),
    exportFindings,
    listMuteRules: (query, signal) => api.muteRules(query, signal).then((r) => r.data),
    createMuteRule: (payload, signal) => api.createMuteRule(payload, signal),
    updateMuteRule: (params, signal) => api.updateMuteRule(params, signal),
    deleteMuteRule: (params, signal) => api.deleteMuteRule(params, signal),
    getSchedule: (params, signal) => api.schedule(params, signal).then((r) => r.data),
    putSchedule: (params, signal) => api.putSchedule(params, signal).then((r) => ({ message: r.message ?? "", schedule: r.data })),
    getDigest: (_: void, signal) => api.digest(signal).then((r) => r.data),
    loadPostureOverview: (_: void, signal) => api.postureOverview(signal).then((r) => r.data),
    loadResourceHistory: (query, signal) => api.resourceHistory(query, signal).then((r) => r.data),
    putDigest: (payload, signal) => api.putDigest(payload, signal).then((r) => ({ message: r.message ?? "", preference: r.data })),
  }
}
