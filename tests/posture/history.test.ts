/**
 * History is immutable (issue 28 item 2): scan 1's answers — summary, findings and their rows, compliance (summary,
 * requirements, drill-downs), the framework CSVs, the findings exports, the PDF report's numbers, its point of the
 * trend and of the overview, and what the resource history says of it — are identical before and after a mute, an
 * edit of a rule, an expiry, an unmute and a remediation made while scan 2 is the account's latest. Each change does
 * show in scan 2 (so the test cannot pass by nothing happening). A remediation asked from scan 1 is refused.
 *
 * Scans are seeded straight into the database on the moto account (real credentials, so the remediation's fixer runs
 * against moto), with their counts made the algebra of their rows; the rule applied while scan 1 was live is applied
 * by the API, before scan 2 exists.
 */
import { existsSync } from "node:fs"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { HistoryMessages } from "../../src/contracts/outcomes.ts"
import { applyMutes } from "../../server/posture/mutes.ts"
import { seedComplianceScan, type SeedFinding } from "../compliance/seed.ts"
import { addMotoAccount, sleep, startScanEnv, type Member, type ScanEnv } from "../scanning/support.ts"
import { materialise, reportNumbers, reportText, scanAnswers, type ScanAnswers } from "./answers.ts"

const HAS_POPPLER = existsSync("/usr/bin/pdftotext")
const FRAMEWORKS = ["cis-aws-3.0.0", "aws-fsbp"]
const REQUIREMENTS = [["cis-aws-3.0.0", "1.10"], ["cis-aws-3.0.0", "1.5"], ["cis-aws-3.0.0", "2.2.1"]] as const

let env: ScanEnv
let owner: Member
let accountId: number
let scan1: number
let scan2: number
let earlyRule: number

const FINDINGS: ReadonlyArray<SeedFinding> = [
  { checkId: "iam_user_mfa_enabled_console_access", failing: 3, passing: 2 },
  { checkId: "iam_root_mfa_enabled", failing: 1, passing: 0 },
  { checkId: "ec2_ebs_default_encryption", failing: 1, passing: 1 },
  { checkId: "s3_bucket_secure_transport_policy", failing: 0, passing: 3 },
]

const seed = <A>(effect: Effect.Effect<A, unknown, SqlClient.SqlClient>) => env.sql((sql) => Effect.provideService(effect, SqlClient.SqlClient, sql))

/** The EBS default encryption row names what the check names (`<account>/<region>`), so the fixer's re-read finds it. */
const ebsRow = (scanId: number) =>
  env.sql((sql) => sql`UPDATE result_rows r SET resource_id = '123456789012/us-east-1', digest = 0
    FROM (SELECT v.workspace_id, f.stream_id, v.seq FROM results v JOIN findings f ON f.workspace_id = v.workspace_id AND f.id = v.finding_id
          WHERE f.scan_id = ${scanId} AND f.check_id = 'ec2_ebs_default_encryption' ORDER BY v.rank, v.seq LIMIT 1) x
    WHERE r.workspace_id = x.workspace_id AND r.stream_id = x.stream_id AND r.pos = x.seq`)

interface Everything {
  readonly answers: ScanAnswers
  readonly pdf: string
  readonly trend: unknown
  readonly overview: unknown
  readonly history: unknown
}

const everything = async (): Promise<Everything> => {
  const answers = await scanAnswers(env, owner, scan1, { requirements: REQUIREMENTS })
  const pdf = HAS_POPPLER ? reportNumbers(await reportText(env, owner, scan1, FRAMEWORKS)) : ""
  const trend = (await env.call(owner, "GET", `/api/compliance/accounts/${accountId}/frameworks/cis-aws-3.0.0/trend`)).body.data.points
    .find((p: any) => p.scan_id === scan1)
  const overviewRes = await env.call(owner, "GET", "/api/posture/overview")
  expect(overviewRes.status, overviewRes.text).toBe(200)
  const overview = overviewRes.body.data.accounts.find((a: any) => a.account_id === accountId).scans.find((s: any) => s.scan_id === scan1)
  const uid = answers.details.flatMap((d: any) => d.details).find((r: any) => r.compliance === false && r.muted !== undefined)?.resource_uid
  const historyRes = await env.call(owner, "GET", `/api/resources/history?account_id=${accountId}&uid=${encodeURIComponent(uid)}`)
  expect(historyRes.status, `${uid}: ${historyRes.text}`).toBe(200)
  const history = historyRes.body.data.scans.find((s: any) => s.scan_id === scan1)
  return { answers, pdf, trend, overview, history }
}

