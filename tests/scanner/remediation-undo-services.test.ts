/**
 * Issue 32 on moto, the logging and detection fixers converted to the plan vocabulary (server/remediation/aws/logging.ts):
 * CloudTrail management events, multi-region, log file validation and logging, KMS key rotation, GuardDuty and Security
 * Hub. For each, the preview changes nothing, apply is verified by a re-scan, and undo restores the state before the fix
 * field by field (a fresh scan fails the resource again) — `expectRoundTrip` (./helpers.ts). Apply and undo seconds of
 * each are printed.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { CreateBucketCommand } from "@aws-sdk/client-s3"
import { CreateTrailCommand, DescribeTrailsCommand, GetEventSelectorsCommand, GetTrailStatusCommand, PutEventSelectorsCommand } from "@aws-sdk/client-cloudtrail"
import { CreateKeyCommand, GetKeyRotationStatusCommand } from "@aws-sdk/client-kms"
import { ListDetectorsCommand } from "@aws-sdk/client-guardduty"
import { DescribeHubCommand } from "@aws-sdk/client-securityhub"
import type { AwsClients } from "../../server/scanner/aws/clients.ts"
import { startMoto, type Moto } from "../support/moto.ts"
import { ACCOUNT, expectRoundTrip, seedClients, type RoundTrip } from "./helpers.ts"

const E = "us-east-1"

describe("logging and services fixers: preview and undo on moto (issue 32)", () => {
  let moto: Moto
  let c: AwsClients
  let keyId = ""
  const timing = (check: string, r: RoundTrip) => console.info(`round trip ${check}: apply ${r.applySeconds.toFixed(2)} s, undo ${r.undoSeconds.toFixed(2)} s`)
  const trailState = (name: string) => async () => {
    const ct = c.get("cloudtrail", E)
    // moto ignores trailNameList and answers every trail
    const trail = ((await ct.send(new DescribeTrailsCommand({ trailNameList: [name] }))).trailList ?? []).find((t) => t.Name === name) ?? {}
    const { $metadata: _s, LatestDeliveryTime: _l, StartLoggingTime: _st, StopLoggingTime: _sp, ...status } = await ct.send(new GetTrailStatusCommand({ Name: name }))
    const { $metadata: _e, ...selectors } = await ct.send(new GetEventSelectorsCommand({ TrailName: name }))
    return { trail, status, selectors }
  }

  beforeAll(async () => {
    moto = await startMoto()
    c = seedClients(moto)
    await c.get("s3", E).send(new CreateBucketCommand({ Bucket: "u-trail-logs" }))
    const ct = c.get("cloudtrail", E)
    await ct.send(new CreateTrailCommand({ Name: "u-trail", S3BucketName: "u-trail-logs" }))
    await ct.send(new CreateTrailCommand({ Name: "u-cw-trail", S3BucketName: "u-trail-logs", CloudWatchLogsLogGroupArn: `arn:aws:logs:${E}:${ACCOUNT}:log-group:ct:*`, CloudWatchLogsRoleArn: `arn:aws:iam::${ACCOUNT}:role/ct` }))
    await ct.send(new CreateTrailCommand({ Name: "u-data-trail", S3BucketName: "u-trail-logs" }))
    await ct.send(new PutEventSelectorsCommand({ TrailName: "u-data-trail", EventSelectors: [{ ReadWriteType: "WriteOnly", IncludeManagementEvents: false, DataResources: [{ Type: "AWS::S3::Object", Values: ["arn:aws:s3"] }] }] }))
    keyId = (await c.get("kms", E).send(new CreateKeyCommand({ Description: "no rotation" }))).KeyMetadata?.KeyId ?? ""
  }, 120_000)
  afterAll(async () => {
    c?.destroy()
    await moto?.stop()
  })

  it("CloudTrail management events: all recorded (data selectors kept), then the selectors read before by the undo", { timeout: 120_000 }, async () => {
    const check = "cloudtrail_management_events_logged"
    const r = await expectRoundTrip(moto, "cloudtrail", check, "u-data-trail", trailState("u-data-trail"))
    timing(check, r)
    expect(r.preview.calls.map((call) => call.operation)).toEqual(["PutEventSelectors"])
    expect(r.result.pre_image).toMatchObject({ AdvancedEventSelectors: null, EventSelectors: [{ ReadWriteType: "WriteOnly", IncludeManagementEvents: false }] })
  })

  it("CloudTrail log file validation: on, then off by the undo", { timeout: 120_000 }, async () => {
    const check = "cloudtrail_log_file_validation_enabled"
    const r = await expectRoundTrip(moto, "cloudtrail", check, "u-trail", trailState("u-trail"))
    timing(check, r)
    expect(r.result.pre_image).toEqual({ LogFileValidationEnabled: false })
    expect(r.result.post_image).toEqual({ LogFileValidationEnabled: true })
  })

  it("CloudTrail logging of a trail with a log group: started, then stopped by the undo", { timeout: 120_000 }, async () => {
    const check = "cloudtrail_cloudwatch_logging_enabled"
    const r = await expectRoundTrip(moto, "cloudtrail", check, "u-cw-trail", trailState("u-cw-trail"))
    timing(check, r)
    expect(r.preview.calls.map((call) => call.operation)).toEqual(["StartLogging"])
    expect(r.preview.undo_calls.map((call) => call.operation)).toEqual(["StopLogging"])
  })

  it("CloudTrail multi-region: the trail extended to every region and logging, then back to single-region and stopped", { timeout: 120_000 }, async () => {
    const check = "cloudtrail_multi_region_enabled"
    const r = await expectRoundTrip(moto, "cloudtrail", check, `${ACCOUNT}/${E}`, async () => ({ a: await trailState("u-trail")(), b: await trailState("u-cw-trail")(), d: await trailState("u-data-trail")() }))
    timing(check, r)
    expect(r.result.pre_image).toMatchObject({ IsMultiRegionTrail: false })
    expect(r.result.post_image).toMatchObject({ IsMultiRegionTrail: true, IsLogging: true })
  })

  it("KMS key rotation: on, then off by the undo", { timeout: 120_000 }, async () => {
    const check = "kms_cmk_rotation_enabled"
    const r = await expectRoundTrip(moto, "kms", check, keyId, async () => {
      const { $metadata: _m, ...rest } = await c.get("kms", E).send(new GetKeyRotationStatusCommand({ KeyId: keyId }))
      return rest
    })
    timing(check, r)
    expect(r.preview.undo_calls.map((call) => call.operation)).toEqual(["DisableKeyRotation"])
  })

  it("GuardDuty: a detector created, then deleted by the undo (the id answered by the apply)", { timeout: 120_000 }, async () => {
    const check = "guardduty_is_enabled"
    const r = await expectRoundTrip(moto, "guardduty", check, `${ACCOUNT}/${E}`, async () => (await c.get("guardduty", E).send(new ListDetectorsCommand({}))).DetectorIds ?? [])
    timing(check, r)
    expect(r.preview.calls.map((call) => call.operation)).toEqual(["CreateDetector"])
    expect(r.preview.undo_calls[0]?.cli).toContain("answered by step 1")
    expect(r.result.pre_image).toEqual({ DetectorId: null, Status: null })
  })

  it("Security Hub: subscribed, then unsubscribed by the undo", { timeout: 120_000 }, async () => {
    const check = "securityhub_enabled"
    const r = await expectRoundTrip(moto, "securityhub", check, `${ACCOUNT}/${E}`, async () => {
      try {
        return (await c.get("securityhub", E).send(new DescribeHubCommand({}))).HubArn ?? null
      } catch {
        return null
      }
    })
    timing(check, r)
    expect(r.preview.undo_calls.map((call) => call.operation)).toEqual(["DisableSecurityHub"])
    expect(r.result.pre_image).toEqual({ HubArn: null })
  })
})
