/**
 * Azure connection test for the accounts layer: validates tenant/client/subscription ids, gets a token with the
 * client secret and reads the subscription. Answers the subscription id (the account's cloud-side id), its name,
 * state and tenant; fails with ConnectionTestError (invalid_input | invalid_credentials | access_denied |
 * not_found | unreachable). Messages never contain the secret.
 */
import { Effect } from "effect"
import { ConnectionTestError } from "../rest/engine.ts"
import { AzureSessionError, openAzureSession, type AzureSessionInput } from "./session.ts"

export interface AzureConnectionInfo {
  readonly subscriptionId: string
  readonly displayName: string
  readonly state: string
  readonly tenantId: string
}

export const AZURE_CONNECTION_TIMEOUT_MS = 15_000

export async function testAzureConnection(input: AzureSessionInput): Promise<AzureConnectionInfo> {
  try {
    const s = await openAzureSession({ maxAttempts: 2, timeoutMs: AZURE_CONNECTION_TIMEOUT_MS, maxRetryDelayMs: 2_000, ...input })
    return { subscriptionId: s.subscriptionId, displayName: s.displayName, state: s.state, tenantId: s.tenantId }
  } catch (error) {
    const message = error instanceof Error ? error.message.split(input.credentials.clientSecret).join("[redacted]") : String(error)
    if (error instanceof AzureSessionError) throw new ConnectionTestError(error.reason, message)
    throw new ConnectionTestError("unreachable", message)
  }
}

export const testAzureConnectionEffect = (input: Omit<AzureSessionInput, "signal">): Effect.Effect<AzureConnectionInfo, ConnectionTestError> =>
  Effect.tryPromise({
    try: (signal) => testAzureConnection({ ...input, signal }),
    catch: (error) => (error instanceof ConnectionTestError ? error : new ConnectionTestError("unreachable", error instanceof Error ? error.message : String(error))),
  })
