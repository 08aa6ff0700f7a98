/**
 * Jira issues from findings (issue 33 part 5) over HTTP, against the contract stub of tests/support/jira-stub.ts
 * (request bodies validated with jira.js's schemas generated from Atlassian's OpenAPI document; answers typed with its
 * models and validated again by the product's client): the connection (admins only, token sealed and never answered,
 * connection test), an issue for a finding and one per failing resource with labels and a link back, duplicates
 * refused with the existing key, statuses refreshed (a done issue shows closed), the same issues on a later scan's
 * finding, the permission to create, and another workspace kept out. The finding comes from a real S3 scan on moto.
 */
import { CreateBucketCommand } from "@aws-sdk/client-s3"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { JiraMessages } from "../../src/contracts/jira.ts"
import { AppConfig } from "../../server/config.ts"
import { refreshWorkspaceIssues } from "../../server/integrations/jira.ts"
import { JobQueue, type JobQueueShape } from "../../server/jobs/queue.ts"
import { makeAwsClients, type AwsClients } from "../../server/scanner/aws/clients.ts"
import { withSql } from "../support/db.ts"
import { startJiraStub, type JiraStub } from "../support/jira-stub.ts"
import { addMotoAccount, MOTO_KEYS, Roles, startScanEnv, uniq, type Member, type ScanEnv } from "../scanning/support.ts"

const VERSIONING = "s3_bucket_versioning_enabled"
const TOKEN = "jira-api-token-7f3a"

let env: ScanEnv
let jira: JiraStub
let owner: Member
let auditor: Member
let remediator: Member
let outsider: Member
let aws: AwsClients
let accountId: number
const buckets = [uniq("jira-a"), uniq("jira-b")]
const previousAllow = process.env["INTEGRATIONS_ALLOW_PRIVATE_TARGETS"]

beforeAll(async () => {
  // The stub listens on loopback: the SSRF guard's on-premises switch lets the product reach it (docs/integrations-jira.md).
  process.env["INTEGRATIONS_ALLOW_PRIVATE_TARGETS"] = "1"
  jira = await startJiraStub({ email: "bot@example.com", apiToken: TOKEN, projectKey: "SEC" })
  env = await startScanEnv()
  owner = await env.workspace()
  auditor = await env.member(owner, Roles.Auditor)
  remediator = await env.member(owner, Roles.SecurityEngineer)
  outsider = await env.workspace()
  aws = makeAwsClients({ credentials: { accessKeyId: MOTO_KEYS.access_key, secretAccessKey: MOTO_KEYS.secret_key }, endpoint: env.moto.endpoint, maxAttempts: 1 })
  for (const b of buckets) await aws.get("s3", "us-east-1").send(new CreateBucketCommand({ Bucket: b }))
  accountId = (await addMotoAccount(env, owner)).id
}, 120_000)

afterAll(async () => {
  if (previousAllow === undefined) delete process.env["INTEGRATIONS_ALLOW_PRIVATE_TARGETS"]
  else process.env["INTEGRATIONS_ALLOW_PRIVATE_TARGETS"] = previousAllow
  aws?.destroy()
  await env?.stop()
  await jira?.stop()
})

const connection = () => ({
  site_url: jira.url, email: "bot@example.com", api_token: TOKEN, project_key: "SEC", issue_type: "Task", labels: ["security", "audit"],
})

const versioningFinding = async (member: Member): Promise<number> => {
  const res = await env.call(member, "POST", "/api/scans", {
    user_id: member.userId, account_id: accountId, cloud_provider_id: 1, cloud_provider_name: "aws", services: ["s3"],
  })
  expect(res.status, res.text).toBe(200)
  const scan = await env.waitForScan(member, res.body.data.id)
  expect(scan.status).toBe("completed")
  const list = await env.call(member, "GET", `/api/findings?scan_id=${scan.id}&page_size=100`)
  expect(list.status, list.text).toBe(200)
  const finding = list.body.data.find((f: any) => f.check_id === VERSIONING)
  expect(finding).toBeDefined()
  return finding.id as number
}

