import { describe, expect, it } from "vitest"
import { createActor, SimulatedClock, type ActorRefFrom } from "xstate"
import type { OkMessage } from "../../src/contracts/common.ts"
import type { AccountId, CloudProviderId } from "../../src/contracts/ids.ts"
import type { CloudProvider } from "../../src/contracts/providers.ts"
import type { Account, AddAccountPayload, AddAccountResponse } from "../../src/contracts/accounts.ts"
import { addAccountMachine } from "../../src/machines/add-account.machine.ts"
import { organizationSummary } from "./organization-fakes.ts"
import { canLaunchScanFor, canLaunchScanOf, dashboardAccounts, dashboardAccountsMachine } from "../../src/machines/dashboard-accounts.machine.ts"
import { launchScanMachine } from "../../src/machines/launch-scan.machine.ts"
import { loadAccountsOverview, type AccountsOverview } from "../../src/machines/scan-effects.ts"
import { coverTransitions, formatCoverage } from "../support/graph.ts"
import { controlled, httpFailure, networkFailure, never, scripted } from "./auth-fakes.ts"
import { account, environment, providers } from "./scan-fakes.ts"

const aws = providers[0]!
const overview = (accounts: ReadonlyArray<Account> = [account(1), account(2)]): AccountsOverview => ({
  providers,
  groups: [{ provider: aws, accounts, failure: null }],
})

const start = () => {
  const load = controlled<void, AccountsOverview>()
  const del = controlled<{ readonly id: AccountId }, OkMessage>()
  const env = environment()
  const prefetched: number[] = []
  const actor = createActor(
    dashboardAccountsMachine.provide({
      actors: {
        loadOverview: load.logic,
        deleteAccount: del.logic,
        addAccount: addAccountMachine.provide({ actors: { loadProviders: never(), loadExternalId: never(), addAccount: never(), loadAwsTemplate: never() } }),
        launchScan: launchScanMachine.provide({ actors: { loadLaunchOptions: never(), startScan: never() } }),
      },
      actions: {
        notify: env.notify,
        navigate: env.navigate,
        prefetchAccount: (_, { accountId }) => void prefetched.push(accountId),
      },
    }),
    { clock: new SimulatedClock() },
  ).start()
  return { actor, load, del, env, prefetched }
}

