/**
 * Entry points of AWS remediation for the job layer and the API:
 *
 *   remediateFinding({ credentials, checkId, row, endpoint? })
 *     -> { status: "remediated" | "failed" | "pass", message, pre_image?, post_image?, plan?, outputs? }
 *   previewFinding({ credentials, checkId, row })  -> Preview (reads only; EC2 calls are tried with DryRun)
 *   readFixedState({ credentials, checkId, row })  -> the fixer's state now (undo's conflict check)
 *   undoFinding({ credentials, checkId, row, plan, outputs, preImage, postImage, force })
 *     -> { status: "undone" | "undo_failed" | "conflict", message, differences, post_undo? }
 *
 * remediateFinding reads the pre-image, plans, sends exactly the planned calls, then re-collects the resource (a scan
 * of that check, limited to the row's region) and reports "remediated" only when the check now passes for that
 * resource; the post-image is read last. Never throws for AWS errors: they come back as status "failed" with the reason.
 */
import { GetCallerIdentityCommand } from "@aws-sdk/client-sts"
import type { DetailRow } from "../../scanner/check.ts"
import { makeAwsClients, type AwsClients, type AwsCredentialsInput, type CommandStub } from "../../scanner/aws/clients.ts"
import { awsChecks } from "../../scanner/aws/catalogue.ts"
import { classifyAwsError } from "../../scanner/aws/errors.ts"
import { scanService } from "../../scanner/aws/scan-service.ts"
import { diffStates, type FixPlan, type Json, type Preview, type RefView, type StateDifference } from "../plan.ts"
import { computeFixers } from "./compute.ts"
import { dataFixers } from "./data.ts"
import { ec2Fixers } from "./ec2.ts"
import { awsAction, checkAwsPermissions, executeAwsCalls, FixError, isPlanFixer, renderAwsCli, renderAwsTerraform, type AwsPlanFixer, type FixContext, type Fixer } from "./fixer.ts"
import { iamFixers } from "./iam.ts"
import { loggingFixers } from "./logging.ts"
import { s3Fixers } from "./s3.ts"
import { serviceFixers } from "./services.ts"

export const awsFixers: ReadonlyArray<Fixer> = [...s3Fixers, ...ec2Fixers, ...iamFixers, ...loggingFixers, ...dataFixers, ...computeFixers, ...serviceFixers]

export function fixerFor(checkId: string): Fixer | undefined {
  return awsFixers.find((f) => f.checkIds.includes(checkId))
}

/** Check ids with an automatic fix, with what the fix does and whether it can cut access (for the UI). */
export function remediableChecks(): ReadonlyArray<{ readonly checkId: string; readonly description: string; readonly cutsAccess?: string; readonly previewable: boolean }> {
  return awsFixers.flatMap((f) =>
    f.checkIds.map((checkId) => ({ checkId, description: f.description, previewable: isPlanFixer(f), ...(f.cutsAccess === undefined ? {} : { cutsAccess: f.cutsAccess }) })),
  )
}

export interface RemediateInput {
  readonly credentials: AwsCredentialsInput
  readonly checkId: string
  readonly row: DetailRow
  readonly endpoint?: string
  readonly homeRegion?: string
  readonly maxAttempts?: number
  readonly signal?: AbortSignal
  /** Evaluation clock of the verification scan (age rules). */
  readonly now?: Date
  readonly stub?: CommandStub
  /** Called with the pre-image and the plan before the first call changes anything (the job records them). */
  readonly beforeApply?: (record: { readonly preImage: Json; readonly plan: FixPlan }) => Promise<void>
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
  /** Plan fixers: the state before the calls, the plan executed, the calls' outputs and the state after. */
  readonly pre_image?: Json
  readonly plan?: FixPlan
  readonly outputs?: ReadonlyArray<Json>
  readonly post_image?: Json
}

interface Session {
  readonly ctx: FixContext
  readonly callerArn: string
  readonly clients: AwsClients
}

const commonOf = (input: Pick<RemediateInput, "credentials" | "homeRegion" | "endpoint" | "maxAttempts" | "stub">) => ({
  credentials: input.credentials,
  homeRegion: input.homeRegion ?? "us-east-1",
  ...(input.endpoint === undefined ? {} : { endpoint: input.endpoint }),
  ...(input.maxAttempts === undefined ? {} : { maxAttempts: input.maxAttempts }),
  ...(input.stub === undefined ? {} : { stub: input.stub }),
})

const rowRegion = (row: DetailRow) => (typeof row.region === "string" ? row.region : "")