let before: Everything

const expectScan1Unchanged = async (step: string) => {
  const now = await everything()
  expect(now.answers.summary, `${step}: summary`).toEqual(before.answers.summary)
  expect(now.answers.findings, `${step}: findings`).toEqual(before.answers.findings)
  expect(now.answers.details, `${step}: rows`).toEqual(before.answers.details)
  expect(now.answers.compliance, `${step}: compliance`).toEqual(before.answers.compliance)
  expect(now.answers.frameworks, `${step}: requirements`).toEqual(before.answers.frameworks)
  expect(now.answers.requirementDetails, `${step}: drill-downs`).toEqual(before.answers.requirementDetails)
  expect(now.answers.csv, `${step}: framework CSV`).toEqual(before.answers.csv)
  expect(now.answers.exportCsv, `${step}: findings CSV`).toBe(before.answers.exportCsv)
  expect(now.answers.exportJson, `${step}: findings JSON`).toEqual(before.answers.exportJson)
  expect(now.pdf, `${step}: PDF`).toBe(before.pdf)
  expect(now.trend, `${step}: trend`).toEqual(before.trend)
  expect(now.overview, `${step}: overview`).toEqual(before.overview)
  expect(now.history, `${step}: resource history`).toEqual(before.history)
}

const scan2Finding = async (checkId: string) =>
  (await env.call(owner, "GET", `/api/findings?scan_id=${scan2}&page_size=100`)).body.data.find((f: any) => f.check_id === checkId)

const poll = async <T>(what: string, read: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> => {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await read()
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await sleep(200)
  }
}

beforeAll(async () => {
  process.env["POSTURE_TICK_SECONDS"] = "1"
  env = await startScanEnv()
  owner = await env.workspace("History")
  accountId = (await addMotoAccount(env, owner)).id
  scan1 = (await seed(seedComplianceScan({
    workspaceId: owner.workspaceId, accountName: "", cloudAccountId: "123456789012", accountId, findings: FINDINGS,
    scanStart: new Date(Date.now() - 2 * 86_400_000),
  }))).scanId
  await ebsRow(scan1)
  await materialise(env, owner.workspaceId, [scan1])
  // Muted while scan 1 is the latest: it keeps this mute (and its reason) forever.
  const rule = await env.call(owner, "POST", "/api/mute-rules", { reason: "Break-glass root, reviewed", check_id: "iam_root_mfa_enabled", account_id: accountId })
  expect(rule.status, rule.text).toBe(200)
  earlyRule = rule.body.data.id
  // Scan 2 completes: its rows get the active rules as the writer applies them.
  scan2 = (await seed(seedComplianceScan({
    workspaceId: owner.workspaceId, accountName: "", cloudAccountId: "123456789012", accountId, findings: FINDINGS,
    scanStart: new Date(Date.now() - 86_400_000),
  }))).scanId
  await ebsRow(scan2)
  await materialise(env, owner.workspaceId, [scan2])
  await seed(applyMutes(owner.workspaceId, { scanId: scan2 }))
  before = await everything()
}, 180_000)

afterAll(async () => {
  delete process.env["POSTURE_TICK_SECONDS"]
  await env?.stop()
})

