/**
 * Which members of an organisation are scanned (issue 31, `MemberSelection` in src/contracts/organizations.ts), as pure
 * rules over its units tree, and the organisation page's checkbox toggles expressed as edits of the selection.
 *
 * The rule (the contract's "empty include lists mean every unit / every account; excludes win over includes"):
 * a member is selected when neither it nor any unit above it is excluded, and either both include lists are empty, or
 * it is listed in `include_accounts`, or a unit above it (or its own) is in `include_units`. A unit is selected on
 * the same terms (without the account lists). Only active members are scanned whatever the selection says; the
 * server's `included` flag is the saved truth, these rules preview an edit before it is saved.
 *
 * Invariants (tests/machines/organization.machine.test.ts): toggling a unit or member that can be toggled flips its
 * selection and never changes a sibling's; toggling twice gives back the same selection as far as every unit and member
 * are concerned.
 */
import type { MemberSelection, OrganizationMember, OrganizationUnit } from "../contracts/organizations.ts"

type Units = ReadonlyArray<Pick<OrganizationUnit, "unit_id" | "parent_unit_id">>

/** The unit and every unit above it (nearest first); cycles and unknown parents end the walk. */
export const unitChain = (units: Units, unitId: string): ReadonlyArray<string> => {
  const byId = new Map(units.map((u) => [u.unit_id, u]))
  const chain: string[] = []
  let current: string | null = unitId
  while (current !== null && !chain.includes(current)) {
    chain.push(current)
    current = byId.get(current)?.parent_unit_id ?? null
  }
  return chain
}

const restricts = (s: MemberSelection): boolean => s.include_units.length > 0 || s.include_accounts.length > 0

/** An excluded unit at or above this one: nothing below it can be selected (excludes win). */
export const isUnitBlocked = (s: MemberSelection, units: Units, unitId: string): boolean =>
  unitChain(units, unitId).some((id) => s.exclude_units.includes(id))

export const isUnitSelected = (s: MemberSelection, units: Units, unitId: string): boolean => {
  const chain = unitChain(units, unitId)
  if (chain.some((id) => s.exclude_units.includes(id))) return false
  return !restricts(s) || chain.some((id) => s.include_units.includes(id))
}

type Member = Pick<OrganizationMember, "cloud_account_id" | "unit_id">

export const isMemberSelected = (s: MemberSelection, units: Units, m: Member): boolean => {
  if (s.exclude_accounts.includes(m.cloud_account_id) || isUnitBlocked(s, units, m.unit_id)) return false
  return !restricts(s) || s.include_accounts.includes(m.cloud_account_id) || unitChain(units, m.unit_id).some((id) => s.include_units.includes(id))
}

const without = (list: ReadonlyArray<string>, id: string): ReadonlyArray<string> => list.filter((x) => x !== id)
const withId = (list: ReadonlyArray<string>, id: string): ReadonlyArray<string> => (list.includes(id) ? list : [...list, id])

/** A unit can be toggled unless a unit above it is excluded (it would stay out whatever it says). */
export const canToggleUnit = (s: MemberSelection, units: Units, unitId: string): boolean =>
  !unitChain(units, unitId).slice(1).some((id) => s.exclude_units.includes(id))

/** A member can be toggled unless its unit (or one above) is excluded. */
export const canToggleMember = (s: MemberSelection, units: Units, m: Member): boolean => !isUnitBlocked(s, units, m.unit_id)

/**
 * The selection with the unit flipped. Deselecting excludes it (includes are kept: excludes win, and dropping the last
 * include would select everything else); selecting drops its exclude, then includes it if the include lists still
 * leave it out (they already restrict, so nothing else changes).
 */
export const toggleUnit = (s: MemberSelection, units: Units, unitId: string): MemberSelection => {
  if (!canToggleUnit(s, units, unitId)) return s
  if (isUnitSelected(s, units, unitId)) return { ...s, exclude_units: withId(s.exclude_units, unitId) }
  const next = { ...s, exclude_units: without(s.exclude_units, unitId) }
  return isUnitSelected(next, units, unitId) ? next : { ...next, include_units: withId(next.include_units, unitId) }
}

/** The selection with the member flipped, the same way through the account lists. */
export const toggleMember = (s: MemberSelection, units: Units, m: Member): MemberSelection => {
  if (!canToggleMember(s, units, m)) return s
  const id = m.cloud_account_id
  if (isMemberSelected(s, units, m)) return { ...s, exclude_accounts: withId(s.exclude_accounts, id) }
  const next = { ...s, exclude_accounts: without(s.exclude_accounts, id) }
  return isMemberSelected(next, units, m) ? next : { ...next, include_accounts: withId(next.include_accounts, id) }
}
