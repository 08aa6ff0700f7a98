/**
 * Accounts over real HTTP against moto (scanning §3, §5, §7, §8; issue 5 "Accounts and credentials"): providers,
 * validation messages, the connection test (wrong credentials → 401, test_only), 409 'Account already exists', list
 * and detail (secret masked), the audited reveal, permissions, cancel and delete with scan history.
 */
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { SECRET_MASK } from "../../src/contracts/accounts.ts"
import { ScanningMessages, ValidationMessages } from "../../src/contracts/messages.ts"
import { openCredentials } from "../../server/accounts/credential-vault.ts"
import { addMotoAccount, MOTO_KEYS, Roles, startScan, startScanEnv, type Member, type ScanEnv } from "./support.ts"

let env: ScanEnv
let owner: Member
let auditor: Member
let engineer: Member

beforeAll(async () => {
  env = await startScanEnv()
  owner = await env.workspace()
  auditor = await env.member(owner, Roles.Auditor)
  engineer = await env.member(owner, Roles.SecurityEngineer)
}, 120_000)
afterAll(async () => {
  await env?.stop()
})

const addPayload = (credentials: Record<string, string>, over: Record<string, unknown> = {}) => ({
  cloud_provider_id: 1,
  account_name: "Production",
  is_organization: false,
  credentials,
  ...over,
})

describe("cloud providers", () => {
  it("lists AWS=1, GCP=2, Azure=3, all enabled (issue 7 wired GCP and Azure)", async () => {
    const res = await env.call(auditor, "GET", "/api/cloud-providers")
    expect(res.status).toBe(200)
    expect(res.body.data.cloud_providers).toEqual([
      { id: 1, name: "AWS", is_enable: true },
      { id: 2, name: "GCP", is_enable: true },
      { id: 3, name: "Azure", is_enable: true },
    ])
  })

  it("needs a signed-in member", async () => {
    expect((await env.call(undefined, "GET", "/api/cloud-providers")).status).toBe(401)
  })
})

