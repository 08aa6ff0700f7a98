/**
 * Contract coverage: every call of both spec call tables (access §7, scanning §7), written out literally
 * from the spec, is in the OpenAPI document generated from `Api`. Paths the spec does not show use the
 * paths we chose (docs/api.md). Path parameters appear as {param}.
 */
import { describe, expect, it } from "vitest"
import { OpenApi } from "effect/http-api"
import { Api, GROUP_NAMES } from "../../src/contracts/api.ts"

/** Access spec §7, one line per row (both methods of verify-email, both accept-by-link paths). */
const ACCESS_CALLS = [
  "POST /api/login",
  "POST /api/signup",
  "POST /api/logout",
  "POST /api/refresh-token",
  "GET /api/user-info",
  "POST /api/forgot-password",
  "POST /api/validate-reset-token",
  "POST /api/reset-password",
  "GET /api/verify-email",
  "POST /api/verify-email",
  "POST /api/resend-verification-link",
  "GET /api/invitation/verify/{token}",
  "GET /api/user/permissions", // path not shown: ours
  "GET /api/workspaces", // path not shown: ours
  "POST /api/user/switch-workspace",
  "POST /api/workspaces/accept-invitation",
  "POST /api/invitations/accept",
  "POST /api/invitation/accept",
  "POST /api/admin/users",
  "DELETE /api/admin/users",
  "GET /api/roles",
  "GET /api/team-members",
  "PUT /api/team-member",
  "PUT /api/update-user-info",
  "POST /api/update-password",
  "POST /api/admin/users/invite",
  "GET /api/admin/users/invitations",
  "POST /api/admin/users/invitations/{invitation_id}/resend",
  "DELETE /api/admin/users/invitations/{id}",
  "GET /api/timezones",
  "GET /api/workspace-info", // path not shown: ours
  "POST /api/admin/users/reset-password", // path not shown: ours
] as const

/** Scanning spec §7. */
const SCANNING_CALLS = [
  "GET /api/cloud-providers",
  "GET /api/accounts",
  "GET /api/accounts/{id}",
  "POST /api/accounts",
  "DELETE /api/accounts/{id}",
  "POST /api/scans",
  "GET /api/scans",
  "GET /api/scans/{id}",
  "GET /api/findings",
  "GET /api/findings/{id}",
  "POST /api/findings/{id}/remediate",
  "GET /api/scans/{id}/export",
] as const

/** Beyond the spec (docs/api.md). */
const EXTRA_CALLS = [
  "GET /api/health",
  "GET /api/dev/outbox",
  "POST /api/roles/custom",
  "PUT /api/roles/custom/{id}",
  "DELETE /api/roles/custom/{id}",
  "POST /api/accounts/{id}/reveal-secret",
  "GET /api/accounts/external-id",
  "POST /api/scans/{id}/cancel",
  // compliance and reports (issue 14)
  "GET /api/compliance/frameworks",
  "GET /api/compliance/frameworks/{framework_id}",
  "GET /api/compliance/accounts",
  "GET /api/compliance/accounts/{account_id}/frameworks/{framework_id}/trend",
  "GET /api/compliance/scans/{scan_id}",
  "GET /api/compliance/scans/{scan_id}/frameworks/{framework_id}",
  "GET /api/compliance/scans/{scan_id}/frameworks/{framework_id}/requirements/{requirement_id}",
  "GET /api/compliance/scans/{scan_id}/frameworks/{framework_id}/csv",
  "GET /api/compliance/scans/{scan_id}/reports",
  "POST /api/compliance/scans/{scan_id}/reports",
  "GET /api/compliance/reports/{report_id}",
  "GET /api/compliance/reports/{report_id}/download",
  // posture (issue 13)
  "GET /api/mute-rules",
  "POST /api/mute-rules",
  "PUT /api/mute-rules/{id}",
  "DELETE /api/mute-rules/{id}",
  "GET /api/accounts/{id}/schedule",
  "PUT /api/accounts/{id}/schedule",
  "GET /api/posture/overview",
  "GET /api/resources/history",
  "GET /api/user/scan-digest",
  "PUT /api/user/scan-digest",
  // storage and retention (issue 30)
  "GET /api/workspaces/{id}/storage",
  "PUT /api/workspaces/{id}/retention",
  // account groups (issue 31 item 5)
  "GET /api/account-groups",
  "POST /api/account-groups",
  "PUT /api/account-groups/{id}",
  "DELETE /api/account-groups/{id}",
  // single sign-on (issue 33 part 3)
  "GET /api/workspaces/{id}/sso",
  "PUT /api/workspaces/{id}/sso",
  "DELETE /api/workspaces/{id}/sso",
  "POST /api/sso/start",
  "GET /api/sso/oidc/callback",
  "POST /api/sso/saml/acs",
  "GET /api/sso/saml/{id}/metadata",
  "POST /api/sso/exchange",
  // API keys (issue 33)
  "GET /api/api-keys",
  "POST /api/api-keys",
  "DELETE /api/api-keys/{id}",
  // remediation preview and undo (issue 32)
  "POST /api/findings/{id}/remediation-preview",
  "GET /api/accounts/{id}/approval",
  "PUT /api/accounts/{id}/approval",
  "GET /api/remediation-requests",
  "POST /api/remediation-requests/{id}/approve",
  "POST /api/remediation-requests/{id}/reject",
  "POST /api/remediation-requests/{id}/cancel",
  "GET /api/remediations",
  "GET /api/remediations/{id}",
  "POST /api/remediations/{id}/undo",
  // bulk remediation (issue 32 part 4)
  "POST /api/remediation-batches",
  "GET /api/remediation-batches",
  "GET /api/remediation-batches/{id}",
  "GET /api/remediation-batches/{id}/items",
  "POST /api/remediation-batches/{id}/stop",
  "POST /api/remediation-batches/{id}/undo",
  // webhooks and Slack (issue 33)
  "GET /api/integrations/webhooks",
  "POST /api/integrations/webhooks",
  "PATCH /api/integrations/webhooks/{id}",
  "DELETE /api/integrations/webhooks/{id}",
  "POST /api/integrations/webhooks/{id}/test",
  "GET /api/integrations/webhooks/{id}/deliveries",
  "POST /api/integrations/webhooks/{id}/deliveries/{delivery_id}/replay",
  // AWS Security Hub and Jira (issue 33)
  "GET /api/integrations/security-hub/accounts",
  "PUT /api/integrations/security-hub/accounts/{id}",
  "POST /api/integrations/security-hub/accounts/{id}/export",
  "GET /api/integrations/jira",
  "PUT /api/integrations/jira",
  "DELETE /api/integrations/jira",
  "POST /api/integrations/jira/test",
  "GET /api/findings/{id}/jira-issues",
  "POST /api/findings/{id}/jira-issues",
  "POST /api/findings/{id}/jira-issues/refresh",
  // organisations and fleets (issue 31)
  "GET /api/organizations",
  "GET /api/organizations/aws-template",
  "GET /api/organizations/{id}",
  "PUT /api/organizations/{id}/selection",
  "GET /api/organizations/{id}/syncs",
  "POST /api/accounts/{id}/sync",
  "GET /api/organizations/{id}/fleet-scans",
  "GET /api/fleet-scans/{id}",
  "GET /api/organizations/{id}/fleet",
  "GET /api/organizations/{id}/compliance/{framework_id}",
  "GET /api/organizations/{id}/compliance/{framework_id}/csv",
  "GET /api/organizations/{id}/compliance/{framework_id}/pdf",
] as const