const openSession = async (input: RemediateInput): Promise<Session> => {
  const common = commonOf(input)
  const region = rowRegion(input.row) === "global" ? common.homeRegion : rowRegion(input.row)
  const clients = makeAwsClients(common)
  try {
    const identity = await clients.get("sts", common.homeRegion).send(new GetCallerIdentityCommand({}), input.signal === undefined ? {} : { abortSignal: input.signal })
    return {
      clients,
      callerArn: identity.Arn ?? "",
      ctx: { clients, accountId: identity.Account ?? "", partition: identity.Arn?.split(":")[1] ?? "aws", region, ...(input.signal === undefined ? {} : { signal: input.signal }) },
    }
  } catch (error) {
    clients.destroy()
    throw error
  }
}

/** The reason of an error thrown by a fixer or the SDK, in one sentence. */
export const describeFixError = (error: unknown): string => {
  if (error instanceof FixError) return `${error.message}.`
  const c = classifyAwsError(error)
  return `${c.code}: ${c.message}`
}

export async function remediateFinding(input: RemediateInput): Promise<RemediationResult> {
  const attemptedAt = new Date().toISOString()
  const resourceId = typeof input.row.resource_id === "string" ? input.row.resource_id : ""
  const region0 = rowRegion(input.row)
  const result = (status: RemediationStatus, message: string, extra: Omit<RemediationResult, "status" | "message" | "check_id" | "resource_id" | "region" | "attempted_at"> = {}): RemediationResult => ({
    status,
    message,
    check_id: input.checkId,
    resource_id: resourceId,
    region: region0,
    attempted_at: attemptedAt,
    ...extra,
  })

  const check = awsChecks.find((c) => c.id === input.checkId)
  if (check === undefined) return result("failed", `Unknown check "${input.checkId}".`)
  const fixer = fixerFor(input.checkId)
  if (fixer === undefined) return result("failed", "No automatic remediation is available for this check; follow the remediation guidance.")
  if (resourceId === "" || region0 === "") return result("failed", "The finding row does not identify a resource (resource_id and region are required).")

  const common = commonOf(input)
  const region = region0 === "global" ? common.homeRegion : region0
  const verify = async (): Promise<DetailRow | undefined> => {
    const scan = await scanService({
      ...common,
      service: check.service,
      regions: [region],
      checkIds: [check.id],
      ...(input.now === undefined ? {} : { now: input.now }),
      ...(input.signal === undefined ? {} : { signal: input.signal }),
    })
    return scan.findings[0]?.details.find((d) => d.resource_id === resourceId && (region0 === "global" || d.region === region0))
  }

  if (input.row.compliant === true) {
    const now = await verify().catch(() => undefined)
    if (now?.compliant === true) return result("pass", "The resource already complies; nothing was changed.", { after: now })
  }

  let session: Session
  try {
    session = await openSession(input)
  } catch (error) {
    return result("failed", `Remediation failed: ${describeFixError(error)}`)
  }
  let action: string
  let applied: Pick<RemediationResult, "pre_image" | "plan" | "outputs"> = {}
  try {
    if (isPlanFixer(fixer)) {
      const preImage = await fixer.read(session.ctx, input.row)
      const plan = await fixer.plan(session.ctx, input.row, preImage)
      applied = { pre_image: preImage, plan }
      await input.beforeApply?.({ preImage, plan })
      const outputs = await executeAwsCalls(session.ctx, plan.calls).catch((error: unknown) => {
        const completed = (error as { completed?: Json[] }).completed ?? []
        applied = { ...applied, outputs: completed }
        throw error
      })
      applied = { ...applied, outputs }
      action = plan.noop ?? plan.summary
    } else {
      action = await fixer.apply(session.ctx, input.row)
    }
  } catch (error) {
    session.clients.destroy()
    return result("failed", `Remediation failed: ${describeFixError(error)}`, applied)
  }

  let after: DetailRow | undefined
  let postImage: Json | undefined
  try {
    after = await verify()
    if (isPlanFixer(fixer)) postImage = await fixer.read(session.ctx, input.row)
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error)
    return result("failed", `${action} The result could not be verified: ${message}`, { action, ...applied })
  } finally {
    session.clients.destroy()
  }
  const images = { ...applied, ...(postImage === undefined ? {} : { post_image: postImage }) }
  if (after === undefined) return result("failed", `${action} The resource was not found when re-reading it, so the fix is unverified.`, { action, ...images })
  if (!after.compliant) return result("failed", `${action} The check still fails after the change: ${after.reason}`, { action, after, ...images })
  return result("remediated", `${action} Verified: ${after.reason}`, { action, after, ...images })
}

