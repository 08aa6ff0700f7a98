/**
 * The scanner thread (server/scanner/aws/scan-in-thread.ts): the same findings as an in-thread scan, the engine's
 * ScanSetupError across the thread boundary, and an abort that reaches the calls in the thread.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { CreateBucketCommand } from "@aws-sdk/client-s3"
import { scanServiceInThread, stopScannerThread } from "../../server/scanner/aws/scan-in-thread.ts"
import { ScanSetupError } from "../../server/scanner/aws/scan-service.ts"
import { startMoto, type Moto } from "../support/moto.ts"
import { REGIONS, scan, seedClients, testKeys } from "./helpers.ts"

let moto: Moto

beforeAll(async () => {
  moto = await startMoto()
  const aws = seedClients(moto)
  for (let i = 0; i < 20; i++) await aws.get("s3", "us-east-1").send(new CreateBucketCommand({ Bucket: `thread-bucket-${i}` }))
}, 120_000)

afterAll(async () => {
  await stopScannerThread()
  await moto?.stop()
})

const base = () => ({ credentials: testKeys, regions: [...REGIONS], maxAttempts: 1, endpoint: moto.endpoint, concurrency: 4 })

describe("scanner thread", () => {
  it("answers what the engine answers in this thread", async () => {
    const here = await scan(moto, "s3")
    const there = await scanServiceInThread({ ...base(), service: "s3", shareKey: "thread-test-1" })
    const comparable = (r: typeof here) => r.findings.map((f) => ({ check: f.check_id, status: f.status, details: f.details }))
    expect(comparable(there)).toEqual(comparable(here))
    expect(there.apiCalls).toBe(here.apiCalls)
    expect(there.accountId).toBe("123456789012")
  }, 60_000)

  it("keeps the engine's setup errors: an unknown service is a ScanSetupError with its reason", async () => {
    const error = await scanServiceInThread({ ...base(), service: "no-such-service", shareKey: "thread-test-2" }).then(
      () => undefined,
      (e: unknown) => e,
    )
    expect(error).toBeInstanceOf(ScanSetupError)
    expect((error as ScanSetupError).reason).toBe("unknown_service")
  })

  it("aborts the scan's calls in the thread when the signal fires", async () => {
    const controller = new AbortController()
    const running = scanServiceInThread({ ...base(), concurrency: 1, service: "s3", shareKey: "thread-test-3", signal: controller.signal })
    setTimeout(() => controller.abort(new Error("Canceled by a user")), 50)
    await expect(running).rejects.toThrow()
    // The thread is still usable afterwards.
    const after = await scanServiceInThread({ ...base(), service: "s3", shareKey: "thread-test-4" })
    expect(after.findings.length).toBeGreaterThan(0)
  }, 60_000)

  it("refuses a scan whose signal already fired, without starting it", async () => {
    const controller = new AbortController()
    controller.abort(new Error("Canceled by a user"))
    await expect(scanServiceInThread({ ...base(), service: "s3", shareKey: "thread-test-5", signal: controller.signal })).rejects.toThrow(
      "Canceled by a user",
    )
  })
})
