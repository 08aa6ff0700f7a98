/**
 * Entra ID client-credentials flow (OAuth 2.0 RFC 6749 §4.4): POST client_id, client_secret,
 * grant_type=client_credentials and scope=`${audience}/.default` to `${authority}/${tenant}/oauth2/v2.0/token`.
 * One token per audience (ARM, Graph), cached until shortly before it expires, fetched once when requested
 * concurrently. Refusals are RestErrors of kind access_denied with the AADSTS description.
 */
import { Result, Schema } from "effect"
import { postForm, RestError, type TokenSource } from "../rest/http.ts"

const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
const DOMAIN = /^(?=.{3,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/i

export interface AzureCredentialsInput {
  readonly tenantId: string
  readonly clientId: string
  readonly clientSecret: string
  readonly subscriptionId: string
}

export class InvalidAzureCredentials extends Error {
  constructor(message: string) {
    super(message)
    this.name = "InvalidAzureCredentials"
  }
}

/** The service principal alone, without a subscription: what an organisation's discovery signs in with (issue 31). */
export type AzurePrincipalInput = Omit<AzureCredentialsInput, "subscriptionId">

/** Checks the principal's shapes before anything is sent: GUIDs (tenant may be a verified domain), a non-empty secret. */
export function validateAzurePrincipal(c: AzurePrincipalInput): AzurePrincipalInput {
  const tenantId = c.tenantId.trim()
  const clientId = c.clientId.trim()
  if (!GUID.test(tenantId) && !DOMAIN.test(tenantId)) throw new InvalidAzureCredentials("The tenant ID must be a GUID or a verified domain name")
  if (!GUID.test(clientId)) throw new InvalidAzureCredentials("The client ID must be a GUID")
  if (c.clientSecret.trim() === "") throw new InvalidAzureCredentials("The client secret is required")
  return { tenantId, clientId, clientSecret: c.clientSecret }
}

/** The principal's checks and a GUID subscription id. */
export function validateAzureCredentials(c: AzureCredentialsInput): AzureCredentialsInput {
  const subscriptionId = c.subscriptionId.trim()
  const principal = validateAzurePrincipal(c)
  if (!GUID.test(subscriptionId)) throw new InvalidAzureCredentials("The subscription ID must be a GUID")
  return { ...principal, subscriptionId }
}

const TokenResponse = Schema.Struct({ access_token: Schema.String, expires_in: Schema.optionalKey(Schema.Union([Schema.Number, Schema.String])), token_type: Schema.optionalKey(Schema.String) })
const OAuthError = Schema.Struct({ error: Schema.String, error_description: Schema.optionalKey(Schema.String) })

export interface AzureTokenOptions {
  readonly authority: string
  readonly fetch?: typeof fetch
  readonly signal?: AbortSignal
  readonly now?: () => number
}

export function azureTokenSource(credentials: AzurePrincipalInput, options: AzureTokenOptions): TokenSource {
  const now = options.now ?? Date.now
  const cache = new Map<string, { token: string; expiresAt: number }>()
  const inFlight = new Map<string, Promise<string>>()
  const url = `${options.authority}/${encodeURIComponent(credentials.tenantId)}/oauth2/v2.0/token`

  const fetchToken = async (audience: string, signal: AbortSignal | undefined): Promise<string> => {
    const sig = signal ?? options.signal
    const response = await postForm(
      url,
      { client_id: credentials.clientId, client_secret: credentials.clientSecret, grant_type: "client_credentials", scope: `${audience}/.default` },
      { ...(options.fetch === undefined ? {} : { fetch: options.fetch }), ...(sig === undefined ? {} : { signal: sig }) },
    )
    if (response.status >= 200 && response.status < 300) {
      const ok = Schema.decodeUnknownResult(TokenResponse)(response.body)
      if (Result.isFailure(ok)) throw new RestError({ status: response.status, code: "InvalidTokenResponse", message: "The token endpoint answered without an access_token", kind: "error", op: "oauth2.token" })
      const expiresIn = Number(ok.success.expires_in ?? 3600)
      cache.set(audience, { token: ok.success.access_token, expiresAt: now() + Math.max(60, (Number.isFinite(expiresIn) ? expiresIn : 3600) - 300) * 1000 })
      return ok.success.access_token
    }
    const err = Schema.decodeUnknownResult(OAuthError)(response.body)
    const code = Result.isSuccess(err) ? err.success.error : `HTTP${response.status}`
    // The description starts with the AADSTS code and may carry trace ids; keep its first sentence.
    const description = Result.isSuccess(err) ? (err.success.error_description ?? err.success.error).split(/\r?\n/)[0] ?? "" : `HTTP ${response.status}`
    throw new RestError({
      status: response.status,
      code,
      message: `Entra ID refused the client credentials: ${description}`,
      kind: response.status === 400 || response.status === 401 || response.status === 403 ? "access_denied" : response.status === 429 ? "throttled" : "error",
      op: "oauth2.token",
    })
  }

  return {
    async token(audience, signal) {
      const c = cache.get(audience)
      if (c !== undefined && c.expiresAt > now()) return c.token
      let p = inFlight.get(audience)
      if (p === undefined) {
        p = fetchToken(audience, signal).finally(() => inFlight.delete(audience))
        inFlight.set(audience, p)
      }
      return p
    },
    invalidate(audience) {
      cache.delete(audience)
    },
  }
}
