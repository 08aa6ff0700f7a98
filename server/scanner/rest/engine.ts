/**
 * The provider-neutral part of the GCP and Azure engines: check metadata with benchmark references, running the
 * collectors a set of checks needs (once each), evaluating the pure checks and attaching collection errors to the
 * checks whose inputs they affect. Results are `CheckResult`s (server/scanner/check.ts) plus `provider` and
 * `compliance` (framework + control for every benchmark the check implements); `cis` stays empty because its keys
 * name AWS benchmark versions.
 */
import { deriveStatus, standardFieldLabels, type CheckResult, type CollectionError, type DetailRow, type Severity } from "../check.ts"
import type { RestCollectContextHandle } from "./context.ts"

export type CloudProvider = "gcp" | "azure"

export interface ComplianceRef {
  readonly framework: string
  readonly control: string
}

export interface EvaluateEnv {
  /** "Now" for age rules (key rotation, expiry): the collection time, injectable for tests. */
  readonly now: Date
}

/** What the catalogue lists for a GCP or Azure check (no evaluate function). */
export interface RestCheckMeta {
  readonly id: string
  readonly provider: CloudProvider
  readonly service: string
  readonly title: string
  readonly description: string
  readonly severity: Severity
  /** Benchmark control ids (GCP: { v4 } — v3.0 has the same ids; Azure: { v3, v4 }). */
  readonly cisRefs: Readonly<Record<string, string>>
  readonly compliance: ReadonlyArray<ComplianceRef>
  readonly remediation: string
  readonly field_labels: Readonly<Record<string, string>>
  /** Inventory inputs the check reads ("section.input"). */
  readonly uses: ReadonlyArray<string>
  /** REST fields the check reads, for the catalogue ("storage.buckets: iamConfiguration.uniformBucketLevelAccess.enabled"). */
  readonly reads: string
}

export interface RestCheck<Inv> extends RestCheckMeta {
  readonly evaluate: (inventory: Inv, env: EvaluateEnv) => ReadonlyArray<DetailRow>
}

export interface RestCheckResult extends CheckResult {
  readonly provider: CloudProvider
  readonly compliance: ReadonlyArray<ComplianceRef>
}

export interface BaseInventory {
  readonly collectedAt: Date
  readonly errors: ReadonlyArray<CollectionError>
}

/** Why a scan could not start at all (everything else is recorded on findings). Same reasons as the AWS engine. */
export class ScanSetupError extends Error {
  readonly reason: "unknown_service" | "invalid_input" | "invalid_credentials" | "access_denied" | "unreachable"
  constructor(reason: ScanSetupError["reason"], message: string) {
    super(message)
    this.name = "ScanSetupError"
    this.reason = reason
  }
}

/** Why a connection test failed; messages never contain a secret. */
export class ConnectionTestError extends Error {
  readonly reason: "invalid_input" | "invalid_credentials" | "access_denied" | "not_found" | "unreachable"
  constructor(reason: ConnectionTestError["reason"], message: string) {
    super(message)
    this.name = "ConnectionTestError"
    this.reason = reason
  }
}

/** Row helper: resource id, region, compliance and reason first, then the check's own fields. */
export function row(resourceId: string, region: string, compliant: boolean, reason: string, fields: Readonly<Record<string, DetailRow[string]>> = {}): DetailRow {
  return { resource_id: resourceId, region, compliant, reason, ...fields }
}

/** One setting of a resource judged: compliant or not, the value shown, and why. */
export interface Judgement {
  readonly ok: boolean
  readonly value: DetailRow[string]
  readonly reason: string
}

/** A judgement of an on/off setting where on is compliant. */
export const onOff = (on: boolean, whenOn: string, whenOff: string): Judgement => ({ ok: on, value: on, reason: on ? whenOn : whenOff })

export const sectionOf = (type: string): string => type.slice(0, type.indexOf("."))

/** Errors that affect a check: those on one of its inputs, or a crash of a collector it reads. */
export function errorsForCheck(check: Pick<RestCheckMeta, "uses">, errors: ReadonlyArray<CollectionError>): CollectionError[] {
  const inputs = new Set(check.uses)
  const sections = new Set(check.uses.map(sectionOf))
  return errors.filter((e) => inputs.has(e.resourceType) || sections.has(e.resourceType) || e.resourceType === "setup")
}

export function evaluateRestCheck<Inv extends BaseInventory>(check: RestCheck<Inv>, inventory: Inv, now: Date): RestCheckResult {
  const sections = inventory as unknown as Readonly<Record<string, unknown>>
  const missing = check.uses.map(sectionOf).filter((k) => sections[k] === undefined)
  const errors = errorsForCheck(check, inventory.errors)
  let details: ReadonlyArray<DetailRow> = []
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
    provider: check.provider,
    service: check.service,
    title: check.title,
    policy_check: check.title,
    description: check.description,
    severity: check.severity,
    cis: {},
    compliance: check.compliance,
    remediation: check.remediation,
    status: deriveStatus(details, errors),
    field_labels: { ...standardFieldLabels, ...check.field_labels },
    details,
    errors,
  }
}

/**
 * Runs each collector the checks need exactly once (concurrently) and answers the sections by key. A collector that
 * throws (a bug, not an API failure) is recorded as an error on its section so the other collectors still count.
 */
export async function runCollectors(
  collectors: Readonly<Record<string, (ctx: never) => Promise<unknown>>>,
  needed: ReadonlyArray<string>,
  ctx: RestCollectContextHandle,
  signal: AbortSignal | undefined,
): Promise<{ readonly sections: Record<string, unknown>; readonly crashes: CollectionError[] }> {
  const sections: Record<string, unknown> = {}
  const crashes: CollectionError[] = []
  await Promise.all(
    needed.map(async (key) => {
      const collect = collectors[key] as ((c: RestCollectContextHandle) => Promise<unknown>) | undefined
      if (collect === undefined) throw new Error(`No collector for inventory section "${key}"`)
      try {
        sections[key] = await collect(ctx)
      } catch (error) {
        if (signal?.aborted === true) throw error
        crashes.push({
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
  return { sections, crashes }
}

/** Catalogue listing: metadata only. */
export function metaOf<Inv>(check: RestCheck<Inv>): RestCheckMeta {
  const { evaluate: _evaluate, ...meta } = check
  return meta
}

/** "7776000s" (protobuf Duration) → seconds; undefined when absent or malformed. */
export function durationSeconds(value: string | undefined): number | undefined {
  if (value === undefined) return undefined
  const m = /^(\d+(?:\.\d+)?)s$/.exec(value)
  return m === null ? undefined : Number(m[1])
}

/** Whole days between an ISO timestamp and now (undefined for an unreadable timestamp). */
export function ageDays(iso: string | undefined, now: Date): number | undefined {
  if (iso === undefined) return undefined
  const t = Date.parse(iso)
  return Number.isNaN(t) ? undefined : Math.floor((now.getTime() - t) / 86_400_000)
}
