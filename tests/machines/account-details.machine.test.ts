import { describe, expect, it } from "vitest"
import { createActor, SimulatedClock, type ActorRefFrom } from "xstate"
import type { AccountDetail } from "../../src/contracts/accounts.ts"
import type { OkMessage } from "../../src/contracts/common.ts"
import type { AccountId } from "../../src/contracts/ids.ts"
import type { ScanStartPayload, ScanStartResponse } from "../../src/contracts/scans.ts"
import { OrganizationMessages } from "../../src/contracts/organizations.ts"
import { accountDetailsMachine, latestScan, selectRetired } from "../../src/machines/account-details.machine.ts"
import { launchScanMachine, type LaunchOptions } from "../../src/machines/launch-scan.machine.ts"
import { coverTransitions, formatCoverage } from "../support/graph.ts"
import { controlled, flush, httpFailure, never, networkFailure } from "./auth-fakes.ts"
import { ACCOUNT_ID, account, accountDetail, environment, providers, viewer } from "./scan-fakes.ts"

type IdInput = { readonly id: AccountId }

const start = () => {
  const load = controlled<IdInput, AccountDetail>()
  const refresh = controlled<IdInput, AccountDetail>()
  const reveal = controlled<IdInput, string>()
  const del = controlled<IdInput, OkMessage>()
  const launchOptions = controlled<void, LaunchOptions>()
  const startScan = controlled<ScanStartPayload, ScanStartResponse>()
  const env = environment()
  const actor = createActor(
    accountDetailsMachine.provide({
      actors: {
        loadAccountDetail: load.logic,
        refreshAccountDetail: refresh.logic,
        revealSecret: reveal.logic,
        deleteAccount: del.logic,
        launchScan: launchScanMachine.provide({ actors: { loadLaunchOptions: launchOptions.logic, startScan: startScan.logic } }),
      },
      actions: { notify: env.notify, navigate: env.navigate },
    }),
    { input: { accountId: ACCOUNT_ID }, clock: new SimulatedClock() },
  ).start()
  return { actor, load, refresh, reveal, del, launchOptions, startScan, env }
}

