/**
 * The REST side of the plan vocabulary (server/remediation/plan.ts), shared by the GCP and Azure engines:
 *
 *   executeRestCalls(client, calls, previous, settle)  sends exactly the planned calls through the provider's RestClient
 *                                                      (same transport and credentials as the scanner), waiting for the
 *                                                      long-running operation a call starts (`settle`, per provider)
 *   renderRestCommand(call)                            the gcloud / az command of a call (a registered renderer), else
 *                                                      the exact `curl` / `az rest` form of plan.ts
 *   renderRestTerraform(calls)                         per operation, the Terraform attributes expressing the call's end
 *                                                      state, or a comment saying no Terraform is generated for it
 *   previewRestFix / undoRestFix                       the preview and the undo of a REST fixer (one contract for GCP
 *                                                      and Azure, as the AWS engine's)
 */
import type { RestClient, RestResponse } from "../scanner/rest/http.ts"
import { FixError } from "../scanner/rest/remediation.ts"
import type { UndoResult } from "./aws/remediate.ts"
import { diffStates, renderRestCli, resolveRefs, showRefs, type FixPlan, type Json, type PlanFixer, type PlannedCall, type Preview, type RefView, type RestCall } from "./plan.ts"

/** Waits for what a call started (a long-running operation: GCP operation body, Azure 202 + Azure-AsyncOperation)
 *  and answers the output to record. */
export type Settle = (call: RestCall, response: RestResponse) => Promise<unknown>

/**
 * Sends `calls` in order with references resolved from `previous` (the apply's outputs, for an undo) followed by this
 * run's outputs; each output is recorded as JSON. Stops at the first error (thrown, with the outputs of the calls that
 * succeeded in `completed`).
 */
export async function executeRestCalls(
  client: RestClient,
  calls: ReadonlyArray<PlannedCall>,
  previous: ReadonlyArray<unknown> = [],
  settle: Settle = async (_c, response) => response.body,
): Promise<Json[]> {
  const outputs: Json[] = []
  for (const [i, call] of calls.entries()) {
    try {
      if (call.provider === "aws") throw new FixError(`Call ${i + 1} is not a REST call`)
      const body = call.body === undefined ? undefined : resolveRefs(call.body, [...previous, ...outputs])
      const response = await client.send({ method: call.method, url: call.url, audience: call.audience, op: call.operation, ...(body === undefined ? {} : { body }) })
      outputs.push(JSON.parse(JSON.stringify((await settle(call, response)) ?? null)) as Json)
    } catch (error) {
      throw Object.assign(error instanceof Error ? error : new Error(String(error)), { completed: outputs })
    }
  }
  return outputs
}

/** The permission a REST call needs: its `action`, else its operation id. */
export const restAction = (call: PlannedCall): string => call.action ?? call.operation

// ---------------------------------------------------------------------------------------------------
// Renderers, per operation id, registered by the provider's fixer module.

export type RestRenderer = (call: RestCall) => string
const cliRenderers = new Map<string, RestRenderer>()
const terraformRenderers = new Map<string, RestRenderer>()

export const registerRestCli = (operation: string, render: RestRenderer): void => void cliRenderers.set(operation, render)
export const registerRestTerraform = (operation: string, render: RestRenderer): void => void terraformRenderers.set(operation, render)

const shown = (call: RestCall, view?: RefView): RestCall => (call.body === undefined ? call : { ...call, body: showRefs(call.body, view) })

/**
 * The gcloud / az command of a call when one expresses it exactly, else the raw REST call (curl, `az rest`). `view`: the
 * call is an undo's (plan.ts `showRefs`).
 */
export function renderRestCommand(call: RestCall, view?: RefView): string {
  const render = cliRenderers.get(call.operation)
  return render === undefined ? renderRestCli(shown(call, view)) : render(shown(call, view))
}

