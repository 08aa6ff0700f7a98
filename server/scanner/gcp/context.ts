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

/** Compute aggregated list page: `items` maps "zones/us-central1-a" (or "regions/…", "global") to a scoped list. */
export const aggregatedPageOf = <S extends Schema.Top>(scoped: S) =>
  Schema.Struct({ items: Schema.optionalKey(Schema.Record(Schema.String, scoped)), nextPageToken: Schema.optionalKey(Schema.String) })

/** "zones/us-central1-a" → "us-central1-a"; "global" → "global". */
export const scopeName = (scope: string): string => scope.slice(scope.indexOf("/") + 1)

/** Last path segment of a resource URL ("…/zones/us-central1-a" → "us-central1-a"). */
export const lastSegment = (url: string | undefined): string => (url === undefined ? "" : url.slice(url.lastIndexOf("/") + 1))

interface AggregatedShape<L> {
  readonly items?: { readonly [scope: string]: L }
  readonly nextPageToken?: string
}

/** Flattens an aggregated list into (scope, item) pairs, following pages. */
export async function aggregated<L, I>(
  ctx: GcpCollectContext,
  spec: CallSpec,
  url: string,
  schema: Schema.ConstraintDecoder<AggregatedShape<L>>,
  pick: (scoped: L) => ReadonlyArray<I> | undefined,
): Promise<Array<{ readonly scope: string; readonly item: I }> | undefined> {
  return ctx.pages(spec, { url: withQuery(url, { returnPartialSuccess: true }) }, schema, (page, current) => ({
    items: Object.entries(page.items ?? {}).flatMap(([scope, list]) => (pick(list) ?? []).map((item) => ({ scope: scopeName(scope), item }))),
    next: nextPageUrl(current, page.nextPageToken),
  }))
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
