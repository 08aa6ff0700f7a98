/** Pure helpers of the contract: status rules, display limits, toasts, constants, workspace store. */
import { describe, expect, it } from "vitest"
import fc from "fast-check"
import { toRunStatus, isInProgress, canViewFindings, RUN_STATUSES } from "../../src/contracts/common.ts"
import { remediationAction, canRetryRemediation, truncateDetailString, limitDetailArray, shouldCollapseRemediationMessage } from "../../src/contracts/findings.ts"
import {
  inviteResultToasts,
  formatExpiry,
  allInvitationsSentMessage,
  someInvitationsSentMessage,
  allInvitationsFailedMessage,
} from "../../src/contracts/messages.ts"
import { ApiClient, Query, PageSizes, Toasts, Overlay, Workspaces, Limits, Redirects, Polling, DetailDisplay, Layout, Verification, ProviderIds, StorageKeys, retryDelayMs, queryRetryDelayMs } from "../../src/contracts/constants.ts"
import { isNewWorkspace, showWorkspaceSearch, emptyWorkspaceStore } from "../../src/contracts/workspaces.ts"
import { invitationLink, canResendOrCancel } from "../../src/contracts/invitations.ts"
import { exportFileName, joinFilter, splitFilter } from "../../src/contracts/scans.ts"
import { accountBadge, passedChecks } from "../../src/contracts/accounts.ts"
import { providerId, providerName } from "../../src/contracts/providers.ts"

describe("run status (scanning §4)", () => {
  it("unknown values are treated as failed", () => {
    fc.assert(
      fc.property(fc.anything(), (v) => {
        const s = toRunStatus(v)
        expect(RUN_STATUSES).toContain(s)
        if (!(RUN_STATUSES as ReadonlyArray<unknown>).includes(v)) expect(s).toBe("failed")
      }),
    )
  })
  it("in progress = pending or running; findings only when completed", () => {
    expect(["pending", "running", "completed", "failed", "weird"].map(isInProgress)).toEqual([true, true, false, false, false])
    expect(canViewFindings("completed")).toBe(true)
    expect(canViewFindings("running")).toBe(false)
  })
})

describe("remediation button (scanning §4)", () => {
  it("labels by status; non-compliant rows without a record show Remediate", () => {
    expect(remediationAction({ compliance: false })).toBe("Remediate")
    expect(remediationAction({ compliance: true })).toBeNull()
    expect(remediationAction({ remediate: { status: "pass" } })).toBe("View Success")
    expect(remediationAction({ remediate: { status: "remediated" } })).toBe("View Remediated")
    expect(remediationAction({ remediate: { status: "failed" } })).toBe("View Error")
    expect(remediationAction({ remediate: { status: "fail" } })).toBe("View Error")
    expect(remediationAction({ remediate: { status: "queued" } })).toBe("View Status")
    expect(canRetryRemediation({ remediate: { status: "fail" } })).toBe(true)
    expect(canRetryRemediation({ remediate: { status: "pass" } })).toBe(false)
  })
})

describe("detail display limits (scanning §2, §9)", () => {
  it("strings over 150 are cut to 97 characters plus a note; arrays show 5; messages over 100 collapse", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 400 }), (s) => {
        const t = truncateDetailString(s)
        if (s.length > 150) expect(t).toEqual({ text: s.slice(0, 97) + "...", truncated: true, length: s.length })
        else expect(t.text).toBe(s)
      }),
    )
    expect(limitDetailArray([1, 2, 3, 4, 5, 6, 7])).toEqual({ items: [1, 2, 3, 4, 5], hidden: 2 })
    expect(shouldCollapseRemediationMessage("x".repeat(100))).toBe(false)
    expect(shouldCollapseRemediationMessage("x".repeat(101))).toBe(true)
  })
})

