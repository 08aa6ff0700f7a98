/**
 * Connection test for an AWS account (scanning §7 "the same call tests the connection"): STS GetCallerIdentity through the
 * scanner engine's client factory (same endpoint override, same assume-role path as the scans), answering the cloud account
 * id and the caller ARN.
 *
 * Errors (`ConnectionTestFailed.reason`):
 * - "invalid_credentials": AWS refused the keys or the role (InvalidClientTokenId, SignatureDoesNotMatch, AccessDenied...);
 * - "role_needs_base_credentials": a role ARN without keys, and this server has no AWS credentials of its own to assume it;
 * - "unreachable": the endpoint did not answer (network, DNS, timeout, 5xx).
 * Messages never contain a secret: the SDK's error messages name the key id at most.
 */
import { GetCallerIdentityCommand } from "@aws-sdk/client-sts"
import { Data, Effect } from "effect"
import { ProviderIds } from "../../src/contracts/constants.ts"
import { cloudUnreachableMessage, ScanningServerMessages, ValidationMessages } from "../../src/contracts/messages.ts"
import { testAzureConnectionEffect } from "../scanner/azure/connection-test.ts"
import { azureEndpointsFromEnv } from "../scanner/azure/endpoints.ts"
import { azureCredentialsFromFields } from "../scanner/azure/session.ts"
import { makeAwsClients, type AwsCredentialsInput } from "../scanner/aws/clients.ts"
import { classifyAwsError } from "../scanner/aws/errors.ts"
import { testGcpConnectionEffect } from "../scanner/gcp/connection-test.ts"
import { gcpEndpointsFromEnv } from "../scanner/gcp/endpoints.ts"
import { gcpCredentialsFromFields } from "../scanner/gcp/session.ts"
import type { ConnectionTestError } from "../scanner/rest/engine.ts"
import type { StoredCredentials } from "./credential-vault.ts"

export class ConnectionTestFailed extends Data.TaggedError("ConnectionTestFailed")<{
  readonly reason: "invalid_credentials" | "role_needs_base_credentials" | "invalid_input" | "unreachable"
  readonly message: string
  /** For "invalid_input": the payload field at fault (e.g. "credentials.service_account_key"). */
  readonly path?: string
}> {}

export interface CallerIdentity {
  readonly accountId: string
  readonly arn: string
}

/** Keys to sign with: the account's own, or (role without keys) this server's AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY. */
export const awsCredentialsInput = (
  stored: StoredCredentials,
  ambient: NodeJS.ProcessEnv = process.env,
): AwsCredentialsInput | undefined => {
  const accessKeyId = stored.access_key ?? (stored.role_arn !== undefined ? ambient["AWS_ACCESS_KEY_ID"] : undefined)
  const secretAccessKey = stored.secret_key ?? (stored.role_arn !== undefined ? ambient["AWS_SECRET_ACCESS_KEY"] : undefined)
  if (accessKeyId === undefined || accessKeyId === "" || secretAccessKey === undefined || secretAccessKey === "") return undefined
  const sessionToken = stored.access_key !== undefined ? stored.session_token : ambient["AWS_SESSION_TOKEN"]
  return {
    accessKeyId,
    secretAccessKey,
    ...(sessionToken === undefined || sessionToken === "" ? {} : { sessionToken }),
    ...(stored.role_arn === undefined ? {} : { roleArn: stored.role_arn, roleSessionName: "cloud-audit-connection-test" }),
    ...(stored.external_id === undefined ? {} : { externalId: stored.external_id }),
  }
}

export const TEST_TIMEOUT_MS = 15_000

export const testAwsConnection = (
  stored: StoredCredentials,
  options: { readonly endpoint: string | undefined; readonly homeRegion?: string },
): Effect.Effect<CallerIdentity, ConnectionTestFailed> =>
  Effect.gen(function* () {
    const credentials = awsCredentialsInput(stored)
    if (credentials === undefined) {
      return yield* new ConnectionTestFailed({
        reason: "role_needs_base_credentials",
        message: ScanningServerMessages.roleNeedsBaseCredentials,
      })
    }
    return yield* Effect.tryPromise({
      try: async (signal) => {
        const clients = makeAwsClients({
          credentials,
          ...(options.endpoint === undefined ? {} : { endpoint: options.endpoint }),
          homeRegion: options.homeRegion ?? "us-east-1",
          maxAttempts: 2,
          requestTimeoutMs: TEST_TIMEOUT_MS,
        })
        try {
          const out = await clients.get("sts", clients.homeRegion).send(new GetCallerIdentityCommand({}), { abortSignal: signal })
          if (out.Account === undefined || out.Account === "") throw new Error("GetCallerIdentity returned no account id")
          return { accountId: out.Account, arn: out.Arn ?? "" }
        } finally {
          clients.destroy()
        }
      },
      catch: (error) => {
        const c = classifyAwsError(error)
        return c.kind === "access_denied"
          ? new ConnectionTestFailed({ reason: "invalid_credentials", message: `AWS rejected the credentials (${c.code})` })
          : new ConnectionTestFailed({ reason: "unreachable", message: cloudUnreachableMessage("AWS", c.code) })
      },
    }).pipe(
      Effect.timeoutOrElse({
        duration: TEST_TIMEOUT_MS + 2_000,
        orElse: () =>
          Effect.fail(new ConnectionTestFailed({ reason: "unreachable", message: cloudUnreachableMessage("AWS", "timeout") })),
      }),
    )
  })

