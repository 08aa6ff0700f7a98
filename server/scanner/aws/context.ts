/**
 * What a collector gets: clients, the scan's account and regions, and `call`/`optional`/`paginate` wrappers that
 * bound concurrency, count resources and turn every failed API call into a recorded CollectionError (the
 * collector continues with `undefined` for that input; checks then report "error" for it).
 */
import type { HttpHandlerOptions } from "@smithy/types"
import type { CollectionError } from "../check.ts"
import { makeLimiter, mapConcurrent, type Limiter } from "../pool.ts"
import type { AwsClients } from "./clients.ts"
import { classifyAwsError, errorCode } from "./errors.ts"

export interface CallSpec {
  /** Inventory input this call feeds, e.g. "s3.bucket_policy" (what checks declare in `uses`). */
  readonly type: string
  readonly region: string
  /** API operation, e.g. "s3:GetBucketPolicy". */
  readonly op: string
  readonly id?: string
}

export type SendOptions = HttpHandlerOptions

export interface CollectContext {
  readonly clients: AwsClients
  readonly accountId: string
  readonly partition: string
  readonly regions: ReadonlyArray<string>
  readonly homeRegion: string
  /** Whether any check of this scan reads the input (collectors skip the calls of unread inputs). */
  wants(type: string): boolean
  /** Calls one API operation; on failure records the error and answers undefined. */
  call<A>(spec: CallSpec, fn: (opts: SendOptions) => Promise<A>): Promise<A | undefined>
  /** Like `call`, but answers null (nothing configured) when the error code is one of `notFound`. */
  optional<A>(spec: CallSpec, notFound: ReadonlyArray<string>, fn: (opts: SendOptions) => Promise<A>): Promise<A | null | undefined>
  /** Follows a token-paginated list; undefined when any page failed (partial lists would hide resources). */
  paginate<P, I>(
    spec: CallSpec,
    fetchPage: (token: string | undefined, opts: SendOptions) => Promise<P>,
    extract: (page: P) => { readonly items: ReadonlyArray<I> | undefined; readonly next: string | undefined },
  ): Promise<I[] | undefined>
  /** Runs fn for every scanned region (bounded fan-out), in region order. */
  perRegion<A>(fn: (region: string) => Promise<A>): Promise<A[]>
  /** Bounded fan-out over resources. */
  map<T, R>(items: ReadonlyArray<T>, fn: (item: T) => Promise<R>): Promise<R[]>
  countResources(n: number): void
  /**
   * The scan service the context collects for ("rds", "neptune", ...), for collectors shared by several services that
   * count only that service's resources; undefined outside a service scan.
   */
  readonly service: string | undefined
  /** Records a gap found in a successful answer (e.g. a report without its root row). */
  recordError(error: CollectionError): void
  readonly errors: ReadonlyArray<CollectionError>
}

export interface ContextOptions {
  readonly clients: AwsClients
  readonly accountId: string
  readonly partition: string
  readonly regions: ReadonlyArray<string>
  readonly concurrency?: number
  /** A limiter shared with other collect contexts (the scan's, ./scan-share.ts); default: one of `concurrency` slots. */
  readonly limiter?: Limiter
  readonly signal?: AbortSignal
  /** Inputs the scan's checks read; all when omitted. */
  readonly wanted?: ReadonlySet<string>
  /** The scan service collected for (CollectContext.service). */
  readonly service?: string
}

export interface CollectContextHandle extends CollectContext {
  readonly resourcesScanned: () => number
}

export function makeCollectContext(options: ContextOptions): CollectContextHandle {
  const limiter: Limiter = options.limiter ?? makeLimiter(options.concurrency ?? 8)
  const errors: CollectionError[] = []
  let resources = 0
  const signal = options.signal
  const sendOptions: SendOptions = signal === undefined ? {} : { abortSignal: signal }
  const fanOut = Math.max(2, (options.concurrency ?? 8) * 2)

  const throwIfAborted = () => {
    if (signal?.aborted === true) throw signal.reason instanceof Error ? signal.reason : new Error("Scan aborted")
  }

  const record = (spec: CallSpec, error: unknown) => {
    const c = classifyAwsError(error)
    errors.push({
      resourceType: spec.type,
      region: spec.region,
      operation: spec.op,
      ...(spec.id === undefined ? {} : { resourceId: spec.id }),
      kind: c.kind,
      code: c.code,
      message: c.message,
    })
  }

  const attempt = async <A>(fn: (opts: SendOptions) => Promise<A>): Promise<{ ok: true; value: A } | { ok: false; error: unknown }> => {
    throwIfAborted()
    try {
      return { ok: true, value: await limiter.run(() => fn(sendOptions)) }
    } catch (error) {
      throwIfAborted()
      return { ok: false, error }
    }
  }

  const ctx: CollectContextHandle = {
    clients: options.clients,
    accountId: options.accountId,
    partition: options.partition,
    regions: options.regions,
    homeRegion: options.clients.homeRegion,
    errors,
    wants: (type) => options.wanted === undefined || options.wanted.has(type),
    service: options.service,
    resourcesScanned: () => resources,
    countResources: (n) => {
      resources += n
    },
    recordError: (e) => {
      errors.push(e)
    },
    async call(spec, fn) {
      const r = await attempt(fn)
      if (r.ok) return r.value
      record(spec, r.error)
      return undefined
    },
    async optional(spec, notFound, fn) {
      const r = await attempt(fn)
      if (r.ok) return r.value
      const code = errorCode(r.error)
      if (code !== undefined && notFound.includes(code)) return null
      record(spec, r.error)
      return undefined
    },
    async paginate(spec, fetchPage, extract) {
      const items: unknown[] = []
      let token: string | undefined
      const seen = new Set<string>()
      for (;;) {
        const r = await attempt((opts) => fetchPage(token, opts))
        if (!r.ok) {
          record(spec, r.error)
          return undefined
        }
        const page = extract(r.value)
        items.push(...(page.items ?? []))
        // Stop on a repeated token too: some emulators echo the last token forever.
        if (page.next === undefined || page.next === "" || seen.has(page.next)) break
        seen.add(page.next)
        token = page.next
      }
      return items as never
    },
    perRegion: (fn) => mapConcurrent(options.regions, fanOut, fn),
    map: (items, fn) => mapConcurrent(items, fanOut, fn),
  }
  // Calls reject only when the scan is aborted (every other failure is recorded, not thrown). A collector that
  // starts several calls before awaiting them would then leave the later rejections unhandled, which kills a worker
  // process (and fails a test run) on every cancelled scan. Observing each promise keeps the rejection for whoever
  // awaits it and silences only the ones nobody awaits any more.
  const { call, optional, paginate, perRegion, map } = ctx
  return {
    ...ctx,
    call: ((spec, fn) => observed(call(spec, fn))) as typeof call,
    optional: ((spec, notFound, fn) => observed(optional(spec, notFound, fn))) as typeof optional,
    paginate: ((spec, fetchPage, extract) => observed(paginate(spec, fetchPage, extract))) as typeof paginate,
    perRegion: ((fn) => observed(perRegion(fn))) as typeof perRegion,
    map: ((items, fn) => observed(map(items, fn))) as typeof map,
  }
}

const observed = <A>(promise: Promise<A>): Promise<A> => {
  promise.catch(() => undefined)
  return promise
}
