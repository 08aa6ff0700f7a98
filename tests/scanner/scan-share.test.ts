/**
 * The scan share (server/scanner/aws/scan-share.ts): the service jobs of one scan in one process send each account-wide
 * read once and keep the scan's calls in flight under one limiter, without changing a single finding.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest"
import { CreateBucketCommand } from "@aws-sdk/client-s3"
import { CreateTrailCommand } from "@aws-sdk/client-cloudtrail"
import { makeHttpHandler } from "../../server/scanner/aws/clients.ts"
import type { ScanServiceResult } from "../../server/scanner/aws/scan-service.ts"
import { acquireScanShare, activeScanShares, SHARE_GRACE_MS, type ScanShare } from "../../server/scanner/aws/scan-share.ts"
import { makeLimiter, type Limiter } from "../../server/scanner/pool.ts"
import { startMoto, type Moto } from "../support/moto.ts"
import { scan, seedClients } from "./helpers.ts"

let moto: Moto

beforeAll(async () => {
  moto = await startMoto()
  const aws = seedClients(moto)
  for (const [i, region] of ["us-east-1", "eu-west-1", "us-east-1"].entries()) {
    await aws.get("s3", "us-east-1").send(new CreateBucketCommand({
      Bucket: `share-bucket-${i}`,
      ...(region === "us-east-1" ? {} : { CreateBucketConfiguration: { LocationConstraint: region as "eu-west-1" } }),
    }))
  }
  await aws.get("cloudtrail", "us-east-1").send(new CreateTrailCommand({ Name: "share-trail", S3BucketName: "share-bucket-0", IsMultiRegionTrail: true }))
}, 120_000)

afterAll(async () => {
  await moto?.stop()
})

afterEach(() => {
  vi.useRealTimers()
})

const calls = (results: ReadonlyArray<ScanServiceResult>, op: string) =>
  results.reduce((sum, r) => sum + (r.apiCallsByOperation[op] ?? 0), 0)

/** The comparable part of a finding: which check, its status and its rows. */
const outcome = (results: ReadonlyArray<ScanServiceResult>) =>
  results.flatMap((r) => r.findings.map((f) => ({ check: f.check_id, status: f.status, details: f.details, errors: f.errors.length })))

/** A limiter that remembers the most calls it ever had in flight. */
const peakLimiter = (concurrency: number): Limiter & { readonly peak: () => number } => {
  const inner = makeLimiter(concurrency)
  let peak = 0
  return {
    active: inner.active,
    peak: () => peak,
    run: (task) =>
      inner.run(() => {
        peak = Math.max(peak, inner.active())
        return task()
      }),
  }
}

describe("scan share", () => {
  // Services whose collectors read the same account-wide answers: S3 and CloudTrail both list the buckets and their
  // locations. Every job asks who the caller is.
  const services = ["s3", "cloudtrail", "iam", "account"] as const

  it("sends each account-wide read once for all the scan's service jobs, with the same findings", async () => {
    const alone = await Promise.all(services.map((service) => scan(moto, service)))
    const limiter = peakLimiter(4)
    const share: ScanShare = { limiter, reads: new Map(), http: makeHttpHandler(), clients: new Map() }
    const shared = await Promise.all(services.map((service) => scan(moto, service, { share, concurrency: 4 })))
    // One client set for the four jobs (each client built once per scan); each job still counts its own calls.
    expect(share.clients.size).toBe(1)
    for (const clients of share.clients.values()) clients.destroy()
    share.http.destroy()

    expect(outcome(shared)).toEqual(outcome(alone))
    expect(calls(alone, "STSClient.GetCallerIdentityCommand")).toBe(services.length)
    expect(calls(shared, "STSClient.GetCallerIdentityCommand")).toBe(1)
    expect(calls(alone, "S3Client.ListBucketsCommand")).toBeGreaterThan(1)
    expect(calls(shared, "S3Client.ListBucketsCommand")).toBe(1)
    expect(calls(shared, "S3Client.GetBucketLocationCommand")).toBe(3)
    expect(calls(shared, "S3Client.GetBucketLoggingCommand")).toBeLessThanOrEqual(3)
    // Versioning and Object Lock (the trail-bucket checks) too; a bucket without Object Lock answers 404, shared as well.
    expect(calls(alone, "S3Client.GetObjectLockConfigurationCommand")).toBeGreaterThan(3)
    expect(calls(shared, "S3Client.GetObjectLockConfigurationCommand")).toBeLessThanOrEqual(3)
    expect(calls(shared, "S3Client.GetBucketVersioningCommand")).toBeLessThanOrEqual(3)
    expect(calls(alone, "S3Client.GetBucketLocationCommand")).toBeGreaterThan(3)
    expect(shared.reduce((n, r) => n + r.apiCalls, 0)).toBeLessThan(alone.reduce((n, r) => n + r.apiCalls, 0))
    // One limiter bounds the calls of all four jobs together.
    expect(limiter.peak()).toBeLessThanOrEqual(4)
    expect(limiter.peak()).toBeGreaterThan(1)
  }, 120_000)

  it("does not keep a failed read: the next job asks again and gets the answer", async () => {
    let failures = 1
    const share: ScanShare = { limiter: makeLimiter(4), reads: new Map(), http: makeHttpHandler(), clients: new Map() }
    const stub = (call: { command: string }) => {
      if (call.command === "ListBucketsCommand" && failures > 0) {
        failures--
        throw Object.assign(new Error("Rate exceeded"), { name: "SlowDown", $metadata: { httpStatusCode: 503 } })
      }
      return undefined
    }
    const first = await scan(moto, "s3", { share, stub })
    expect(first.errors.some((e) => e.operation === "s3:ListBuckets")).toBe(true)
    const second = await scan(moto, "s3", { share, stub })
    share.http.destroy()
    expect(second.errors.some((e) => e.operation === "s3:ListBuckets")).toBe(false)
    expect(second.apiCallsByOperation["S3Client.ListBucketsCommand"]).toBe(1)
  }, 60_000)

  it("lives while a job of the scan holds it, and a short grace after the last one (then its connections close)", () => {
    vi.useFakeTimers()
    const a = acquireScanShare("scan:test-1", 4)
    const closed = vi.spyOn(a.share.http, "destroy")
    const b = acquireScanShare("scan:test-1", 4)
    expect(b.share).toBe(a.share)
    a.release()
    a.release() // releasing twice counts once
    b.release()
    expect(activeScanShares()).toContain("scan:test-1")
    vi.advanceTimersByTime(SHARE_GRACE_MS - 1)
    const c = acquireScanShare("scan:test-1", 4)
    expect(c.share).toBe(a.share) // a job arriving within the grace reuses the answers
    c.release()
    expect(closed).not.toHaveBeenCalled()
    vi.advanceTimersByTime(SHARE_GRACE_MS)
    expect(activeScanShares()).not.toContain("scan:test-1")
    expect(closed).toHaveBeenCalledOnce()
    const d = acquireScanShare("scan:test-1", 4)
    expect(d.share).not.toBe(a.share)
    d.release()
    vi.advanceTimersByTime(SHARE_GRACE_MS)
  })
})
