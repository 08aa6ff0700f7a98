/**
 * Outbound HTTP for integrations (webhooks, Slack, anything that calls a URL a workspace admin typed): a client with an
 * SSRF guard. A URL a user supplies must not make the server reach what only the server can reach (the cloud metadata
 * service at 169.254.169.254, the database, an admin port on localhost, the office network).
 *
 * For every hop (the first request and each redirect):
 * 1. only `http:` and `https:` URLs are accepted; credentials in the URL become a Basic `Authorization` header;
 * 2. the host name is resolved once (the injected `resolve`, else the system resolver) and EVERY address it resolves
 *    to is checked by `refusalFor`: loopback, private (10/8, 172.16/12, 192.168/16), CGNAT (100.64/10), link-local
 *    (169.254/16, fe80::/10), unique-local (fc00::/7), unspecified, multicast, broadcast, reserved ranges, and IPv6
 *    forms that carry an IPv4 address (IPv4-mapped, IPv4-compatible, NAT64, 6to4) judged by that IPv4 address;
 * 3. the connection goes to the address that was checked (the socket's `lookup` answers with it: "pinning"), so a
 *    name that resolves to a public address for the check and to 127.0.0.1 for the connection (DNS rebinding) cannot
 *    slip through; TLS still verifies the certificate against the host name;
 * 4. redirects are followed by hand (at most `maxRedirects`), each new location going through 1–3 again; a
 *    cross-origin redirect drops `Authorization` and `Cookie`; 303 (and 301/302 after a POST) continue as GET.
 *
 * One deadline (`timeoutMs`) covers the whole exchange, redirects included; a response body larger than
 * `maxResponseBytes` is cut off and fails. Nothing is pooled: every hop opens its own connection to its checked
 * address.
 *
 * `INTEGRATIONS_ALLOW_PRIVATE_TARGETS=1` (read at each call; tests and on-premises deployments whose targets live on
 * the private network) lifts the address refusal only: schemes, redirects limit, timeouts and size cap still apply.
 *
 * Errors: every failure is an `OutboundRequestFailed` with a `reason` and a message in plain words naming the URL
 * ("http://10.0.0.5/hook resolves to 10.0.0.5, a private network address (10.0.0.0/8): …"). HTTP error statuses are
 * not failures here: the caller reads `status`.
 */
import { lookup as dnsLookup } from "node:dns/promises"
import http from "node:http"
import https from "node:https"
import { isIP, isIPv4, isIPv6 } from "node:net"
import { Data, Effect } from "effect"

export type OutboundFailureReason =
  | "invalid_url"
  | "refused_address"
  | "dns"
  | "timeout"
  | "too_large"
  | "too_many_redirects"
  | "network"
  | "aborted"

export class OutboundRequestFailed extends Data.TaggedError("OutboundRequestFailed")<{
  readonly reason: OutboundFailureReason
  readonly message: string
  /** The URL of the hop that failed (credentials removed). */
  readonly url: string
}> {}

export interface ResolvedAddress {
  readonly address: string
  readonly family: 4 | 6
}

/** Resolves a host name to every address it has (tests inject one to simulate DNS rebinding). */
export type Resolver = (hostname: string) => Promise<ReadonlyArray<ResolvedAddress>>

export const systemResolver: Resolver = async (hostname) => {
  const answers = await dnsLookup(hostname, { all: true, verbatim: true })
  return answers.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }))
}

