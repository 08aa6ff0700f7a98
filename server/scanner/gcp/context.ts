/**
 * The GCP collector context: the generic REST context plus the scanned project and the API base URLs, and the
 * Google list conventions (`nextPageToken` → `pageToken`, compute `aggregatedList` maps keyed by scope).
 */
import { Schema } from "effect"
import { withQuery, type CallSpec, type RestCollectContext } from "../rest/context.ts"
import type { GcpEndpoints } from "./endpoints.ts"

export interface GcpCollectContext extends RestCollectContext {
  readonly projectId: string
  /** Numeric project number (default service accounts and some resource names use it). */
  readonly projectNumber: string
  readonly endpoints: GcpEndpoints
}

/** The next page's URL: the same request with `pageToken` set. */
export const nextPageUrl = (url: string, token: string | undefined): string | undefined =>
  token === undefined || token === "" ? undefined : withQuery(url, { pageToken: token })

export const Paged = <F extends Schema.Struct.Fields>(fields: F) => Schema.Struct({ ...fields, nextPageToken: Schema.optionalKey(Schema.String) })

/** Lists a Google collection whose page has the items under `key` and a `nextPageToken`. */
export async function listAll<S extends Schema.ConstraintDecoder<unknown>, I>(
  ctx: GcpCollectContext,
  spec: CallSpec,
  url: string,
  schema: S,
  items: (page: S["Type"]) => ReadonlyArray<I> | undefined,
): Promise<I[] | undefined> {
  return ctx.pages(spec, { url }, schema, (page, current) => ({
    items: items(page),
    next: nextPageUrl(current, (page as { readonly nextPageToken?: string }).nextPageToken),
  }))
}

/** Per-scope warning of an aggregated list ("NO_RESULTS_ON_PAGE" for scopes without resources). */
export const ScopedWarning = Schema.optionalKey(Schema.Struct({ code: Schema.optionalKey(Schema.String), message: Schema.optionalKey(Schema.String) }))

/**
 * Compute aggregated list page: `items` maps "zones/us-central1-a" (or "regions/…", "global") to a scoped list.
 * With returnPartialSuccess, scopes that could not be read are listed in `unreachables` (and may carry a scoped
 * warning other than NO_RESULTS_ON_PAGE): the answer is then partial.
 */
export const aggregatedPageOf = <S extends Schema.Top>(scoped: S) =>
  Schema.Struct({
    items: Schema.optionalKey(Schema.Record(Schema.String, scoped)),
    nextPageToken: Schema.optionalKey(Schema.String),
    unreachables: Schema.optionalKey(Schema.Array(Schema.String)),
    warning: ScopedWarning,
  })

/** "zones/us-central1-a" → "us-central1-a"; "global" → "global". */
export const scopeName = (scope: string): string => scope.slice(scope.indexOf("/") + 1)

/** Last path segment of a resource URL ("…/zones/us-central1-a" → "us-central1-a"). */
export const lastSegment = (url: string | undefined): string => (url === undefined ? "" : url.slice(url.lastIndexOf("/") + 1))

interface AggregatedShape<L> {
  readonly items?: { readonly [scope: string]: L }
  readonly nextPageToken?: string
  readonly unreachables?: ReadonlyArray<string>
}

interface ScopedListShape {
  readonly warning?: { readonly code?: string; readonly message?: string }
}

/** Scoped warnings that do not make the answer partial. */
const HARMLESS_SCOPE_WARNINGS: ReadonlySet<string> = new Set(["NO_RESULTS_ON_PAGE"])

/**
 * Flattens an aggregated list into (scope, item) pairs, following pages. Unreachable scopes and scoped warnings
 * other than NO_RESULTS_ON_PAGE are recorded as collection errors of the input: the resources there were not seen,
 * so the checks reading the input report "not evaluated" with the reason instead of a pass.
 */
