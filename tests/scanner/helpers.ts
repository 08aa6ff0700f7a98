/**
 * Shared helpers for the scanner suites: seeding clients on moto, a scan call with test defaults (two regions,
 * one attempt per call), and row/finding lookups that fail loudly with the actual rows when a case is missing.
 */
import { execFileSync } from "node:child_process"
import { appendFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { expect } from "vitest"
import type { CheckResult, DetailRow } from "../../server/scanner/check.ts"
import { makeAwsClients, type AwsClients, type AwsCredentialsInput } from "../../server/scanner/aws/clients.ts"
import { scanService, type ScanServiceInput, type ScanServiceResult } from "../../server/scanner/aws/scan-service.ts"
import { previewFinding, readFixedState, remediateFinding, undoFinding, type RemediationResult } from "../../server/remediation/aws/remediate.ts"
import { diffStates, toJson, type Json, type Preview } from "../../server/remediation/plan.ts"
import type { Moto } from "../support/moto.ts"

export const REGIONS = ["us-east-1", "eu-west-1"] as const
export const ACCOUNT = "123456789012"
export const OTHER_ACCOUNT = "111122223333"

export const testKeys: AwsCredentialsInput = { accessKeyId: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: "moto-secret" }
/** Credentials that assume a role in a second moto account (separate, empty state). */
export const otherAccountKeys: AwsCredentialsInput = {
  ...testKeys,
  roleArn: `arn:aws:iam::${OTHER_ACCOUNT}:role/Audit`,
  externalId: "audit-external-id",
}

export function seedClients(moto: Moto, credentials: AwsCredentialsInput = testKeys): AwsClients {
  return makeAwsClients({ credentials, endpoint: moto.endpoint, maxAttempts: 1 })
}

export async function scan(
  moto: Moto,
  service: string,
  options: Partial<Omit<ScanServiceInput, "service" | "endpoint">> = {},
): Promise<ScanServiceResult> {
  const result = await scanService({
    credentials: testKeys,
    regions: REGIONS,
    maxAttempts: 1,
    ...options,
    service,
    endpoint: moto.endpoint,
  })
  assertLabelled(result)
  // SCANNER_TIMINGS=<file>: one JSON line per scan (service, duration, API calls) for the benchmark report.
  const timings = process.env["SCANNER_TIMINGS"]
  if (timings !== undefined && timings !== "") {
    appendFileSync(
      timings,
      `${JSON.stringify({ service, checks: result.findings.length, regions: result.regions.length, resources: result.resourcesScanned, apiCalls: result.apiCalls, durationMs: result.durationMs })}\n`,
    )
  }
  return result
}

/** Every field of every detail row must have a label: the finding view shows labels, never raw keys. */
export function assertLabelled(result: ScanServiceResult): void {
  for (const f of result.findings) {
    for (const r of f.details) {
      for (const key of Object.keys(r)) {
        if (f.field_labels[key] === undefined) throw new Error(`${f.check_id}: row field "${key}" has no label`)
      }
    }
  }
}

export function finding(result: ScanServiceResult, checkId: string): CheckResult {
  const f = result.findings.find((x) => x.check_id === checkId)
  if (f === undefined) throw new Error(`No finding for ${checkId}; got ${result.findings.map((x) => x.check_id).join(", ")}`)
  return f
}

export function rowFor(result: ScanServiceResult, checkId: string, resourceId: string, region?: string): DetailRow {
  const f = finding(result, checkId)
  const r = f.details.find((d) => d.resource_id === resourceId && (region === undefined || d.region === region))
  if (r === undefined) {
    throw new Error(
      `${checkId}: no row for ${resourceId}${region === undefined ? "" : ` in ${region}`}; rows: ${JSON.stringify(f.details)}; errors: ${JSON.stringify(f.errors)}`,
    )
  }
  return r
}

/** Asserts the compliant and the non-compliant case of a check on the same scanned state. */
export function expectCases(
  result: ScanServiceResult,
  checkId: string,
  cases: { readonly compliant?: ReadonlyArray<string>; readonly nonCompliant?: ReadonlyArray<string>; readonly region?: string },
): void {
  for (const id of cases.compliant ?? []) {
    const r = rowFor(result, checkId, id, cases.region)
    expect(r.compliant, `${checkId} ${id}: ${r.reason}`).toBe(true)
  }
  for (const id of cases.nonCompliant ?? []) {
    const r = rowFor(result, checkId, id, cases.region)
    expect(r.compliant, `${checkId} ${id}: ${r.reason}`).toBe(false)
  }
  if ((cases.nonCompliant ?? []).length > 0) expect(finding(result, checkId).status).toBe("fail")
}

export function expectStatus(result: ScanServiceResult, checkId: string, status: CheckResult["status"]): void {
  const f = finding(result, checkId)
  expect(f.status, `${checkId}: ${JSON.stringify({ details: f.details, errors: f.errors })}`).toBe(status)
}

/** A throw-away self-signed certificate (openssl CLI), valid for `days`. */
export function selfSignedCertificate(days: number): { cert: string; key: string } {
  const dir = mkdtempSync(join(tmpdir(), "scanner-cert-"))
  try {
    execFileSync(
      "openssl",
      ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", join(dir, "key.pem"), "-out", join(dir, "cert.pem"), "-days", String(days), "-subj", "/CN=scanner-test.example.com"],
      { stdio: "ignore" },
    )
    return { cert: readFileSync(join(dir, "cert.pem"), "utf8"), key: readFileSync(join(dir, "key.pem"), "utf8") }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/**
 * fail -> fix -> re-collect -> pass, for one check and one resource: scans (only that check, only that region),
 * asserts the row fails, remediates it, and asserts both the fixer's own verification and a fresh scan pass.
 */
export async function expectFixed(
  moto: Moto,
  service: string,
  checkId: string,
  resourceId: string,
  options: { readonly region?: string; readonly credentials?: AwsCredentialsInput; readonly now?: Date } = {},
): Promise<RemediationResult> {
  const scanOptions = {
    checkIds: [checkId],
    regions: [options.region ?? "us-east-1"],
    ...(options.credentials === undefined ? {} : { credentials: options.credentials }),
    ...(options.now === undefined ? {} : { now: options.now }),
  }
  const before = await scan(moto, service, scanOptions)
  const row = rowFor(before, checkId, resourceId)
  expect(row.compliant, `${checkId} ${resourceId} should fail before the fix: ${row.reason}`).toBe(false)
  const result = await remediateFinding({
    credentials: options.credentials ?? testKeys,
    checkId,
    row,
    endpoint: moto.endpoint,
    maxAttempts: 1,
    ...(options.now === undefined ? {} : { now: options.now }),
  })
  expect(result.status, `${checkId} ${resourceId}: ${result.message}`).toBe("remediated")
  expect(result.after?.compliant).toBe(true)
  const after = await scan(moto, service, scanOptions)
  const fixed = rowFor(after, checkId, resourceId)
  expect(fixed.compliant, `${checkId} ${resourceId} after the fix: ${fixed.reason}`).toBe(true)
  return result
}

export interface RoundTrip {
  readonly preview: Preview
  readonly result: RemediationResult
  /** Seconds of the apply (with its verification scan) and of the undo (with its re-read). */
  readonly applySeconds: number
  readonly undoSeconds: number
}

/**
 * Issue 32 on moto, for one check and one failing resource: the preview changes nothing (the fixer's state and the
 * resource's full state read by `snapshot` are identical before and after it), the fix is verified, and the undo brings
 * the state back to the pre-image field by field; a fresh scan then fails the resource again.
 */
export async function expectRoundTrip(
  moto: Moto,
  service: string,
  checkId: string,
  resourceId: string,
  snapshot: () => Promise<unknown>,
  options: { readonly region?: string; readonly now?: Date } = {},
): Promise<RoundTrip> {
  const scanOptions = { checkIds: [checkId], regions: [options.region ?? "us-east-1"], ...(options.now === undefined ? {} : { now: options.now }) }
  const row = rowFor(await scan(moto, service, scanOptions), checkId, resourceId)
  expect(row.compliant, `${checkId} ${resourceId} should fail before the fix: ${row.reason}`).toBe(false)
  const input = { credentials: testKeys, checkId, row, endpoint: moto.endpoint, maxAttempts: 1, ...(options.now === undefined ? {} : { now: options.now }) }

  const fullBefore = toJson(await snapshot())
  const stateBefore = await readFixedState(input)
  const preview = await previewFinding(input)
  expect(preview.calls.length, `${checkId}: the preview plans calls`).toBeGreaterThan(0)
  expect(preview.cli.split("\n").length).toBe(preview.calls.length)
  expect(preview.state).toEqual(stateBefore)
  expect(diffStates(fullBefore, toJson(await snapshot())), `${checkId}: the preview changed the resource`).toEqual([])
  expect(diffStates(stateBefore, await readFixedState(input))).toEqual([])

  let t = performance.now()
  const result = await remediateFinding(input)
  const applySeconds = (performance.now() - t) / 1000
  expect(result.status, `${checkId} ${resourceId}: ${result.message}`).toBe("remediated")
  expect(result.pre_image).toEqual(stateBefore)
  expect(result.post_image).toBeDefined()
  expect(diffStates(result.pre_image, result.post_image).length, `${checkId}: the fix changed the state it reads`).toBeGreaterThan(0)

  t = performance.now()
  const undone = await undoFinding({ ...input, plan: result.plan!, outputs: result.outputs ?? [], preImage: result.pre_image as Json, postImage: result.post_image as Json, force: false })
  const undoSeconds = (performance.now() - t) / 1000
  expect(undone.differences).toEqual([])
  expect(undone.status, `${checkId} ${resourceId}: ${undone.message}`).toBe("undone")
  expect(diffStates(stateBefore, await readFixedState(input)), `${checkId}: state after undo`).toEqual([])
  const again = rowFor(await scan(moto, service, scanOptions), checkId, resourceId)
  expect(again.compliant, `${checkId} ${resourceId} fails again after the undo`).toBe(false)
  return { preview, result, applySeconds, undoSeconds }
}