export interface SafeFetchOptions {
  readonly method?: string
  readonly headers?: Readonly<Record<string, string>>
  readonly body?: string | Uint8Array
  /** Whole exchange, redirects included (default 10 s). */
  readonly timeoutMs?: number
  /** Largest response body read (default 256 KiB). */
  readonly maxResponseBytes?: number
  /** Redirects followed (default 3; 0 answers the redirect itself). */
  readonly maxRedirects?: number
  readonly signal?: AbortSignal
  /** Default: `INTEGRATIONS_ALLOW_PRIVATE_TARGETS === "1"` at the time of the call. */
  readonly allowPrivateTargets?: boolean
  /** Default: the system resolver (getaddrinfo, so /etc/hosts counts). */
  readonly resolve?: Resolver
  /**
   * The address rule (default `refusalFor`). Tests replace it to stand a loopback server in for a public host while
   * keeping the product's rule for every other address.
   */
  readonly refuseAddress?: (address: string) => string | undefined
}

export interface SafeResponse {
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  readonly body: Uint8Array
  readonly text: () => string
  /** The URL that answered (after redirects), credentials removed. */
  readonly url: string
  /** Every URL redirected to, in order. */
  readonly redirects: ReadonlyArray<string>
  /** The address the final connection went to. */
  readonly address: string
}

export const DEFAULT_TIMEOUT_MS = 10_000
export const DEFAULT_MAX_RESPONSE_BYTES = 256 * 1024
export const DEFAULT_MAX_REDIRECTS = 3

export const allowPrivateTargetsFromEnv = (): boolean => process.env.INTEGRATIONS_ALLOW_PRIVATE_TARGETS === "1"

// ---------------------------------------------------------------------------------------------------
// The address rule

interface Range4 {
  readonly base: number
  readonly bits: number
  readonly cidr: string
  readonly label: string
}

const v4 = (text: string): number | undefined => {
  if (!isIPv4(text)) return undefined
  return text.split(".").reduce((n, part) => n * 256 + Number(part), 0)
}

const range4 = (cidr: string, label: string): Range4 => {
  const [base, bits] = cidr.split("/")
  return { base: v4(base!)!, bits: Number(bits), cidr, label }
}

/** Most specific first: the broadcast address is named before the reserved /4 that holds it. */
const REFUSED_V4: ReadonlyArray<Range4> = [
  range4("255.255.255.255/32", "the broadcast address"),
  range4("0.0.0.0/8", "an unspecified (\"this network\") address"),
  range4("10.0.0.0/8", "a private network address"),
  range4("100.64.0.0/10", "a carrier-grade NAT (shared) address"),
  range4("127.0.0.0/8", "a loopback address"),
  range4("169.254.0.0/16", "a link-local address"),
  range4("172.16.0.0/12", "a private network address"),
  range4("192.0.0.0/24", "an IETF protocol address"),
  range4("192.168.0.0/16", "a private network address"),
  range4("198.18.0.0/15", "a benchmarking network address"),
  range4("224.0.0.0/4", "a multicast address"),
  range4("240.0.0.0/4", "a reserved address"),
]

const inRange4 = (n: number, r: Range4): boolean => {
  const size = 2 ** (32 - r.bits)
  return Math.floor(n / size) === Math.floor(r.base / size)
}

const refusalFor4 = (n: number): string | undefined => {
  const hit = REFUSED_V4.find((r) => inRange4(n, r))
  return hit === undefined ? undefined : `${hit.label} (${hit.cidr})`
}

/** 16 bytes of an IPv6 address (zone id dropped), or undefined. */
export const parseIPv6 = (text: string): Uint8Array | undefined => {
  const bare = text.replace(/^\[|\]$/g, "").replace(/%.*$/, "")
  if (!isIPv6(bare)) return undefined
  let head = bare
  const tail: Array<number> = []
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(bare)
  if (dotted !== null) {
    const n = v4(dotted[1]!)
    if (n === undefined) return undefined
    tail.push((n >>> 16) & 0xffff, n & 0xffff)
    head = bare.slice(0, bare.length - dotted[1]!.length)
    if (head.endsWith(":") && !head.endsWith("::")) head = head.slice(0, -1)
  }
  const halves = head.split("::")
  const groups = (s: string) => (s === "" ? [] : s.split(":").map((g) => parseInt(g, 16)))
  const left = groups(halves[0]!)
  const right = halves.length > 1 ? groups(halves[1]!) : []
  const missing = 8 - left.length - right.length - tail.length
  const words = halves.length > 1 ? [...left, ...Array<number>(missing).fill(0), ...right, ...tail] : [...left, ...tail]
  if (words.length !== 8 || words.some((w) => !Number.isInteger(w) || w < 0 || w > 0xffff)) return undefined
  const bytes = new Uint8Array(16)
  words.forEach((w, i) => {
    bytes[2 * i] = w >> 8
    bytes[2 * i + 1] = w & 0xff
  })
  return bytes
}

