/**
 * Azure address lists judged by what they admit (issue 29), on top of the provider-neutral server/scanner/ip-ranges.ts:
 * NSG sources and destinations mix CIDRs with service tags ("*", "Any" and "Internet" admit the internet; other tags
 * such as VirtualNetwork or AzureLoadBalancer do not); SQL, PostgreSQL and MySQL firewall rules are start–end ranges
 * (0.0.0.0–255.255.255.255 admits the internet; 0.0.0.0–0.0.0.0 is the "Allow Azure services" rule); storage, Key
 * Vault and Cosmos DB IP rules and AKS authorized ranges are CIDRs or single addresses.
 */
import { admitsInternet, isPublicRange, parseRange } from "../ip-ranges.ts"

/** Service tags that stand for every address. */
const EVERY_ADDRESS = new Set(["*", "any", "internet"])

/** An IPv4 start–end range as the CIDR blocks that tile it ("0.0.0.0-255.255.255.255" → ["0.0.0.0/0"]). */
export function rangeToCidrs(start: string, end: string): string[] | undefined {
  const a = parseRange(start)
  const b = parseRange(end)
  if (a === undefined || b === undefined || a.family !== 4 || b.family !== 4 || a.prefix !== 32 || b.prefix !== 32 || a.start > b.start) return undefined
  const out: string[] = []
  let next = a.start
  while (next <= b.start) {
    let size = 0n
    while (size < 32n && next % (1n << (size + 1n)) === 0n && next + (1n << (size + 1n)) - 1n <= b.start) size += 1n
    out.push(`${[24n, 16n, 8n, 0n].map((s) => Number((next >> s) & 255n)).join(".")}/${32n - size}`)
    next += 1n << size
  }
  return out
}

/** One address entry as CIDR texts: a service tag for every address, a CIDR, a single address or an "a-b" range. */
export function entryCidrs(entry: string): string[] {
  const t = entry.trim()
  if (EVERY_ADDRESS.has(t.toLowerCase())) return ["0.0.0.0/0", "::/0"]
  const dash = /^([0-9.]+)\s*-\s*([0-9.]+)$/.exec(t)
  if (dash !== null) return rangeToCidrs(dash[1]!, dash[2]!) ?? []
  return parseRange(t) === undefined ? [] : [t]
}

/** Whether the entries together admit the internet (see ip-ranges.ts: all public addresses, or a range broader than a /8). */
export function entriesAdmitInternet(entries: ReadonlyArray<string>): boolean {
  return admitsInternet(entries.flatMap(entryCidrs))
}

/**
 * The entries that let the internet in: each one that does on its own, or, when only their union does
 * ("0.0.0.0/1" + "128.0.0.0/1"), every entry with a public address. Empty when the internet is kept out.
 */
export function internetEntries<T>(items: ReadonlyArray<T>, entry: (item: T) => string | undefined): T[] {
  const texts = items.map((i) => entry(i) ?? "")
  const alone = items.filter((_, i) => entriesAdmitInternet([texts[i]!]))
  if (alone.length > 0) return alone
  if (!entriesAdmitInternet(texts)) return []
  return items.filter((_, i) => entryCidrs(texts[i]!).some(isPublic))
}

/** Whether a CIDR holds an address outside the special-use blocks (ip-ranges.ts). */
function isPublic(cidr: string): boolean {
  const r = parseRange(cidr)
  return r !== undefined && isPublicRange(r)
}
