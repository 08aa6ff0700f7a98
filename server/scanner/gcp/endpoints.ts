/**
 * Base URLs of every Google API the GCP engine calls, each overridable (tests point them at a loopback fixture
 * server). The token endpoint defaults to the key's own `token_uri`.
 */

export interface GcpEndpoints {
  /** OAuth token endpoint; default: the service-account key's `token_uri`. */
  readonly token?: string
  readonly cloudresourcemanager: string
  readonly iam: string
  readonly cloudkms: string
  readonly apikeys: string
  readonly essentialcontacts: string
  readonly logging: string
  readonly monitoring: string
  readonly storage: string
  readonly dns: string
  readonly compute: string
  readonly serviceusage: string
  readonly accessapproval: string
  readonly sqladmin: string
  readonly bigquery: string
  readonly dataproc: string
  readonly container: string
  readonly secretmanager: string
  readonly cloudfunctions: string
  readonly artifactregistry: string
  readonly run: string
  readonly orgpolicy: string
}

export type GcpApi = Exclude<keyof GcpEndpoints, "token">

export const gcpApis: ReadonlyArray<GcpApi> = [
  "cloudresourcemanager",
  "iam",
  "cloudkms",
  "apikeys",
  "essentialcontacts",
  "logging",
  "monitoring",
  "storage",
  "dns",
  "compute",
  "serviceusage",
  "accessapproval",
  "sqladmin",
  "bigquery",
  "dataproc",
  "container",
  "secretmanager",
  "cloudfunctions",
  "artifactregistry",
  "run",
  "orgpolicy",
]

export const defaultGcpEndpoints: GcpEndpoints = Object.fromEntries(gcpApis.map((api) => [api, `https://${api}.googleapis.com`])) as unknown as GcpEndpoints

/**
 * Every API (and the token endpoint) under one origin, each as `${origin}/${api}.googleapis.com` — the layout the
 * test fixture server routes on. `token` becomes `${origin}/oauth2.googleapis.com/token`.
 */
export function gcpEndpointsAt(origin: string): GcpEndpoints {
  const o = origin.replace(/\/+$/, "")
  return {
    token: `${o}/oauth2.googleapis.com/token`,
    ...(Object.fromEntries(gcpApis.map((api) => [api, `${o}/${api}.googleapis.com`])) as Record<GcpApi, string>),
  }
}

/** Merges partial overrides over the defaults, validating that each is an http(s) URL. */
export function resolveGcpEndpoints(overrides: Partial<GcpEndpoints> | undefined): GcpEndpoints {
  const merged = { ...defaultGcpEndpoints, ...(overrides ?? {}) }
  for (const [name, url] of Object.entries(merged)) {
    if (url === undefined) continue
    let parsed: URL
    try {
      parsed = new URL(url)
    } catch {
      throw new RangeError(`Endpoint ${name} is not a URL: ${url}`)
    }
    if (parsed.protocol !== "https:" && parsed.protocol !== "http:") throw new RangeError(`Endpoint ${name} must be http(s): ${url}`)
  }
  return Object.fromEntries(Object.entries(merged).map(([k, v]) => [k, v?.replace(/\/+$/, "")])) as unknown as GcpEndpoints
}

/** The scope requested for every call: read access everywhere is granted by IAM roles, not by the scope. */
export const GCP_SCOPE = "https://www.googleapis.com/auth/cloud-platform"

/**
 * Endpoint overrides from the environment (operator configuration, like AWS_ENDPOINT_URL for the AWS engine):
 * GCP_ENDPOINT_URL=<origin> sends every API and the token endpoint to `${origin}/{api}.googleapis.com`
 * (the fixture server layout); unset → the real Google endpoints.
 */
export function gcpEndpointsFromEnv(env: Readonly<Record<string, string | undefined>> = process.env): GcpEndpoints | undefined {
  const origin = env["GCP_ENDPOINT_URL"]
  return origin === undefined || origin.trim() === "" ? undefined : gcpEndpointsAt(origin.trim())
}