describe("account-details machine", () => {
  it("drives every (state, event) edge", async () => {
    const provided = accountDetailsMachine.provide({
      actors: {
        loadAccountDetail: never(),
        refreshAccountDetail: never(),
        revealSecret: never(),
        deleteAccount: never(),
        launchScan: launchScanMachine.provide({ actors: { loadLaunchOptions: never(), startScan: never() } }),
      },
    })
    const input = { accountId: ACCOUNT_ID }
    const coverage = await coverTransitions(provided, {
      input,
      createActor: (clock) => createActor(provided, { input, clock }),
      events: [
        { type: "xstate.done.actor.loadAccountDetail", output: accountDetail(1) },
        { type: "xstate.error.actor.loadAccountDetail", error: httpFailure("account-details", 404, { message: "Account not found" }) },
        { type: "xstate.done.actor.refreshAccountDetail", output: accountDetail(1) },
        { type: "xstate.error.actor.refreshAccountDetail", error: httpFailure("account-refresh", 500) },
        { type: "xstate.done.actor.reloadAccountDetail", output: accountDetail(1) },
        { type: "xstate.error.actor.reloadAccountDetail", error: httpFailure("account-refresh", 500) },
        { type: "xstate.done.actor.revealSecret", output: "wJalrXUtnFEMI" },
        { type: "xstate.error.actor.revealSecret", error: httpFailure("generic", 403) },
        { type: "xstate.done.actor.launchScan", output: { scan: null } },
        { type: "xstate.done.actor.deleteAccount", output: { ok: true, message: "Account deleted successfully" } },
        { type: "xstate.error.actor.deleteAccount", error: httpFailure("account-delete", 500) },
      ],
    })
    console.info(formatCoverage("accountDetails", coverage))
    expect(coverage.missing).toEqual([])
    expect(coverage.driven).toBe(coverage.total)
  })

  it("loads the account; a failure shows the server's message or 'Failed to load account details'", async () => {
    const { actor, load } = start()
    try {
      expect(load.calls).toEqual([{ id: 1 }])
      await load.reject(networkFailure("account-details"))
      expect(actor.getSnapshot().value).toMatchObject({ detail: "failed" })
      expect(actor.getSnapshot().context.loadError).toBe("Unable to connect to the server. Please check your internet connection.")
      actor.send({ type: "detail.retryRequested" })
      await load.reject(httpFailure("account-details", 500))
      expect(actor.getSnapshot().context.loadError).toBe("Failed to load account details")
      actor.send({ type: "detail.retryRequested" })
      await load.resolve(accountDetail(1))
      expect(actor.getSnapshot().value).toMatchObject({ detail: { ready: "idle" } })
    } finally {
      actor.stop()
    }
  })

  it("Refresh toasts success or 'Failed to refresh account details'", async () => {
    const { actor, load, refresh, env } = start()
    try {
      await load.resolve(accountDetail(1))
      actor.send({ type: "detail.refreshRequested" })
      await refresh.resolve(accountDetail(1, { account_name: "Renamed" }))
      expect(actor.getSnapshot().context.detail?.account_name).toBe("Renamed")
      actor.send({ type: "detail.refreshRequested" })
      await refresh.reject(httpFailure("account-refresh", 500))
      expect(actor.getSnapshot().context.detail?.account_name).toBe("Renamed")
      expect(env.toasts).toEqual([
        { kind: "success", message: "Account details refreshed successfully" },
        { kind: "error", message: "Failed to refresh account details" },
      ])
    } finally {
      actor.stop()
    }
  })

  it("reveals the secret through the audited call and forgets it when hidden", async () => {
    const { actor, load, reveal } = start()
    try {
      await load.resolve(accountDetail(1))
      actor.send({ type: "secret.revealToggled" })
      expect(reveal.calls).toEqual([{ id: 1 }])
      await reveal.resolve("wJalrXUtnFEMI/K7MDENG")
      expect(actor.getSnapshot().value).toMatchObject({ secret: "revealed" })
      expect(actor.getSnapshot().context.secret).toBe("wJalrXUtnFEMI/K7MDENG")
      actor.send({ type: "secret.revealToggled" })
      expect(actor.getSnapshot().context.secret).toBeNull()
    } finally {
      actor.stop()
    }
  })

  it("the launch dialog pre-selects the account; when it closes the details reload", async () => {
    const { actor, load, refresh, launchOptions } = start()
    try {
      await load.resolve(accountDetail(1))
      actor.send({ type: "launchScan.requested" })
      await launchOptions.resolve({ viewer: viewer(), providers, accounts: [account(1), account(2)] })
      const dialog = actor.getSnapshot().children.launchScan as ActorRefFrom<typeof launchScanMachine>
      expect(dialog.getSnapshot().context.selectedAccountId).toBe(1)
      dialog.send({ type: "dialog.closed" })
      await flush()
      expect(actor.getSnapshot().value).toMatchObject({ dialog: "none", detail: { ready: "reloading" } })
      expect(refresh.calls).toEqual([{ id: 1 }])
      await refresh.resolve(accountDetail(1, { recent_scans: [] }))
      expect(latestScan(actor.getSnapshot().context.detail)).toBeNull()
    } finally {
      actor.stop()
    }
  })

  it("a member retired from its organisation offers no scan; a stale page's launch shows the server's refusal in the dialog (issue 31)", async () => {
    const { actor, load, refresh, launchOptions, startScan } = start()
    try {
      await load.resolve(accountDetail(1))
      expect(selectRetired(actor.getSnapshot())).toBe(false)
      // The page was loaded before the sync retired the member: Launch scan is still there, and the server says why not.
      actor.send({ type: "launchScan.requested" })
      await launchOptions.resolve({ viewer: viewer(), providers, accounts: [account(1)] })
      const dialog = actor.getSnapshot().children.launchScan as ActorRefFrom<typeof launchScanMachine>
      dialog.send({ type: "launch.requested" })
      await startScan.reject(httpFailure("scan-start", 409, { message: OrganizationMessages.memberRetired, data: { error_type: "account_retired" } }))
      expect(dialog.getSnapshot().value).toBe("ready")
      expect(dialog.getSnapshot().context.error).toBe(OrganizationMessages.memberRetired)
      dialog.send({ type: "dialog.closed" })
      await flush()
      await refresh.resolve(accountDetail(1, { retired_at: "2026-01-05T10:00:00.000Z" }))
      // Reloaded: retired, and no launch is offered any more.
      expect(selectRetired(actor.getSnapshot())).toBe(true)
      expect(actor.getSnapshot().can({ type: "launchScan.requested" })).toBe(false)
      actor.send({ type: "launchScan.requested" })
      expect(actor.getSnapshot().matches({ dialog: "none" })).toBe(true)
      expect(launchOptions.calls).toHaveLength(1)
    } finally {
      actor.stop()
    }
  })

  it("delete: confirmation, then /dashboard; a failure shows 'Failed to delete account' inline", async () => {
    const { actor, load, del, env } = start()
    try {
      await load.resolve(accountDetail(1))
      actor.send({ type: "deleteAccount.requested" })
      actor.send({ type: "delete.confirmed" })
      await del.reject(httpFailure("account-delete", 500))
      expect(actor.getSnapshot().value).toMatchObject({ dialog: "none" })
      expect(actor.getSnapshot().context.deleteError).toBe("Failed to delete account")
      actor.send({ type: "deleteAccount.requested" })
      expect(actor.getSnapshot().context.deleteError).toBeNull()
      actor.send({ type: "delete.confirmed" })
      await del.resolve({ ok: true, message: "Account deleted successfully" })
      expect(env.navigations).toEqual(["/dashboard"])
    } finally {
      actor.stop()
    }
  })

  it("the latest scan is the most recent one", () => {
    const detail = accountDetail(1, {
      recent_scans: [
        { id: 3, status: "completed", scan_start: "2025-03-01T10:00:00.000Z", scan_end: null, findings_count: 1, failed_findings: 0, passed_findings: 1, muted_findings: 0, not_evaluated_findings: 0 },
        { id: 4, status: "running", scan_start: "2025-03-02T10:00:00.000Z", scan_end: null, findings_count: 0, failed_findings: 0, passed_findings: 0, muted_findings: 0, not_evaluated_findings: 0 },
      ],
    })
    expect(latestScan(detail)?.id).toBe(4)
  })
})
