/**
 * Entry point of the Azure scanner for the job layer: scan one service of one subscription.
 *
 *   scanAzureService({ credentials: { tenantId, clientId, clientSecret, subscriptionId }, service, endpoints? })
 *     -> { accountId (subscription id), resourcesScanned, findings: RestCheckResult[], apiCalls, errors, ... }
 *
 * API failures (AuthorizationFailed, throttling, unregistered providers…) never reject: they are recorded on the
 * affected findings. Only unusable credentials, an unknown service or an unreadable subscription reject
 * (ScanSetupError), and an aborted signal.
 */
import { Effect } from "effect"
import type { CollectionError } from "../check.ts"
import { makeRestCollectContext } from "../rest/context.ts"
import { evaluateRestCheck, runCollectors, ScanSetupError, sectionOf, type RestCheckResult } from "../rest/engine.ts"
import { azureChecksForService, azureServices } from "./catalogue.ts"
import type { AzureCollectContext } from "./context.ts"
import type { AzureCheck } from "./define-check.ts"
import { azureCollectors, type AzureScanInventory } from "./inventory.ts"
import { AzureSessionError, openAzureSession, type AzureSessionInput } from "./session.ts"

export interface AzureScanInput extends AzureSessionInput {
  readonly service: string
  readonly concurrency?: number
  readonly checkIds?: ReadonlyArray<string>
  readonly now?: Date
}

export interface AzureScanResult {
  readonly provider: "azure"
  readonly service: string
  /** The subscription id (the cloud-side account id). */
  readonly accountId: string
  readonly tenantId: string
  readonly regions: ReadonlyArray<string>
  readonly resourcesScanned: number
  readonly findings: ReadonlyArray<RestCheckResult>
  readonly apiCalls: number
  readonly apiCallsByOperation: Readonly<Record<string, number>>
  readonly retries: number
  readonly errors: ReadonlyArray<CollectionError>
  readonly durationMs: number
}

export const azureSessionToSetupError = (error: unknown): unknown =>
  error instanceof AzureSessionError ? new ScanSetupError(error.reason === "not_found" ? "access_denied" : error.reason, error.message) : error

export async function scanAzureService(input: AzureScanInput): Promise<AzureScanResult> {
  const started = Date.now()
  if (!azureServices.some((s) => s.id === input.service)) throw new ScanSetupError("unknown_service", `Unknown Azure service "${input.service}"`)
  const checks = azureChecksForService(input.service).filter((c) => input.checkIds === undefined || input.checkIds.includes(c.id))
  const { inventory, session, resourcesScanned } = await collectAzureInventory(input, checks)
  const now = input.now ?? inventory.collectedAt
  const findings = checks.map((c) => evaluateRestCheck(c, inventory, now))
  const stats = session.client.stats()
  return {
    provider: "azure",
    service: input.service,
    accountId: session.subscriptionId,
    tenantId: session.tenantId,
    regions: [...new Set(findings.flatMap((f) => f.details.map((d) => d.region)))].sort(),
    resourcesScanned,
    findings,
    apiCalls: stats.total,
    apiCallsByOperation: stats.byOperation,
    retries: stats.retries,
    errors: inventory.errors,
    durationMs: Date.now() - started,
  }
}

/** Opens the session and runs the collectors the checks read (each once): the inventory the checks evaluate. */
export async function collectAzureInventory(input: Omit<AzureScanInput, "service">, checks: ReadonlyArray<AzureCheck>) {
  const session = await openAzureSession(input).catch((error: unknown) => {
    throw azureSessionToSetupError(error)
  })
  const rest = makeRestCollectContext({
    client: session.client,
    audience: session.endpoints.armAudience,
    ...(input.concurrency === undefined ? {} : { concurrency: input.concurrency }),
    ...(input.signal === undefined ? {} : { signal: input.signal }),
    wanted: new Set(checks.flatMap((c) => c.uses)),
  })
  const ctx: AzureCollectContext & { readonly resourcesScanned: () => number } = Object.assign(rest, {
    subscriptionId: session.subscriptionId,
    tenantId: session.tenantId,
    endpoints: session.endpoints,
  })
  const needed = [...new Set(checks.flatMap((c) => c.uses.map(sectionOf)))]
  const { sections, crashes } = await runCollectors(azureCollectors as never, needed, ctx, input.signal)
  const errors = [...rest.errors, ...crashes]
  const inventory: AzureScanInventory = { ...(sections as Partial<AzureScanInventory>), subscriptionId: session.subscriptionId, tenantId: session.tenantId, collectedAt: new Date(), errors }
  return { inventory, session, resourcesScanned: rest.resourcesScanned() }
}

export const scanAzureServiceEffect = (input: Omit<AzureScanInput, "signal">) =>
  Effect.tryPromise({
    try: (signal) => scanAzureService({ ...input, signal }),
    catch: (error) => (error instanceof ScanSetupError ? error : new ScanSetupError("unreachable", error instanceof Error ? error.message : String(error))),
  })
