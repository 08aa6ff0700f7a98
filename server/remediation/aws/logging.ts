/** Logging and detection fixers: CloudTrail (multi-region, log validation, logging on, management events), KMS rotation, GuardDuty and Security Hub enablement. */
import { DescribeTrailsCommand, GetEventSelectorsCommand, GetTrailStatusCommand } from "@aws-sdk/client-cloudtrail"
import { GetDetectorCommand, ListDetectorsCommand } from "@aws-sdk/client-guardduty"
import { GetKeyRotationStatusCommand } from "@aws-sdk/client-kms"
import { DescribeHubCommand } from "@aws-sdk/client-securityhub"
import { ref, type Json } from "../plan.ts"
import { awsCall, FixError, isAbsent, registerTerraform, sendOptions, tfBlock, tfName, type FixContext, type Fixer } from "./fixer.ts"

/** The trail's settings the CloudTrail fixers change, read in its home region (trails are addressed by name: moto does not resolve trail ARNs in UpdateTrail/StartLogging). */
const trailState = async (ctx: FixContext, name: string, home: string) => {
  const ct = ctx.clients.get("cloudtrail", home)
  // Picked by name from the answer: moto ignores trailNameList and answers every trail.
  const trail = ((await ct.send(new DescribeTrailsCommand({ trailNameList: [name] }), sendOptions(ctx))).trailList ?? []).find((t) => t.Name === name || t.TrailARN === name)
  if (trail === undefined) throw new FixError(`Trail ${name} was not found in ${home}`)
  const status = await ct.send(new GetTrailStatusCommand({ Name: name }), sendOptions(ctx))
  return {
    Name: trail.Name ?? name,
    HomeRegion: trail.HomeRegion ?? home,
    IsMultiRegionTrail: trail.IsMultiRegionTrail ?? false,
    IncludeGlobalServiceEvents: trail.IncludeGlobalServiceEvents ?? false,
    LogFileValidationEnabled: trail.LogFileValidationEnabled ?? false,
    CloudWatchLogsLogGroupArn: trail.CloudWatchLogsLogGroupArn ?? null,
    IsLogging: status.IsLogging ?? false,
  }
}
type TrailState = Awaited<ReturnType<typeof trailState>>

const homeOf = (ctx: FixContext, row: Readonly<Record<string, unknown>>): string => (typeof row["home_region"] === "string" && row["home_region"] !== "" ? row["home_region"] : ctx.region)

registerTerraform("cloudtrail", "UpdateTrail", (call) => {
  const p = call.params as Record<string, unknown>
  const names: Readonly<Record<string, string>> = { IsMultiRegionTrail: "is_multi_region_trail", IncludeGlobalServiceEvents: "include_global_service_events", EnableLogFileValidation: "enable_log_file_validation" }
  const attrs: Array<readonly [string, unknown]> = [["name", p["Name"]]]
  for (const [k, v] of Object.entries(p)) if (names[k] !== undefined) attrs.push([names[k], v])
  return `# Set on the existing aws_cloudtrail (other arguments unchanged):\n${tfBlock("resource", "aws_cloudtrail", tfName(String(p["Name"])), attrs)}`
})
registerTerraform("cloudtrail", "StartLogging", (call) => `# Set on the existing aws_cloudtrail ${JSON.stringify(call.params["Name"])}:\n#   enable_logging = true`)
registerTerraform("kms", "EnableKeyRotation", (call) => `# Set on the existing aws_kms_key ${JSON.stringify(call.params["KeyId"])}:\n#   enable_key_rotation = true`)
registerTerraform("guardduty", "CreateDetector", () => tfBlock("resource", "aws_guardduty_detector", "this", [["enable", true]]))
registerTerraform("guardduty", "UpdateDetector", () => `# Set on the existing aws_guardduty_detector:\n#   enable = true`)
registerTerraform("securityhub", "EnableSecurityHub", (call) => tfBlock("resource", "aws_securityhub_account", "this", [["enable_default_standards", call.params["EnableDefaultStandards"] === true]]))

