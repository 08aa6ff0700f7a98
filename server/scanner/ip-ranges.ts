/**
 * What a list of IP ranges admits (provider-neutral: GCP firewall source ranges, Cloud SQL and GKE authorised
 * networks, …). A restriction is judged by what it lets in, not by whether it is set: "0.0.0.0/0", but also
 * "0.0.0.0/1" + "128.0.0.0/1", or a handful of huge ranges, admit the internet.
 *
 * Rules:
 *  - the ranges admit the internet when, together with the special-use blocks (RFC 6890: private, loopback,
 *    link-local, CGNAT, multicast, reserved), they cover every IPv4 address, or cover the whole IPv6 global unicast
 *    block 2000::/3;
 *  - a single public range wider than an IPv4 /8 or an IPv6 /12 (a regional registry's block) is "broad": it spans
 *    many unrelated networks and is reported as admitting the internet too.
 */

export interface IpRange {
  readonly family: 4 | 6
  readonly start: bigint
  readonly end: bigint
  readonly prefix: number
  readonly text: string
}

const V4_BITS = 32
const V6_BITS = 128

function parseV4(s: string): bigint | undefined {
  const parts = s.split(".")
  if (parts.length !== 4) return undefined
  let n = 0n
  for (const p of parts) {
    if (!/^\d{1,3}$/.test(p)) return undefined
    const v = Number(p)
    if (v > 255) return undefined
    n = (n << 8n) | BigInt(v)
  }
  return n
}

function parseV6(s: string): bigint | undefined {
  if (!/^[0-9a-fA-F:.]+$/.test(s)) return undefined
  const halves = s.split("::")
  if (halves.length > 2) return undefined
  const groups = (h: string): number[] | undefined => {
    if (h === "") return []
    const out: number[] = []
    for (const g of h.split(":")) {
      if (g.includes(".")) {
        const v4 = parseV4(g)
        if (v4 === undefined) return undefined
        out.push(Number(v4 >> 16n), Number(v4 & 0xffffn))
      } else {
        if (!/^[0-9a-fA-F]{1,4}$/.test(g)) return undefined
        out.push(parseInt(g, 16))
      }
    }
    return out
  }
  const head = groups(halves[0] ?? "")
  const tail = halves.length === 2 ? groups(halves[1] ?? "") : []
  if (head === undefined || tail === undefined) return undefined
  const fill = 8 - head.length - tail.length
  if ((halves.length === 1 && fill !== 0) || fill < 0) return undefined
  const all = [...head, ...Array<number>(halves.length === 2 ? fill : 0).fill(0), ...tail]
  return all.reduce((n, g) => (n << 16n) | BigInt(g), 0n)
}

/** "10.0.0.0/8", "1.2.3.4" (a single address), "2001:db8::/32"; undefined when the text is not a range. */
export function parseRange(text: string): IpRange | undefined {
  const t = text.trim()
  const [addr, len, extra] = t.split("/")
  if (addr === undefined || extra !== undefined) return undefined
  const family = addr.includes(":") ? 6 : 4
  const bits = family === 4 ? V4_BITS : V6_BITS
  const value = family === 4 ? parseV4(addr) : parseV6(addr)
  if (value === undefined) return undefined
  const prefix = len === undefined ? bits : /^\d{1,3}$/.test(len) ? Number(len) : NaN
  if (!Number.isInteger(prefix) || prefix < 0 || prefix > bits) return undefined
  const hostBits = BigInt(bits - prefix)
  const start = (value >> hostBits) << hostBits
  return { family, start, end: start + (1n << hostBits) - 1n, prefix, text: t }
}

/** RFC 6890 special-use IPv4 blocks: addresses the internet cannot reach a service from. */
const SPECIAL_V4 = ["0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16", "172.16.0.0/12", "192.0.0.0/24", "192.0.2.0/24", "192.168.0.0/16", "198.18.0.0/15", "198.51.100.0/24", "203.0.113.0/24", "224.0.0.0/3"]
  .map((r) => parseRange(r))
  .filter((r): r is IpRange => r !== undefined)

const GLOBAL_UNICAST_V6 = parseRange("2000::/3") as IpRange

/** Whether the union of the ranges covers [start, end]. */
function covers(ranges: ReadonlyArray<IpRange>, start: bigint, end: bigint): boolean {
  const sorted = [...ranges].sort((a, b) => (a.start < b.start ? -1 : a.start > b.start ? 1 : 0))
  let next = start
  for (const r of sorted) {
    if (r.end < next) continue
    if (r.start > next) return false
    next = r.end + 1n
    if (next > end) return true
  }
  return next > end
}

const isSpecialV4 = (r: IpRange) => SPECIAL_V4.some((s) => r.start >= s.start && r.end <= s.end)

/** Whether a range holds an address the internet can reach: any IPv6 range, or IPv4 outside the special-use blocks. */
export const isPublicRange = (r: IpRange): boolean => r.family === 6 || !isSpecialV4(r)

export interface Admission {
  /** The ranges admit every public address (of either family). */
  readonly internet: boolean
  /** Public ranges wider than a /8 (IPv4) or /12 (IPv6). */
  readonly broad: ReadonlyArray<string>
  /** Entries that are not IP ranges (reported, never guessed). */
  readonly invalid: ReadonlyArray<string>
}

export function admission(texts: ReadonlyArray<string>): Admission {
  const ranges: IpRange[] = []
  const invalid: string[] = []
  for (const t of texts) {
    const r = parseRange(t)
    if (r === undefined) invalid.push(t)
    else ranges.push(r)
  }
  const v4 = ranges.filter((r) => r.family === 4)
  const v6 = ranges.filter((r) => r.family === 6)
  const internet = (v4.length > 0 && covers([...v4, ...SPECIAL_V4], 0n, (1n << 32n) - 1n)) || (v6.length > 0 && covers(v6, GLOBAL_UNICAST_V6.start, GLOBAL_UNICAST_V6.end))
  const broad = ranges.filter((r) => (r.family === 4 ? r.prefix < 8 && !isSpecialV4(r) : r.prefix < 12 && r.end >= GLOBAL_UNICAST_V6.start && r.start <= GLOBAL_UNICAST_V6.end)).map((r) => r.text)
  return { internet, broad, invalid }
}

/** Whether the ranges let the internet in: all of it, or a range too broad to be a restriction. */
export function admitsInternet(texts: ReadonlyArray<string> | undefined): boolean {
  if (texts === undefined || texts.length === 0) return false
  const a = admission(texts)
  return a.internet || a.broad.length > 0
}

/** The entries responsible for admitting the internet (for a row's reason). */
export function internetRanges(texts: ReadonlyArray<string> | undefined): string[] {
  if (texts === undefined) return []
  const a = admission(texts)
  if (a.broad.length > 0) return [...a.broad]
  if (!a.internet) return []
  return texts.filter((t) => {
    const r = parseRange(t)
    return r !== undefined && isPublicRange(r)
  })
}
