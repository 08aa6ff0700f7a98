/**
 * Entry point of Azure remediation for the job layer:
 *
 *   remediateAzureFinding({ credentials: { tenantId, clientId, clientSecret, subscriptionId }, checkId, row, endpoints? })
 *     -> { status: "remediated" | "failed" | "pass", message, ... }
 *
 * Applies the check's fixer to the detail row (the row's ARM id must belong to the credentials' subscription),
 * then re-scans that check and reports "remediated" only when the resource now complies. Never throws for API
 * errors. The application needs write rights for the fix (e.g. Storage Account Contributor); a 403 comes back as
 * "failed" with Azure's AuthorizationFailed message.
 */
import type { DetailRow } from "../../scanner/check.ts"
import { runRemediation, type RemediationResult } from "../../scanner/rest/remediation.ts"
import { azureChecks } from "../../scanner/azure/catalogue.ts"
import { scanAzureService } from "../../scanner/azure/scan-service.ts"
import { openAzureSession, type AzureSessionInput } from "../../scanner/azure/session.ts"
import type { FixPlan, Json, Preview } from "../plan.ts"
import { executeRestCalls, previewRestFix, undoRestFix } from "../rest.ts"
import { FixError } from "../../scanner/rest/remediation.ts"
import { RestError } from "../../scanner/rest/http.ts"
import { azureFixers, azureSettle, type AzureFixContext, type AzurePlanFixer } from "./fixers.ts"
import type { UndoResult } from "../aws/remediate.ts"

export function azureFixerFor(checkId: string): AzurePlanFixer | undefined {
  return azureFixers.find((f) => f.checkIds.includes(checkId))
}

export function azureRemediableChecks(): ReadonlyArray<{ readonly checkId: string; readonly description: string; readonly cutsAccess?: string; readonly previewable: boolean }> {
  return azureFixers.flatMap((f) => f.checkIds.map((checkId) => ({ checkId, description: f.description, previewable: true, ...(f.cutsAccess === undefined ? {} : { cutsAccess: f.cutsAccess }) })))
}

export interface AzureRemediateInput extends AzureSessionInput {
  readonly checkId: string
  readonly row: DetailRow
  readonly now?: Date
  /** Called with the pre-image and the plan before the first call changes anything (the job records them). */
  readonly beforeApply?: (record: { readonly preImage: Json; readonly plan: FixPlan }) => Promise<void>
}

/** The result of an Azure remediation, with the images, the plan and the calls' outputs once the fixer ran. */
export type AzureRemediationResult = RemediationResult & {
  readonly pre_image?: Json
  readonly plan?: FixPlan
  readonly outputs?: ReadonlyArray<Json>
  readonly post_image?: Json
}

type Record_ = { -readonly [K in "pre_image" | "plan" | "outputs" | "post_image"]?: AzureRemediationResult[K] }

const sessionOf = (input: AzureRemediateInput) => {
  const { checkId: _c, row: _r, now: _n, beforeApply: _b, ...session } = input
  return session
}

const openCtx = async (input: AzureRemediateInput): Promise<AzureFixContext> => {
  const s = await openAzureSession(sessionOf(input))
  return { client: s.client, subscriptionId: s.subscriptionId, endpoints: s.endpoints, ...(input.signal === undefined ? {} : { signal: input.signal }) }
}

export const describeAzureError = (error: unknown): string =>
  error instanceof FixError ? `${error.message}.` : error instanceof RestError ? `${error.code}: ${error.message}` : error instanceof Error ? error.message : String(error)

/** A plan fixer as a RestFixer for `runRemediation`: pre-image, plan, `beforeApply`, exactly the planned calls. */
const planAsApply = (fixer: AzurePlanFixer, input: AzureRemediateInput, record: Record_) => ({
  checkIds: fixer.checkIds,
  description: fixer.description,
  ...(fixer.cutsAccess === undefined ? {} : { cutsAccess: fixer.cutsAccess }),
  apply: async (ctx: AzureFixContext, row: DetailRow) => {
    const preImage = await fixer.read(ctx, row)
    const plan = await fixer.plan(ctx, row, preImage)
    record.pre_image = preImage
    record.plan = plan
    await input.beforeApply?.({ preImage, plan })
    try {
      record.outputs = await executeRestCalls(ctx.client, plan.calls, [], azureSettle(ctx))
    } catch (error) {
      record.outputs = (error as { completed?: Json[] }).completed ?? []
      throw error
    }
    return plan.noop ?? plan.summary
  },
})

export async function remediateAzureFinding(input: AzureRemediateInput): Promise<AzureRemediationResult> {
  const check = azureChecks.find((c) => c.id === input.checkId)
  const { row, now } = input
  const session = sessionOf(input)
  const found = azureFixerFor(input.checkId)
  const record: Record_ = {}
  let ctx: AzureFixContext | undefined
  const result = await runRemediation<AzureFixContext>({
    checkId: input.checkId,
    row,
    checkKnown: check !== undefined,
    fixer: found === undefined ? undefined : planAsApply(found, input, record),
    open: async () => (ctx = await openCtx(input)),
    verify: async () => {
      if (check === undefined) return undefined
      const scan = await scanAzureService({ ...session, service: check.service, checkIds: [check.id], ...(now === undefined ? {} : { now }) })
      return scan.findings[0]?.details.find((d) => d.resource_id.toLowerCase() === row.resource_id.toLowerCase())
    },
  })
  if (found !== undefined && ctx !== undefined && record.plan !== undefined && result.action !== undefined) {
    const post = await found.read(ctx, row).catch(() => undefined)
    if (post !== undefined) record.post_image = post
  }
  return { ...result, ...Object.fromEntries(Object.entries(record).filter(([, v]) => v !== undefined)) }
}

const planFixerOrFail = (checkId: string): AzurePlanFixer => {
  const fixer = azureFixerFor(checkId)
  if (fixer === undefined) throw new FixError("No automatic remediation is available for this check; follow the remediation guidance")
  return fixer
}

/** The preview: reads and plans; renders the `az rest` commands from the calls. Sends no changing call. */
export async function previewAzureFinding(input: AzureRemediateInput): Promise<Preview> {
  const fixer = planFixerOrFail(input.checkId)
  return previewRestFix(input.checkId, fixer, await openCtx(input), input.row, "a missing permission is answered AuthorizationFailed when the call is sent")
}

export async function readAzureFixedState(input: AzureRemediateInput): Promise<Json> {
  const fixer = planFixerOrFail(input.checkId)
  return fixer.read(await openCtx(input), input.row)
}

export interface AzureUndoInput extends AzureRemediateInput {
  readonly plan: FixPlan
  readonly outputs: ReadonlyArray<Json>
  readonly preImage: Json
  readonly postImage: Json
  readonly force: boolean
}

/** Undo (same contract as AWS and GCP). */
export async function undoAzureFinding(input: AzureUndoInput): Promise<UndoResult> {
  return undoRestFix(planFixerOrFail(input.checkId), () => openCtx(input), input, azureSettle, describeAzureError)
}
