/** Logging and detection fixers: CloudTrail (multi-region, log validation, logging on), KMS rotation, GuardDuty and Security Hub enablement. */
import { DescribeTrailsCommand, GetEventSelectorsCommand, PutEventSelectorsCommand, StartLoggingCommand, UpdateTrailCommand } from "@aws-sdk/client-cloudtrail"
import { CreateDetectorCommand, ListDetectorsCommand, UpdateDetectorCommand } from "@aws-sdk/client-guardduty"
import { EnableKeyRotationCommand } from "@aws-sdk/client-kms"
import { EnableSecurityHubCommand } from "@aws-sdk/client-securityhub"
import { FixError, sendOptions, type Fixer } from "./fixer.ts"

export const loggingFixers: ReadonlyArray<Fixer> = [
  {
    checkIds: ["cloudtrail_management_events_logged"],
    description: "Makes the trail record all (read and write) management events, keeping its data-event selectors.",
    apply: async (ctx, row) => {
      const home = typeof row["home_region"] === "string" && row["home_region"] !== "" ? row["home_region"] : ctx.region
      const ct = ctx.clients.get("cloudtrail", home)
      const current = await ct.send(new GetEventSelectorsCommand({ TrailName: row.resource_id }), sendOptions(ctx))
      if ((current.AdvancedEventSelectors ?? []).length > 0) {
        await ct.send(
          new PutEventSelectorsCommand({
            TrailName: row.resource_id,
            AdvancedEventSelectors: [
              ...(current.AdvancedEventSelectors ?? []).filter((s) => !(s.FieldSelectors ?? []).some((f) => f.Field === "eventCategory" && (f.Equals ?? []).includes("Management"))),
              { Name: "All management events", FieldSelectors: [{ Field: "eventCategory", Equals: ["Management"] }] },
            ],
          }),
          sendOptions(ctx),
        )
      } else {
        const basic = (current.EventSelectors ?? []).map((s) => (s.IncludeManagementEvents === true ? { ...s, IncludeManagementEvents: false } : s)).filter((s) => (s.DataResources ?? []).length > 0)
        await ct.send(new PutEventSelectorsCommand({ TrailName: row.resource_id, EventSelectors: [{ ReadWriteType: "All", IncludeManagementEvents: true, DataResources: [] }, ...basic] }), sendOptions(ctx))
      }
      return `Trail ${row.resource_id} records all management events.`
    },
  },
  {
    checkIds: ["cloudtrail_multi_region_enabled"],
    description: "Turns an existing trail (preferably one already logging) into a multi-region trail with global service events, and starts logging. It does not create a trail: that needs an S3 bucket you choose.",
    apply: async (ctx) => {
      const ct = ctx.clients.get("cloudtrail", ctx.region)
      const trails = (await ct.send(new DescribeTrailsCommand({ includeShadowTrails: true }), sendOptions(ctx))).trailList ?? []
      const trail = trails.find((t) => t.IsMultiRegionTrail === true) ?? trails.find((t) => t.HomeRegion === ctx.region) ?? trails[0]
      if (trail?.TrailARN === undefined) throw new FixError("No CloudTrail trail exists to extend; create one with an S3 bucket first")
      // Addressed by name in its home region (moto does not resolve trail ARNs in UpdateTrail/StartLogging).
      const home = ctx.clients.get("cloudtrail", trail.HomeRegion ?? ctx.region)
      const name = trail.Name ?? trail.TrailARN
      await home.send(new UpdateTrailCommand({ Name: name, IsMultiRegionTrail: true, IncludeGlobalServiceEvents: true }), sendOptions(ctx))
      await home.send(new StartLoggingCommand({ Name: name }), sendOptions(ctx))
      return `Trail ${trail.Name ?? trail.TrailARN} is multi-region and logging.`
    },
  },
  {
    checkIds: ["cloudtrail_log_file_validation_enabled"],
    description: "Enables log file integrity validation on the trail.",
    apply: async (ctx, row) => {
      await ctx.clients.get("cloudtrail", ctx.region).send(new UpdateTrailCommand({ Name: row.resource_id, EnableLogFileValidation: true }), sendOptions(ctx))
      return `Trail ${row.resource_id} now validates log files.`
    },
  },
  {
    checkIds: ["cloudtrail_cloudwatch_logging_enabled"],
    description: "Starts logging on a trail that is stopped (the CloudWatch Logs destination itself must be chosen by you).",
    apply: async (ctx, row) => {
      if (row["log_group"] === null) throw new FixError("The trail has no CloudWatch Logs log group; choose one and an IAM role first")
      await ctx.clients.get("cloudtrail", ctx.region).send(new StartLoggingCommand({ Name: row.resource_id }), sendOptions(ctx))
      return `Trail ${row.resource_id} is logging.`
    },
  },
  {
    checkIds: ["kms_cmk_rotation_enabled"],
    description: "Enables automatic yearly rotation of the key material.",
    apply: async (ctx, row) => {
      await ctx.clients.get("kms", ctx.region).send(new EnableKeyRotationCommand({ KeyId: row.resource_id }), sendOptions(ctx))
      return `Key ${row.resource_id} now rotates yearly.`
    },
  },
  {
    checkIds: ["guardduty_is_enabled"],
    description: "Creates (or re-enables) the GuardDuty detector of the region. GuardDuty is billed by analysed volume.",
    apply: async (ctx) => {
      const gd = ctx.clients.get("guardduty", ctx.region)
      const existing = (await gd.send(new ListDetectorsCommand({}), sendOptions(ctx))).DetectorIds?.[0]
      if (existing !== undefined) {
        await gd.send(new UpdateDetectorCommand({ DetectorId: existing, Enable: true }), sendOptions(ctx))
        return `Re-enabled GuardDuty detector ${existing} in ${ctx.region}.`
      }
      const out = await gd.send(new CreateDetectorCommand({ Enable: true }), sendOptions(ctx))
      return `Enabled GuardDuty in ${ctx.region} (detector ${out.DetectorId ?? ""}).`
    },
  },
  {
    checkIds: ["securityhub_enabled"],
    description: "Subscribes the account to Security Hub in the region with the default standards. Security Hub is billed per check.",
    apply: async (ctx) => {
      await ctx.clients.get("securityhub", ctx.region).send(new EnableSecurityHubCommand({ EnableDefaultStandards: true }), sendOptions(ctx))
      return `Enabled Security Hub in ${ctx.region}.`
    },
  },
]
