/**
 * The provider-neutral remediation flow of the GCP and Azure engines (same contract as the AWS one):
 * apply the check's fixer to one detail row, then re-collect the resource (a scan of that check only) and report
 * "remediated" only when the re-read row complies. An already compliant row is re-read first and left alone.
 * Never throws for API errors: they come back as status "failed" with the reason.
 */
import type { DetailRow } from "../check.ts"
import { RestError } from "./http.ts"

export interface RestFixer<Ctx> {
  readonly checkIds: ReadonlyArray<string>
  /** What the fix changes, shown before the user confirms. */
  readonly description: string
  /** Set when the fix can cut someone's access (shown as a warning). */
  readonly cutsAccess?: string
  /** Applies the change; returns a sentence describing what was done. Throws on failure. */
  readonly apply: (ctx: Ctx, row: DetailRow) => Promise<string>
}

export class FixError extends Error {
  constructor(message: string) {
    super(message)
    this.name = "FixError"
  }
}

export const rowField = (row: DetailRow, name: string): string => {
  const v = row[name]
  if (typeof v !== "string" || v === "") throw new FixError(`The finding row has no ${name}`)
  return v
}

export type RemediationStatus = "remediated" | "failed" | "pass"

export interface RemediationResult {
  readonly status: RemediationStatus
  readonly message: string
  readonly check_id: string
  readonly resource_id: string
  readonly region: string
  readonly attempted_at: string
  /** What the fixer reported doing (absent when nothing was applied). */
  readonly action?: string
  /** The re-evaluated row, when the resource was found again. */
  readonly after?: DetailRow
}

export interface RemediationPlan<Ctx> {
  readonly checkId: string
  readonly row: DetailRow
  readonly checkKnown: boolean
  readonly fixer: RestFixer<Ctx> | undefined
  /** Opens the provider session the fixer needs (may throw: reported as failed). */
  readonly open: () => Promise<Ctx>
  /** Re-collects and re-evaluates the check for the row's resource. */
  readonly verify: () => Promise<DetailRow | undefined>
}

const describe = (error: unknown): string =>
  error instanceof FixError
    ? `${error.message}.`
    : error instanceof RestError
      ? `${error.code}: ${error.message}`
      : error instanceof Error
        ? error.message
        : String(error)

export async function runRemediation<Ctx>(plan: RemediationPlan<Ctx>): Promise<RemediationResult> {
  const attemptedAt = new Date().toISOString()
  const resourceId = typeof plan.row.resource_id === "string" ? plan.row.resource_id : ""
  const region = typeof plan.row.region === "string" ? plan.row.region : ""
  const result = (status: RemediationStatus, message: string, extra: { action?: string; after?: DetailRow } = {}): RemediationResult => ({
    status,
    message,
    check_id: plan.checkId,
    resource_id: resourceId,
    region,
    attempted_at: attemptedAt,
    ...extra,
  })

  if (!plan.checkKnown) return result("failed", `Unknown check "${plan.checkId}".`)
  const fixer = plan.fixer
  if (fixer === undefined) return result("failed", "No automatic remediation is available for this check; follow the remediation guidance.")
  if (resourceId === "" || region === "") return result("failed", "The finding row does not identify a resource (resource_id and region are required).")

  if (plan.row.compliant === true) {
    const now = await plan.verify().catch(() => undefined)
    if (now?.compliant === true) return result("pass", "The resource already complies; nothing was changed.", { after: now })
  }

  let action: string
  try {
    action = await fixer.apply(await plan.open(), plan.row)
  } catch (error) {
    return result("failed", `Remediation failed: ${describe(error)}`)
  }
  let after: DetailRow | undefined
  try {
    after = await plan.verify()
  } catch (error) {
    return result("failed", `${action} The result could not be verified: ${describe(error)}`, { action })
  }
  if (after === undefined) return result("failed", `${action} The resource was not found when re-reading it, so the fix is unverified.`, { action })
  if (!after.compliant) return result("failed", `${action} The check still fails after the change: ${after.reason}`, { action, after })
  return result("remediated", `${action} Verified: ${after.reason}`, { action, after })
}

/** Polls `poll` until `done` (bounded): long-running operations of the cloud APIs. */
export async function waitUntil<A>(
  poll: () => Promise<A>,
  done: (value: A) => boolean,
  options: { readonly timeoutMs?: number; readonly signal?: AbortSignal; readonly what: string },
): Promise<A> {
  const deadline = Date.now() + (options.timeoutMs ?? 120_000)
  let delay = 100
  for (;;) {
    const value = await poll()
    if (done(value)) return value
    if (Date.now() + delay > deadline) throw new FixError(`${options.what} did not finish in time`)
    await new Promise<void>((resolve, reject) => {
      const t = setTimeout(resolve, delay)
      options.signal?.addEventListener("abort", () => {
        clearTimeout(t)
        reject(options.signal?.reason instanceof Error ? options.signal.reason : new Error("aborted"))
      }, { once: true })
    })
    delay = Math.min(2_000, delay * 2)
  }
}
