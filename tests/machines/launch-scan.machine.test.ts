import { describe, expect, it } from "vitest"
import { createActor, SimulatedClock } from "xstate"
import type { AccountId } from "../../src/contracts/ids.ts"
import type { ScanStartPayload, ScanStartResponse } from "../../src/contracts/scans.ts"
import { launchScanMachine, selectCanLaunch, type LaunchOptions } from "../../src/machines/launch-scan.machine.ts"
import { coverTransitions, formatCoverage } from "../support/graph.ts"
import { controlled, httpFailure, never } from "./auth-fakes.ts"
import { account, environment, providers, scan, viewer } from "./scan-fakes.ts"

const options = (overrides: Partial<LaunchOptions> = {}): LaunchOptions => ({
  viewer: viewer(),
  providers,
  accounts: [account(1), account(2, { account_name: "Staging" })],
  ...overrides,
})
const started: ScanStartResponse = { ok: true, message: "Scan started", data: scan(12, { status: "pending" }) }

const start = (accountId: AccountId | null = null) => {
  const load = controlled<void, LaunchOptions>()
  const startScan = controlled<ScanStartPayload, ScanStartResponse>()
  const env = environment()
  const actor = createActor(
    launchScanMachine.provide({ actors: { loadLaunchOptions: load.logic, startScan: startScan.logic }, actions: { notify: env.notify } }),
    { input: { accountId }, clock: new SimulatedClock() },
  ).start()
  return { actor, load, startScan, env }
}

describe("launch-scan machine", () => {
  it("drives every (state, event) edge", async () => {
    const provided = launchScanMachine.provide({ actors: { loadLaunchOptions: never(), startScan: never() } })
    const input = { accountId: null }
    const coverage = await coverTransitions(provided, {
      input,
      createActor: (clock) => createActor(provided, { input, clock }),
      events: [
        { type: "xstate.done.actor.loadLaunchOptions", output: options() },
        { type: "xstate.done.actor.loadLaunchOptions", output: options({ accounts: [] }) },
        { type: "xstate.error.actor.loadLaunchOptions", error: httpFailure("dashboard-load", 500) },
        { type: "account.selected", accountId: 1 },
        { type: "account.selected", accountId: null },
        { type: "xstate.done.actor.startScan", output: started },
        { type: "xstate.error.actor.startScan", error: httpFailure("scan-start", 500) },
      ],
      serializeState: (s) => JSON.stringify([s.value, s.context.selectedAccountId !== null]),
    })
    console.info(formatCoverage("launchScan", coverage))
    expect(coverage.missing).toEqual([])
    expect(coverage.driven).toBe(coverage.total)
  })

  it("checks the selection, then starts the scan with the spec's payload and finishes with it", async () => {
    const { actor, load, startScan, env } = start()
    try {
      await load.resolve(options())
      expect(actor.getSnapshot().value).toBe("ready")
      expect(selectCanLaunch(actor.getSnapshot())).toBe(true)
      actor.send({ type: "launch.requested" })
      expect(actor.getSnapshot().context.error).toBe("Please select an account to scan")
      expect(startScan.calls).toEqual([])
      actor.send({ type: "account.selected", accountId: 2 as AccountId })
      expect(actor.getSnapshot().context.error).toBeNull()
      actor.send({ type: "launch.requested" })
      expect(startScan.calls).toEqual([{ user_id: 7, account_id: 2, cloud_provider_id: 1, cloud_provider_name: "aws" }])
      await startScan.resolve(started)
      expect(actor.getSnapshot().output).toEqual({ scan: started.data })
      expect(env.toasts).toEqual([{ kind: "success", message: "Scan started" }])
    } finally {
      actor.stop()
    }
  })

  it("without scan_service: disabled, and an attempt reports 'Permission denied: Cannot launch scans'", async () => {
    const { actor, load, startScan } = start(1 as AccountId)
    try {
      await load.resolve(options({ viewer: viewer({ canLaunchScans: false }) }))
      expect(selectCanLaunch(actor.getSnapshot())).toBe(false)
      expect(actor.getSnapshot().context.selectedAccountId).toBe(1)
      actor.send({ type: "launch.requested" })
      expect(actor.getSnapshot().context.error).toBe("Permission denied: Cannot launch scans")
      expect(startScan.calls).toEqual([])
    } finally {
      actor.stop()
    }
  })

  it("shows the §8 texts of a failed start and the sign-in text without a user", async () => {
    const { actor, load, startScan } = start(1 as AccountId)
    try {
      await load.resolve(options())
      actor.send({ type: "launch.requested" })
      await startScan.reject(httpFailure("scan-start", 500))
      expect(actor.getSnapshot().value).toBe("ready")
      expect(actor.getSnapshot().context.error).toBe("Failed to start scan. Please try again.")
      actor.send({ type: "launch.requested" })
      await startScan.reject(httpFailure("scan-start", 403, { message: "no" }))
      expect(actor.getSnapshot().context.error).toBe("Permission denied: Cannot launch scans")
    } finally {
      actor.stop()
    }
    const second = start(1 as AccountId)
    try {
      await second.load.resolve(options({ viewer: viewer({ userId: null }) }))
      second.actor.send({ type: "launch.requested" })
      expect(second.actor.getSnapshot().context.error).toBe("User authentication required. Please log in again.")
    } finally {
      second.actor.stop()
    }
  })

  it("offers no member retired from its organisation, even pre-selected (issue 31)", async () => {
    const { actor, load } = start(2 as AccountId)
    try {
      await load.resolve(options({ accounts: [account(1), account(2, { organization_account_id: 7, retired_at: "2026-01-05T10:00:00.000Z" })] }))
      expect(actor.getSnapshot().context.accounts.map((a) => a.id)).toEqual([1])
      // The only account left is chosen, not the retired one the dialog was opened for.
      expect(actor.getSnapshot().context.selectedAccountId).toBe(1)
    } finally {
      actor.stop()
    }
  })

  it("with no account at all: 'You need to create an account before running a scan'", async () => {
    const { actor, load } = start()
    try {
      await load.resolve(options({ accounts: [] }))
      expect(actor.getSnapshot().value).toBe("noAccounts")
      expect(actor.getSnapshot().context.error).toBe("You need to create an account before running a scan")
      actor.send({ type: "dialog.closed" })
      expect(actor.getSnapshot().output).toEqual({ scan: null })
    } finally {
      actor.stop()
    }
  })
})
