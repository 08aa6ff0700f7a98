/** AWS Config inventory per region: configuration recorders with their status, and delivery channels. */
import {
  DescribeConfigurationRecordersCommand,
  DescribeConfigurationRecorderStatusCommand,
  DescribeDeliveryChannelsCommand,
} from "@aws-sdk/client-config-service"
import type { CollectContext } from "../context.ts"

export const configResourceTypes = ["config.recorders"] as const

export interface ConfigRecorder {
  readonly name: string
  readonly allSupported: boolean
  readonly includeGlobalResourceTypes: boolean
  readonly recording: boolean
  readonly lastStatus: string | undefined
}

export interface ConfigRegion {
  readonly region: string
  readonly recorders: ReadonlyArray<ConfigRecorder> | undefined
  readonly deliveryChannels: number | undefined
}

export interface ConfigInventory {
  readonly regions: ReadonlyArray<ConfigRegion>
}

export async function collectConfig(ctx: CollectContext): Promise<ConfigInventory> {
  const regions = await ctx.perRegion(async (region): Promise<ConfigRegion> => {
    const cfg = ctx.clients.get("config", region)
    const spec = (op: string) => ({ type: "config.recorders", region, op })
    const [recorders, statuses, channels] = await Promise.all([
      ctx.call(spec("config:DescribeConfigurationRecorders"), (o) => cfg.send(new DescribeConfigurationRecordersCommand({}), o)),
      ctx.call(spec("config:DescribeConfigurationRecorderStatus"), (o) => cfg.send(new DescribeConfigurationRecorderStatusCommand({}), o)),
      ctx.call(spec("config:DescribeDeliveryChannels"), (o) => cfg.send(new DescribeDeliveryChannelsCommand({}), o)),
    ])
    ctx.countResources(recorders?.ConfigurationRecorders?.length ?? 0)
    return {
      region,
      recorders:
        recorders === undefined || statuses === undefined
          ? undefined
          : (recorders.ConfigurationRecorders ?? []).map((r) => {
              const status = (statuses.ConfigurationRecordersStatus ?? []).find((s) => s.name === r.name)
              return {
                name: r.name ?? "default",
                allSupported: r.recordingGroup?.allSupported === true || r.recordingGroup?.recordingStrategy?.useOnly === "ALL_SUPPORTED_RESOURCE_TYPES",
                includeGlobalResourceTypes: r.recordingGroup?.includeGlobalResourceTypes === true,
                recording: status?.recording === true,
                lastStatus: status?.lastStatus,
              }
            }),
      deliveryChannels: channels?.DeliveryChannels?.length,
    }
  })
  return { regions }
}
