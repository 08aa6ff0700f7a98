/**
 * Base URLs the Azure engine calls (Entra token authority, Azure Resource Manager, Microsoft Graph), each
 * overridable for sovereign clouds and for tests (a loopback fixture server). Token audiences are separate from the
 * base URLs: a test server still receives tokens minted for https://management.azure.com.
 */

export interface AzureEndpoints {
  /** Entra ID authority host; tokens come from `${authority}/${tenant}/oauth2/v2.0/token`. */
  readonly authority: string
  readonly arm: string
  readonly graph: string
  /** Token audience of ARM calls (scope `${armAudience}/.default`). */
  readonly armAudience: string
  /** Token audience of Graph calls. */
  readonly graphAudience: string
}

export const defaultAzureEndpoints: AzureEndpoints = {
  authority: "https://login.microsoftonline.com",
  arm: "https://management.azure.com",
  graph: "https://graph.microsoft.com",
  armAudience: "https://management.azure.com",
  graphAudience: "https://graph.microsoft.com",
}

/** Every host under one origin, as `${origin}/${host}` (the layout the fixture server routes on). */
export function azureEndpointsAt(origin: string): AzureEndpoints {
  const o = origin.replace(/\/+$/, "")
  return {
    ...defaultAzureEndpoints,
    authority: `${o}/login.microsoftonline.com`,
    arm: `${o}/management.azure.com`,
    graph: `${o}/graph.microsoft.com`,
  }
}

export function resolveAzureEndpoints(overrides: Partial<AzureEndpoints> | undefined): AzureEndpoints {
  const merged = { ...defaultAzureEndpoints, ...(overrides ?? {}) }
  for (const [name, url] of Object.entries(merged)) {
    let parsed: URL
    try {
      parsed = new URL(url)
    } catch {
      throw new RangeError(`Endpoint ${name} is not a URL: ${url}`)
    }
    if (parsed.protocol !== "https:" && parsed.protocol !== "http:") throw new RangeError(`Endpoint ${name} must be http(s): ${url}`)
  }
  return Object.fromEntries(Object.entries(merged).map(([k, v]) => [k, v.replace(/\/+$/, "")])) as unknown as AzureEndpoints
}

/** AZURE_ENDPOINT_URL=<origin> sends Entra, ARM and Graph calls to `${origin}/{host}` (fixture server layout). */
export function azureEndpointsFromEnv(env: Readonly<Record<string, string | undefined>> = process.env): AzureEndpoints | undefined {
  const origin = env["AZURE_ENDPOINT_URL"]
  return origin === undefined || origin.trim() === "" ? undefined : azureEndpointsAt(origin.trim())
}
