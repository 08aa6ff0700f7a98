/**
 * The fixers the remediation job can run, by check id. A fixer applies the fix for ONE detail row (one resource) through
 * the AWS SDK and re-reads the resource to verify it; it answers whether the resource is now compliant and a message.
 *
 * The fixers themselves belong to the scanner engine (server/remediation/**); this module is the seam the job layer
 * calls, so the engine's registry is plugged in here (`registerFixers`) and tests can register their own.
 * Fixers that can cut access (closing ports, disabling keys) must say so in `description` and set `mayCutAccess`.
 */
import type { AwsClients } from "../scanner/aws/clients.ts"

export interface FixInput {
  readonly clients: AwsClients
  /** The cloud account id (AWS account) the credentials act in. */
  readonly accountId: string
  readonly resourceId: string
  readonly region: string
  /** The stored detail row (contract shape: `compliance`, the check's own fields). */
  readonly row: Readonly<Record<string, unknown>>
  readonly signal: AbortSignal
}

export interface FixOutcome {
  /** True only when the re-read shows the resource compliant. */
  readonly remediated: boolean
  readonly message: string
}

export interface Fixer {
  readonly checkId: string
  readonly description: string
  readonly mayCutAccess: boolean
  readonly fix: (input: FixInput) => Promise<FixOutcome>
}

const registry = new Map<string, Fixer>()

/** Adds (or replaces) fixers; returns a function that removes exactly these again. */
export const registerFixers = (fixers: ReadonlyArray<Fixer>): (() => void) => {
  for (const f of fixers) registry.set(f.checkId, f)
  return () => {
    for (const f of fixers) if (registry.get(f.checkId) === f) registry.delete(f.checkId)
  }
}

export const fixerFor = (checkId: string): Fixer | undefined => registry.get(checkId)

export const fixerCheckIds = (): ReadonlyArray<string> => [...registry.keys()].sort()
