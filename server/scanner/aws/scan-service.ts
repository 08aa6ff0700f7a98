/**
 * Entry point of the AWS scanner for the job layer: scan one service of one account.
 *
 *   scanService({ credentials, service, regions?, endpoint? })
 *     -> { resourcesScanned, findings: CheckResult[], apiCalls, errors, ... }
 *
 * It resolves the caller identity and the enabled regions, runs each collector the service's checks need once
 * (bounded concurrency), evaluates the pure checks on the inventory and attaches collection errors to the checks
 * whose inputs they affect. API failures never reject the promise; only unusable credentials or an unknown
 * service do (ScanSetupError), and an aborted signal.
 */
import { GetCallerIdentityCommand } from "@aws-sdk/client-sts"
import { DescribeRegionsCommand } from "@aws-sdk/client-ec2"
import { Effect } from "effect"
import { deriveStatus, standardFieldLabels, type CheckResult, type CollectionError, type DetailRow } from "../check.ts"
import { callsSoFar, countCalls, makeAwsClients, type AwsCredentialsInput, type CommandStub } from "./clients.ts"
import { checksForService, awsServices } from "./catalogue.ts"
import { makeCollectContext } from "./context.ts"
import { scanClients, sharedReads, type ScanShare } from "./scan-share.ts"
import type { AwsCheck } from "./define-check.ts"
import { classifyAwsError } from "./errors.ts"
import { collectorOf, collectors, type CollectorKey, type Inventories, type ScanInventory } from "./inventory.ts"

export interface ScanServiceInput {
  readonly credentials: AwsCredentialsInput
  /** Scan service id from `awsServices` (e.g. "s3", "iam"). */
  readonly service: string
  /** Regions to scan; default: every region enabled for the account (DescribeRegions). */
  readonly regions?: ReadonlyArray<string>
  /** Custom endpoint (moto); default AWS_ENDPOINT_URL or AWS itself. */
  readonly endpoint?: string
  readonly homeRegion?: string
  /** Maximum concurrent API calls (default 8; ignored with `share`, whose limiter bounds them). */
  readonly concurrency?: number
  /** The scan's share in this process (one limiter, the account-wide reads): ./scan-share.ts. */
  readonly share?: ScanShare
  /** SDK attempts per call (default 5, adaptive retry). */
  readonly maxAttempts?: number
  /** Restrict to these check ids (default: all checks of the service). */
  readonly checkIds?: ReadonlyArray<string>
  /** Evaluation clock for age rules (default: now). */
  readonly now?: Date
  readonly signal?: AbortSignal
  /** Answers selected commands without the network (emulator gaps, tests). */
  readonly stub?: CommandStub
}

export interface ScanServiceResult {
  readonly service: string
  readonly accountId: string
  readonly regions: ReadonlyArray<string>
  readonly resourcesScanned: number
  readonly findings: ReadonlyArray<CheckResult>
  /** HTTP requests sent (retries included). */
  readonly apiCalls: number
  readonly apiCallsByOperation: Readonly<Record<string, number>>
  readonly errors: ReadonlyArray<CollectionError>
  readonly durationMs: number
}

export class ScanSetupError extends Error {
  readonly reason: "unknown_service" | "invalid_input" | "invalid_credentials" | "access_denied" | "unreachable"
  constructor(reason: ScanSetupError["reason"], message: string) {
    super(message)
    this.name = "ScanSetupError"
    this.reason = reason
  }
}

const regionPattern = /^[a-z]{2}(-[a-z]+)+-\d+$/

/** Collectors that read global APIs once (from the home region) rather than per region. */
const globalCollectors: ReadonlySet<CollectorKey> = new Set<CollectorKey>(["iam", "s3", "account", "cloudfront", "route53", "organizations"])

export async function scanService(input: ScanServiceInput): Promise<ScanServiceResult> {
  // Counted per job: the clients may be the scan's, shared with its other service jobs.
  return (await countCalls(() => scanCounted(input))).result
}

