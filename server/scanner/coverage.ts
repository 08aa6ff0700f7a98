/**
 * Coverage maps (issues 16 and 18): each check id of the field's two best-known open-source scanners (Prowler check ids,
 * CloudSploit plugin names) in the services we scan, mapped to the check of ours that makes the same decision, or to the
 * reason we do not make it. The peer ids and severities are facts kept in each provider's `coverage.ts`; the mapping and
 * the reasons are ours. `renderCoverage` writes `server/scanner/<provider>/COVERAGE.md`, which
 * tests/scanner/coverage-doc.test.ts keeps in sync (UPDATE_CHECK_DOCS=1 rewrites it).
 *
 * Resolution of one peer id, first match wins: an explicit mapping to our check; an id equal to one of ours; an explicit
 * reason; the first reason rule whose pattern matches the id; otherwise "not covered yet".
 */

export type Peer = "prowler" | "cloudsploit"

export interface PeerCheck {
  readonly peer: Peer
  /** Our service id the peer's service or folder corresponds to. */
  readonly service: string
  readonly id: string
  readonly severity: string
}

export interface Reason {
  readonly code: string
  readonly text: string
  /** Peer ids this reason applies to unless mapped or given an explicit reason. */
  readonly match?: RegExp
}

export interface CoverageMap {
  readonly provider: string
  /** Lines of `peer service id severity`, separated by blanks. */
  readonly peers: string
  /** Peer id → our check id (when the ids differ). */
  readonly coveredBy: Readonly<Record<string, string>>
  /** Peer id → reason code. */
  readonly whyNot: Readonly<Record<string, string>>
  readonly reasons: ReadonlyArray<Reason>
}

export const GAP: Reason = { code: "gap", text: "Not covered yet." }

/**
 * Reasons that hold for every provider, tried in order on the ids no mapping answers. The patterns follow the peers'
 * naming (Prowler snake_case, CloudSploit camelCase).
 */
export const COMMON_REASONS: ReadonlyArray<Reason> = [
  {
    code: "tags",
    text: "Tagging and naming conventions: an organisation's choice, not a security decision.",
    match: /HasTags|HaveTags|_tags?$|TagPropagation|NamingConvention|NameRegex|DnsCompliantName|LabelsAdded/,
  },
  {
    code: "data",
    text: "Needs data the scan does not read: event history, another service's findings, code or image contents, metrics or third-party lookups.",
    match: /threat_detection|findings|Findings|Vulnerabilit|vulnerabilit|shodan|PrivilegeAnalysis|NetworkExposure|secrets_in_code|secrets_in_content|image_no_secrets|no_secrets_in_logs|Unprocessed|DeliveryFailing|FailedStatus|Unhealthy|TunnelState|tunnels_up|ClusterStatus|Restorable|driftDetection|canaryKeysUsed|LastUsed|_stale_|utilized|Utilized|monitoringMetrics|Duplicated/,
  },
  {
    code: "central",
    text: "Organisation-level (delegated administrator) setting, read from the management account: a member account's scan cannot see it.",
    match: /delegated_admin|centrally_managed|org_aggregator|guarddutyMaster/,
  },
  {
    code: "org",
    text: "Depends on lists only the organisation knows (approved images, application tiers, allowed sources, IP allow-lists).",
    match: /appTier|webTier|Approved|ValidSourceProviders|allowed_github|trust_boundaries|iamMasterManagerRoles|UnauthorizedToEdit|kmsAppTierCmk|RequireIAMAuth|AccessFromIps|SingleDomainName|crossVpcPublicPrivate|different_regions/,
  },
  {
    code: "usage",
    text: "Operations, inventory or cost hygiene (in use, idle, counts, limits, instance types, housekeeping): not a security decision.",
    match: /unused|Unused|idle|Idle|not_used|NotInUse|InUse|inUse|_are_used|Limit|MaxCount|reserved|Reserved|Desired|NodesCount|InstanceCount|Generation|older_than|oldAmi|OldSnapshots|RecentSnapshots|outdatedAmi|emptyASG|emptyGroups|NoInstances|Present|present|Cooldown|compress|SuspendedProcesses|MinimumTarget|DeregistrationDelay|Lifecycle|capacity_rebalance|multiple_instance_types|single_eni|IpAvailability|ResponseCaching|ContentEncoding|detailedCloudWatchMetrics|WithoutPermissions|Active|sameAzElb|MachineTypes|sku_size|SkuSize|_not_empty/,
  },
]