describe("the connection", () => {
  it("is configured by workspace admins, with the token sealed and never answered", async () => {
    const denied = await env.call(auditor, "PUT", "/api/integrations/jira", connection())
    expect(denied.status).toBe(403)
    expect(denied.body.message).toBe(JiraMessages.adminOnly)
    const { api_token: _t, ...withoutToken } = connection()
    const noToken = await env.call(owner, "PUT", "/api/integrations/jira", withoutToken)
    expect(noToken.status).toBe(400)
    expect(noToken.body.message).toBe(JiraMessages.tokenRequired)
    const badKey = await env.call(owner, "PUT", "/api/integrations/jira", { ...connection(), project_key: "sec key" })
    expect(badKey.status).toBe(400)
    const saved = await env.call(owner, "PUT", "/api/integrations/jira", connection())
    expect(saved.status, saved.text).toBe(200)
    expect(saved.body.data).toMatchObject({ site_url: jira.url, project_key: "SEC", issue_type: "Task", labels: ["security", "audit"], token_set: true })
    expect(saved.text).not.toContain(TOKEN)
    const got = await env.call(owner, "GET", "/api/integrations/jira")
    expect(got.body.data.email).toBe("bot@example.com")
    expect(got.text).not.toContain(TOKEN)
    const stored = await env.sql((q) => q<{ api_token_sealed: string }>`SELECT api_token_sealed FROM jira_connections WHERE workspace_id = ${owner.workspaceId}`)
    expect(stored[0]!.api_token_sealed.startsWith("v1.")).toBe(true)
    expect(stored[0]!.api_token_sealed).not.toContain(TOKEN)
    // Updating without a token keeps the stored one.
    expect((await env.call(owner, "PUT", "/api/integrations/jira", withoutToken)).status).toBe(200)
    expect((await env.call(outsider, "GET", "/api/integrations/jira")).body.data).toBeNull()
  })

  it("is tested by reading the project; wrong credentials are told apart", async () => {
    const ok = await env.call(owner, "POST", "/api/integrations/jira/test")
    expect(ok.status, ok.text).toBe(200)
    expect(ok.body.message).toBe(JiraMessages.connectionWorks("SEC"))
    await env.call(owner, "PUT", "/api/integrations/jira", { ...connection(), api_token: "wrong" })
    const refused = await env.call(owner, "POST", "/api/integrations/jira/test")
    expect(refused.status).toBe(400)
    expect(refused.body.message).toBe(JiraMessages.unauthorized)
    await env.call(owner, "PUT", "/api/integrations/jira", connection())
  })
})

let findingId: number