async function scanCounted(input: ScanServiceInput): Promise<ScanServiceResult> {
  const started = Date.now()
  if (!awsServices.some((s) => s.id === input.service)) {
    throw new ScanSetupError("unknown_service", `Unknown AWS service "${input.service}"`)
  }
  for (const r of input.regions ?? []) {
    if (!regionPattern.test(r)) throw new ScanSetupError("invalid_input", `Invalid AWS region "${r}"`)
  }
  const checks = checksForService(input.service).filter((c) => input.checkIds === undefined || input.checkIds.includes(c.id))
  const homeRegion = input.homeRegion ?? "us-east-1"
  const settings = {
    credentials: input.credentials,
    homeRegion,
    ...(input.endpoint === undefined ? {} : { endpoint: input.endpoint }),
    ...(input.maxAttempts === undefined ? {} : { maxAttempts: input.maxAttempts }),
  }
  // The scan's clients when the job has a share (built once per scan, ./scan-share.ts), else a set of its own. A job
  // with a command stub keeps its own clients (its stubbed answers are its own), still sharing the scan's reads.
  const ownClients = input.share === undefined || input.stub !== undefined
  const clients =
    !ownClients && input.share !== undefined
      ? scanClients(input.share, settings)
      : makeAwsClients({
          ...settings,
          ...(input.stub === undefined ? {} : { stub: input.stub }),
          ...(input.share === undefined ? {} : { shared: { commands: sharedReads, reads: input.share.reads }, requestHandler: input.share.http }),
        })
  const sendOptions = input.signal === undefined ? {} : { abortSignal: input.signal }
  try {
    let identity
    try {
      identity = await clients.get("sts", homeRegion).send(new GetCallerIdentityCommand({}), sendOptions)
    } catch (error) {
      if (input.signal?.aborted === true) throw error
      const c = classifyAwsError(error)
      throw new ScanSetupError(
        c.kind === "access_denied" ? "invalid_credentials" : "unreachable",
        `Could not verify the AWS credentials: ${c.code}: ${c.message}`,
      )
    }
    const accountId = identity.Account ?? ""
    const partition = identity.Arn?.split(":")[1] ?? "aws"
    const setupErrors: CollectionError[] = []

    const needed = [...new Set(checks.flatMap((c) => c.uses.map(collectorOf)))]
    let regions: ReadonlyArray<string>
    if (input.regions !== undefined && input.regions.length > 0) {
      regions = [...new Set(input.regions)]
    } else if (needed.every((k) => globalCollectors.has(k))) {
      // IAM, S3 and Account are read once from the home region: no region discovery needed.
      regions = [homeRegion]
    } else {
      try {
        const out = await clients.get("ec2", homeRegion).send(new DescribeRegionsCommand({ AllRegions: true }), sendOptions)
        regions = (out.Regions ?? [])
          .filter((r) => r.OptInStatus !== "not-opted-in")
          .flatMap((r) => (r.RegionName === undefined ? [] : [r.RegionName]))
          .sort()
      } catch (error) {
        if (input.signal?.aborted === true) throw error
        const c = classifyAwsError(error)
        setupErrors.push({ resourceType: "regions", region: homeRegion, operation: "ec2:DescribeRegions", kind: c.kind, code: c.code, message: c.message })
        regions = [homeRegion]
      }
    }

    const ctx = makeCollectContext({
      clients,
      accountId,
      partition,
      regions,
      ...(input.concurrency === undefined ? {} : { concurrency: input.concurrency }),
      ...(input.share === undefined ? {} : { limiter: input.share.limiter }),
      ...(input.signal === undefined ? {} : { signal: input.signal }),
      wanted: new Set(checks.flatMap((c) => c.uses)),
      service: input.service,
    })
    const sections: { -readonly [K in CollectorKey]?: Inventories[K] } = {}
    const crashErrors: CollectionError[] = []
    await Promise.all(
      needed.map(async (key) => {
        try {
          Object.assign(sections, { [key]: await collectors[key](ctx) })
        } catch (error) {
          if (input.signal?.aborted === true) throw error
          // A collector bug must not sink the other collectors; every check reading it reports the error.
          crashErrors.push({
            resourceType: key,
            region: "global",
            operation: `collect:${key}`,
            kind: "error",
            code: error instanceof Error ? error.name : "Error",
            message: error instanceof Error ? error.message : String(error),
          })
        }
      }),
    )
    const errors = [...setupErrors, ...ctx.errors, ...crashErrors]
    const inventory: ScanInventory = {
      ...sections,
      accountId,
      partition,
      regions,
      homeRegion,
      collectedAt: new Date(),
      errors,
    }
    const now = input.now ?? inventory.collectedAt
    const findings = checks.map((check) => evaluateCheck(check, inventory, now))
    const stats = callsSoFar() ?? clients.stats()
    return {
      service: input.service,
      accountId,
      regions,
      resourcesScanned: ctx.resourcesScanned(),
      findings,
      apiCalls: stats.total,
      apiCallsByOperation: stats.byOperation,
      errors,
      durationMs: Date.now() - started,
    }
  } finally {
    if (ownClients) clients.destroy()
  }
}

/** Errors that affect a check: those on one of its inputs, or a crash of a collector it reads. */
export function errorsForCheck(check: Pick<AwsCheck, "uses">, errors: ReadonlyArray<CollectionError>): CollectionError[] {
  const inputs = new Set<string>(check.uses)
  const sections = new Set<string>(check.uses.map(collectorOf))
  return errors.filter((e) => inputs.has(e.resourceType) || sections.has(e.resourceType) || e.resourceType === "regions")
}

export function evaluateCheck(check: AwsCheck, inventory: ScanInventory, now: Date): CheckResult {
  const missing = check.uses.map(collectorOf).filter((k) => inventory[k] === undefined)
  let details: ReadonlyArray<DetailRow> = []
  const errors = errorsForCheck(check, inventory.errors)
  if (missing.length === 0) {
    try {
      details = check.evaluate(inventory, { now })
    } catch (error) {
      errors.push({
        resourceType: check.id,
        region: "global",
        operation: `evaluate:${check.id}`,
        kind: "error",
        code: error instanceof Error ? error.name : "Error",
        message: error instanceof Error ? error.message : String(error),
      })
    }
  }
  return {
    check_id: check.id,
    service: check.service,
    title: check.title,
    policy_check: check.title,
    description: check.description,
    severity: check.severity,
    cis: check.cis,
    ...(check.fsbp === undefined ? {} : { fsbp: check.fsbp }),
    remediation: check.remediation,
    status: deriveStatus(details, errors),
    field_labels: { ...standardFieldLabels, ...check.field_labels },
    details,
    errors,
  }
}

/** The same scan as an Effect (interruptible: interruption aborts the in-flight SDK calls). */
export const scanServiceEffect = (input: Omit<ScanServiceInput, "signal">) =>
  Effect.tryPromise({
    try: (signal) => scanService({ ...input, signal }),
    catch: (error) =>
      error instanceof ScanSetupError ? error : new ScanSetupError("unreachable", error instanceof Error ? error.message : String(error)),
  })
