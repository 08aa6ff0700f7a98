/**
 * Entry point of GCP remediation for the job layer:
 *
 *   remediateGcpFinding({ credentials: { serviceAccountKey }, checkId, row, projectId?, endpoints? })
 *     -> { status: "remediated" | "failed" | "pass", message, ... }
 *
 * Applies the check's fixer to the detail row, then re-scans that check and reports "remediated" only when the
 * row's resource now complies. Never throws for API errors. The scanner service account needs write roles for
 * the fix (e.g. roles/storage.admin for buckets); a 403 comes back as "failed" with the missing permission.
 */
import { runRemediation, type RemediationResult } from "../../scanner/rest/remediation.ts"
import type { DetailRow } from "../../scanner/check.ts"
import { gcpChecks } from "../../scanner/gcp/catalogue.ts"
import { scanGcpService } from "../../scanner/gcp/scan-service.ts"
import { openGcpSession, type GcpSessionInput } from "../../scanner/gcp/session.ts"
import type { FixPlan, Json, Preview } from "../plan.ts"
import { executeRestCalls, previewRestFix, undoRestFix } from "../rest.ts"
import { FixError } from "../../scanner/rest/remediation.ts"
import { RestError } from "../../scanner/rest/http.ts"
import { gcpFixers, gcpSettle, type GcpFixContext, type GcpPlanFixer } from "./fixers.ts"
import type { UndoResult } from "../aws/remediate.ts"

export function gcpFixerFor(checkId: string): GcpPlanFixer | undefined {
  return gcpFixers.find((f) => f.checkIds.includes(checkId))
}

/** Check ids with an automatic fix, what the fix does and whether it can cut access (for the UI). */
export function gcpRemediableChecks(): ReadonlyArray<{ readonly checkId: string; readonly description: string; readonly cutsAccess?: string; readonly previewable: boolean }> {
  return gcpFixers.flatMap((f) => f.checkIds.map((checkId) => ({ checkId, description: f.description, previewable: true, ...(f.cutsAccess === undefined ? {} : { cutsAccess: f.cutsAccess }) })))
}

export interface GcpRemediateInput extends GcpSessionInput {
  readonly checkId: string
  readonly row: DetailRow
  /** Evaluation clock of the verification scan. */
  readonly now?: Date
  /** Called with the pre-image and the plan before the first call changes anything (the job records them). */
  readonly beforeApply?: (record: { readonly preImage: Json; readonly plan: FixPlan }) => Promise<void>
}

/** The result of a GCP remediation, with the images, the plan and the calls' outputs. */
export type GcpRemediationResult = RemediationResult & {
  readonly pre_image?: Json
  readonly plan?: FixPlan
  readonly outputs?: ReadonlyArray<Json>
  readonly post_image?: Json
}

const sessionOf = (input: GcpRemediateInput) => {
  const { checkId: _c, row: _r, now: _n, beforeApply: _b, ...session } = input
  return session
}

const openCtx = async (input: GcpRemediateInput): Promise<GcpFixContext> => {
  const s = await openGcpSession(sessionOf(input))
  return { client: s.client, projectId: s.projectId, endpoints: s.endpoints, now: input.now ?? new Date(), ...(input.signal === undefined ? {} : { signal: input.signal }) }
}

/** The reason of an error thrown by a fixer or the REST client, in one sentence. */
export const describeGcpError = (error: unknown): string =>
  error instanceof FixError ? `${error.message}.` : error instanceof RestError ? `${error.code}: ${error.message}` : error instanceof Error ? error.message : String(error)

/**
 * A plan fixer as a RestFixer for `runRemediation` (same verification flow): reads the pre-image, plans, records both
 * (`beforeApply`), sends exactly the planned calls; the images, plan and outputs are collected in `record`.
 */
