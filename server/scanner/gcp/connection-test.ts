/**
 * GCP connection test for the accounts layer: validates the service-account key (type, client_email, private_key,
 * project_id), exchanges it for a token and reads the project. Answers the project id (the account's cloud-side
 * id), number and name; fails with ConnectionTestError (reason invalid_input | invalid_credentials |
 * access_denied | not_found | unreachable). Messages never contain key material.
 */
import { Effect } from "effect"
import { ConnectionTestError } from "../rest/engine.ts"
import { GcpSessionError, openGcpSession, type GcpSessionInput } from "./session.ts"

export interface GcpConnectionInfo {
  readonly projectId: string
  readonly projectNumber: string
  readonly projectName: string
  readonly clientEmail: string
  readonly lifecycleState: string
}

export const GCP_CONNECTION_TIMEOUT_MS = 15_000

export async function testGcpConnection(input: GcpSessionInput): Promise<GcpConnectionInfo> {
  try {
    const s = await openGcpSession({ maxAttempts: 2, timeoutMs: GCP_CONNECTION_TIMEOUT_MS, maxRetryDelayMs: 2_000, ...input })
    return { projectId: s.projectId, projectNumber: s.projectNumber, projectName: s.projectName, clientEmail: s.key.client_email, lifecycleState: s.lifecycleState }
  } catch (error) {
    if (error instanceof GcpSessionError) throw new ConnectionTestError(error.reason, error.message)
    throw new ConnectionTestError("unreachable", error instanceof Error ? error.message : String(error))
  }
}

export const testGcpConnectionEffect = (input: Omit<GcpSessionInput, "signal">): Effect.Effect<GcpConnectionInfo, ConnectionTestError> =>
  Effect.tryPromise({
    try: (signal) => testGcpConnection({ ...input, signal }),
    catch: (error) => (error instanceof ConnectionTestError ? error : new ConnectionTestError("unreachable", error instanceof Error ? error.message : String(error))),
  })
