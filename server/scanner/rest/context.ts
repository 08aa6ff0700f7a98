/**
 * What a GCP or Azure collector gets: the REST client and `get`/`optional`/`pages` wrappers that bound concurrency,
 * decode each body with its wire schema and turn every failed call into a recorded CollectionError (the collector
 * continues with `undefined` for that input; checks then report "error" for it, with the reason on the finding).
 */
import type { Schema } from "effect"
import type { CollectionError } from "../check.ts"
import { makeLimiter, mapConcurrent } from "../pool.ts"
import { RestError, type HttpMethod, type RestClient } from "./http.ts"

export interface CallSpec {
  /** Inventory input this call feeds, e.g. "storage.buckets" (what checks declare in `uses`). */
  readonly type: string
  /** Region, zone, location or "global". */
  readonly region: string
  /** API operation, e.g. "storage.buckets.list". */
  readonly op: string
  readonly id?: string
}

export interface Call {
  readonly url: string
  readonly audience?: string
  readonly method?: HttpMethod
  readonly body?: unknown
}

export interface Page<I> {
  readonly items: ReadonlyArray<I> | undefined
  /** Absolute URL of the next page, or undefined on the last page. */
  readonly next: string | undefined
}

export interface RestCollectContext {
  readonly client: RestClient
  /** Whether any check of this scan reads the input (collectors skip the calls of unread inputs). */
  wants(type: string): boolean
  /** One call; on failure records the error and answers undefined. */
  get<S extends Schema.ConstraintDecoder<unknown>>(spec: CallSpec, call: Call, schema: S): Promise<S["Type"] | undefined>
  /** Like `get`, but answers null (nothing configured) when the status is one of `absent` (default 404). */
  optional<S extends Schema.ConstraintDecoder<unknown>>(
    spec: CallSpec,
    call: Call,
    schema: S,
    absent?: (error: RestError) => boolean,
  ): Promise<S["Type"] | null | undefined>
  /** Follows every page; undefined when any page failed (a partial list would hide resources). */
  pages<S extends Schema.ConstraintDecoder<unknown>, I>(
    spec: CallSpec,
    first: Call,
    schema: S,
    extract: (page: S["Type"], url: string) => Page<I>,
    absent?: (error: RestError) => boolean,
  ): Promise<I[] | undefined>
  map<T, R>(items: ReadonlyArray<T>, fn: (item: T) => Promise<R>): Promise<R[]>
  countResources(n: number): void
  recordError(error: CollectionError): void
  readonly errors: ReadonlyArray<CollectionError>
}

export interface RestContextOptions {
  readonly client: RestClient
  readonly audience: string
  readonly concurrency?: number
  readonly signal?: AbortSignal
  readonly wanted?: ReadonlySet<string>
}

export interface RestCollectContextHandle extends RestCollectContext {
  readonly resourcesScanned: () => number
}

export const toCollectionError = (spec: CallSpec, error: unknown): CollectionError => {
  const base = { resourceType: spec.type, region: spec.region, operation: spec.op, ...(spec.id === undefined ? {} : { resourceId: spec.id }) }
  if (error instanceof RestError) {
    return { ...base, kind: error.kind, code: error.reason === undefined || error.reason === error.code ? error.code : `${error.code}/${error.reason}`, message: error.message }
  }
  return { ...base, kind: "error", code: error instanceof Error ? error.name : "Error", message: error instanceof Error ? error.message : String(error) }
}

export function makeRestCollectContext(options: RestContextOptions): RestCollectContextHandle {
  const limiter = makeLimiter(options.concurrency ?? 8)
  const errors: CollectionError[] = []
  const fanOut = Math.max(2, (options.concurrency ?? 8) * 2)
  const signal = options.signal
  let resources = 0

  const throwIfAborted = () => {
    if (signal?.aborted === true) throw signal.reason instanceof Error ? signal.reason : new Error("Scan aborted")
  }

  const fetchJson = async <S extends Schema.ConstraintDecoder<unknown>>(spec: CallSpec, call: Call, schema: S): Promise<{ ok: true; value: S["Type"] } | { ok: false; error: unknown }> => {
    throwIfAborted()
    try {
      const value = await limiter.run(() =>
        options.client.json(
          {
            url: call.url,
            audience: call.audience ?? options.audience,
            op: spec.op,
            ...(call.method === undefined ? {} : { method: call.method }),
            ...(call.body === undefined ? {} : { body: call.body }),
          },
          schema,
        ),
      )
      return { ok: true, value }
    } catch (error) {
      throwIfAborted()
      return { ok: false, error }
    }
  }

  const notFound = (e: RestError) => e.status === 404

  return {
    client: options.client,
    errors,
    wants: (type) => options.wanted === undefined || options.wanted.has(type),
    resourcesScanned: () => resources,
    countResources: (n) => {
      resources += n
    },
    recordError: (e) => {
      errors.push(e)
    },
    async get(spec, call, schema) {
      const r = await fetchJson(spec, call, schema)
      if (r.ok) return r.value
      errors.push(toCollectionError(spec, r.error))
      return undefined
    },
    async optional(spec, call, schema, absent = notFound) {
      const r = await fetchJson(spec, call, schema)
      if (r.ok) return r.value
      if (r.error instanceof RestError && absent(r.error)) return null
      errors.push(toCollectionError(spec, r.error))
      return undefined
    },
    async pages(spec, first, schema, extract, absent) {
      const items: unknown[] = []
      const seen = new Set<string>()
      let call: Call = first
      for (;;) {
        const r = await fetchJson(spec, call, schema)
        if (!r.ok) {
          if (absent !== undefined && r.error instanceof RestError && absent(r.error) && items.length === 0) return []
          errors.push(toCollectionError(spec, r.error))
          return undefined
        }
        const page = extract(r.value, call.url)
        items.push(...(page.items ?? []))
        if (page.next === undefined || page.next === "" || seen.has(page.next)) break
        if (!options.client.isAllowed(page.next)) {
          errors.push(
            toCollectionError(spec, new RestError({ code: "UntrustedNextLink", message: `The next-page link points outside the configured endpoint (${safeOrigin(page.next)}); the list is incomplete`, kind: "error", op: spec.op })),
          )
          return undefined
        }
        seen.add(page.next)
        call = { ...first, url: page.next }
      }
      return items as never
    },
    map: (items, fn) => mapConcurrent(items, fanOut, fn),
  }
}

const safeOrigin = (url: string) => {
  try {
    return new URL(url).origin
  } catch {
    return "an invalid URL"
  }
}

/** Appends query parameters to a URL (values are encoded; undefined values are skipped). */
export function withQuery(url: string, query: Readonly<Record<string, string | number | boolean | undefined>>): string {
  const u = new URL(url)
  for (const [k, v] of Object.entries(query)) if (v !== undefined) u.searchParams.set(k, String(v))
  return u.toString()
}
