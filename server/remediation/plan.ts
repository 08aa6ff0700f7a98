/**
 * The remediation plan vocabulary (issue 32 "Preview" and "Undo"), shared by the AWS, GCP and Azure engines.
 *
 * A fixer is two functions:
 *
 *   read(ctx, row)          -> State  the resource's state the fix changes, as plain JSON (the pre-image)
 *   plan(ctx, row, state)   -> FixPlan
 *
 * and a FixPlan is data: the ordered calls the fix makes ({service, operation, region, params} for AWS, {method, url,
 * body} for the REST providers), what else they affect (sentences built from what `read` found in the cloud), the
 * permissions they need, and how to undo them (calls computed from the pre-image, or the reason it cannot be undone).
 * One generic executor per provider sends exactly the planned calls (so the preview shows what apply will do, call by
 * call), and the renderers (CLI and Terraform) are generated from the same calls, never written by hand.
 *
 * Undo contract (server/scans/remediation.ts): the pre-image is stored before the first call; after the calls the
 * fixer's `read` gives the post-image. Undo reads again: a state that differs from the post-image means someone changed
 * the resource since (refused with the difference unless forced); otherwise the undo calls run and a final `read` must
 * equal the pre-image field by field.
 *
 * Calls can use a value answered by an earlier call of the fix (the id of a flow log it created, to delete it on undo)
 * through `ref(call, ...path)`; the executor resolves it from the recorded outputs of the apply.
 */

/** A value taken from the output of an earlier call of the apply: `outputs[call]` at `path`. */
export interface OutputRef {
  readonly $ref: { readonly call: number; readonly path: ReadonlyArray<string | number> }
}

export const ref = (call: number, ...path: ReadonlyArray<string | number>): OutputRef => ({ $ref: { call, path } })

export const isOutputRef = (v: unknown): v is OutputRef =>
  typeof v === "object" && v !== null && "$ref" in v && typeof (v as { $ref: unknown }).$ref === "object"

/** One AWS SDK call: `new <operation>Command(params)` sent through the `service` client of `region`. */
export interface AwsCall {
  readonly provider: "aws"
  /** The client name of server/scanner/aws/clients.ts (s3, s3control, ec2, iam, elbv2, …). */
  readonly service: string
  /** The API operation (PutPublicAccessBlock, RevokeSecurityGroupIngress, …). */
  readonly operation: string
  readonly region: string
  readonly params: Readonly<Record<string, unknown>>
  /** The operation takes `DryRun` (EC2): the preview sends it with DryRun=true to test the permission. */
  readonly dryRun?: boolean
  /** The IAM action when it is not `<service prefix>:<operation>` (s3:PutEncryptionConfiguration for PutBucketEncryption). */
  readonly action?: string
}

/** One REST call of the GCP or Azure engines, sent through the provider's RestClient. */
export interface RestCall {
  readonly provider: "gcp" | "azure"
  /** API family shown to the user (storage, compute, sqladmin, Microsoft.Storage, …). */
  readonly service: string
  /** The API method id (storage.buckets.patch, Microsoft.Storage/storageAccounts/write, …): logged and rendered. */
  readonly operation: string
  readonly method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE"
  readonly url: string
  readonly body?: unknown
  /** The token audience the RestClient asks for. */
  readonly audience: string
  readonly region?: string
  /** The permission the call needs (storage.buckets.update, Microsoft.Storage/storageAccounts/write, …). */
  readonly action?: string
}

export type PlannedCall = AwsCall | RestCall

/** Whether a plan can be undone: the calls restoring the pre-image, or why not. */
export type Reversibility =
  | { readonly reversible: true; readonly calls: ReadonlyArray<PlannedCall>; readonly note?: string }
  | { readonly reversible: false; readonly reason: string }

export interface FixPlan {
  /** The calls of the fix, in order. Empty: nothing to change (`noop` says why). */
  readonly calls: ReadonlyArray<PlannedCall>
  /** What else the change affects, read from the cloud (attached interfaces, statements removed, users losing access). */
  readonly effects: ReadonlyArray<string>
  /** The sentence recorded when the calls succeeded ("Blocked all public access on bucket b."). */
  readonly summary: string
  readonly undo: Reversibility
  /** Set when the resource needs no change (calls is then empty). */
  readonly noop?: string
}

