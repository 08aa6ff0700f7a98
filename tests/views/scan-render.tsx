/**
 * Renders one scanning screen inside the app's root (toasts, router bridge) at a path, with fake scan effects over an
 * in-memory workspace (providers, accounts, scans, findings; every call recorded, any effect replaceable), a
 * simulated clock shared by the toasts and the screens' polls, and a recorder for downloaded files.
 */
import { act, render } from "@testing-library/react"
import type { ReactNode } from "react"
import { Route, Switch } from "wouter"
import { memoryLocation } from "wouter/memory-location"
import { SimulatedClock } from "xstate"
import type { Account, AccountDetail } from "../../src/contracts/accounts.ts"
import type { Finding } from "../../src/contracts/findings.ts"
import type { Scan } from "../../src/contracts/scans.ts"
import type { CloudProvider } from "../../src/contracts/providers.ts"
import type { ExportedFile, ScanEffects, ScanViewer } from "../../src/machines/scan-effects.ts"
import { App } from "../../src/views/app.tsx"
import { ScanEffectsProvider } from "../../src/views/scanning/scan-effects-context.tsx"
import { ApprovalsEffectsProvider } from "../../src/views/approvals/approvals-effects-context.tsx"
import type { ApprovalsEffects } from "../../src/machines/approvals-effects.ts"
import { SessionStatusContext } from "../../src/views/session-status.tsx"
import { flush } from "../machines/auth-fakes.ts"
import { account, accountDetail, finding, muteRule, providers, scan, schedule } from "../machines/scan-fakes.ts"
import type { MuteRule, PostureOverview, ResourceHistory, ScanSchedule } from "../../src/contracts/posture.ts"
import { preloadScreens } from "../../src/views/routes.tsx"
import type { Remediation } from "../../src/contracts/remediations.ts"
import { preview } from "../machines/remediation-fakes.ts"

// Every screen but sign-in loads lazily; fetched up front, rendering a route is synchronous as in a warm browser.
await preloadScreens()

export interface ScanWorld {
  providers: ReadonlyArray<CloudProvider>
  accounts: Account[]
  details: Map<number, AccountDetail>
  scans: Scan[]
  findings: Finding[]
  viewer: ScanViewer
  muteRules: MuteRule[]
  schedule: ScanSchedule
  digest: boolean
  overview: PostureOverview
  resources: ResourceHistory[]
  /** The finding page's remediations (issue 32). */
  remediations: Remediation[]
}

export const defaultWorld = (): ScanWorld => ({
  providers,
  accounts: [
    account(1, { account_name: "Production", failed_findings: 3, status: "completed" }),
    account(2, { account_name: "Staging", failed_findings: 0, status: "completed" }),
    account(3, { account_name: "Sandbox", failed_findings: 0, status: "failed" }),
  ],
  details: new Map([[1, accountDetail(1, { account_name: "Production" })]]),
  scans: [scan(11)],
  findings: [finding(5)],
  viewer: { userId: 7 as never, canLaunchScans: true, canRemediate: true },
  muteRules: [],
  schedule: schedule(),
  digest: false,
  overview: { accounts: [], top_failing_checks: [], stale_after_days: 7 },
  resources: [],
  remediations: [],
})

export interface Call {
  readonly name: keyof ScanEffects
  readonly payload: unknown
}