describe("adding an account", () => {
  it("answers the spec's validation messages", async () => {
    const noName = await env.call(owner, "POST", "/api/accounts", addPayload(MOTO_KEYS, { account_name: "  " }))
    expect(noName.status).toBe(400)
    expect(JSON.stringify(noName.body)).toContain(ValidationMessages.accountNameRequired)
    const noKey = await env.call(owner, "POST", "/api/accounts", addPayload({ secret_key: "x" }))
    expect(noKey.status).toBe(400)
    expect(JSON.stringify(noKey.body)).toContain(ValidationMessages.accessKeyRequired)
    const noSecret = await env.call(owner, "POST", "/api/accounts", addPayload({ access_key: "AKIAX" }))
    expect(noSecret.status).toBe(400)
    expect(JSON.stringify(noSecret.body)).toContain(ValidationMessages.secretKeyRequired)
    // GCP is enabled now: "{}" is JSON but not a service-account key (the contract's validation, before any network call).
    const gcp = await env.call(owner, "POST", "/api/accounts", addPayload({ service_account_key: "{}" }, { cloud_provider_id: 2 }))
    expect(gcp.status).toBe(400)
    expect(gcp.body.errors).toEqual([{ path: "credentials.service_account_key", message: ValidationMessages.serviceAccountKeyType }])
    const unknownProvider = await env.call(owner, "POST", "/api/accounts", addPayload(MOTO_KEYS, { cloud_provider_id: 4 }))
    expect(unknownProvider.status).toBe(400)
    expect(JSON.stringify(unknownProvider.body)).toContain(ValidationMessages.invalidCloudProvider)
  })

  it("refuses members without create_account", async () => {
    const res = await env.call(auditor, "POST", "/api/accounts", addPayload(MOTO_KEYS))
    expect(res.status).toBe(403)
    expect(res.body._tag).toBe("Forbidden")
  })

  it("answers 401 with a clear catalogue error when AWS rejects the credentials", async () => {
    await env.moto.enforceAuth(true)
    try {
      const res = await env.call(owner, "POST", "/api/accounts", addPayload({ access_key: "AKIABOGUSBOGUSBOGUS1", secret_key: "wrong" }))
      expect(res.status).toBe(401)
      expect(res.body).toMatchObject({ _tag: "Unauthorized", data: { error_type: "cloud_credentials_invalid" } })
      expect(res.body.message).toMatch(/credentials/i)
    } finally {
      await env.moto.enforceAuth(false)
    }
    const list = await env.call(owner, "GET", "/api/accounts?cloud_provider_id=1")
    expect(list.body.data.accounts).toEqual([])
  })

  it("tests the connection without saving when test_only is set", async () => {
    const res = await env.call(owner, "POST", "/api/accounts", addPayload(MOTO_KEYS, { test_only: true }))
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({ ok: true, message: ScanningMessages.connectionSuccessful, data: { tested: true } })
    expect(res.body.data.account).toBeUndefined()
    expect((await env.call(owner, "GET", "/api/accounts?cloud_provider_id=1")).body.data.accounts).toEqual([])
  })

  it("saves the account with the cloud account id from STS, then refuses the same cloud account with 409", async () => {
    const res = await env.call(owner, "POST", "/api/accounts", addPayload(MOTO_KEYS))
    expect(res.status).toBe(200)
    expect(res.body.ok).toBe(true)
    expect(res.body.data.account).toMatchObject({
      account_name: "Production",
      account_id: "123456789012",
      cloud_provider_id: 1,
      cloud_provider_name: "AWS",
      last_scan_date: null,
      total_scans: 0,
      failed_findings: 0,
      status: null,
    })
    const again = await env.call(owner, "POST", "/api/accounts", addPayload(MOTO_KEYS, { account_name: "Other name" }))
    expect(again.status).toBe(409)
    expect(again.body).toMatchObject({ _tag: "Conflict", message: ScanningMessages.accountAlreadyExists })
    const audit = await env.sql((q) => q<{ n: number }>`SELECT count(*)::int AS n FROM audit_log WHERE action = 'account.created'`)
    expect(audit[0]!.n).toBe(1)
  })
})

describe("connecting through a role", () => {
  const roleArn = "arn:aws:iam::111122223333:role/Audit"

  it("assumes the role with the workspace's generated external id and stores the role's account", async () => {
    const res = await env.call(owner, "POST", "/api/accounts", addPayload({ ...MOTO_KEYS, role_arn: roleArn }, { account_name: "Audit role" }))
    expect(res.status, res.text).toBe(200)
    expect(res.body.data.account.account_id).toBe("111122223333")
    const rows = await env.sql((q) => q<{ aws_external_id: string; credentials_sealed: string; auth_method: string }>`
      SELECT w.aws_external_id, a.credentials_sealed, a.auth_method FROM accounts a JOIN workspace_cloud_settings w USING (workspace_id)
      WHERE a.id = ${res.body.data.account.id}`)
    expect(rows[0]!.auth_method).toBe("role")
    expect(rows[0]!.aws_external_id).toMatch(/^ca-[A-Za-z0-9_-]{24}$/)
    const opened = openCredentials(env.server.config.appSecretKey, rows[0]!.credentials_sealed, { workspaceId: owner.workspaceId, accountId: res.body.data.account.id })
    expect(opened).toMatchObject({ role_arn: roleArn, external_id: rows[0]!.aws_external_id })
    const detail = (await env.call(owner, "GET", `/api/accounts/${res.body.data.account.id}`)).body.data
    expect(detail.credential_data).toMatchObject({ aws_account_id: "111122223333", access_key: MOTO_KEYS.access_key, secret_key: SECRET_MASK })
    expect((await env.call(owner, "DELETE", `/api/accounts/${res.body.data.account.id}`)).status).toBe(200)
  })

  it("never lets the user choose the external id, and needs keys to assume the role", async () => {
    const chosen = await env.call(owner, "POST", "/api/accounts", addPayload({ ...MOTO_KEYS, role_arn: roleArn, external_id: "my-own-id" }))
    expect(chosen.status).toBe(400)
    expect(chosen.body.message).toContain("cannot be chosen")
    const keyless = await env.call(owner, "POST", "/api/accounts", addPayload({ role_arn: roleArn }))
    expect(keyless.status).toBe(400)
    expect(keyless.body.errors[0].path).toBe("credentials.role_arn")
  })
})