/** The JSON a fixer reads and compares (pre-image, post-image): no undefined, no functions. */
export type Json = null | boolean | number | string | ReadonlyArray<Json> | { readonly [k: string]: Json }

/** A fixer of the plan vocabulary, for any provider's context. */
export interface PlanFixer<Ctx, Row> {
  readonly checkIds: ReadonlyArray<string>
  /** What the fix changes, shown before the user confirms. */
  readonly description: string
  /** Set when the fix can cut someone's access (shown as a warning). */
  readonly cutsAccess?: string
  /** The state the fix changes (its pre-image before, its post-image after). Throws when the resource is gone. */
  readonly read: (ctx: Ctx, row: Row) => Promise<Json>
  /** The calls that bring `state` to compliance, their effects and their undo. Reads nothing it did not get from `read`
   *  unless to describe effects (which resources are attached). */
  readonly plan: (ctx: Ctx, row: Row, state: Json) => Promise<FixPlan> | FixPlan
}

// ---------------------------------------------------------------------------------------------------
// Comparing states (undo conflict and undo verification)

export interface StateDifference {
  /** Dotted path of the field ("IpPermissions.0.IpRanges.1.CidrIp"); "" for the whole state. */
  readonly path: string
  /** The value expected (the post-image for a conflict, the pre-image for an undo check); absent when missing. */
  readonly expected?: Json
  /** The value read now; absent when missing. */
  readonly actual?: Json
}

const isObject = (v: unknown): v is Readonly<Record<string, Json>> => typeof v === "object" && v !== null && !Array.isArray(v)

/** Every leaf where `actual` differs from `expected`, compared field by field (arrays by position). */
export function diffStates(expected: Json | undefined, actual: Json | undefined, path = ""): StateDifference[] {
  const at = (k: string | number) => (path === "" ? String(k) : `${path}.${k}`)
  if (isObject(expected) && isObject(actual)) {
    const keys = [...new Set([...Object.keys(expected), ...Object.keys(actual)])].sort()
    return keys.flatMap((k) => diffStates(expected[k], actual[k], at(k)))
  }
  if (Array.isArray(expected) && Array.isArray(actual)) {
    const n = Math.max(expected.length, actual.length)
    return Array.from({ length: n }, (_, i) => diffStates(expected[i] as Json | undefined, actual[i] as Json | undefined, at(i))).flat()
  }
  if (expected === actual) return []
  if (expected === undefined && actual === undefined) return []
  return [{ path, ...(expected === undefined ? {} : { expected }), ...(actual === undefined ? {} : { actual }) }]
}

/** A value as JSON (drops undefined fields, Dates become ISO strings): what a fixer's `read` answers. */
export const toJson = (value: unknown): Json => JSON.parse(JSON.stringify(value ?? null)) as Json

// ---------------------------------------------------------------------------------------------------
// Resolving output references

const pick = (value: unknown, path: ReadonlyArray<string | number>): unknown =>
  path.reduce<unknown>((v, k) => (v === null || v === undefined ? undefined : (v as Record<string | number, unknown>)[k]), value)

/** `params` with every OutputRef replaced by the value it names in `outputs` (throws when an output lacks it). */
export function resolveRefs(params: unknown, outputs: ReadonlyArray<unknown>): unknown {
  if (isOutputRef(params)) {
    const value = pick(outputs[params.$ref.call], params.$ref.path)
    if (value === undefined) throw new Error(`The output of call ${params.$ref.call + 1} has no ${params.$ref.path.join(".")}`)
    return value
  }
  if (Array.isArray(params)) return params.map((p) => resolveRefs(p, outputs))
  if (isObject(params)) return Object.fromEntries(Object.entries(params).map(([k, v]) => [k, resolveRefs(v, outputs)]))
  return params
}