/** Fake effects answering from `world`; `overrides` replace single effects. */
export const fakeScanEffects = (world: ScanWorld, overrides: Partial<ScanEffects> = {}) => {
  const calls: Call[] = []
  const log = <P, A>(name: keyof ScanEffects, fn: (p: P) => A | Promise<A>) => async (p: P): Promise<A> => {
    calls.push({ name, payload: p })
    return fn(p)
  }
  const base: ScanEffects = {
    loadProviders: log("loadProviders", () => world.providers),
    loadAccounts: log("loadAccounts", ({ cloud_provider_id }) => world.accounts.filter((a) => a.cloud_provider_id === cloud_provider_id)),
    loadAccountDetail: log("loadAccountDetail", ({ id }) => {
      const d = world.details.get(id)
      if (d === undefined) throw { type: "UNKNOWN_ERROR", message: "Account not found", status: 404 }
      return d
    }),
    refreshAccountDetail: log("refreshAccountDetail", ({ id }) => world.details.get(id)!),
    prefetchAccountDetail: (id) => void calls.push({ name: "prefetchAccountDetail", payload: id }),
    addAccount: log("addAccount", (p) => {
      if (p.test_only === true) return { ok: true, message: "Connection successful!", data: { tested: true } }
      const added = account(world.accounts.length + 10, { account_name: p.account_name, status: null, failed_findings: 0, last_scan_date: null, total_scans: 0 })
      world.accounts.push(added)
      return { ok: true, message: "Account added successfully", data: { account: added, tested: true } }
    }),
    deleteAccount: log("deleteAccount", ({ id }) => {
      world.accounts = world.accounts.filter((a) => a.id !== id)
      return { ok: true, message: "Account deleted successfully" }
    }),
    revealSecret: log("revealSecret", () => "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
    loadExternalId: async () => null,
    loadViewer: log("loadViewer", () => world.viewer),
    startScan: log("startScan", () => ({ ok: true, message: "Scan started", data: scan(99, { status: "pending" }) })),
    listScans: log("listScans", ({ page, page_size }) => ({
      ok: true,
      data: world.scans.slice((page - 1) * page_size, page * page_size),
      pagination: { page, total_pages: Math.ceil(world.scans.length / page_size), total: world.scans.length, page_size },
    })),
    getScan: log("getScan", ({ id }) => {
      const s = world.scans.find((x) => x.id === id)
      if (s === undefined) throw { type: "UNKNOWN_ERROR", message: "Scan not found", status: 404 }
      return s
    }),
    cancelScan: log("cancelScan", ({ id }) => ({ ok: true, message: "Scan canceled", data: { ...world.scans.find((x) => x.id === id)!, status: "failed" as const } })),
    // A small stand-in for the server's filters (status, severity), its totals and its cursor ("after:<offset>").
    listFindings: log("listFindings", (q) => {
      const inScope = world.findings.filter((f) => q.service_id === undefined || f.service_id === q.service_id)
      const rows = inScope.filter((f) =>
        (q.status === undefined || q.status.split(",").includes(f.muted ? "muted" : f.outcome)) &&
        (q.severity === undefined || q.severity.split(",").includes(f.severity)))
      const size = q.page_size ?? 20
      const offset = q.cursor === undefined ? ((q.page ?? 1) - 1) * size : Number(q.cursor.replace("after:", ""))
      const data = rows.slice(offset, offset + size)
      return {
        ok: true,
        data,
        pagination: { page: Math.floor(offset / size) + 1, total_pages: Math.max(1, Math.ceil(rows.length / size)), total: rows.length, page_size: size },
        totals: {
          findings: rows.length,
          findings_unfiltered: inScope.length,
          resources_checked: rows.reduce((n, f) => n + f.resources_checked, 0),
          resources_failing: rows.reduce((n, f) => n + Math.max(0, f.resources_failing - f.resources_remediated - f.resources_muted), 0),
          resources_matched: null,
        },
        next_cursor: offset + data.length < rows.length ? `after:${offset + data.length}` : null,
        regions: ["eu-west-1", "us-east-1"],
      }
    }),
    getFinding: log("getFinding", ({ id }) => {
      const f = world.findings.find((x) => x.id === id)
      if (f === undefined) throw { type: "UNKNOWN_ERROR", message: "Failed to load finding details. Please try again.", status: 500 }
      return f
    }),
    remediate: log("remediate", ({ details }) => ({
      ok: true,
      message: "Remediation started",
      data: { details: { ...details, remediate: { status: "pending", message: null, attempted_at: "2025-03-01T11:00:00.000Z", attempted_by: 7 as never } } },
    })),
    previewRemediation: log("previewRemediation", () => preview()),
    listRemediations: log("listRemediations", () => world.remediations),
    undoRemediation: log("undoRemediation", ({ id }) => {
      const i = world.remediations.findIndex((r) => r.id === id)
      if (i < 0) throw { type: "NOT_FOUND", message: "Remediation not found", status: 404 }
      const undoing = { ...world.remediations[i]!, state: "undoing" as const, undo: { ...world.remediations[i]!.undo, available: false } }
      world.remediations[i] = undoing
      return undoing
    }),
    listMuteRules: log("listMuteRules", () => world.muteRules),
    createMuteRule: log("createMuteRule", (p) => {
      const rule = muteRule(world.muteRules.length + 3, {
        reason: p.reason, check_id: p.check_id ?? null, resource_pattern: p.resource_pattern ?? null, tag_key: p.tag_key ?? null, tag_value: p.tag_value ?? null,
      })
      world.muteRules.push(rule)
      return { ok: true, message: "Mute rule created", data: rule, rows_changed: 1 }
    }),
    updateMuteRule: log("updateMuteRule", ({ id, payload }) => {
      const i = world.muteRules.findIndex((r) => r.id === id)
      const rule = muteRule(id, { reason: payload.reason, check_id: payload.check_id ?? null, resource_pattern: payload.resource_pattern ?? null, tag_key: payload.tag_key ?? null, tag_value: payload.tag_value ?? null })
      world.muteRules[i] = rule
      return { ok: true, message: "Mute rule updated", data: rule, rows_changed: 0 }
    }),
    deleteMuteRule: log("deleteMuteRule", ({ id }) => {
      world.muteRules = world.muteRules.filter((r) => r.id !== id)
      return { ok: true, message: "Mute rule deleted" }
    }),
    getSchedule: log("getSchedule", () => world.schedule),
    putSchedule: log("putSchedule", ({ schedule: s }) => {
      world.schedule = { ...world.schedule, ...s, regions: s.regions ?? null, services: s.services ?? null, next_run_at: s.frequency === "off" ? null : "2025-03-02T02:00:00.000Z" }
      return { message: "Schedule saved", schedule: world.schedule }
    }),
    getDigest: log("getDigest", () => ({ scan_digest: world.digest })),
    loadPostureOverview: log("loadPostureOverview", () => world.overview),
    loadResourceHistory: log("loadResourceHistory", ({ account_id, uid }) => {
      const h = world.resources.find((r) => r.account_id === account_id && r.resource_uid === uid)
      if (h === undefined) throw { type: "NOT_FOUND", message: "Resource not found", status: 404 }
      return h
    }),
    putDigest: log("putDigest", (p) => {
      world.digest = p.scan_digest
      return { message: "Email preference saved", preference: { scan_digest: world.digest } }
    }),
    exportFindings: log("exportFindings", (r) => ({
      fileName: `scan-${r.scanId}-findings-2025-03-01T12-00-00-000Z.${r.format === "csv" ? "csv" : "json"}`,
      contentType: r.format === "csv" ? "text/csv" : "application/json",
      content: "id\n5\n",
    })),
  }
  return { effects: { ...base, ...overrides }, calls, called: (name: keyof ScanEffects) => calls.filter((c) => c.name === name) }
}

export interface RenderScanOptions {
  readonly world?: ScanWorld
  readonly overrides?: Partial<ScanEffects>
  /** Route pattern of the screen (so `useParams` works). */
  readonly pattern: string
  readonly screen: ReactNode
}

/** The account page's approval card (issue 32) reads the default setting: approval off, 72 hours. */
const APPROVALS: ApprovalsEffects = {
  listRequests: async () => [],
  decide: async () => Promise.reject(new Error("no decision in the scanning views")),
  loadApprovalSetting: async () => ({ requires_approval: false, expiry_hours: 72 }),
  saveApprovalSetting: async ({ setting }) => ({ message: "Approval setting saved", setting }),
}

export const renderScan = async (path: string, options: RenderScanOptions) => {
  const world = options.world ?? defaultWorld()
  const fake = fakeScanEffects(world, options.overrides)
  const files: ExportedFile[] = []
  const location = memoryLocation({ path, record: true })
  const clock = new SimulatedClock()
  clock.set(Date.parse("2025-03-01T12:00:00.000Z"))
  const result = render(
    <SessionStatusContext value="authenticated">
      <ScanEffectsProvider effects={fake.effects} clock={clock} saveFile={(f) => void files.push(f)}>
        <ApprovalsEffectsProvider effects={APPROVALS} clock={clock}>
          <App clock={clock} location={location}>
            <Switch>
              <Route path={options.pattern}>{options.screen}</Route>
              <Route>elsewhere</Route>
            </Switch>
          </App>
        </ApprovalsEffectsProvider>
      </ScanEffectsProvider>
    </SessionStatusContext>,
  )
  await settle()
  const currentUrl = () => location.history.at(-1) ?? ""
  const tick = async (ms: number) => {
    await act(async () => {
      clock.increment(ms)
      await flush()
    })
    await settle()
  }
  return { ...result, world, ...fake, files, location, clock, currentUrl, tick }
}

/** Lets the fakes' promises and React's updates run. */
export const settle = async (): Promise<void> => {
  for (let i = 0; i < 3; i += 1) {
    await act(async () => {
      await flush()
    })
  }
}