export const loggingFixers: ReadonlyArray<Fixer> = [
  {
    checkIds: ["cloudtrail_management_events_logged"],
    description: "Makes the trail record all (read and write) management events, keeping its data-event selectors.",
    read: async (ctx, row) => {
      const current = await ctx.clients.get("cloudtrail", homeOf(ctx, row)).send(new GetEventSelectorsCommand({ TrailName: row.resource_id }), sendOptions(ctx))
      const advanced = current.AdvancedEventSelectors ?? []
      return JSON.parse(JSON.stringify(advanced.length > 0 ? { EventSelectors: null, AdvancedEventSelectors: advanced } : { EventSelectors: current.EventSelectors ?? [], AdvancedEventSelectors: null })) as Json
    },
    plan: (ctx, row, state) => {
      type Selector = { IncludeManagementEvents?: boolean; DataResources?: ReadonlyArray<unknown> }
      type Advanced = { FieldSelectors?: ReadonlyArray<{ Field?: string; Equals?: ReadonlyArray<string> }> }
      const before = state as { EventSelectors: ReadonlyArray<Selector> | null; AdvancedEventSelectors: ReadonlyArray<Advanced> | null }
      const put = (selectors: Record<string, unknown>) => awsCall("cloudtrail", "PutEventSelectors", homeOf(ctx, row), { TrailName: row.resource_id, ...selectors })
      const fix =
        before.AdvancedEventSelectors !== null
          ? put({
              AdvancedEventSelectors: [
                ...before.AdvancedEventSelectors.filter((s) => !(s.FieldSelectors ?? []).some((f) => f.Field === "eventCategory" && (f.Equals ?? []).includes("Management"))),
                { Name: "All management events", FieldSelectors: [{ Field: "eventCategory", Equals: ["Management"] }] },
              ],
            })
          : put({
              EventSelectors: [
                { ReadWriteType: "All", IncludeManagementEvents: true, DataResources: [] },
                ...(before.EventSelectors ?? []).map((s) => (s.IncludeManagementEvents === true ? { ...s, IncludeManagementEvents: false } : s)).filter((s) => (s.DataResources ?? []).length > 0),
              ],
            })
      return {
        calls: [fix],
        effects: ["Read and write management events of every service are delivered to the trail's bucket (the first copy of management events is free; further trails recording them are billed)."],
        summary: `Trail ${row.resource_id} records all management events.`,
        undo: { reversible: true, calls: [put(before.AdvancedEventSelectors !== null ? { AdvancedEventSelectors: before.AdvancedEventSelectors } : { EventSelectors: before.EventSelectors ?? [] })] },
      }
    },
  },
  {
    checkIds: ["cloudtrail_multi_region_enabled"],
    description: "Turns an existing trail (preferably one already logging) into a multi-region trail with global service events, and starts logging. It does not create a trail: that needs an S3 bucket you choose.",
    read: async (ctx) => {
      const trails = (await ctx.clients.get("cloudtrail", ctx.region).send(new DescribeTrailsCommand({ includeShadowTrails: true }), sendOptions(ctx))).trailList ?? []
      const trail = trails.find((t) => t.IsMultiRegionTrail === true) ?? trails.find((t) => t.HomeRegion === ctx.region) ?? trails[0]
      if (trail?.TrailARN === undefined) throw new FixError("No CloudTrail trail exists to extend; create one with an S3 bucket first")
      return await trailState(ctx, trail.Name ?? trail.TrailARN, trail.HomeRegion ?? ctx.region)
    },
    plan: (_ctx, _row, state) => {
      const before = state as TrailState
      const update = (multi: boolean, global: boolean) => awsCall("cloudtrail", "UpdateTrail", before.HomeRegion, { Name: before.Name, IsMultiRegionTrail: multi, IncludeGlobalServiceEvents: global })
      return {
        calls: [update(true, true), ...(before.IsLogging ? [] : [awsCall("cloudtrail", "StartLogging", before.HomeRegion, { Name: before.Name })])],
        effects: [`Trail ${before.Name} records events of every region (and of global services such as IAM) into its bucket; a copy of the management events beyond the first trail is billed.`],
        summary: `Trail ${before.Name} is multi-region and logging.`,
        undo: {
          reversible: true,
          calls: [update(before.IsMultiRegionTrail, before.IncludeGlobalServiceEvents), ...(before.IsLogging ? [] : [awsCall("cloudtrail", "StopLogging", before.HomeRegion, { Name: before.Name })])],
          note: "Events delivered meanwhile stay in the trail's bucket.",
        },
      }
    },
  },
  {
    checkIds: ["cloudtrail_log_file_validation_enabled"],
    description: "Enables log file integrity validation on the trail.",
    read: async (ctx, row) => {
      const t = await trailState(ctx, row.resource_id, homeOf(ctx, row))
      return { LogFileValidationEnabled: t.LogFileValidationEnabled }
    },
    plan: (ctx, row, state) => {
      const before = (state as { LogFileValidationEnabled: boolean }).LogFileValidationEnabled
      const set = (on: boolean) => awsCall("cloudtrail", "UpdateTrail", homeOf(ctx, row), { Name: row.resource_id, EnableLogFileValidation: on })
      return {
        calls: [set(true)],
        effects: ["CloudTrail writes an hourly signed digest file next to the logs, so tampering with a delivered log file can be detected."],
        summary: `Trail ${row.resource_id} now validates log files.`,
        undo: { reversible: true, calls: [set(before)], note: "Digest files already written stay in the bucket." },
      }
    },
  },
  {
    checkIds: ["cloudtrail_cloudwatch_logging_enabled"],
    description: "Starts logging on a trail that is stopped (the CloudWatch Logs destination itself must be chosen by you).",
    read: async (ctx, row) => {
      const t = await trailState(ctx, row.resource_id, homeOf(ctx, row))
      return { CloudWatchLogsLogGroupArn: t.CloudWatchLogsLogGroupArn, IsLogging: t.IsLogging }
    },
    plan: (ctx, row, state) => {
      const before = state as { CloudWatchLogsLogGroupArn: string | null; IsLogging: boolean }
      if (before.CloudWatchLogsLogGroupArn === null) throw new FixError("The trail has no CloudWatch Logs log group; choose one and an IAM role first")
      const call = (operation: string) => awsCall("cloudtrail", operation, homeOf(ctx, row), { Name: row.resource_id })
      return {
        calls: [call("StartLogging")],
        effects: [`Events are delivered to the trail's bucket and to ${before.CloudWatchLogsLogGroupArn} (CloudWatch Logs ingestion is billed).`],
        summary: `Trail ${row.resource_id} is logging.`,
        undo: { reversible: true, calls: before.IsLogging ? [] : [call("StopLogging")] },
      }
    },
  },
  {
    checkIds: ["kms_cmk_rotation_enabled"],
    description: "Enables automatic yearly rotation of the key material.",
    read: async (ctx, row) => {
      const out = await ctx.clients.get("kms", ctx.region).send(new GetKeyRotationStatusCommand({ KeyId: row.resource_id }), sendOptions(ctx))
      return { KeyRotationEnabled: out.KeyRotationEnabled ?? false }
    },
    plan: (ctx, row, state) => {
      const before = (state as { KeyRotationEnabled: boolean }).KeyRotationEnabled
      const call = (operation: string) => awsCall("kms", operation, ctx.region, { KeyId: row.resource_id })
      return {
        calls: [call("EnableKeyRotation")],
        effects: ["New key material is generated every year; data encrypted earlier stays decryptable (older material is kept), and callers need no change."],
        summary: `Key ${row.resource_id} now rotates yearly.`,
        undo: { reversible: true, calls: before ? [] : [call("DisableKeyRotation")], note: "Key material already rotated in stays part of the key." },
      }
    },
  },
  {
    checkIds: ["guardduty_is_enabled"],
    description: "Creates (or re-enables) the GuardDuty detector of the region. GuardDuty is billed by analysed volume.",
    read: async (ctx) => {
      const gd = ctx.clients.get("guardduty", ctx.region)
      const id = (await gd.send(new ListDetectorsCommand({}), sendOptions(ctx))).DetectorIds?.[0]
      if (id === undefined) return { DetectorId: null, Status: null }
      const detector = await gd.send(new GetDetectorCommand({ DetectorId: id }), sendOptions(ctx))
      return { DetectorId: id, Status: detector.Status ?? null }
    },
    plan: (ctx, _row, state) => {
      const before = state as { DetectorId: string | null; Status: string | null }
      const update = (enable: boolean) => awsCall("guardduty", "UpdateDetector", ctx.region, { DetectorId: before.DetectorId, Enable: enable })
      return before.DetectorId !== null
        ? {
            calls: [update(true)],
            effects: [`Detector ${before.DetectorId} analyses CloudTrail, VPC flow log and DNS events of ${ctx.region} again (billed by volume).`],
            summary: `Re-enabled GuardDuty detector ${before.DetectorId} in ${ctx.region}.`,
            undo: { reversible: true, calls: [update(before.Status === "ENABLED")] },
          }
        : {
            calls: [awsCall("guardduty", "CreateDetector", ctx.region, { Enable: true })],
            effects: [`GuardDuty analyses CloudTrail, VPC flow log and DNS events of ${ctx.region} (billed by volume; 30 days free for a new account).`],
            summary: `Enabled GuardDuty in ${ctx.region}.`,
            undo: { reversible: true, calls: [awsCall("guardduty", "DeleteDetector", ctx.region, { DetectorId: ref(0, "DetectorId") })], note: "Deleting the detector deletes the findings it produced meanwhile." },
          }
    },
  },
  {
    checkIds: ["securityhub_enabled"],
    description: "Subscribes the account to Security Hub in the region with the default standards. Security Hub is billed per check.",
    read: async (ctx) => {
      try {
        const hub = await ctx.clients.get("securityhub", ctx.region).send(new DescribeHubCommand({}), sendOptions(ctx))
        return { HubArn: hub.HubArn ?? null }
      } catch (error) {
        if (isAbsent(error, "InvalidAccessException", "ResourceNotFoundException")) return { HubArn: null }
        throw error
      }
    },
    plan: (ctx, _row, state) => {
      const before = (state as { HubArn: string | null }).HubArn
      return {
        calls: [awsCall("securityhub", "EnableSecurityHub", ctx.region, { EnableDefaultStandards: true })],
        effects: [`Security Hub runs the default standards (AWS Foundational Security Best Practices, CIS) against ${ctx.region}, billed per check and finding ingested; it needs AWS Config recording to evaluate most controls.`],
        summary: `Enabled Security Hub in ${ctx.region}.`,
        undo:
          before === null
            ? { reversible: true, calls: [awsCall("securityhub", "DisableSecurityHub", ctx.region, {})], note: "Disabling Security Hub deletes its findings and disables the standards." }
            : { reversible: true, calls: [] },
      }
    },
  },
]