// ---------------------------------------------------------------------------------------------------
// GCP and Azure (issue 7): the engines' connection tests (server/scanner/{gcp,azure}/connection-test.ts).

/**
 * The credential fields each provider keeps (anything else in the payload is dropped before sealing). GCP `project_id`:
 * the project scanned when it is not the key's own (an organisation member, issue 31).
 */
export const GCP_FIELDS = ["service_account_key", "project_id"] as const
export const AZURE_FIELDS = ["tenant_id", "client_id", "client_secret", "subscription_id"] as const

/** Only the provider's own fields, so a stray AWS key in a GCP payload is never sealed. */
export const credentialsForProvider = (cloudProviderId: number, stored: StoredCredentials): StoredCredentials => {
  const keep: ReadonlyArray<string> | undefined =
    cloudProviderId === ProviderIds.GCP ? GCP_FIELDS : cloudProviderId === ProviderIds.Azure ? AZURE_FIELDS : undefined
  if (keep === undefined) return stored
  const out: StoredCredentials = {}
  for (const k of keep) {
    const v = (stored as Record<string, string | undefined>)[k]
    if (v !== undefined) (out as Record<string, string>)[k] = v
  }
  return out
}

/** What a successful connection test answers for any provider: the cloud-side id and the principal that connected. */
export interface CloudIdentity {
  readonly accountId: string
  /** AWS caller ARN, GCP service-account e-mail, Azure client (application) id; "" when unknown. */
  readonly principal: string
  /** The non-secret identifier shown in the account detail next to the masked secret (access key id, client e-mail, client id). */
  readonly publicKeyId: string | null
  /** Azure: the tenant (directory) id the subscription belongs to; null for AWS and GCP. */
  readonly tenantId: string | null
}

const fromEngineError = (provider: string, credentialPath: string) => (error: ConnectionTestError): ConnectionTestFailed => {
  switch (error.reason) {
    case "invalid_input":
      return new ConnectionTestFailed({ reason: "invalid_input", message: error.message, path: credentialPath })
    case "invalid_credentials":
    case "access_denied":
    case "not_found":
      return new ConnectionTestFailed({ reason: "invalid_credentials", message: `${provider} rejected the credentials (${error.reason}): ${error.message}` })
    default:
      return new ConnectionTestFailed({ reason: "unreachable", message: cloudUnreachableMessage(provider, error.message) })
  }
}

const withTimeout = <A>(provider: string, effect: Effect.Effect<A, ConnectionTestFailed>) =>
  effect.pipe(
    Effect.timeoutOrElse({
      duration: TEST_TIMEOUT_MS + 2_000,
      orElse: () =>
        Effect.fail(new ConnectionTestFailed({ reason: "unreachable", message: cloudUnreachableMessage(provider, "timeout") })),
    }),
  )

export const testGcpAccount = (stored: StoredCredentials, env: NodeJS.ProcessEnv = process.env): Effect.Effect<CloudIdentity, ConnectionTestFailed> => {
  const credentials = gcpCredentialsFromFields(stored)
  if (credentials === undefined) {
    return Effect.fail(new ConnectionTestFailed({ reason: "invalid_input", message: ValidationMessages.serviceAccountKeyRequired, path: "credentials.service_account_key" }))
  }
  const endpoints = gcpEndpointsFromEnv(env)
  return withTimeout(
    "GCP",
    testGcpConnectionEffect({ credentials, ...(endpoints === undefined ? {} : { endpoints }) }).pipe(
      Effect.mapError(fromEngineError("GCP", "credentials.service_account_key")),
      Effect.map((info) => ({ accountId: info.projectId, principal: info.clientEmail, publicKeyId: info.clientEmail, tenantId: null })),
    ),
  )
}

export const testAzureAccount = (stored: StoredCredentials, env: NodeJS.ProcessEnv = process.env): Effect.Effect<CloudIdentity, ConnectionTestFailed> => {
  const credentials = azureCredentialsFromFields(stored)
  if (credentials === undefined) {
    return Effect.fail(new ConnectionTestFailed({ reason: "invalid_input", message: ScanningServerMessages.azureCredentialsRequired, path: "credentials" }))
  }
  const endpoints = azureEndpointsFromEnv(env)
  return withTimeout(
    "Azure",
    testAzureConnectionEffect({ credentials, ...(endpoints === undefined ? {} : { endpoints }) }).pipe(
      Effect.mapError(fromEngineError("Azure", "credentials")),
      Effect.map((info) => ({ accountId: info.subscriptionId, principal: credentials.clientId, publicKeyId: credentials.clientId, tenantId: info.tenantId })),
    ),
  )
}

/** The connection test of any provider (AWS: STS; GCP: token + projects.get; Azure: token + subscription read). */
export const testCloudConnection = (
  cloudProviderId: number,
  stored: StoredCredentials,
  options: { readonly awsEndpoint: string | undefined },
): Effect.Effect<CloudIdentity, ConnectionTestFailed> => {
  if (cloudProviderId === ProviderIds.GCP) return testGcpAccount(stored)
  if (cloudProviderId === ProviderIds.Azure) return testAzureAccount(stored)
  return Effect.map(testAwsConnection(stored, { endpoint: options.awsEndpoint }), (id) => ({
    accountId: id.accountId,
    principal: id.arn,
    publicKeyId: stored.access_key ?? null,
    tenantId: null,
  }))
}