describe("dashboard-accounts machine", () => {
  it("drives every (state, event) edge", async () => {
    const provided = dashboardAccountsMachine.provide({
      actors: {
        loadOverview: never(),
        deleteAccount: never(),
        addAccount: addAccountMachine.provide({ actors: { loadProviders: never(), loadExternalId: never(), addAccount: never(), loadAwsTemplate: never() } }),
        launchScan: launchScanMachine.provide({ actors: { loadLaunchOptions: never(), startScan: never() } }),
      },
    })
    const failedEverywhere: AccountsOverview = { providers, groups: [{ provider: aws, accounts: [], failure: httpFailure("dashboard-load", 401) }] }
    const coverage = await coverTransitions(provided, {
      createActor: (clock) => createActor(provided, { clock }),
      events: [
        { type: "xstate.done.actor.loadOverview", output: overview() },
        { type: "xstate.done.actor.loadOverview", output: failedEverywhere },
        { type: "xstate.error.actor.loadOverview", error: networkFailure("dashboard-load") },
        { type: "xstate.done.actor.refreshOverview", output: overview() },
        { type: "xstate.done.actor.refreshOverview", output: failedEverywhere },
        { type: "xstate.error.actor.refreshOverview", error: networkFailure("dashboard-load") },
        { type: "account.selected", accountId: 1 },
        { type: "account.hovered", accountId: 1 },
        { type: "launchScan.requested", accountId: 1 },
        { type: "deleteAccount.requested", accountId: 1 },
        { type: "xstate.done.actor.addAccount", output: { account: account(9), organization: organizationSummary() } },
        { type: "xstate.done.actor.addAccount", output: { account: account(9), organization: null } },
        { type: "xstate.done.actor.addAccount", output: { account: null, organization: null } },
        { type: "xstate.done.actor.launchScan", output: { scan: null } },
        { type: "xstate.done.actor.deleteAccount", output: { ok: true, message: "Account deleted successfully" } },
        { type: "xstate.error.actor.deleteAccount", error: httpFailure("account-delete", 500) },
      ],
    })
    console.info(formatCoverage("dashboardAccounts", coverage))
    expect(coverage.missing).toEqual([])
    expect(coverage.driven).toBe(coverage.total)
  })

  it("loads every enabled provider's accounts, one call each; a failed provider shows no accounts", async () => {
    const gcp = { id: 2 as CloudProviderId, name: "GCP", is_enable: true } satisfies CloudProvider
    const calls: number[] = []
    const result = await loadAccountsOverview({
      loadProviders: async () => [aws, gcp, providers[2]!],
      loadAccounts: async ({ cloud_provider_id }) => {
        calls.push(cloud_provider_id)
        if (cloud_provider_id === 2) throw httpFailure("dashboard-load", 500)
        return [account(1)]
      },
    })
    expect(calls.sort()).toEqual([1, 2])
    expect(result.groups.map((g) => [g.provider.name, g.accounts.length, g.failure?.message ?? null])).toEqual([
      ["AWS", 1, null],
      ["GCP", 0, "We're experiencing technical difficulties. Please try again later."],
    ])
  })

  it("shows the §8 text when every provider failed, and Refresh reloads", async () => {
    const { actor, load } = start()
    try {
      await load.resolve({ providers, groups: [{ provider: aws, accounts: [], failure: httpFailure("dashboard-load", 401) }] })
      expect(actor.getSnapshot().value).toMatchObject({ list: "failed" })
      expect(actor.getSnapshot().context.error).toBe("You are not authorized to view this data. Please sign in again.")
      actor.send({ type: "dashboard.refreshRequested" })
      await load.resolve(overview())
      expect(actor.getSnapshot().value).toMatchObject({ list: { loaded: "idle" } })
      expect(dashboardAccounts(actor.getSnapshot().context).map((a) => a.id)).toEqual([1, 2])
      expect(actor.getSnapshot().context.error).toBeNull()
    } finally {
      actor.stop()
    }
  })

  it("the no-response text comes from a failed providers call", async () => {
    const { actor, load } = start()
    try {
      await load.reject(networkFailure("dashboard-load"))
      expect(actor.getSnapshot().context.error).toBe("Unable to connect to the server. Please check your internet connection.")
    } finally {
      actor.stop()
    }
  })

  it("selecting a card opens its page; hovering prefetches it", async () => {
    const { actor, load, env, prefetched } = start()
    try {
      await load.resolve(overview())
      actor.send({ type: "account.hovered", accountId: 2 as AccountId })
      actor.send({ type: "account.selected", accountId: 2 as AccountId })
      expect(prefetched).toEqual([2])
      expect(env.navigations).toEqual(["/dashboard/accounts/2"])
    } finally {
      actor.stop()
    }
  })

  it("a member retired from its organisation offers no scan from its card; the page's Launch scan still opens (issue 31)", async () => {
    const { actor, load } = start()
    try {
      const retired = account(2, { organization_account_id: 7, retired_at: "2026-01-05T10:00:00.000Z" })
      await load.resolve(overview([account(1), retired]))
      expect(canLaunchScanOf(actor.getSnapshot().context, 2 as AccountId)).toBe(false)
      expect(canLaunchScanOf(actor.getSnapshot().context, 1 as AccountId)).toBe(true)
      // What each card reads of its own account is what the guard decides.
      expect([canLaunchScanFor(retired), canLaunchScanFor(account(1))]).toEqual([false, true])
      expect(actor.getSnapshot().can({ type: "launchScan.requested", accountId: 2 as AccountId })).toBe(false)
      actor.send({ type: "launchScan.requested", accountId: 2 as AccountId })
      expect(actor.getSnapshot().matches({ dialog: "none" })).toBe(true)
      expect(actor.getSnapshot().children["launchScan"]).toBeUndefined()
      actor.send({ type: "launchScan.requested" })
      expect(actor.getSnapshot().matches({ dialog: "launching" })).toBe(true)
    } finally {
      actor.stop()
    }
  })

  it("a saved account closes the wizard and refreshes the list", async () => {
    const { actor, load } = start()
    try {
      await load.resolve(overview())
      actor.send({ type: "addAccount.requested" })
      expect(actor.getSnapshot().value).toMatchObject({ dialog: "adding" })
      const wizard = actor.getSnapshot().children.addAccount as ActorRefFrom<typeof addAccountMachine>
      expect(wizard).toBeDefined()
      wizard.send({ type: "wizard.closed" })
      expect(actor.getSnapshot().value).toEqual({ list: { loaded: "idle" }, dialog: "none" })
      // A wizard that saved: the list reloads.
      const saving = scripted<AddAccountPayload, AddAccountResponse>(async () => ({ ok: true, message: "Account added successfully", data: { account: account(3) } }))
      const provided = dashboardAccountsMachine.provide({
        actors: {
          loadOverview: load.logic,
          deleteAccount: never(),
          addAccount: addAccountMachine.provide({
            actors: { loadProviders: scripted<void, ReadonlyArray<CloudProvider>>(async () => providers).logic, loadExternalId: never(), addAccount: saving.logic },
          }),
          launchScan: launchScanMachine.provide({ actors: { loadLaunchOptions: never(), startScan: never() } }),
        },
      })
      const second = createActor(provided, { clock: new SimulatedClock() }).start()
      try {
        await load.resolve(overview())
        second.send({ type: "addAccount.requested" })
        await new Promise((r) => setImmediate(r))
        const child = second.getSnapshot().children.addAccount as ActorRefFrom<typeof addAccountMachine>
        child.send({ type: "provider.selected", providerId: 1 as CloudProviderId })
        for (const [field, value] of [["account_name", "New"], ["access_key", "AKIA"], ["secret_key", "s"]] as const) {
          child.send({ type: "field.changed", field, value })
        }
        child.send({ type: "connection.testRequested" })
        await new Promise((r) => setImmediate(r))
        child.send({ type: "connection.confirmed" })
        await new Promise((r) => setImmediate(r))
        expect(saving.calls).toHaveLength(2)
        expect(second.getSnapshot().value).toEqual({ list: { loaded: "refreshing" }, dialog: "none" })
        await load.resolve(overview([account(1), account(2), account(3)]))
        expect(dashboardAccounts(second.getSnapshot().context)).toHaveLength(3)
      } finally {
        second.stop()
      }
    } finally {
      actor.stop()
    }
  })

  it("an onboarded organisation closes the wizard and opens its organisation page (issue 31)", async () => {
    const load = controlled<void, AccountsOverview>()
    const env = environment()
    const saving = scripted<AddAccountPayload, AddAccountResponse>(async (payload) => ({
      ok: true,
      message: payload.test_only === true ? "Connection successful!" : "Organization added",
      data: payload.test_only === true ? { tested: true } : { account: account(7), organization: organizationSummary() },
    }))
    const actor = createActor(
      dashboardAccountsMachine.provide({
        actors: {
          loadOverview: load.logic,
          deleteAccount: never(),
          addAccount: addAccountMachine.provide({
            actors: {
              loadProviders: scripted<void, ReadonlyArray<CloudProvider>>(async () => providers).logic,
              loadExternalId: never(),
              addAccount: saving.logic,
              loadAwsTemplate: never(),
            },
          }),
          launchScan: launchScanMachine.provide({ actors: { loadLaunchOptions: never(), startScan: never() } }),
        },
        actions: { notify: env.notify, navigate: env.navigate },
      }),
      { clock: new SimulatedClock() },
    ).start()
    try {
      await load.resolve(overview())
      actor.send({ type: "addAccount.requested" })
      await new Promise((r) => setImmediate(r))
      const wizard = actor.getSnapshot().children.addAccount as ActorRefFrom<typeof addAccountMachine>
      wizard.send({ type: "provider.selected", providerId: 1 as CloudProviderId })
      wizard.send({ type: "kind.changed", kind: "organization" })
      for (const [field, value] of [["account_name", "Acme"], ["access_key", "AKIA"], ["secret_key", "s"]] as const) {
        wizard.send({ type: "field.changed", field, value })
      }
      wizard.send({ type: "connection.testRequested" })
      await new Promise((r) => setImmediate(r))
      wizard.send({ type: "connection.confirmed" })
      await new Promise((r) => setImmediate(r))
      expect(saving.calls.map((c) => [c.is_organization, c.organization?.member_role_name])).toEqual([
        [true, "CloudAuditMemberRole"],
        [true, "CloudAuditMemberRole"],
      ])
      expect(actor.getSnapshot().value).toEqual({ list: { loaded: "idle" }, dialog: "none" })
      expect(env.navigations).toEqual(["/dashboard/accounts/7/organization"])
    } finally {
      actor.stop()
    }
  })

  it("deletes after confirmation, toasts and refreshes; a failure stays in the dialog", async () => {
    const { actor, load, del, env } = start()
    try {
      await load.resolve(overview())
      actor.send({ type: "deleteAccount.requested", accountId: 99 as AccountId })
      expect(actor.getSnapshot().value).toMatchObject({ dialog: "none" })
      actor.send({ type: "deleteAccount.requested", accountId: 2 as AccountId })
      expect(actor.getSnapshot().context.deleteTarget?.id).toBe(2)
      actor.send({ type: "delete.confirmed" })
      await del.reject(httpFailure("account-delete", 500))
      expect(actor.getSnapshot().value).toMatchObject({ dialog: "confirmingDelete" })
      expect(actor.getSnapshot().context.deleteError).toBe("Failed to delete account. Please try again.")
      actor.send({ type: "delete.confirmed" })
      expect(del.calls).toEqual([{ id: 2 }, { id: 2 }])
      await del.resolve({ ok: true, message: "Account deleted successfully" })
      expect(actor.getSnapshot().value).toEqual({ list: { loaded: "refreshing" }, dialog: "none" })
      expect(env.toasts).toEqual([{ kind: "success", message: "Account deleted successfully" }])
    } finally {
      actor.stop()
    }
  })
})