describe("the workspace's external id (GET /api/accounts/external-id)", () => {
  it("shows a member with create_account the same id every time, the one a role connection uses", async () => {
    const first = await env.call(engineer, "GET", "/api/accounts/external-id")
    expect(first.status, first.text).toBe(200)
    expect(first.body.ok).toBe(true)
    expect(first.body.data.external_id).toMatch(/^ca-[A-Za-z0-9_-]{24}$/)
    const again = await env.call(owner, "GET", "/api/accounts/external-id")
    expect(again.body.data.external_id).toBe(first.body.data.external_id)
    const stored = await env.sql((q) => q<{ aws_external_id: string }>`
      SELECT aws_external_id FROM workspace_cloud_settings WHERE workspace_id = ${owner.workspaceId}`)
    expect(stored).toEqual([{ aws_external_id: first.body.data.external_id }])
  })

  it("creates the id on first use, one per workspace", async () => {
    const other = await env.workspace()
    const before = await env.sql((q) => q<{ n: number }>`
      SELECT count(*)::int AS n FROM workspace_cloud_settings WHERE workspace_id = ${other.workspaceId}`)
    expect(before[0]!.n).toBe(0)
    const res = await env.call(other, "GET", "/api/accounts/external-id")
    expect(res.status, res.text).toBe(200)
    expect(res.body.data.external_id).toMatch(/^ca-[A-Za-z0-9_-]{24}$/)
    const mine = (await env.call(owner, "GET", "/api/accounts/external-id")).body.data.external_id
    expect(res.body.data.external_id).not.toBe(mine)
    expect((await env.call(other, "GET", "/api/accounts/external-id")).body.data.external_id).toBe(res.body.data.external_id)
  })

  it("refuses a read-only member (403) and a signed-out caller (401)", async () => {
    const readOnly = await env.call(auditor, "GET", "/api/accounts/external-id")
    expect(readOnly.status).toBe(403)
    expect(readOnly.body._tag).toBe("Forbidden")
    expect((await env.call(undefined, "GET", "/api/accounts/external-id", undefined, owner.workspaceId)).status).toBe(401)
  })
})

describe("reading accounts", () => {
  let accountId: number
  beforeAll(async () => {
    const list = await env.call(owner, "GET", "/api/accounts?cloud_provider_id=1")
    accountId = list.body.data.accounts[0].id
  })

  it("lists per provider and never carries secrets", async () => {
    const aws = await env.call(auditor, "GET", "/api/accounts?cloud_provider_id=1")
    expect(aws.status).toBe(200)
    expect(aws.body.data.accounts).toHaveLength(1)
    expect(aws.text).not.toContain(MOTO_KEYS.secret_key)
    expect((await env.call(auditor, "GET", "/api/accounts?cloud_provider_id=3")).body.data.accounts).toEqual([])
  })

  it("shows the detail with the access key id and the secret masked", async () => {
    const res = await env.call(auditor, "GET", `/api/accounts/${accountId}`)
    expect(res.status).toBe(200)
    expect(res.body.data).toMatchObject({
      id: accountId,
      account_name: "Production",
      cloud_provider_name: "AWS",
      credential_data: { aws_account_id: "123456789012", access_key: MOTO_KEYS.access_key, secret_key: SECRET_MASK },
      recent_scans: [],
    })
    // AWS accounts carry exactly the spec's three fields.
    expect(res.body.data.credential_data).toEqual({ aws_account_id: "123456789012", access_key: MOTO_KEYS.access_key, secret_key: SECRET_MASK })
    expect(res.text).not.toContain(MOTO_KEYS.secret_key)
    expect((await env.call(auditor, "GET", "/api/accounts/999999")).status).toBe(404)
  })

  it("reveals the secret only with create_account, and audits it", async () => {
    expect((await env.call(auditor, "POST", `/api/accounts/${accountId}/reveal-secret`)).status).toBe(403)
    const res = await env.call(engineer, "POST", `/api/accounts/${accountId}/reveal-secret`)
    expect(res.status).toBe(200)
    expect(res.body.data.secret_key).toBe(MOTO_KEYS.secret_key)
    const audit = await env.sql((q) =>
      q<{ actor_user_id: number; target_id: string }>`SELECT actor_user_id, target_id FROM audit_log WHERE action = 'account.secret_revealed'`)
    expect(audit).toEqual([{ actor_user_id: engineer.userId, target_id: String(accountId) }])
  })
})