/**
 * Where a rendered call stands, for its references: an undo's calls (`applyCalls`: how many calls the fix made, since an
 * undo's references count the fix's outputs first, then its own) and, once the fix ran, its recorded `outputs`.
 */
export interface RefView {
  readonly applyCalls: number
  readonly outputs?: ReadonlyArray<unknown>
}

/**
 * How a reference shows in a rendered command before the call it names answered: "step k" in the fix's own calls; in
 * an undo's, "step k of the fix" or "undo step k" (numbered as the undo's list shows them).
 */
export const refPlaceholder = (r: OutputRef, view?: RefView): string => {
  const what = r.$ref.path.join(".")
  const i = r.$ref.call
  if (view === undefined) return `<${what} answered by step ${i + 1}>`
  return i < view.applyCalls ? `<${what} answered by step ${i + 1} of the fix>` : `<${what} answered by undo step ${i - view.applyCalls + 1}>`
}

/**
 * `params` with references shown as placeholders (rendering before the call runs); in an undo's calls (`view`), a
 * reference to an output the fix recorded shows that value.
 */
export function showRefs(params: unknown, view?: RefView): unknown {
  if (isOutputRef(params)) {
    const known = view?.outputs !== undefined && params.$ref.call < view.applyCalls ? pick(view.outputs[params.$ref.call], params.$ref.path) : undefined
    return known ?? refPlaceholder(params, view)
  }
  if (Array.isArray(params)) return params.map((p) => showRefs(p, view))
  if (isObject(params)) return Object.fromEntries(Object.entries(params).map(([k, v]) => [k, showRefs(v, view)]))
  return params
}

// ---------------------------------------------------------------------------------------------------
// Permissions and the preview

/** Whether the connected credentials may make a call: tested by the provider's dry-run or policy simulation. */
export interface PermissionCheck {
  readonly action: string
  /** "allowed"/"denied" when the provider answered (EC2 DryRun, IAM policy simulation), else "unknown". */
  readonly status: "allowed" | "denied" | "unknown"
  /** How it was decided ("EC2 DryRun", "IAM policy simulation") or why it could not be. */
  readonly how: string
}

/** A call as the preview shows it: the planned call (references as placeholders) with its CLI command. */
export interface RenderedCall {
  readonly service: string
  readonly operation: string
  readonly region: string | null
  readonly params: unknown
  readonly cli: string
}

export interface Preview {
  readonly check_id: string
  readonly description: string
  readonly cuts_access: string | null
  readonly noop: string | null
  readonly calls: ReadonlyArray<RenderedCall>
  readonly effects: ReadonlyArray<string>
  readonly permissions: ReadonlyArray<PermissionCheck>
  readonly reversible: boolean
  readonly undo_calls: ReadonlyArray<RenderedCall>
  /** Why undo is not possible, or what it will not bring back. */
  readonly undo_note: string | null
  readonly cli: string
  readonly terraform: string
  /** The state the fix would change, as read now. */
  readonly state: Json
}

/** The distinct permissions of a plan's calls, in call order. */
export const planActions = (calls: ReadonlyArray<PlannedCall>, actionOf: (c: PlannedCall) => string): string[] => [...new Set(calls.map(actionOf))]

/** Shell single-quoting. */
export const shellQuote = (s: string): string => (/^[A-Za-z0-9_./:=@%+,-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`)

/** Generic CLI rendering of a REST call: `az rest` for Azure, curl with a gcloud token for GCP (exact, nothing lost). */
export function renderRestCli(call: RestCall): string {
  const body = call.body === undefined ? "" : ` ${call.provider === "azure" ? "--body" : "-d"} ${shellQuote(JSON.stringify(showRefs(call.body)))}`
  if (call.provider === "azure") return `az rest --method ${call.method.toLowerCase()} --url ${shellQuote(call.url)}${body}`
  const json = call.body === undefined ? "" : ` -H 'Content-Type: application/json'`
  return `curl -X ${call.method} -H "Authorization: Bearer $(gcloud auth print-access-token)"${json} ${shellQuote(call.url)}${body}`
}
