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
 */
import type { RestClient, RestResponse } from "../scanner/rest/http.ts"
import { FixError } from "../scanner/rest/remediation.ts"
import { renderRestCli, resolveRefs, showRefs, type Json, type PlannedCall, type RestCall } from "./plan.ts"

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

const shown = (call: RestCall): RestCall => (call.body === undefined ? call : { ...call, body: showRefs(call.body) })

/** The gcloud / az command of a call when one expresses it exactly, else the raw REST call (curl, `az rest`). */
export function renderRestCommand(call: RestCall): string {
  const render = cliRenderers.get(call.operation)
  return render === undefined ? renderRestCli(call) : render(shown(call))
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

/** A rendered call of the preview (params: method, url, body). */
export const renderedRestCalls = (calls: ReadonlyArray<PlannedCall>) =>
  calls.map((c) =>
    c.provider === "aws"
      ? { service: c.service, operation: c.operation, region: c.region, params: c.params, cli: "" }
      : { service: c.service, operation: c.operation, region: c.region ?? null, params: { method: c.method, url: c.url, body: (showRefs(c.body) as unknown) ?? null }, cli: renderRestCommand(c) },
  )
