/**
 * The seam between the remediation job and the engine's fixers (server/remediation/aws): which checks have an automatic
 * fix (and whether it can cut access), and running one on a stored detail row. The engine applies the fix through the
 * SDK, then re-collects the resource and re-evaluates the check; only a compliant re-read counts as remediated.
 *
 * Stored rows use the contract's `compliance` flag and may carry a `remediate` record; the engine reads its own row
 * shape (`compliant`, the check's fields), so rows are converted back here.
 */
import type { AwsCredentialsInput } from "../scanner/aws/clients.ts"
import type { DetailRow as EngineRow } from "../scanner/check.ts"
import { fixerFor as engineFixerFor, remediateFinding } from "../remediation/aws/remediate.ts"
import type { StoredRow } from "./finding-rows.ts"

export interface FixerInfo {
  readonly description: string
  /** Set when the fix can cut someone's access (e.g. closing an admin port): the warning to show. */
  readonly cutsAccess: string | undefined
}

export const fixerInfo = (checkId: string): FixerInfo | undefined => {
  const f = engineFixerFor(checkId)
  return f === undefined ? undefined : { description: f.description, cutsAccess: f.cutsAccess }
}

/** The engine's row shape from a stored row (`compliance` → `compliant`, without the remediation record). */
export const toEngineRow = (row: StoredRow): EngineRow => {
  const { compliance, remediate: _remediate, ...rest } = row
  return { ...(rest as Record<string, EngineRow[string]>), compliant: compliance === true } as EngineRow
}

export interface FixOutcome {
  /** "remediated": fixed and verified; "pass": already compliant, nothing changed; "failed": with the reason. */
  readonly status: "remediated" | "pass" | "failed"
  readonly message: string
}

export const runFixer = async (input: {
  readonly credentials: AwsCredentialsInput
  readonly checkId: string
  readonly row: StoredRow
  readonly endpoint: string | undefined
  readonly signal: AbortSignal
}): Promise<FixOutcome> => {
  const result = await remediateFinding({
    credentials: input.credentials,
    checkId: input.checkId,
    row: toEngineRow(input.row),
    ...(input.endpoint === undefined ? {} : { endpoint: input.endpoint }),
    signal: input.signal,
  })
  return { status: result.status, message: result.message }
}
