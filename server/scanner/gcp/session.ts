/**
 * Opening a GCP session for a scan, a connection test or a fix: validate the key, get a token (JWT bearer grant),
 * build the REST client (Google error format, origin allow-list = the configured endpoints) and read the project
 * (Cloud Resource Manager v1 projects.get) for its number and state.
 */
import { Schema } from "effect"
import { makeRestClient, RestError, type RestClient } from "../rest/http.ts"
import { principalGate } from "../rest/principal-gate.ts"
import { gcpTokenSource, InvalidServiceAccountKey, parseServiceAccountKey, type ServiceAccountKey } from "./auth.ts"
import { GCP_SCOPE, resolveGcpEndpoints, type GcpEndpoints } from "./endpoints.ts"
import { classifyGoogleError, parseGoogleError } from "./errors.ts"

export interface GcpCredentialsInput {
  /** The service-account key file: its JSON text or the parsed object. */
  readonly serviceAccountKey: string | ServiceAccountKey
  /**
   * The project this account is (default: the key's own project_id). An organisation's member project is scanned with
   * the organisation's key (issue 31), so the key's home project is not the project scanned.
   */
  readonly projectId?: string
}

/**
 * The engine's credentials from the add-account payload's field names (src/contracts/accounts.ts `Credentials`):
 * `service_account_key` is the key file's JSON text, `project_id` the project when it is not the key's own. Undefined
 * when the key is missing or blank.
 */
export function gcpCredentialsFromFields(fields: { readonly service_account_key?: string | undefined; readonly project_id?: string | undefined }): GcpCredentialsInput | undefined {
  const key = fields.service_account_key
  if (key === undefined || key.trim() === "") return undefined
  const projectId = fields.project_id?.trim()
  return projectId === undefined || projectId === "" ? { serviceAccountKey: key } : { serviceAccountKey: key, projectId }
}

export interface GcpSessionInput {
  readonly credentials: GcpCredentialsInput
  /** Project to read; default: the credentials' projectId, else the key's project_id. */
  readonly projectId?: string
  readonly endpoints?: Partial<GcpEndpoints>
  readonly maxAttempts?: number
  readonly timeoutMs?: number
  readonly maxRetryDelayMs?: number
  readonly signal?: AbortSignal
  readonly fetch?: typeof fetch
  /**
   * Attempts in flight per API for every client of this principal in the process (../rest/principal-gate.ts): the
   * member scans of an organisation share its service account's quotas. Unset: no shared limit.
   */
  readonly principalConcurrency?: number
}

export interface GcpSession {
  readonly key: ServiceAccountKey
  readonly projectId: string
  readonly projectNumber: string
  readonly projectName: string
  readonly lifecycleState: string
  readonly endpoints: GcpEndpoints
  readonly client: RestClient
}

export type GcpSessionFailure = "invalid_input" | "invalid_credentials" | "access_denied" | "not_found" | "unreachable"

export class GcpSessionError extends Error {
  readonly reason: GcpSessionFailure
  constructor(reason: GcpSessionFailure, message: string) {
    super(message)
    this.name = "GcpSessionError"
    this.reason = reason
  }
}

const Project = Schema.Struct({
  projectNumber: Schema.String,
  projectId: Schema.String,
  name: Schema.optionalKey(Schema.String),
  lifecycleState: Schema.optionalKey(Schema.String),
})

const PROJECT_ID = /^[a-z][a-z0-9-]{4,28}[a-z0-9]$/

export type GcpClientOptions = Pick<GcpSessionInput, "maxAttempts" | "timeoutMs" | "maxRetryDelayMs" | "signal" | "fetch" | "principalConcurrency">

/**
 * The validated key, the endpoints and a REST client authenticated as the key's service account, before any API call
 * (the session below, the organisation discovery in server/organizations/gcp-discovery.ts). GcpSessionError
 * "invalid_input" for a bad key or endpoint.
 */