const prefix = (b: Uint8Array, bytes: ReadonlyArray<number>, bits: number): boolean => {
  for (let i = 0; i < bits; i++) {
    const byte = Math.floor(i / 8)
    const mask = 0x80 >> i % 8
    if (((b[byte]! ^ (bytes[byte] ?? 0)) & mask) !== 0) return false
  }
  return true
}

const embedded4 = (b: Uint8Array, at: number): number => ((b[at]! << 24) >>> 0) + (b[at + 1]! << 16) + (b[at + 2]! << 8) + b[at + 3]!

const dotted4 = (n: number): string => [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join(".")

const refusalFor6 = (b: Uint8Array): string | undefined => {
  const zero = (from: number, to: number) => b.subarray(from, to).every((x) => x === 0)
  if (zero(0, 16)) return "the unspecified address (::)"
  if (zero(0, 15) && b[15] === 1) return "the loopback address (::1)"
  // IPv6 forms that carry an IPv4 address are judged by it (the connection reaches that IPv4 host).
  const carried = (label: string, n: number) => {
    const refusal = refusalFor4(n)
    return refusal === undefined ? undefined : `${label} of ${dotted4(n)}, ${refusal}`
  }
  if (zero(0, 10) && b[10] === 0xff && b[11] === 0xff) return carried("an IPv4-mapped form", embedded4(b, 12))
  if (zero(0, 12)) return carried("an IPv4-compatible form", embedded4(b, 12))
  if (prefix(b, [0x00, 0x64, 0xff, 0x9b], 32) && zero(4, 12)) return carried("a NAT64 form", embedded4(b, 12))
  if (prefix(b, [0x00, 0x64, 0xff, 0x9b, 0x00, 0x01], 48)) return "a local-use NAT64 address (64:ff9b:1::/48)"
  if (prefix(b, [0x20, 0x02], 16)) return carried("a 6to4 form", embedded4(b, 2))
  if (prefix(b, [0x20, 0x01, 0x00, 0x00], 32)) return "a Teredo tunnel address (2001::/32)"
  if (prefix(b, [0x01, 0x00], 16) && zero(2, 8)) return "a discard-only address (100::/64)"
  if (prefix(b, [0xfc], 7)) return "a unique-local (private) address (fc00::/7)"
  if (prefix(b, [0xfe, 0x80], 10)) return "a link-local address (fe80::/10)"
  if (prefix(b, [0xfe, 0xc0], 10)) return "a site-local address (fec0::/10)"
  if (prefix(b, [0xff], 8)) return "a multicast address (ff00::/8)"
  return undefined
}

/**
 * Why an outbound request to `address` (an IPv4 or IPv6 literal) is refused, in words such as
 * "a loopback address (127.0.0.0/8)"; undefined for a public address. Anything that is not an IP literal is refused.
 */
export const refusalFor = (address: string): string | undefined => {
  const n = v4(address)
  if (n !== undefined) return refusalFor4(n)
  const b = parseIPv6(address)
  if (b !== undefined) return refusalFor6(b)
  return "not an IP address"
}

// ---------------------------------------------------------------------------------------------------
// The client

const REDIRECTS = new Set([301, 302, 303, 307, 308])

/** The URL without user info, for messages and logs. */
export const displayUrl = (url: URL): string => {
  const copy = new URL(url.href)
  copy.username = ""
  copy.password = ""
  return copy.href
}

const fail = (reason: OutboundFailureReason, url: URL | string, message: string) =>
  new OutboundRequestFailed({ reason, url: typeof url === "string" ? url : displayUrl(url), message })

/** Parses and checks the scheme of a target URL; throws `OutboundRequestFailed` ("invalid_url"). */
export const parseTargetUrl = (text: string): URL => {
  let url: URL
  try {
    url = new URL(text)
  } catch {
    throw fail("invalid_url", text.slice(0, 200), `${JSON.stringify(text.slice(0, 200))} is not a valid URL`)
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw fail("invalid_url", url, `${displayUrl(url)} uses ${url.protocol.replace(/:$/, "")}: only http and https URLs can be called`)
  }
  return url
}

interface Policy {
  readonly allowPrivate: boolean
  readonly resolve: Resolver
  readonly refuse: (address: string) => string | undefined
}

/** Resolves the URL's host and checks every address; answers the one to connect to. */
const checkedAddress = async (url: URL, policy: Policy): Promise<ResolvedAddress> => {
  const host = url.hostname.replace(/^\[|\]$/g, "")
  const literal = isIP(host)
  let addresses: ReadonlyArray<ResolvedAddress>
  if (literal !== 0) {
    addresses = [{ address: host, family: literal === 6 ? 6 : 4 }]
  } else {
    try {
      addresses = await policy.resolve(host)
    } catch (error) {
      const code = (error as { code?: string }).code
      throw fail("dns", url, code === "ENOTFOUND" || code === "ENODATA"
        ? `${host} (in ${displayUrl(url)}) does not resolve to any address`
        : `${host} (in ${displayUrl(url)}) could not be resolved: ${(error as Error).message ?? String(error)}`)
    }
    if (addresses.length === 0) throw fail("dns", url, `${host} (in ${displayUrl(url)}) does not resolve to any address`)
  }
  if (!policy.allowPrivate) {
    for (const a of addresses) {
      const refusal = policy.refuse(a.address)
      if (refusal !== undefined) {
        const where = literal !== 0 ? `${displayUrl(url)} is` : `${displayUrl(url)} resolves to ${a.address},`
        throw fail("refused_address", url,
          `${where} ${refusal}: requests to loopback, private, link-local and other non-public addresses are refused (an operator can allow them with INTEGRATIONS_ALLOW_PRIVATE_TARGETS=1)`)
      }
    }
  }
  return addresses[0]!
}

interface HopAnswer {
  readonly status: number
  readonly headers: Record<string, string>
  readonly body: Uint8Array
}

const flatHeaders = (raw: http.IncomingHttpHeaders): Record<string, string> => {
  const out: Record<string, string> = {}
  for (const [k, v] of Object.entries(raw)) if (v !== undefined) out[k] = Array.isArray(v) ? v.join(", ") : v
  return out
}

const oneHop = (
  url: URL,
  pinned: ResolvedAddress,
  method: string,
  headers: Record<string, string>,
  body: Uint8Array | undefined,
  signal: AbortSignal,
  maxBytes: number,
  readBody: boolean,
): Promise<HopAnswer> =>
  new Promise((resolvePromise, reject) => {
    const host = url.hostname.replace(/^\[|\]$/g, "")
    const isHttps = url.protocol === "https:"
    const options: https.RequestOptions = {
      method,
      hostname: host,
      port: url.port === "" ? (isHttps ? 443 : 80) : Number(url.port),
      path: `${url.pathname}${url.search}`,
      headers: { ...headers, host: url.host, ...(body !== undefined ? { "content-length": String(body.byteLength) } : {}) },
      agent: false,
      signal,
      // Pinning: the socket connects to the address that was checked, never to a second resolution.
      lookup: ((_hostname: string, opts: { all?: boolean }, callback: (...args: Array<unknown>) => void) => {
        if (opts.all === true) callback(null, [{ address: pinned.address, family: pinned.family }])
        else callback(null, pinned.address, pinned.family)
      }) as never,
      ...(isHttps && isIP(host) === 0 ? { servername: host } : {}),
    }
    const request = (isHttps ? https : http).request(options, (response) => {
      const status = response.statusCode ?? 0
      const answerHeaders = flatHeaders(response.headers)
      if (!readBody) {
        response.resume()
        response.on("end", () => resolvePromise({ status, headers: answerHeaders, body: new Uint8Array() }))
        response.on("error", reject)
        return
      }
      const declared = Number(answerHeaders["content-length"] ?? "NaN")
      if (Number.isFinite(declared) && declared > maxBytes) {
        response.destroy()
        reject(fail("too_large", url, `${displayUrl(url)} answered with ${declared} bytes, more than the ${maxBytes} bytes read`))
        return
      }
      const chunks: Array<Buffer> = []
      let size = 0
      response.on("data", (chunk: Buffer) => {
        size += chunk.byteLength
        if (size > maxBytes) {
          response.destroy()
          reject(fail("too_large", url, `${displayUrl(url)} answered with more than the ${maxBytes} bytes read`))
          return
        }
        chunks.push(chunk)
      })
      response.on("end", () => resolvePromise({ status, headers: answerHeaders, body: new Uint8Array(Buffer.concat(chunks)) }))
      response.on("error", reject)
    })
    request.on("error", reject)
    request.end(body === undefined ? undefined : Buffer.from(body))
  })

const describeNetworkError = (url: URL, error: unknown): string => {
  const e = error as { code?: string; message?: string }
  const where = displayUrl(url)
  switch (e.code) {
    case "ECONNREFUSED": return `${where} refused the connection`
    case "ECONNRESET": return `${where} closed the connection before answering`
    case "EHOSTUNREACH": case "ENETUNREACH": return `${where} cannot be reached from this server`
    case "CERT_HAS_EXPIRED": return `${where} presented an expired TLS certificate`
    case "ERR_TLS_CERT_ALTNAME_INVALID": return `${where} presented a TLS certificate for another host name`
    case "DEPTH_ZERO_SELF_SIGNED_CERT": case "SELF_SIGNED_CERT_IN_CHAIN": return `${where} presented a self-signed TLS certificate`
    default: return `${where} could not be called: ${e.message ?? String(error)}`
  }
}

/**
 * Calls `target` with the SSRF guard (module header). Rejects with `OutboundRequestFailed` only; an HTTP error status
 * is an answer, not a failure.
 */
export const safeFetch = async (target: string | URL, options: SafeFetchOptions = {}): Promise<SafeResponse> => {
  let url = typeof target === "string" ? parseTargetUrl(target) : parseTargetUrl(target.href)
  const policy: Policy = {
    allowPrivate: options.allowPrivateTargets ?? allowPrivateTargetsFromEnv(),
    resolve: options.resolve ?? systemResolver,
    refuse: options.refuseAddress ?? refusalFor,
  }
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS
  const maxBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES
  const maxRedirects = options.maxRedirects ?? DEFAULT_MAX_REDIRECTS
  const deadline = AbortSignal.timeout(timeoutMs)
  const signal = options.signal === undefined ? deadline : AbortSignal.any([deadline, options.signal])

  let method = (options.method ?? "GET").toUpperCase()
  let body: Uint8Array | undefined = typeof options.body === "string" ? new TextEncoder().encode(options.body) : options.body
  let headers: Record<string, string> = {}
  for (const [k, v] of Object.entries(options.headers ?? {})) headers[k.toLowerCase()] = v
  const redirects: Array<string> = []

  const credentialsToHeader = (u: URL) => {
    if (u.username === "" && u.password === "") return
    headers["authorization"] = `Basic ${Buffer.from(`${decodeURIComponent(u.username)}:${decodeURIComponent(u.password)}`).toString("base64")}`
    u.username = ""
    u.password = ""
  }
  credentialsToHeader(url)

  for (let hop = 0; ; hop++) {
    const run = async (): Promise<{ answer: HopAnswer; pinned: ResolvedAddress }> => {
      // The resolver takes no signal: the deadline races it.
      const pinned = await Promise.race([
        checkedAddress(url, policy),
        new Promise<never>((_, reject) => {
          if (signal.aborted) reject(signal.reason)
          signal.addEventListener("abort", () => reject(signal.reason), { once: true })
        }),
      ])
      const answer = await oneHop(url, pinned, method, headers, body, signal, maxBytes, true)
      return { answer, pinned }
    }
    let result: { answer: HopAnswer; pinned: ResolvedAddress }
    try {
      result = await run()
    } catch (error) {
      if (error instanceof OutboundRequestFailed) throw error
      if (deadline.aborted) throw fail("timeout", url, `${displayUrl(url)} did not answer within ${Math.round(timeoutMs / 100) / 10} s`)
      if (options.signal?.aborted === true) throw fail("aborted", url, `the request to ${displayUrl(url)} was canceled`)
      throw fail("network", url, describeNetworkError(url, error))
    }
    const { answer, pinned } = result
    const location = answer.headers["location"]
    if (!REDIRECTS.has(answer.status) || location === undefined || maxRedirects === 0) {
      return {
        status: answer.status,
        headers: answer.headers,
        body: answer.body,
        text: () => new TextDecoder().decode(answer.body),
        url: displayUrl(url),
        redirects,
        address: pinned.address,
      }
    }
    if (hop >= maxRedirects) {
      throw fail("too_many_redirects", url, `${redirects[0] ?? displayUrl(url)} redirected more than ${maxRedirects} times`)
    }
    let next: URL
    try {
      next = parseTargetUrl(new URL(location, url).href)
    } catch (error) {
      if (error instanceof OutboundRequestFailed) {
        throw fail("invalid_url", url, `${displayUrl(url)} redirected to an unusable location: ${error.message}`)
      }
      throw error
    }
    if (next.origin !== url.origin) {
      delete headers["authorization"]
      delete headers["cookie"]
    }
    if (answer.status === 303 || ((answer.status === 301 || answer.status === 302) && method === "POST")) {
      if (method !== "HEAD") method = "GET"
      body = undefined
      const { "content-type": _contentType, ...rest } = headers
      headers = rest
    }
    credentialsToHeader(next)
    redirects.push(displayUrl(next))
    url = next
  }
}

/** `safeFetch` as an Effect (interrupting it aborts the request). */
export const safeFetchEffect = (target: string | URL, options: SafeFetchOptions = {}): Effect.Effect<SafeResponse, OutboundRequestFailed> =>
  Effect.tryPromise({
    try: (signal) => safeFetch(target, { ...options, signal: options.signal === undefined ? signal : AbortSignal.any([signal, options.signal]) }),
    catch: (error) => error instanceof OutboundRequestFailed ? error : fail("network", String(target), String(error)),
  })

/**
 * Checks a target URL before it is saved (scheme, host resolution, address rule) without calling it. Resolves with
 * the addresses checked; rejects with `OutboundRequestFailed` like `safeFetch`. A URL that passes may still be refused
 * at delivery time (its DNS may change), where every hop is checked again.
 */
export const checkTargetUrl = async (target: string, options: Pick<SafeFetchOptions, "allowPrivateTargets" | "resolve" | "refuseAddress"> = {}): Promise<ResolvedAddress> => {
  const url = parseTargetUrl(target)
  return checkedAddress(url, {
    allowPrivate: options.allowPrivateTargets ?? allowPrivateTargetsFromEnv(),
    resolve: options.resolve ?? systemResolver,
    refuse: options.refuseAddress ?? refusalFor,
  })
}