describe("issues from a finding", () => {
  it("creates one issue for the finding, with labels and a link back, and refuses a duplicate with its key", async () => {
    findingId = await versioningFinding(owner)
    const denied = await env.call(auditor, "POST", `/api/findings/${findingId}/jira-issues`, { mode: "finding" })
    expect(denied.status).toBe(403)
    expect(denied.body.message).toBe(JiraMessages.createPermissionDenied)
    const created = await env.call(remediator, "POST", `/api/findings/${findingId}/jira-issues`, { mode: "finding" })
    expect(created.status, created.text).toBe(200)
    expect(created.body.message).toBe(JiraMessages.created(["SEC-1"]))
    expect(created.body.data.created).toEqual([
      expect.objectContaining({ issue_key: "SEC-1", issue_url: `${jira.url}/browse/SEC-1`, resource_uid: null, check_id: VERSIONING, closed: false }),
    ])
    const sent = jira.issues[0]!.fields
    expect(sent["labels"]).toEqual(expect.arrayContaining(["security", "audit", "cloud-audit", VERSIONING]))
    expect(sent["issuetype"]).toEqual({ name: "Task" })
    expect(sent["summary"]).toContain("[Cloud Audit]")
    expect(JSON.stringify(sent["description"])).toContain(`/dashboard/scans/`)
    expect(JSON.stringify(sent["description"])).toContain(`/findings/${findingId}`)
    for (const b of buckets) expect(JSON.stringify(sent["description"])).toContain(b)
    const again = await env.call(owner, "POST", `/api/findings/${findingId}/jira-issues`, { mode: "finding" })
    expect(again.status).toBe(409)
    expect(again.body.message).toBe(JiraMessages.alreadyExists("SEC-1"))
    expect(jira.violations).toEqual([])
  }, 240_000)

  it("creates one issue per failing resource, each once", async () => {
    const created = await env.call(owner, "POST", `/api/findings/${findingId}/jira-issues`, { mode: "per_resource" })
    expect(created.status, created.text).toBe(200)
    expect(created.body.data.created.map((i: any) => i.issue_key)).toEqual(["SEC-2", "SEC-3"])
    for (const b of buckets) expect(jira.issues.some((i) => String(i.fields["summary"]).includes(b))).toBe(true)
    const again = await env.call(owner, "POST", `/api/findings/${findingId}/jira-issues`, { mode: "per_resource" })
    expect(again.status).toBe(409)
    expect(again.body.message).toBe(JiraMessages.allResourcesHaveIssues)
    const list = await env.call(auditor, "GET", `/api/findings/${findingId}/jira-issues`)
    expect(list.status).toBe(200)
    expect(list.body.data.map((i: any) => [i.issue_key, i.status_category])).toEqual(
      expect.arrayContaining([["SEC-1", "new"], ["SEC-2", "new"], ["SEC-3", "new"]]),
    )
    expect(jira.violations).toEqual([])
  })

  it("refreshes statuses: a done issue shows closed", async () => {
    jira.transition("SEC-2", "Done", "done")
    jira.transition("SEC-1", "In Progress", "indeterminate")
    const refreshed = await env.call(auditor, "POST", `/api/findings/${findingId}/jira-issues/refresh`)
    expect(refreshed.status, refreshed.text).toBe(200)
    const byKey = new Map(refreshed.body.data.map((i: any) => [i.issue_key, i]))
    expect(byKey.get("SEC-2")).toMatchObject({ status_name: "Done", status_category: "done", closed: true })
    expect(byKey.get("SEC-1")).toMatchObject({ status_name: "In Progress", status_category: "indeterminate", closed: false })
    expect(byKey.get("SEC-3")).toMatchObject({ status_name: "To Do", closed: false })
    expect(jira.requests.filter((r) => r.method === "GET" && r.path.startsWith("/rest/api/3/issue/")).every((r) => r.search === "?fields=status")).toBe(true)
  })

  it("shows the same issues on the finding of a later scan, and keeps other workspaces out", async () => {
    const later = await versioningFinding(owner)
    expect(later).not.toBe(findingId)
    const list = await env.call(owner, "GET", `/api/findings/${later}/jira-issues`)
    expect(list.body.data.map((i: any) => i.issue_key).sort()).toEqual(["SEC-1", "SEC-2", "SEC-3"])
    expect((await env.call(outsider, "GET", `/api/findings/${later}/jira-issues`)).status).toBe(404)
    expect((await env.call(outsider, "POST", `/api/findings/${later}/jira-issues`, { mode: "finding" })).status).toBe(404)
  }, 240_000)

  it("the refresh job reads the statuses of issues not done and queues itself again while some remain", async () => {
    jira.transition("SEC-3", "Done", "done")
    const inserted: Array<{ name: string; rows: ReadonlyArray<{ data: unknown; startAfter?: unknown; singletonKey?: unknown }> }> = []
    // pg-boss seen through the job queue service: what the job asks to enqueue is recorded (the chain's next run).
    const queue = {
      boss: {
        insert: async (name: string, rows: ReadonlyArray<{ data: unknown }>) => {
          inserted.push({ name, rows })
          return rows.map((_, i) => `job-${i}`)
        },
        getWipData: () => [],
      },
    } as unknown as JobQueueShape
    const run = () =>
      withSql(env.server.databaseUrl, refreshWorkspaceIssues({ workspace_id: owner.workspaceId }).pipe(
        Effect.provide(AppConfig.layerFrom(env.server.config)),
        Effect.provideService(JobQueue, queue),
      ))
    await run()
    const rows = await env.sql((q) => q<{ issue_key: string; status_category: string; refreshed_at: Date | null }>`
      SELECT issue_key, status_category, refreshed_at FROM jira_issues WHERE workspace_id = ${owner.workspaceId} ORDER BY issue_key`)
    expect(rows.map((r) => [r.issue_key, r.status_category])).toEqual([["SEC-1", "indeterminate"], ["SEC-2", "done"], ["SEC-3", "done"]])
    expect(inserted.map((i) => [i.name, i.rows[0]?.startAfter, i.rows[0]?.singletonKey])).toEqual([
      ["integrations.jira-refresh", 900, `jira-refresh:${owner.workspaceId}`],
    ])
    jira.transition("SEC-1", "Done", "done")
    await run()
    expect(inserted.length).toBe(1)
    const open = await env.sql((q) => q<{ n: number }>`SELECT count(*)::int AS n FROM jira_issues WHERE workspace_id = ${owner.workspaceId} AND status_category <> 'done'`)
    expect(open[0]!.n).toBe(0)
  })
})