describe("team toasts (access §8)", () => {
  it("sent plus resent counts as sent; all failed; skipped toast", () => {
    expect(allInvitationsSentMessage(3)).toBe("All 3 invitation(s) sent successfully")
    expect(someInvitationsSentMessage(2, 1)).toBe("2 invitation(s) sent successfully, 1 failed")
    expect(allInvitationsFailedMessage(4)).toBe("All 4 invitations failed to send")
    expect(inviteResultToasts({ sent_count: 1, resent_count: 1, skipped_count: 0, skipped_emails: [] })).toEqual([
      { kind: "success", message: "All 2 invitation(s) sent successfully" },
    ])
    const t = inviteResultToasts({
      sent_count: 1,
      resent_count: 0,
      skipped_count: 2,
      skipped_emails: [{ email: "a@x.io", reason: "Already a member" }, { email: "b@x.io", reason: "Invalid" }],
    })
    expect(t[0]).toEqual({ kind: "warning", message: "1 invitation(s) sent successfully, 2 failed" })
    expect(t[1]?.message.startsWith("Skipped:")).toBe(true)
    expect(t[1]?.message).toContain("a@x.io")
    expect(t[1]?.message).toContain("Already a member")
    expect(inviteResultToasts({ sent_count: 0, resent_count: 0, skipped_count: 2, skipped_emails: [] })[0]?.message).toBe("All 2 invitations failed to send")
  })
  it("expiry shown in hours when 60 minutes or more (default 1440)", () => {
    expect(formatExpiry(undefined)).toBe("24 hours")
    expect(formatExpiry(60)).toBe("1 hour")
    expect(formatExpiry(30)).toBe("30 minutes")
    expect(formatExpiry(1)).toBe("1 minute")
  })
})

describe("constants (access §9, scanning §9)", () => {
  it("match the spec", () => {
    expect(ApiClient.timeoutMs).toBe(30000)
    expect([ApiClient.maxRetriesProduction, ApiClient.maxRetriesDefault]).toEqual([3, 2])
    expect([0, 1, 2].map(retryDelayMs)).toEqual([1000, 2000, 4000])
    expect([0, 1, 5, 10].map(queryRetryDelayMs)).toEqual([1000, 2000, 30000, 30000])
    expect([Query.staleTimeMs, Query.invitationsStaleTimeMs, Query.timezonesStaleTimeMs, Query.userFreshMs, Query.cacheTimeMs]).toEqual([
      300000, 30000, 3600000, 300000, 600000,
    ])
    expect([Query.accountsStaleTimeMs, Query.cloudProvidersCacheMs, Query.accountDetailPrefetchMs]).toEqual([1000, 300000, 60000])
    expect(PageSizes).toEqual({ scans: 20, findings: 20, roles: 10 })
    expect([Toasts.defaultMs, Toasts.successMs, Toasts.errorMs, Toasts.maxShown]).toEqual([4000, 2000, 4000, 20])
    expect(Overlay.timeoutMs).toBe(30000)
    expect([Workspaces.newBadgeMs, Workspaces.searchAbove]).toEqual([7 * 24 * 3600 * 1000, 3])
    expect(Limits).toEqual({ nameMax: 50, passwordMin: 8, workspaceNameMin: 3, verificationTokenMin: 32, invitationsMax: 50, invitationsMin: 1 })
    expect([Redirects.afterInvitationCompletionMs, Redirects.afterAlreadyAcceptedMs]).toEqual([3000, 1500])
    expect([Polling.scanListMs, Polling.scanDetailMs]).toEqual([15000, 10000])
    expect(DetailDisplay).toEqual({ maxArrayItems: 5, longStringAbove: 150, truncateTo: 97, remediationCollapseAbove: 100 })
    expect([Layout.sidebarCollapsedPx, Layout.sidebarExpandedPx, Layout.desktopBreakpointPx]).toEqual([80, 300, 1024])
    expect([Verification.linkValidityMinutes, Verification.resendCooldownSeconds, Verification.defaultExpiresInMinutes]).toEqual([30, 60, 1440])
    expect(ProviderIds).toEqual({ AWS: 1, GCP: 2, Azure: 3 })
    expect(StorageKeys.workspaceStore).toBe("workspace-store")
  })
})

