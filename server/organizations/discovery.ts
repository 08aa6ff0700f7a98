/**
 * What discovering an organisation answers, whatever the provider (issue 31): its units (AWS organisational units under
 * the root, GCP folders under the organisation or folder, Azure management groups under the chosen one) and its member
 * accounts (AWS accounts, GCP projects, Azure subscriptions), each in exactly one unit.
 *
 * Providers: ./aws-discovery.ts (Organizations ListRoots / ListOrganizationalUnitsForParent / ListAccountsForParent),
 * ./gcp-discovery.ts (Resource Manager v3 folders and projects), ./azure-discovery.ts (management group descendants).
 */
import { Data } from "effect"

export type UnitKind = "root" | "organizational_unit" | "organization" | "folder" | "management_group"

export interface DiscoveredUnit {
  /** The provider's id: "r-ab12", "ou-ab12-34cd5678", "organizations/123", "folders/456", a management group name. */
  readonly id: string
  /** null for the top unit the discovery started from. */
  readonly parentId: string | null
  readonly name: string
  readonly kind: UnitKind
}

/** A member's lifecycle as the provider reports it: only `active` members are scanned. */
export type MemberCloudState = "active" | "suspended" | "closed"

export interface DiscoveredMember {
  /** AWS 12-digit account id, GCP project id, Azure subscription id (the account's `cloud_account_id`). */
  readonly cloudAccountId: string
  readonly name: string
  /** The unit (one of `units`) the member sits directly in. */
  readonly unitId: string
  readonly state: MemberCloudState
  /** The provider's own state word (AWS "ACTIVE" / "SUSPENDED" / "PENDING_CLOSURE", GCP "DELETE_REQUESTED", Azure "Disabled"). */
  readonly cloudState: string
  /** AWS account tags, GCP project labels, Azure subscription tags (empty when the provider has none). */
  readonly tags: Readonly<Record<string, string>>
}

export interface OrganizationDiscovery {
  /** The unit the discovery started from (AWS root, GCP organisation or folder, Azure management group). */
  readonly rootId: string
  readonly rootName: string
  readonly units: ReadonlyArray<DiscoveredUnit>
  readonly members: ReadonlyArray<DiscoveredMember>
}

export class DiscoveryFailed extends Data.TaggedError("DiscoveryFailed")<{
  readonly reason: "invalid_credentials" | "access_denied" | "not_found" | "invalid_input" | "unreachable"
  readonly message: string
}> {}

/** Each unit's path of names from the top ("Root / Production / Web"), for display, filters and groups. */
export const unitPaths = (units: ReadonlyArray<DiscoveredUnit>): ReadonlyMap<string, string> => {
  const byId = new Map(units.map((u) => [u.id, u]))
  const out = new Map<string, string>()
  const pathOf = (id: string, seen: Set<string>): string => {
    const known = out.get(id)
    if (known !== undefined) return known
    const unit = byId.get(id)
    if (unit === undefined || seen.has(id)) return ""
    seen.add(id)
    const parent = unit.parentId === null ? "" : pathOf(unit.parentId, seen)
    const path = parent === "" ? unit.name : `${parent} / ${unit.name}`
    out.set(id, path)
    return path
  }
  for (const u of units) pathOf(u.id, new Set())
  return out
}
