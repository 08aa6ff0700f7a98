/**
 * The Azure collector context: the generic REST context plus the subscription and the base URLs, and the ARM
 * conventions: `api-version` on every call, `{value, nextLink}` pages (nextLink is absolute and is only followed
 * when it points at the configured ARM base), `{id, name, location, properties}` resources.
 */
import { Schema } from "effect"
import type { CallSpec, RestCollectContext } from "../rest/context.ts"
import type { RestError } from "../rest/http.ts"
import type { AzureEndpoints } from "./endpoints.ts"
import { isUnregisteredProvider } from "./errors.ts"

export interface AzureCollectContext extends RestCollectContext {
  readonly subscriptionId: string
  readonly tenantId: string
  readonly endpoints: AzureEndpoints
}

/** An ARM resource with typed `properties`. */
export const ArmResource = <F extends Schema.Struct.Fields>(properties: F) =>
  Schema.Struct({
    id: Schema.String,
    name: Schema.String,
    type: Schema.optionalKey(Schema.String),
    location: Schema.optionalKey(Schema.String),
    kind: Schema.optionalKey(Schema.String),
    sku: Schema.optionalKey(Schema.Struct({ name: Schema.optionalKey(Schema.String), tier: Schema.optionalKey(Schema.String) })),
    identity: Schema.optionalKey(Schema.Struct({ type: Schema.optionalKey(Schema.String) })),
    tags: Schema.optionalKey(Schema.NullOr(Schema.Record(Schema.String, Schema.String))),
    properties: Schema.optionalKey(Schema.Struct(properties)),
  })

const armUrl = (ctx: AzureCollectContext, path: string, apiVersion: string) => `${ctx.endpoints.arm}${path}${path.includes("?") ? "&" : "?"}api-version=${apiVersion}`

/** Lists an ARM collection, following nextLink. An unregistered resource provider means an empty list. */
export async function armList<S extends Schema.Top & Schema.ConstraintDecoder<unknown>>(
  ctx: AzureCollectContext,
  spec: CallSpec,
  path: string,
  apiVersion: string,
  item: S,
): Promise<Array<S["Type"]> | undefined> {
  const page = Schema.Struct({ value: Schema.optionalKey(Schema.Array(item)), nextLink: Schema.optionalKey(Schema.NullOr(Schema.String)) })
  return ctx.pages(spec, { url: armUrl(ctx, path, apiVersion), audience: ctx.endpoints.armAudience }, page, (p) => ({ items: p.value as ReadonlyArray<S["Type"]> | undefined, next: p.nextLink ?? undefined }), isUnregisteredProvider)
}

export function armGet<S extends Schema.ConstraintDecoder<unknown>>(ctx: AzureCollectContext, spec: CallSpec, path: string, apiVersion: string, schema: S): Promise<S["Type"] | undefined> {
  return ctx.get(spec, { url: armUrl(ctx, path, apiVersion), audience: ctx.endpoints.armAudience }, schema)
}

/** GET that answers null on 404 (a setting that was never configured). */
export function armOptional<S extends Schema.ConstraintDecoder<unknown>>(ctx: AzureCollectContext, spec: CallSpec, path: string, apiVersion: string, schema: S): Promise<S["Type"] | null | undefined> {
  return ctx.optional(spec, { url: armUrl(ctx, path, apiVersion), audience: ctx.endpoints.armAudience }, schema)
}

export function graphGet<S extends Schema.ConstraintDecoder<unknown>>(ctx: AzureCollectContext, spec: CallSpec, path: string, schema: S): Promise<S["Type"] | undefined> {
  return ctx.get(spec, { url: `${ctx.endpoints.graph}${path}`, audience: ctx.endpoints.graphAudience }, schema)
}

const graphPage = <S extends Schema.Top & Schema.ConstraintDecoder<unknown>>(item: S) =>
  Schema.Struct({ value: Schema.optionalKey(Schema.Array(item)), "@odata.nextLink": Schema.optionalKey(Schema.NullOr(Schema.String)) })

/** Lists a Graph collection, following @odata.nextLink (only within the configured Graph endpoint). */
export function graphList<S extends Schema.Top & Schema.ConstraintDecoder<unknown>>(ctx: AzureCollectContext, spec: CallSpec, path: string, item: S, absent?: (error: RestError) => boolean): Promise<Array<S["Type"]> | undefined> {
  return ctx.pages(spec, { url: `${ctx.endpoints.graph}${path}`, audience: ctx.endpoints.graphAudience }, graphPage(item), (p) => ({ items: p.value as ReadonlyArray<S["Type"]> | undefined, next: p["@odata.nextLink"] ?? undefined }), absent)
}

/** Like graphList, but null when the collection's parent does not exist (404). */
export async function graphOptional<S extends Schema.Top & Schema.ConstraintDecoder<unknown>>(ctx: AzureCollectContext, spec: CallSpec, path: string, item: S): Promise<Array<S["Type"]> | null | undefined> {
  let missing = false
  const items = await graphList(ctx, spec, path, item, (e) => {
    missing = e.status === 404
    return missing
  })
  return missing ? null : items
}

/** "/subscriptions/s/resourceGroups/rg/providers/…" → "rg". */
export const resourceGroupOf = (id: string): string => /\/resourceGroups\/([^/]+)/i.exec(id)?.[1] ?? ""

export const locationOf = (r: { readonly location?: string }): string => (r.location ?? "global").toLowerCase().replace(/\s+/g, "")