export const parsePeers = (text: string): ReadonlyArray<PeerCheck> =>
  text
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "")
    .map((l) => {
      const [peer, service, id, severity] = l.split(/\s+/)
      if (peer !== "prowler" && peer !== "cloudsploit") throw new Error(`Unknown peer in coverage line: ${l}`)
      return { peer, service: service!, id: id!, severity: severity ?? "" }
    })

export type Resolution = { readonly kind: "covered"; readonly check: string } | { readonly kind: "not"; readonly reason: Reason }

/** How one peer id is answered (see the module comment); throws on a mapping to a check that does not exist. */
export const resolve = (map: CoverageMap, ours: ReadonlySet<string>, id: string): Resolution => {
  const mapped = map.coveredBy[id]
  if (mapped !== undefined) {
    if (!ours.has(mapped)) throw new Error(`${map.provider} coverage maps ${id} to unknown check ${mapped}`)
    return { kind: "covered", check: mapped }
  }
  if (ours.has(id)) return { kind: "covered", check: id }
  const code = map.whyNot[id]
  if (code !== undefined) {
    const reason = map.reasons.find((r) => r.code === code)
    if (reason === undefined) throw new Error(`${map.provider} coverage: unknown reason ${code} for ${id}`)
    return { kind: "not", reason }
  }
  return { kind: "not", reason: map.reasons.find((r) => r.match?.test(id) === true) ?? GAP }
}

const PEER_NAMES: Readonly<Record<Peer, string>> = { prowler: "Prowler", cloudsploit: "CloudSploit" }

/** COVERAGE.md: a summary, then one table per service (services in our catalogue order). */
export const renderCoverage = (
  map: CoverageMap,
  title: string,
  intro: string,
  services: ReadonlyArray<{ readonly id: string; readonly name: string }>,
  checkIds: ReadonlyArray<string>,
): string => {
  const ours = new Set(checkIds)
  const peers = parsePeers(map.peers)
  const known = new Set(services.map((s) => s.id))
  const stray = peers.filter((p) => !known.has(p.service))
  if (stray.length > 0) throw new Error(`${map.provider} coverage lists services we do not scan: ${[...new Set(stray.map((p) => p.service))].join(", ")}`)
  const resolved = peers.map((p) => ({ p, r: resolve(map, ours, p.id) }))
  const covered = resolved.filter((x) => x.r.kind === "covered")
  const usedChecks = new Set(covered.map((x) => (x.r as { check: string }).check))
  const byReason = new Map<string, number>()
  for (const x of resolved) if (x.r.kind === "not") byReason.set(x.r.reason.code, (byReason.get(x.r.reason.code) ?? 0) + 1)
  const lines = [`# ${title}`, "", intro, ""]
  for (const peer of ["prowler", "cloudsploit"] as const) {
    const mine = resolved.filter((x) => x.p.peer === peer)
    lines.push(`- ${PEER_NAMES[peer]}: ${mine.length} ids in the services we scan, ${mine.filter((x) => x.r.kind === "covered").length} covered.`)
  }
  lines.push(`- ${usedChecks.size} of our ${ours.size} checks answer at least one peer id.`, "", "| Why not | Peer ids |", "|---|---|")
  for (const reason of [...map.reasons, GAP]) {
    const n = byReason.get(reason.code) ?? 0
    if (n > 0) lines.push(`| ${reason.text} | ${n} |`)
  }
  lines.push("")
  for (const s of services) {
    const list = resolved.filter((x) => x.p.service === s.id)
    if (list.length === 0) continue
    lines.push(`## ${s.name} (\`${s.id}\`)`, "", "| Peer | Peer id | Severity | Our check, or why not |", "|---|---|---|---|")
    for (const { p, r } of list) lines.push(`| ${PEER_NAMES[p.peer]} | \`${p.id}\` | ${p.severity} | ${r.kind === "covered" ? `\`${r.check}\`` : r.reason.text} |`)
    lines.push("")
  }
  return lines.join("\n")
}
