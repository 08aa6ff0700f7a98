/**
 * Which members of an organisation are scanned (issue 31, `MemberSelection` in src/contracts/organizations.ts), as pure
 * rules over its units tree, and the organisation page's checkbox toggles expressed as edits of the selection.
 *
 * The rule is the contract's `memberIncluded` (src/contracts/organizations.ts), imported, never restated: the server
 * applies it on every sync, so the page previews exactly what will be saved. An excluded account never is; an included
 * account always is (even under an excluded unit); else a member under an excluded unit is not; else every member is
 * when no unit is included, otherwise members under an included unit. A unit is selected when a member of it that no
 * account list names would be. Only active members are scanned whatever the selection says; the server's `included`
 * flag is the saved truth, these rules preview an edit before it is saved.
 *
 * Invariants (tests/machines/organization.machine.test.ts): the preview agrees with `memberIncluded` for every
 * selection; toggling a unit or member that can be toggled flips its selection and never changes a sibling's; toggling
 * twice gives back the same selection as far as every unit and member are concerned.
 */
import { EMPTY_SELECTION, memberIncluded, unitChainOf, type MemberSelection, type OrganizationMember, type OrganizationUnit } from "../contracts/organizations.ts"

type Units = ReadonlyArray<Pick<OrganizationUnit, "unit_id" | "parent_unit_id">>

/** The unit and every unit above it (nearest first): the contract's `unitChainOf`; cycles and unknown parents end the walk. */
export const unitChain = (units: Units, unitId: string): ReadonlyArray<string> =>
  unitChainOf(unitId, new Map(units.map((u) => [u.unit_id, u.parent_unit_id])))

/** A unit is selected when a member of it that neither account list names would be included (the contract's rule). */
export const isUnitSelected = (s: MemberSelection, units: Units, unitId: string): boolean =>
  memberIncluded("", unitChain(units, unitId), { ...EMPTY_SELECTION, include_units: s.include_units, exclude_units: s.exclude_units })

type Member = Pick<OrganizationMember, "cloud_account_id" | "unit_id">

export const isMemberSelected = (s: MemberSelection, units: Units, m: Member): boolean =>
  memberIncluded(m.cloud_account_id, unitChain(units, m.unit_id), s)

const without = (list: ReadonlyArray<string>, id: string): ReadonlyArray<string> => list.filter((x) => x !== id)
const withId = (list: ReadonlyArray<string>, id: string): ReadonlyArray<string> => (list.includes(id) ? list : [...list, id])

/** A unit can be toggled unless a unit above it is excluded (it would stay out whatever it says). */
export const canToggleUnit = (s: MemberSelection, units: Units, unitId: string): boolean =>
  !unitChain(units, unitId).slice(1).some((id) => s.exclude_units.includes(id))

/**
 * Every member can be toggled: an account listed in `include_accounts` is included even under an excluded unit (the
 * contract's rule), so checking a member under an excluded unit includes that member alone.
 */
export const canToggleMember = (_s: MemberSelection, _units: Units, _m: Member): boolean => true

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
