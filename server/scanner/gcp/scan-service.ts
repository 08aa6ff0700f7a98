/**
 * Entry point of the GCP scanner for the job layer: scan one service of one project.
 *
 *   scanGcpService({ credentials: { serviceAccountKey }, service, projectId?, endpoints? })
 *     -> { projectId, projectNumber, resourcesScanned, findings: RestCheckResult[], apiCalls, errors, ... }
 *
 * It validates the key, gets a token, reads the project, runs each collector the service's checks need once
 * (bounded concurrency), evaluates the pure checks and attaches collection errors (disabled APIs, missing
 * permissions, throttling) to the checks whose inputs they affect. API failures never reject; only an unusable
 * key, project or endpoint does (ScanSetupError), and an aborted signal.
 */
import { Effect } from "effect"
import type { CollectionError } from "../check.ts"
import { makeRestCollectContext } from "../rest/context.ts"
import { evaluateRestCheck, runCollectors, ScanSetupError, sectionOf, type RestCheckResult } from "../rest/engine.ts"
import { gcpChecksForService, gcpServices } from "./catalogue.ts"
import type { GcpCollectContext } from "./context.ts"
import { GCP_SCOPE } from "./endpoints.ts"
import { gcpCollectors, type GcpScanInventory } from "./inventory.ts"
import { GcpSessionError, openGcpSession, type GcpSessionInput } from "./session.ts"

export interface GcpScanInput extends GcpSessionInput {
  /** Scan service id from `gcpServices` (e.g. "storage", "iam"). */
  readonly service: string
  /** Maximum concurrent API calls (default 8). */
  readonly concurrency?: number
  /** Restrict to these check ids (default: all checks of the service). */
  readonly checkIds?: ReadonlyArray<string>
  /** Evaluation clock for age rules (default: now). */
  readonly now?: Date
}

export interface GcpScanResult {
  readonly provider: "gcp"
  readonly service: string
  /** The scanned project id (the cloud-side account id). */
  readonly accountId: string
  readonly projectNumber: string
  readonly regions: ReadonlyArray<string>
  readonly resourcesScanned: number
  readonly findings: ReadonlyArray<RestCheckResult>
  readonly apiCalls: number
  readonly apiCallsByOperation: Readonly<Record<string, number>>
  readonly retries: number
  readonly errors: ReadonlyArray<CollectionError>
  readonly durationMs: number
}

export const sessionToSetupError = (error: unknown): unknown =>
  error instanceof GcpSessionError ? new ScanSetupError(error.reason === "not_found" ? "access_denied" : error.reason, error.message) : error

export async function scanGcpService(input: GcpScanInput): Promise<GcpScanResult> {
  const started = Date.now()
  if (!gcpServices.some((s) => s.id === input.service)) throw new ScanSetupError("unknown_service", `Unknown GCP service "${input.service}"`)
  const checks = gcpChecksForService(input.service).filter((c) => input.checkIds === undefined || input.checkIds.includes(c.id))
  const session = await openGcpSession(input).catch((error: unknown) => {
    throw sessionToSetupError(error)
  })
  const rest = makeRestCollectContext({
    client: session.client,
    audience: GCP_SCOPE,
    ...(input.concurrency === undefined ? {} : { concurrency: input.concurrency }),
    ...(input.signal === undefined ? {} : { signal: input.signal }),
    wanted: new Set(checks.flatMap((c) => c.uses)),
  })
  const ctx: GcpCollectContext & { readonly resourcesScanned: () => number } = Object.assign(rest, {
    projectId: session.projectId,
    projectNumber: session.projectNumber,
    endpoints: session.endpoints,
  })
  const needed = [...new Set(checks.flatMap((c) => c.uses.map(sectionOf)))]
  const { sections, crashes } = await runCollectors(gcpCollectors as never, needed, ctx, input.signal)
  const errors = [...rest.errors, ...crashes]
  const inventory: GcpScanInventory = {
    ...(sections as Partial<GcpScanInventory>),
    projectId: session.projectId,
    projectNumber: session.projectNumber,
    collectedAt: new Date(),
    errors,
  }
  const now = input.now ?? inventory.collectedAt
  const findings = checks.map((c) => evaluateRestCheck(c, inventory, now))
  const stats = session.client.stats()
  const regions = [...new Set(findings.flatMap((f) => f.details.map((d) => d.region)))].sort()
  return {
    provider: "gcp",
    service: input.service,
    accountId: session.projectId,
    projectNumber: session.projectNumber,
    regions,
    resourcesScanned: rest.resourcesScanned(),
    findings,
    apiCalls: stats.total,
    apiCallsByOperation: stats.byOperation,
    retries: stats.retries,
    errors,
    durationMs: Date.now() - started,
  }
}

/** The same scan as an interruptible Effect (interruption aborts the in-flight calls). */
export const scanGcpServiceEffect = (input: Omit<GcpScanInput, "signal">) =>
  Effect.tryPromise({
    try: (signal) => scanGcpService({ ...input, signal }),
    catch: (error) => (error instanceof ScanSetupError ? error : new ScanSetupError("unreachable", error instanceof Error ? error.message : String(error))),
  })
