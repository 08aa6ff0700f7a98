/**
 * Cloud providers (scanning §3, §7): id, name, is_enable; built-in ids AWS=1, GCP=2, Azure=3, extended by
 * the server list.
 */
import { Schema } from "effect"
import { CloudProviderId } from "./ids.ts"
import { withData } from "./common.ts"
import { ProviderIds } from "./constants.ts"

export const CloudProvider = Schema.Struct({
  id: CloudProviderId,
  name: Schema.String,
  is_enable: Schema.Boolean,
})
export type CloudProvider = typeof CloudProvider.Type

/** GET /api/cloud-providers: data.cloud_providers[]. */
export const CloudProvidersResponse = withData(Schema.Struct({ cloud_providers: Schema.Array(CloudProvider) }))
export type CloudProvidersResponse = typeof CloudProvidersResponse.Type

export type ProviderName = keyof typeof ProviderIds

/** Provider id → display name, from the server list first, then the built-in mapping. */
export const providerName = (id: number, list: ReadonlyArray<{ readonly id: number; readonly name: string }> = []): string | undefined =>
  list.find((p) => p.id === id)?.name ?? (Object.keys(ProviderIds) as Array<ProviderName>).find((k) => ProviderIds[k] === id)

/** Provider name (any case) → id, from the server list first, then the built-in mapping. */
export const providerId = (
  name: string,
  list: ReadonlyArray<{ readonly id: number; readonly name: string }> = [],
): number | undefined => {
  const n = name.trim().toLowerCase()
  const fromList = list.find((p) => p.name.toLowerCase() === n)
  if (fromList) return fromList.id
  const k = (Object.keys(ProviderIds) as Array<ProviderName>).find((x) => x.toLowerCase() === n)
  return k === undefined ? undefined : ProviderIds[k]
}