describe("a superseded scan never changes", () => {
  it("scan 1 says what it said when it was the latest: the early mute, with its reason, passed with exceptions", () => {
    const f = before.answers.findings.find((x: any) => x.check_id === "iam_root_mfa_enabled")
    expect(f).toMatchObject({ muted: true, resources_muted: 1 })
    expect((before.answers.frameworks["cis-aws-3.0.0"] as any).requirements.find((r: any) => r.id === "1.5"))
      .toMatchObject({ status: "passed_with_exceptions", exceptions: [{ reason: "Break-glass root, reviewed", author: owner.email }] })
    expect(before.answers.summary).toMatchObject({ failed_findings: 2, muted_findings: 1, passed_findings: 1 })
    // Its finding pages say it was superseded (and offer no mute nor remediation); scan 2's do not.
    expect(before.answers.details.every((d: any) => d.superseded === true)).toBe(true)
  })

  it("a mute made while scan 2 is the latest changes scan 2 only", async () => {
    const res = await env.call(owner, "POST", "/api/mute-rules", { reason: "MFA rollout in Q1", check_id: "iam_user_mfa_enabled_console_access", account_id: accountId })
    expect(res.status, res.text).toBe(200)
    expect(await scan2Finding("iam_user_mfa_enabled_console_access")).toMatchObject({ muted: true, resources_muted: 3 })
    const f2 = await scan2Finding("iam_user_mfa_enabled_console_access")
    expect((await env.call(owner, "GET", `/api/findings/${f2.id}`)).body.data.superseded).toBe(false)
    await expectScan1Unchanged("mute")
    // An edit of the rule scan 1 kept: scan 2 shows the new reason, scan 1 the old one.
    const edit = await env.call(owner, "PUT", `/api/mute-rules/${earlyRule}`, { reason: "Edited later", check_id: "iam_root_mfa_enabled", account_id: accountId })
    expect(edit.status, edit.text).toBe(200)
    const root2 = await scan2Finding("iam_root_mfa_enabled")
    const row2 = (await env.call(owner, "GET", `/api/findings/${root2.id}?details_status=muted`)).body.data.details[0]
    expect(row2.muted.reason).toBe("Edited later")
    await expectScan1Unchanged("edit")
  }, 120_000)

  it("an expiry and an unmute change scan 2 only", async () => {
    const rules = (await env.call(owner, "GET", "/api/mute-rules")).body.data
    const mfa = rules.find((r: any) => r.check_id === "iam_user_mfa_enabled_console_access")
    const expiring = await env.call(owner, "PUT", `/api/mute-rules/${mfa.id}`, {
      reason: "MFA rollout in Q1", check_id: "iam_user_mfa_enabled_console_access", account_id: accountId,
      expires_at: new Date(Date.now() + 1_500).toISOString(),
    })
    expect(expiring.status, expiring.text).toBe(200)
    await poll("the expiry", async () => ((await scan2Finding("iam_user_mfa_enabled_console_access")).muted ? undefined : true))
    await expectScan1Unchanged("expiry")
    expect((await env.call(owner, "DELETE", `/api/mute-rules/${earlyRule}`)).status).toBe(200)
    expect(await scan2Finding("iam_root_mfa_enabled")).toMatchObject({ muted: false, resources_muted: 0 })
    await expectScan1Unchanged("unmute")
  }, 120_000)

  it("a remediation in scan 2 changes scan 2 only; one asked from scan 1 is refused", async () => {
    const old = before.answers.details.find((d: any) => d.check_id === "ec2_ebs_default_encryption") as any
    const oldRow = old.details.find((r: any) => r.compliance === false)
    const refused = await env.call(owner, "POST", `/api/findings/${old.id}/remediate`, { details: oldRow })
    expect(refused.status).toBe(409)
    expect(refused.body.message).toBe(HistoryMessages.scanSuperseded)

    const f2 = await scan2Finding("ec2_ebs_default_encryption")
    const rows = (await env.call(owner, "GET", `/api/findings/${f2.id}?details_status=fail`)).body.data.details
    for (const row of rows) {
      const res = await env.call(owner, "POST", `/api/findings/${f2.id}/remediate`, { details: row })
      expect(res.status, res.text).toBe(200)
      await poll("the remediation", async () => {
        const d = (await env.call(owner, "GET", `/api/findings/${f2.id}?details_page_size=50`)).body.data
        const status = d.details.find((r: any) => r.result_seq === row.result_seq)?.remediate?.status
        return status === "remediated" || status === "failed" ? status : undefined
      })
    }
    const done = (await env.call(owner, "GET", `/api/findings/${f2.id}?details_page_size=50`)).body.data
    expect(done, JSON.stringify(done.details.map((r: any) => r.remediate))).toMatchObject({ outcome: "remediated", resources_remediated: 1 })
    await expectScan1Unchanged("remediation")
  }, 120_000)
})