const spec = OpenApi.fromApi(Api)
const operations = new Map<string, { readonly tags?: ReadonlyArray<string>; readonly responses?: Record<string, unknown> }>()
for (const [path, item] of Object.entries(spec.paths)) {
  for (const [method, op] of Object.entries(item as Record<string, unknown>)) {
    if (["get", "post", "put", "delete", "patch"].includes(method)) operations.set(`${method.toUpperCase()} ${path}`, op as never)
  }
}

describe("OpenApi.fromApi(Api) lists every spec call", () => {
  it.each([...ACCESS_CALLS])("access §7: %s", (call) => {
    expect(operations.has(call), `${call} missing from the OpenAPI document`).toBe(true)
  })
  it.each([...SCANNING_CALLS])("scanning §7: %s", (call) => {
    expect(operations.has(call), `${call} missing from the OpenAPI document`).toBe(true)
  })
  it.each([...EXTRA_CALLS])("beyond the spec: %s", (call) => {
    expect(operations.has(call)).toBe(true)
  })

  it("has nothing else (every operation is one of the listed calls)", () => {
    const listed = new Set<string>([...ACCESS_CALLS, ...SCANNING_CALLS, ...EXTRA_CALLS])
    expect([...operations.keys()].filter((k) => !listed.has(k))).toEqual([])
  })

  it("every path starts with /api and every operation declares a success and an error response", () => {
    for (const [call, op] of operations) {
      expect(call.split(" ")[1]?.startsWith("/api/")).toBe(true)
      const codes = Object.keys(op.responses ?? {})
      // The identity provider's returns (SSO callback, ACS) succeed with a redirect to the SPA.
      expect(codes.some((c) => c.startsWith("2") || c === "302"), `${call} has no 2xx`).toBe(true)
      expect(codes.some((c) => c.startsWith("4") || c.startsWith("5")), `${call} has no error response`).toBe(true)
      expect(codes).toContain("400")
      expect(codes).toContain("500")
    }
  })

  it("groups are exactly the areas, in order", () => {
    expect(Object.keys(Api.groups)).toEqual([...GROUP_NAMES])
    // OpenAPI tags carry the groups' titles.
    expect((spec.tags ?? []).map((t) => t.name)).toEqual([
      "System", "Auth", "Workspaces", "Team", "Invitations", "Profile", "Cloud providers", "Accounts", "Scans", "Findings", "Compliance", "Posture", "Storage", "Organizations",
      "Account groups",
      "Remediation approvals",
      "Single sign-on",
      "Webhooks",
      "API keys",
      "AWS Security Hub",
      "Jira",
      "Remediations",
      "Bulk remediation",
    ])
  })

  it("workspace-scoped calls declare the workspace errors and the 401 of a missing token", () => {
    for (const call of ["GET /api/team-members", "GET /api/scans", "POST /api/findings/{id}/remediate", "GET /api/accounts"]) {
      const codes = Object.keys(operations.get(call)?.responses ?? {})
      expect(codes).toEqual(expect.arrayContaining(["401", "403", "404"]))
    }
  })

  it("the export answers a file as text/csv or application/json", () => {
    const op = operations.get("GET /api/scans/{id}/export") as { responses: Record<string, { content?: Record<string, unknown> }> }
    expect(Object.keys(op.responses["200"]?.content ?? {})).toEqual(["text/csv", "application/json"])
  })
})
