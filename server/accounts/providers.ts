/**
 * The cloud providers this server knows (scanning §3: AWS=1, GCP=2, Azure=3). `is_enable` is true only for a provider
 * whose scanner exists, i.e. whose engine catalogue has at least one scannable service.
 */
import type { CloudProvider } from "../../src/contracts/providers.ts"
import { ProviderIds } from "../../src/contracts/constants.ts"
import type { CloudProviderId } from "../../src/contracts/ids.ts"
import { scannableAwsServices } from "../scanner/aws/catalogue.ts"
import { scannableAzureServices } from "../scanner/azure/catalogue.ts"
import { scannableGcpServices } from "../scanner/gcp/catalogue.ts"

const NAMES: Readonly<Record<number, string>> = { [ProviderIds.AWS]: "AWS", [ProviderIds.GCP]: "GCP", [ProviderIds.Azure]: "Azure" }

export const providerDisplayName = (id: number): string => NAMES[id] ?? `Provider ${id}`

/** Whether accounts of this provider can be added and scanned here. */
export const providerEnabled = (id: number): boolean =>
  id === ProviderIds.AWS
    ? scannableAwsServices().length > 0
    : id === ProviderIds.GCP
      ? scannableGcpServices().length > 0
      : id === ProviderIds.Azure && scannableAzureServices().length > 0

export const cloudProviders = (): ReadonlyArray<CloudProvider> =>
  [ProviderIds.AWS, ProviderIds.GCP, ProviderIds.Azure].map((id) => ({
    id: id as CloudProviderId,
    name: providerDisplayName(id),
    is_enable: providerEnabled(id),
  }))
