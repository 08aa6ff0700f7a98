/**
 * Opening an Azure session for a scan, a connection test or a fix: validate the identifiers, get an ARM token
 * (client credentials), build the REST client (ARM/Graph error format, origin allow-list = the configured ARM and
 * Graph bases) and read the subscription (GET /subscriptions/{id}, api-version 2022-12-01).
 */
import { Schema } from "effect"
import { makeRestClient, RestError, type RestClient } from "../rest/http.ts"
import { principalGate } from "../rest/principal-gate.ts"
import { azureTokenSource, InvalidAzureCredentials, validateAzureCredentials, type AzureCredentialsInput, type AzurePrincipalInput } from "./auth.ts"
import { resolveAzureEndpoints, type AzureEndpoints } from "./endpoints.ts"
import { classifyAzureError, parseAzureError } from "./errors.ts"

/** The engine's credentials from the add-account payload's field names; undefined when one is missing or blank. */
export function azureCredentialsFromFields(fields: {
  readonly tenant_id?: string | undefined
  readonly client_id?: string | undefined
  readonly client_secret?: string | undefined
  readonly subscription_id?: string | undefined
}): AzureCredentialsInput | undefined {
  const { tenant_id, client_id, client_secret, subscription_id } = fields
  const blank = (v: string | undefined) => v === undefined || v.trim() === ""
  if (blank(tenant_id) || blank(client_id) || blank(client_secret) || blank(subscription_id)) return undefined
  return { tenantId: tenant_id!, clientId: client_id!, clientSecret: client_secret!, subscriptionId: subscription_id! }
}

export interface AzureSessionInput {
  readonly credentials: AzureCredentialsInput
  readonly endpoints?: Partial<AzureEndpoints>
  readonly maxAttempts?: number
  readonly timeoutMs?: number
  readonly maxRetryDelayMs?: number
  readonly signal?: AbortSignal
  readonly fetch?: typeof fetch
  /**
   * Attempts in flight per API for every client of this principal in the process (../rest/principal-gate.ts): the
   * member scans of an organisation share its app registration's quotas. Unset: no shared limit.
   */
  readonly principalConcurrency?: number
}

export interface AzureSession {
  readonly subscriptionId: string
  readonly tenantId: string
  readonly displayName: string
  readonly state: string
  readonly endpoints: AzureEndpoints
  readonly client: RestClient
}

export type AzureSessionFailure = "invalid_input" | "invalid_credentials" | "access_denied" | "not_found" | "unreachable"

export class AzureSessionError extends Error {
  readonly reason: AzureSessionFailure
  constructor(reason: AzureSessionFailure, message: string) {
    super(message)
    this.name = "AzureSessionError"
    this.reason = reason
  }
}

const Subscription = Schema.Struct({
  id: Schema.optionalKey(Schema.String),
  subscriptionId: Schema.String,
  tenantId: Schema.optionalKey(Schema.String),
  displayName: Schema.optionalKey(Schema.String),
  state: Schema.optionalKey(Schema.String),
})

export type AzureClientOptions = Pick<AzureSessionInput, "maxAttempts" | "timeoutMs" | "maxRetryDelayMs" | "signal" | "fetch" | "principalConcurrency">

/**
 * A REST client signed in as the service principal (ARM and Graph bases allowed), before any API call: the session
 * below, and the management-group discovery (server/organizations/azure-discovery.ts), which has no subscription yet.
 */
export function azureRestClient(principal: AzurePrincipalInput, endpoints: AzureEndpoints, input: AzureClientOptions): RestClient {
  const tokens = azureTokenSource(principal, {
    authority: endpoints.authority,
    ...(input.fetch === undefined ? {} : { fetch: input.fetch }),
    ...(input.signal === undefined ? {} : { signal: input.signal }),
  })
  return makeRestClient({
    tokens,
    allowedBases: [endpoints.arm, endpoints.graph],
    parseError: parseAzureError,
    classify: classifyAzureError,
    ...(input.maxAttempts === undefined ? {} : { maxAttempts: input.maxAttempts }),
    ...(input.timeoutMs === undefined ? {} : { timeoutMs: input.timeoutMs }),
    ...(input.maxRetryDelayMs === undefined ? {} : { maxRetryDelayMs: input.maxRetryDelayMs }),
    ...(input.signal === undefined ? {} : { signal: input.signal }),
    ...(input.fetch === undefined ? {} : { fetch: input.fetch }),
    ...(input.principalConcurrency === undefined ? {} : { gate: principalGate(`azure:${principal.tenantId}/${principal.clientId}`, input.principalConcurrency) }),
    userAgent: "cloud-audit-scanner/1 (azure)",
  })
}

export async function openAzureSession(input: AzureSessionInput): Promise<AzureSession> {
  let credentials: AzureCredentialsInput
  let endpoints: AzureEndpoints
  try {
    credentials = validateAzureCredentials(input.credentials)
    endpoints = resolveAzureEndpoints(input.endpoints)
  } catch (error) {
    throw new AzureSessionError("invalid_input", error instanceof InvalidAzureCredentials || error instanceof RangeError ? error.message : "Invalid Azure credentials")
  }
  const client = azureRestClient(credentials, endpoints, input)
  const sub = credentials.subscriptionId
  try {
    const s = await client.json({ url: `${endpoints.arm}/subscriptions/${sub}?api-version=2022-12-01`, audience: endpoints.armAudience, op: "Microsoft.Resources/subscriptions/read" }, Subscription)
    return { subscriptionId: s.subscriptionId, tenantId: s.tenantId ?? credentials.tenantId, displayName: s.displayName ?? s.subscriptionId, state: s.state ?? "Enabled", endpoints, client }
  } catch (error) {
    if (input.signal?.aborted === true) throw error
    if (error instanceof RestError) {
      if (error.op === "oauth2.token") throw new AzureSessionError(error.kind === "access_denied" ? "invalid_credentials" : "unreachable", error.message)
      if (error.status === 404 || error.code === "SubscriptionNotFound") throw new AzureSessionError("not_found", `Subscription ${sub} was not found`)
      if (error.status === 403) throw new AzureSessionError("access_denied", `The application ${credentials.clientId} cannot read subscription ${sub}: ${error.code}: ${error.message}`)
      if (error.status === 401) throw new AzureSessionError("invalid_credentials", `Azure rejected the access token: ${error.message}`)
      throw new AzureSessionError("unreachable", `Could not read subscription ${sub}: ${error.code}: ${error.message}`)
    }
    throw new AzureSessionError("unreachable", error instanceof Error ? error.message : String(error))
  }
}