export function openGcpClient(
  credentials: GcpCredentialsInput,
  endpointOverrides: Partial<GcpEndpoints> | undefined,
  input: GcpClientOptions,
): { readonly key: ServiceAccountKey; readonly endpoints: GcpEndpoints; readonly client: RestClient } {
  let key: ServiceAccountKey
  try {
    key = parseServiceAccountKey(credentials.serviceAccountKey)
  } catch (error) {
    throw new GcpSessionError("invalid_input", error instanceof InvalidServiceAccountKey ? error.message : "The service account key is invalid")
  }
  let endpoints: GcpEndpoints
  try {
    endpoints = resolveGcpEndpoints(endpointOverrides)
  } catch (error) {
    throw new GcpSessionError("invalid_input", error instanceof Error ? error.message : String(error))
  }
  const tokens = gcpTokenSource(key, {
    scope: GCP_SCOPE,
    ...(endpoints.token === undefined ? {} : { tokenUrl: endpoints.token }),
    ...(input.fetch === undefined ? {} : { fetch: input.fetch }),
    ...(input.signal === undefined ? {} : { signal: input.signal }),
  })
  const client = makeRestClient({
    tokens,
    allowedBases: Object.entries(endpoints).flatMap(([name, url]) => (name === "token" || url === undefined ? [] : [url])),
    parseError: parseGoogleError,
    classify: classifyGoogleError,
    ...(input.maxAttempts === undefined ? {} : { maxAttempts: input.maxAttempts }),
    ...(input.timeoutMs === undefined ? {} : { timeoutMs: input.timeoutMs }),
    ...(input.maxRetryDelayMs === undefined ? {} : { maxRetryDelayMs: input.maxRetryDelayMs }),
    ...(input.signal === undefined ? {} : { signal: input.signal }),
    ...(input.fetch === undefined ? {} : { fetch: input.fetch }),
    ...(input.principalConcurrency === undefined ? {} : { gate: principalGate(`gcp:${key.client_email}`, input.principalConcurrency) }),
    userAgent: "cloud-audit-scanner/1 (gcp)",
  })
  return { key, endpoints, client }
}

export async function openGcpSession(input: GcpSessionInput): Promise<GcpSession> {
  const { key, endpoints, client } = openGcpClient(input.credentials, input.endpoints, input)
  const projectId = input.projectId ?? input.credentials.projectId ?? key.project_id
  if (!PROJECT_ID.test(projectId)) throw new GcpSessionError("invalid_input", `Invalid GCP project id "${projectId}"`)
  try {
    const project = await client.json({ url: `${endpoints.cloudresourcemanager}/v1/projects/${projectId}`, audience: GCP_SCOPE, op: "cloudresourcemanager.projects.get" }, Project)
    return {
      key,
      projectId: project.projectId,
      projectNumber: project.projectNumber,
      projectName: project.name ?? project.projectId,
      lifecycleState: project.lifecycleState ?? "ACTIVE",
      endpoints,
      client,
    }
  } catch (error) {
    if (input.signal?.aborted === true) throw error
    if (error instanceof RestError) {
      if (error.op === "oauth2.token") {
        throw new GcpSessionError(error.kind === "access_denied" ? "invalid_credentials" : "unreachable", error.message)
      }
      if (error.status === 403) throw new GcpSessionError("access_denied", `The service account ${key.client_email} cannot read project ${projectId}: ${error.message}`)
      if (error.status === 404) throw new GcpSessionError("not_found", `Project ${projectId} was not found`)
      if (error.status === 401) throw new GcpSessionError("invalid_credentials", `Google rejected the access token: ${error.message}`)
      throw new GcpSessionError("unreachable", `Could not read project ${projectId}: ${error.code}: ${error.message}`)
    }
    throw new GcpSessionError("unreachable", error instanceof Error ? error.message : String(error))
  }
}
