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
import { makeAwsClients, type AwsCredentialsInput } from "../scanner/aws/clients.ts"
import { classifyAwsError } from "../scanner/aws/errors.ts"
import type { StoredCredentials } from "./credential-vault.ts"

export class ConnectionTestFailed extends Data.TaggedError("ConnectionTestFailed")<{
  readonly reason: "invalid_credentials" | "role_needs_base_credentials" | "unreachable"
  readonly message: string
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
        message: "Connecting with a role ARN needs AWS credentials on the server to assume it; enter an access key instead",
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
          : new ConnectionTestFailed({ reason: "unreachable", message: `Could not reach AWS to test the connection (${c.code})` })
      },
    }).pipe(
      Effect.timeoutOrElse({
        duration: TEST_TIMEOUT_MS + 2_000,
        orElse: () =>
          Effect.fail(new ConnectionTestFailed({ reason: "unreachable", message: "Could not reach AWS to test the connection (timeout)" })),
      }),
    )
  })