const planFixerOrFail = (checkId: string): AwsPlanFixer => {
  const fixer = fixerFor(checkId)
  if (fixer === undefined) throw new FixError("No automatic remediation is available for this check; follow the remediation guidance")
  if (!isPlanFixer(fixer)) throw new FixError("This check's fix has no preview or undo yet")
  return fixer
}

const rendered = (plan: FixPlan["calls"], view?: RefView) =>
  plan.map((c) => ({ service: c.service, operation: c.operation, region: c.region ?? null, params: c.provider === "aws" ? c.params : { method: c.method, url: c.url, body: c.body ?? null }, cli: c.provider === "aws" ? renderAwsCli(c, view) : "" }))

/**
 * The preview: reads the state, plans, tests the permissions (EC2 DryRun, IAM simulation) and renders the commands.
 * Changes nothing in the cloud. Throws FixError / AWS errors (the API answers them as the reason).
 */
export async function previewFinding(input: RemediateInput): Promise<Preview> {
  const fixer = planFixerOrFail(input.checkId)
  const session = await openSession(input)
  try {
    const state = await fixer.read(session.ctx, input.row)
    const plan = await fixer.plan(session.ctx, input.row, state)
    const permissions = plan.calls.length === 0 ? [] : await checkAwsPermissions(session.ctx, plan.calls, session.callerArn)
    const undoCalls = plan.undo.reversible ? plan.undo.calls : []
    const calls = rendered(plan.calls)
    return {
      check_id: input.checkId,
      description: fixer.description,
      cuts_access: fixer.cutsAccess ?? null,
      noop: plan.noop ?? null,
      calls,
      effects: plan.effects,
      permissions: permissions.length > 0 ? permissions : plan.calls.map((c) => ({ action: awsAction(c), status: "unknown" as const, how: "" })),
      reversible: plan.undo.reversible,
      undo_calls: rendered(undoCalls, { applyCalls: plan.calls.length }),
      undo_note: plan.undo.reversible ? (plan.undo.note ?? null) : plan.undo.reason,
      cli: calls.map((c) => c.cli).join("\n"),
      terraform: plan.calls.length === 0 ? "" : renderAwsTerraform(plan.calls),
      state,
    }
  } finally {
    session.clients.destroy()
  }
}

/** The fixer's state of the row's resource now (undo compares it with the post-image). */
export async function readFixedState(input: RemediateInput): Promise<Json> {
  const fixer = planFixerOrFail(input.checkId)
  const session = await openSession(input)
  try {
    return await fixer.read(session.ctx, input.row)
  } finally {
    session.clients.destroy()
  }
}

export interface UndoInput extends RemediateInput {
  readonly plan: FixPlan
  readonly outputs: ReadonlyArray<Json>
  readonly preImage: Json
  readonly postImage: Json
  /** Undo even when the resource changed since the fix. */
  readonly force: boolean
}

export interface UndoResult {
  readonly status: "undone" | "undo_failed" | "conflict"
  readonly message: string
  /** conflict: the post-image against now; undo_failed: the pre-image against the state after the undo. */
  readonly differences: ReadonlyArray<StateDifference>
  readonly state?: Json
}

/**
 * Undo: re-reads the state; when it differs from the post-image (someone changed the resource since the fix) answers
 * "conflict" with the difference unless `force`. Otherwise sends the plan's undo calls (references resolved from the
 * apply's outputs) and re-reads: "undone" only when the state equals the pre-image field by field.
 */
export async function undoFinding(input: UndoInput): Promise<UndoResult> {
  const fixer = planFixerOrFail(input.checkId)
  if (!input.plan.undo.reversible) return { status: "undo_failed", message: `This fix cannot be undone: ${input.plan.undo.reason}`, differences: [] }
  const session = await openSession(input)
  try {
    const now = await fixer.read(session.ctx, input.row)
    const changed = diffStates(input.postImage, now)
    if (changed.length > 0 && !input.force) {
      return { status: "conflict", message: "The resource changed since the fix; undo would overwrite those changes.", differences: changed, state: now }
    }
    try {
      await executeAwsCalls(session.ctx, input.plan.undo.calls, input.outputs)
    } catch (error) {
      return { status: "undo_failed", message: `Undo failed: ${describeFixError(error)}`, differences: [] }
    }
    const after = await fixer.read(session.ctx, input.row)
    const differences = diffStates(input.preImage, after)
    return differences.length === 0
      ? { status: "undone", message: "Undone: the resource is back to its state before the fix (verified by re-reading it).", differences, state: after }
      : { status: "undo_failed", message: "The undo calls succeeded but the resource does not match its state before the fix.", differences, state: after }
  } finally {
    session.clients.destroy()
  }
}
