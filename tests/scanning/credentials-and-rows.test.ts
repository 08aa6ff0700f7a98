/**
 * Pure parts of the scanning area: credential sealing (AES-256-GCM bound to workspace + account), and the mapping of
 * the engine's check results to stored findings (compliance flag, error rows, remediated rule).
 */
import { Redacted } from "effect"
import { describe, expect, it } from "vitest"
import { associatedData, openCredentials, sealCredentials } from "../../server/accounts/credential-vault.ts"
import { awsCredentialsInput } from "../../server/accounts/connection-test.ts"
import { findingRemediated, toFindingDraft } from "../../server/scans/finding-rows.ts"
import type { CheckResult } from "../../server/scanner/check.ts"

const key = Redacted.make("k".repeat(43))
const otherKey = Redacted.make("z".repeat(43))
const creds = { access_key: "AKIAEXAMPLE", secret_key: "s3cr3t-CANARY-value" }

describe("credential vault", () => {
  it("seals without the plaintext and opens only with the same key, workspace and account", () => {
    const sealed = sealCredentials(key, creds, { workspaceId: 4, accountId: 9 })
    expect(sealed.startsWith("v1.")).toBe(true)
    expect(sealed).not.toContain("CANARY")
    expect(sealed).not.toContain(Buffer.from("s3cr3t").toString("base64url"))
    expect(openCredentials(key, sealed, { workspaceId: 4, accountId: 9 })).toEqual(creds)
    expect(openCredentials(key, sealed, { workspaceId: 4, accountId: 10 })).toBeUndefined()
    expect(openCredentials(key, sealed, { workspaceId: 5, accountId: 9 })).toBeUndefined()
    expect(openCredentials(otherKey, sealed, { workspaceId: 4, accountId: 9 })).toBeUndefined()
    const [v, iv, tag, body] = sealed.split(".")
    const flipped = `${v}.${iv}.${tag}.${body!.slice(0, -2)}${body!.endsWith("A") ? "B" : "A"}${body!.slice(-1)}`
    expect(openCredentials(key, flipped, { workspaceId: 4, accountId: 9 })).toBeUndefined()
  })

  it("uses a fresh IV per seal and names both ids in the associated data", () => {
    const a = sealCredentials(key, creds, { workspaceId: 1, accountId: 2 })
    const b = sealCredentials(key, creds, { workspaceId: 1, accountId: 2 })
    expect(a).not.toBe(b)
    expect(associatedData({ workspaceId: 1, accountId: 2 })).toContain("workspace:1/account:2")
  })

  it("signs with the account's keys, or with the server's own keys only for a role", () => {
    expect(awsCredentialsInput(creds, {})).toEqual({ accessKeyId: "AKIAEXAMPLE", secretAccessKey: "s3cr3t-CANARY-value" })
    expect(awsCredentialsInput({ role_arn: "arn:aws:iam::1:role/x", external_id: "e" }, {})).toBeUndefined()
    expect(awsCredentialsInput({ role_arn: "arn:aws:iam::1:role/x", external_id: "e" }, { AWS_ACCESS_KEY_ID: "A", AWS_SECRET_ACCESS_KEY: "B" })).toMatchObject({
      accessKeyId: "A", secretAccessKey: "B", roleArn: "arn:aws:iam::1:role/x", externalId: "e",
    })
  })
})

const result = (over: Partial<CheckResult>): CheckResult => ({
  check_id: "s3_x",
  service: "s3",
  title: "T",
  policy_check: "T",
  description: "D",
  severity: "high",
  cis: { v3: "2.1.1", v7: "2.1.1" },
  fsbp: "S3.5",
  remediation: "R",
  status: "pass",
  field_labels: { resource_id: "Resource", region: "Region", compliant: "Compliant", reason: "Reason" },
  details: [],
  errors: [],
  ...over,
})

describe("findings from check results", () => {
  it("renames compliant to compliance and carries the CIS v3/v7 and FSBP references", () => {
    const d = toFindingDraft(result({ status: "fail", details: [{ resource_id: "b", region: "us-east-1", compliant: false, reason: "r", extra: 1 }] }))
    expect(d.status).toBe("fail")
    expect(d.details).toEqual([{ resource_id: "b", region: "us-east-1", compliance: false, reason: "r", extra: 1 }])
    expect(d.field_labels["compliance"]).toBe("Compliant")
    expect(d.field_labels["compliant"]).toBeUndefined()
    expect(d.compliance.map((c) => c.control)).toEqual(["2.1.1", "2.1.1", "S3.5"])
  })

  it("records an unreadable input (AccessDenied) on the finding as not evaluated, never as a pass or a fail", () => {
    const d = toFindingDraft(result({
      status: "error",
      errors: [{ resourceType: "s3.policy", region: "us-east-1", operation: "s3:GetBucketPolicy", resourceId: "b", kind: "access_denied", code: "AccessDenied", message: "not authorized" }],
    }))
    expect(d.status).toBe("not_evaluated")
    expect(d.not_evaluated_reason).toBe("Not evaluated: s3:GetBucketPolicy failed with AccessDenied (access denied): not authorized")
    expect(d.details).toHaveLength(1)
    expect(d.details[0]).toMatchObject({ resource_id: "b", error_code: "AccessDenied", error_kind: "access_denied", operation: "s3:GetBucketPolicy" })
    expect(d.details[0]!["compliance"]).toBeUndefined()
    expect(String(d.details[0]!["reason"])).toContain("access denied")
    expect(d.field_labels["error_code"]).toBe("Error code")
  })

  it("keeps a known failure failed beside an unreadable input, and names a disabled API or throttling as the reason", () => {
    const disabled = { resourceType: "compute.firewalls", region: "global", operation: "compute.firewalls.list", kind: "unsupported" as const, code: "SERVICE_DISABLED", message: "off" }
    const throttled = { ...disabled, operation: "compute.networks.list", kind: "throttled" as const, code: "RESOURCE_EXHAUSTED", message: "slow down" }
    const failing = toFindingDraft(result({ status: "fail", details: [{ resource_id: "b", region: "r", compliant: false, reason: "open" }], errors: [disabled] }))
    expect(failing.status).toBe("fail")
    expect(failing.not_evaluated_reason).toBeNull()
    const undecided = toFindingDraft(result({ status: "error", errors: [disabled, throttled] }))
    expect(undecided.status).toBe("not_evaluated")
    expect(undecided.not_evaluated_reason).toBe(
      "Not evaluated: compute.firewalls.list failed with SERVICE_DISABLED (the API is not enabled or not available here): off (and 1 other input)",
    )
    expect(String(undecided.details[1]!["reason"])).toContain("(throttled beyond retries)")
  })

  it("calls a finding remediated only when every failing row was remediated", () => {
    expect(findingRemediated({ failing: 1, remediated: 1 })).toBe(true)
    expect(findingRemediated({ failing: 2, remediated: 1 })).toBe(false)
    expect(findingRemediated({ failing: 1, remediated: 0 })).toBe(false)
    expect(findingRemediated({ failing: 0, remediated: 0 })).toBe(false)
  })
})