/** Terraform for a plan's calls: each call's attributes, or a comment that none is generated for it. */
export function renderRestTerraform(calls: ReadonlyArray<PlannedCall>): string {
  return calls
    .map((call) => {
      if (call.provider === "aws") return `# ${call.operation}: not a REST call`
      const render = terraformRenderers.get(call.operation)
      return render === undefined ? `# ${call.operation}: no Terraform is generated for this call; run the command above instead` : render(shown(call))
    })
    .join("\n\n")
}

/** A rendered call of the preview (params: method, url, body); `view`: the calls are an undo's (plan.ts `showRefs`). */
export const renderedRestCalls = (calls: ReadonlyArray<PlannedCall>, view?: RefView) =>
  calls.map((c) =>
    c.provider === "aws"
      ? { service: c.service, operation: c.operation, region: c.region, params: c.params, cli: "" }
      : { service: c.service, operation: c.operation, region: c.region ?? null, params: { method: c.method, url: c.url, body: (showRefs(c.body, view) as unknown) ?? null }, cli: renderRestCommand(c, view) },
  )

/**
 * The preview of a REST fixer: reads and plans; renders the commands and Terraform from the calls. Sends no changing
 * call. The permissions are listed, not tested (`missingPermission` says how the provider answers a missing one).
 */
export async function previewRestFix<Ctx, Row>(checkId: string, fixer: PlanFixer<Ctx, Row>, ctx: Ctx, row: Row, missingPermission: string): Promise<Preview> {
  const state = await fixer.read(ctx, row)
  const plan = await fixer.plan(ctx, row, state)
  const calls = renderedRestCalls(plan.calls)
  return {
    check_id: checkId,
    description: fixer.description,
    cuts_access: fixer.cutsAccess ?? null,
    noop: plan.noop ?? null,
    calls,
    effects: plan.effects,
    permissions: [...new Set(plan.calls.map(restAction))].map((action) => ({ action, status: "unknown" as const, how: `Not tested before the fix: ${missingPermission}` })),
    reversible: plan.undo.reversible,
    undo_calls: renderedRestCalls(plan.undo.reversible ? plan.undo.calls : [], { applyCalls: plan.calls.length }),
    undo_note: plan.undo.reversible ? (plan.undo.note ?? null) : plan.undo.reason,
    cli: calls.map((c) => c.cli).join("\n"),
    terraform: plan.calls.length === 0 ? "" : renderRestTerraform(plan.calls),
    state,
  }
}

export interface RestUndoInput<Row> {
  readonly row: Row
  readonly plan: FixPlan
  readonly outputs: ReadonlyArray<Json>
  readonly preImage: Json
  readonly postImage: Json
  readonly force: boolean
}

/**
 * The undo of a REST fixer (same contract as the AWS one): a conflict when the state differs from the post-image
 * unless forced; the undo calls; "undone" only when a re-read equals the pre-image field by field.
 */
export async function undoRestFix<Ctx extends { readonly client: RestClient }, Row>(
  fixer: PlanFixer<Ctx, Row>,
  openCtx: () => Promise<Ctx>,
  input: RestUndoInput<Row>,
  settle: (ctx: Ctx) => Settle,
  describeError: (error: unknown) => string,
): Promise<UndoResult> {
  if (!input.plan.undo.reversible) return { status: "undo_failed", message: `This fix cannot be undone: ${input.plan.undo.reason}`, differences: [] }
  const ctx = await openCtx()
  const now = await fixer.read(ctx, input.row)
  const changed = diffStates(input.postImage, now)
  if (changed.length > 0 && !input.force) return { status: "conflict", message: "The resource changed since the fix; undo would overwrite those changes.", differences: changed, state: now }
  try {
    await executeRestCalls(ctx.client, input.plan.undo.calls, input.outputs, settle(ctx))
  } catch (error) {
    return { status: "undo_failed", message: `Undo failed: ${describeError(error)}`, differences: [] }
  }
  const after = await fixer.read(ctx, input.row)
  const differences = diffStates(input.preImage, after)
  return differences.length === 0
    ? { status: "undone", message: "Undone: the resource is back to its state before the fix (verified by re-reading it).", differences, state: after }
    : { status: "undo_failed", message: "The undo calls succeeded but the resource does not match its state before the fix.", differences, state: after }
}