describe("workspace store, invitations, accounts, providers, export", () => {
  it("'New' badge lasts 7 days; search above 3 workspaces", () => {
    const now = Date.parse("2025-01-10T00:00:00Z")
    const store = { ...emptyWorkspaceStore, newlyAddedWorkspaces: { "1": "2025-01-04T00:00:00Z", "2": "2025-01-02T00:00:00Z" } }
    expect(isNewWorkspace(store, 1, now)).toBe(true)
    expect(isNewWorkspace(store, 2, now)).toBe(false)
    expect(isNewWorkspace(store, 3, now)).toBe(false)
    expect([3, 4].map(showWorkspaceSearch)).toEqual([false, true])
  })
  it("invitation link falls back to origin + /invitation/signup?token=", () => {
    expect(invitationLink({ invite_link: null, invitation_token: "abc" }, "https://app.example")).toBe("https://app.example/invitation/signup?token=abc")
    expect(invitationLink({ invite_link: "https://x/l", invitation_token: "abc" }, "o")).toBe("https://x/l")
    expect(invitationLink({ invite_link: null, invitation_token: null }, "o")).toBeUndefined()
    expect(canResendOrCancel("pending")).toBe(true)
    expect(canResendOrCancel("accepted")).toBe(false)
  })
  it("account badge and passed checks", () => {
    expect(accountBadge({ failed_findings: 3, status: "completed" })).toEqual({ kind: "issues", count: 3 })
    expect(accountBadge({ failed_findings: 0, status: "completed" })).toEqual({ kind: "no-issues" })
    expect(accountBadge({ failed_findings: 0, status: "failed" })).toEqual({ kind: "failed" })
    // Passed checks are the scan's passed ones: muted and not evaluated checks are never counted as passed (issue 28).
    expect(passedChecks({ passed_findings: 5 })).toBe(5)
  })
  it("providers: server list first, then built-in", () => {
    expect(providerName(2)).toBe("GCP")
    expect(providerName(4, [{ id: 4, name: "OCI" }])).toBe("OCI")
    expect(providerId("azure")).toBe(3)
  })
  it("export file name has the scan id, 'findings' and a timestamp; filters comma-joined", () => {
    const n = exportFileName(7, "csv", new Date("2025-01-02T03:04:05.678Z"))
    expect(n).toBe("scan-7-findings-2025-01-02T03-04-05-678Z.csv")
    expect(joinFilter(["fail", "remediated"])).toBe("fail,remediated")
    expect(joinFilter([])).toBeUndefined()
    expect(splitFilter("fail, pass,")).toEqual(["fail", "pass"])
  })
})

describe("secrets on the server side", () => {
  it("decode from plain JSON strings into Redacted, never print, refuse to encode", async () => {
    const { Redacted, Schema } = await import("effect")
    const { ServerCredentials } = await import("../../src/contracts/accounts.ts")
    const { ServerLoginPayload } = await import("../../src/contracts/auth.ts")
    const c = Schema.decodeUnknownSync(ServerCredentials)({ access_key: "AKIA1", secret_key: "s3cr3t" })
    expect(c.access_key).toBe("AKIA1")
    expect(Redacted.isRedacted(c.secret_key)).toBe(true)
    expect(Redacted.value(c.secret_key!)).toBe("s3cr3t")
    expect(String(c.secret_key)).not.toContain("s3cr3t")
    expect(JSON.stringify(c)).not.toContain("s3cr3t")
    expect(() => Schema.encodeSync(ServerCredentials)(c)).toThrow()
    const login = Schema.decodeUnknownSync(ServerLoginPayload)({ email: "a@b.co", password: "hunter22" })
    expect(Redacted.value(login.password)).toBe("hunter22")
  })
})
