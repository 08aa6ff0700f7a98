/**
 * Stable numeric ids (`service_id` on the wire) for the engine's service keys ("s3", "iam", ...), kept in the global
 * `cloud_services` table and filled on demand, so a service the engine adds later gets an id the first time it is
 * scanned and keeps it forever.
 *
 * Which services a scan covers: every service of the provider's catalogue that has at least one check.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { ProviderIds } from "../../src/contracts/constants.ts"
import { scannableAwsServices } from "./aws/catalogue.ts"
import { scannableAzureServices } from "./azure/catalogue.ts"
import { scannableGcpServices } from "./gcp/catalogue.ts"

export interface ServiceEntry {
  readonly key: string
  readonly name: string
}

/** Services a new scan of this provider covers, in catalogue order. */
export const servicesToScan = (cloudProviderId: number): ReadonlyArray<ServiceEntry> => {
  const services =
    cloudProviderId === ProviderIds.AWS
      ? scannableAwsServices()
      : cloudProviderId === ProviderIds.GCP
        ? scannableGcpServices()
        : cloudProviderId === ProviderIds.Azure
          ? scannableAzureServices()
          : []
  return services.map((s) => ({ key: s.id, name: s.name }))
}

/** Ids of the given services (created when missing), in the order given. */
export const ensureServiceIds = Effect.fn("ServiceCatalogue.ensure")(function* (
  cloudProviderId: number,
  services: ReadonlyArray<ServiceEntry>,
) {
  const sql = yield* SqlClient.SqlClient
  if (services.length === 0) return [] as ReadonlyArray<ServiceEntry & { readonly id: number }>
  yield* sql`INSERT INTO cloud_services ${sql.insert(services.map((s) => ({ cloud_provider_id: cloudProviderId, key: s.key, name: s.name })) as unknown as readonly [Record<string, unknown>, ...Array<Record<string, unknown>>])}
             ON CONFLICT (cloud_provider_id, key) DO NOTHING`
  const rows = yield* sql<{ id: number; key: string }>`
    SELECT id, key FROM cloud_services WHERE cloud_provider_id = ${cloudProviderId} AND key IN ${sql.in(services.map((s) => s.key))}`
  const byKey = new Map(rows.map((r) => [r.key, r.id]))
  return services.map((s) => ({ ...s, id: byKey.get(s.key)! }))
})