describe("scans of an account, cancel and delete", () => {
  it("cancels a scan, shows it in the account's history, and deletes the account with its scans", async () => {
    const account = (await env.call(owner, "GET", "/api/accounts?cloud_provider_id=1")).body.data.accounts[0]
    const scan = await startScan(env, owner, account.id)
    expect(scan.services.length).toBeGreaterThan(0)
    const dup = await env.call(owner, "POST", "/api/scans", { user_id: owner.userId, account_id: account.id, cloud_provider_id: 1, cloud_provider_name: "aws" })
    expect(dup.status).toBe(409)

    expect((await env.call(auditor, "POST", `/api/scans/${scan.id}/cancel`)).status).toBe(403)
    const canceled = await env.call(owner, "POST", `/api/scans/${scan.id}/cancel`)
    expect(canceled.status).toBe(200)
    expect(canceled.body.data.status).toBe("failed")
    expect(canceled.body.data.scan_end).not.toBeNull()
    for (const s of canceled.body.data.services) expect(["failed", "completed"]).toContain(s.status)
    expect((await env.call(owner, "POST", `/api/scans/${scan.id}/cancel`)).status).toBe(409)

    // A job that was running when the scan was canceled writes nothing afterwards.
    await new Promise((r) => setTimeout(r, 4000))
    const after = await env.call(owner, "GET", `/api/scans/${scan.id}`)
    expect(after.body.data.status).toBe("failed")

    const detail = await env.call(owner, "GET", `/api/accounts/${account.id}`)
    expect(detail.body.data.recent_scans).toHaveLength(1)
    expect(detail.body.data.recent_scans[0]).toMatchObject({ id: scan.id, status: "failed" })
    const listed = (await env.call(owner, "GET", "/api/accounts?cloud_provider_id=1")).body.data.accounts[0]
    expect(listed).toMatchObject({ total_scans: 1, status: "failed" })
    expect(listed.last_scan_date).not.toBeNull()

    expect((await env.call(auditor, "DELETE", `/api/accounts/${account.id}`)).status).toBe(403)
    const deleted = await env.call(owner, "DELETE", `/api/accounts/${account.id}`)
    expect(deleted.status).toBe(200)
    expect(deleted.body.ok).toBe(true)
    expect((await env.call(owner, "GET", `/api/accounts/${account.id}`)).status).toBe(404)
    expect((await env.call(owner, "GET", `/api/scans/${scan.id}`)).status).toBe(404)
    expect((await env.call(owner, "GET", "/api/scans")).body.pagination.total).toBe(0)
    const left = await env.sql((q) =>
      Effect.all([q<{ n: number }>`SELECT count(*)::int AS n FROM scans`, q<{ n: number }>`SELECT count(*)::int AS n FROM scan_services`]))
    expect(left.map((r) => r[0]!.n)).toEqual([0, 0])
    expect((await env.call(owner, "DELETE", `/api/accounts/${account.id}`)).status).toBe(404)
    // The same cloud account can be connected again once deleted.
    await addMotoAccount(env, owner, "Reconnected")
  }, 60_000)
})
