/**
 * Fixer vocabulary: a fixer applies one check's remediation to one detail row through the SDK. It never decides
 * success itself: `remediateFinding` re-collects the resource and re-evaluates the check, and only a compliant
 * row counts as remediated.
 */
import type { DetailRow } from "../../scanner/check.ts"
import type { AwsClients } from "../../scanner/aws/clients.ts"

export interface FixContext {
  readonly clients: AwsClients
  readonly accountId: string
  readonly partition: string
  /** The row's region, or the home region for global rows. */
  readonly region: string
  readonly signal?: AbortSignal
}

export interface Fixer {
  readonly checkIds: ReadonlyArray<string>
  /** What the fix changes, shown before the user confirms. */
  readonly description: string
  /** Set when the fix can cut someone's access (shown as a warning). */
  readonly cutsAccess?: string
  /** Applies the change; returns a sentence describing what was done. Throws on failure. */
  readonly apply: (ctx: FixContext, row: DetailRow) => Promise<string>
}

export class FixError extends Error {
  constructor(message: string) {
    super(message)
    this.name = "FixError"
  }
}

export const field = (row: DetailRow, name: string): string => {
  const v = row[name]
  if (typeof v !== "string" || v === "") throw new FixError(`The finding row has no ${name}`)
  return v
}

export const sendOptions = (ctx: FixContext) => (ctx.signal === undefined ? {} : { abortSignal: ctx.signal })