const planAsApply = (fixer: GcpPlanFixer, input: GcpRemediateInput, record: { -readonly [K in "pre_image" | "plan" | "outputs" | "post_image"]?: GcpRemediationResult[K] }) => ({
  checkIds: fixer.checkIds,
  description: fixer.description,
  ...(fixer.cutsAccess === undefined ? {} : { cutsAccess: fixer.cutsAccess }),
  apply: async (ctx: GcpFixContext, row: DetailRow) => {
    const preImage = await fixer.read(ctx, row)
    const plan = await fixer.plan(ctx, row, preImage)
    record.pre_image = preImage
    record.plan = plan
    await input.beforeApply?.({ preImage, plan })
    try {
      record.outputs = await executeRestCalls(ctx.client, plan.calls, [], gcpSettle(ctx))
    } catch (error) {
      record.outputs = (error as { completed?: Json[] }).completed ?? []
      throw error
    }
    return plan.noop ?? plan.summary
  },
})

export async function remediateGcpFinding(input: GcpRemediateInput): Promise<GcpRemediationResult> {
  const check = gcpChecks.find((c) => c.id === input.checkId)
  const { row, now } = input
  const session = sessionOf(input)
  const found = gcpFixerFor(input.checkId)
  const record: { -readonly [K in "pre_image" | "plan" | "outputs" | "post_image"]?: GcpRemediationResult[K] } = {}
  let ctx: GcpFixContext | undefined
  const result = await runRemediation<GcpFixContext>({
    checkId: input.checkId,
    row,
    checkKnown: check !== undefined,
    fixer: found === undefined ? undefined : planAsApply(found, input, record),
    open: async () => (ctx = await openCtx(input)),
    verify: async () => {
      if (check === undefined) return undefined
      const scan = await scanGcpService({ ...session, service: check.service, checkIds: [check.id], ...(now === undefined ? {} : { now }) })
      return scan.findings[0]?.details.find((d) => d.resource_id === row.resource_id && d.region === row.region)
    },
  })
  // The post-image: the state after the calls (undo compares the state then with it).
  if (found !== undefined && ctx !== undefined && record.plan !== undefined && result.action !== undefined) {
    const post = await found.read(ctx, row).catch(() => undefined)
    if (post !== undefined) record.post_image = post
  }
  return { ...result, ...Object.fromEntries(Object.entries(record).filter(([, v]) => v !== undefined)) }
}

const planFixerOrFail = (checkId: string): GcpPlanFixer => {
  const fixer = gcpFixerFor(checkId)
  if (fixer === undefined) throw new FixError("No automatic remediation is available for this check; follow the remediation guidance")
  return fixer
}

/**
 * The preview: reads the state and plans; renders the gcloud commands and Terraform from the calls. Sends no changing
 * call. The permissions are listed, not tested (GCP answers a missing one with a 403 at apply).
 */
export async function previewGcpFinding(input: GcpRemediateInput): Promise<Preview> {
  const fixer = planFixerOrFail(input.checkId)
  return previewRestFix(input.checkId, fixer, await openCtx(input), input.row, "a missing permission is answered 403 when the call is sent")
}

/** The fixer's state of the row's resource now (undo compares it with the post-image). */
export async function readGcpFixedState(input: GcpRemediateInput): Promise<Json> {
  const fixer = planFixerOrFail(input.checkId)
  return fixer.read(await openCtx(input), input.row)
}

export interface GcpUndoInput extends GcpRemediateInput {
  readonly plan: FixPlan
  readonly outputs: ReadonlyArray<Json>
  readonly preImage: Json
  readonly postImage: Json
  readonly force: boolean
}

/** Undo (same contract as the AWS one): conflict when the state differs from the post-image unless forced; the undo
 *  calls; "undone" only when a re-read equals the pre-image field by field. */
export async function undoGcpFinding(input: GcpUndoInput): Promise<UndoResult> {
  return undoRestFix(planFixerOrFail(input.checkId), () => openCtx(input), input, gcpSettle, describeGcpError)
}