export async function aggregated<L extends ScopedListShape, I>(
  ctx: GcpCollectContext,
  spec: CallSpec,
  url: string,
  schema: Schema.ConstraintDecoder<AggregatedShape<L>>,
  pick: (scoped: L) => ReadonlyArray<I> | undefined,
): Promise<Array<{ readonly scope: string; readonly item: I }> | undefined> {
  const partial = new Map<string, { code: string; message: string }>()
  const items = await ctx.pages(spec, { url: withQuery(url, { returnPartialSuccess: true }) }, schema, (page, current) => {
    for (const u of page.unreachables ?? []) partial.set(u, { code: "UNREACHABLE", message: `${u} could not be reached: its resources are missing from the answer` })
    for (const [scope, list] of Object.entries(page.items ?? {})) {
      const code = list.warning?.code
      if (code !== undefined && !HARMLESS_SCOPE_WARNINGS.has(code)) partial.set(scope, { code, message: list.warning?.message ?? `${scope} answered ${code}` })
    }
    return {
      items: Object.entries(page.items ?? {}).flatMap(([scope, list]) => (pick(list) ?? []).map((item) => ({ scope: scopeName(scope), item }))),
      next: nextPageUrl(current, page.nextPageToken),
    }
  })
  for (const [scope, w] of partial) {
    ctx.recordError({ resourceType: spec.type, region: scopeName(lastSegmentScope(scope)), operation: spec.op, kind: "error", code: w.code, message: w.message })
  }
  return items
}

/** "projects/p/zones/us-central1-a" or "zones/us-central1-a" → "zones/us-central1-a". */
const lastSegmentScope = (scope: string): string => {
  const m = /(zones|regions)\/[^/]+$/.exec(scope)
  return m?.[0] ?? scope
}

/** An IAM policy (Cloud Resource Manager, Cloud KMS, Cloud Storage all share the binding shape). */
export const IamPolicy = Schema.Struct({
  version: Schema.optionalKey(Schema.Number),
  etag: Schema.optionalKey(Schema.String),
  bindings: Schema.optionalKey(
    Schema.Array(
      Schema.Struct({
        role: Schema.String,
        members: Schema.optionalKey(Schema.Array(Schema.String)),
        condition: Schema.optionalKey(Schema.Struct({ expression: Schema.optionalKey(Schema.String), title: Schema.optionalKey(Schema.String) })),
      }),
    ),
  ),
  auditConfigs: Schema.optionalKey(
    Schema.Array(
      Schema.Struct({
        service: Schema.String,
        auditLogConfigs: Schema.optionalKey(
          Schema.Array(Schema.Struct({ logType: Schema.String, exemptedMembers: Schema.optionalKey(Schema.Array(Schema.String)) })),
        ),
      }),
    ),
  ),
})
export type IamPolicy = typeof IamPolicy.Type

export const PUBLIC_MEMBERS: ReadonlySet<string> = new Set(["allUsers", "allAuthenticatedUsers"])

/** Members of a policy that make the resource public, with their role. */
export function publicGrants(policy: IamPolicy | null | undefined): string[] {
  return (policy?.bindings ?? []).flatMap((b) => (b.members ?? []).filter((m) => PUBLIC_MEMBERS.has(m)).map((m) => `${m}:${b.role}`))
}

/**
 * Google-managed service agents: accounts Google creates and grants roles to so a service can act in the project
 * (https://cloud.google.com/iam/docs/service-agents): the Google APIs Service Agent PROJECT_NUMBER@cloudservices.
 * gserviceaccount.com, and service-[org-|folder-]NUMBER@….iam.gserviceaccount.com (gcp-sa-*, compute-system,
 * container-engine-robot, …). Their bindings are Google's to manage, so every IAM check exempts them alike. The
 * Compute Engine and App Engine default service accounts are not agents: they are the customer's and stay judged.
 */
export function isServiceAgent(member: string): boolean {
  const email = member.startsWith("serviceAccount:") ? member.slice("serviceAccount:".length) : member
  return /^\d+@cloudservices\.gserviceaccount\.com$/.test(email) || /^service-(org-|folder-)?\d+@[a-z0-9-]+\.iam\.gserviceaccount\.com$/.test(email) || /@gcp-sa-[a-z0-9-]+\.iam\.gserviceaccount\.com$/.test(email)
}
