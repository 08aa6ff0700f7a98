/** Access §6 permissions and the built-in roles (docs/permissions.md). */
import { describe, expect, it } from "vitest"
import fc from "fast-check"
import {
  BUILT_IN_ROLES,
  PERMISSIONS,
  Permission,
  USER_MANAGEMENT_PERMISSIONS,
  hasAll,
  hasAny,
  hasPermission,
  hasRole,
  normalizePermission,
  unionPermissions,
  PERMISSION_IDS,
  type PermissionSubject,
} from "../../src/contracts/permissions.ts"

const subject = (permissions: ReadonlyArray<string>, opts: Partial<PermissionSubject> = {}): PermissionSubject => ({
  isOwner: false,
  roles: [],
  permissions,
  ...opts,
})
const permArb = fc.constantFrom(...PERMISSIONS)

describe("permission names", () => {
  it("are the spec's twelve, lower-case, with upper-case forms", () => {
    expect([...PERMISSIONS]).toEqual([
      "create_account", "create_user", "delete_user", "update_user_permissions", "assign_role_to_user", "revoke_role_from_user",
      "create_custom_role", "update_custom_role", "delete_custom_role", "scan_service", "remediate_findings", "read_only",
    ])
    expect(Permission.SCAN_SERVICE).toBe("scan_service")
    expect(Permission.READ_ONLY).toBe("read_only")
    expect(Object.keys(Permission)).toHaveLength(12)
    for (const p of PERMISSIONS) expect(normalizePermission(p.toUpperCase())).toBe(p)
    expect(normalizePermission("root")).toBeUndefined()
    expect(new Set(Object.values(PERMISSION_IDS)).size).toBe(12)
  })
  it("the eight user-management permissions run from create_user to delete_custom_role", () => {
    expect([...USER_MANAGEMENT_PERMISSIONS]).toEqual(PERMISSIONS.slice(1, 9))
  })
})

describe("checks", () => {
  it("one / all / any follow set semantics, in either case", () => {
    fc.assert(
      fc.property(fc.uniqueArray(permArb), fc.uniqueArray(permArb), fc.boolean(), (held, wanted, upper) => {
        const s = subject(upper ? held.map((p) => p.toUpperCase()) : held)
        for (const p of PERMISSIONS) expect(hasPermission(s, p)).toBe(held.includes(p))
        expect(hasAll(s, wanted)).toBe(wanted.every((p) => held.includes(p)))
        expect(hasAny(s, wanted)).toBe(wanted.some((p) => held.includes(p)))
        expect(hasAny(s, wanted.map((p) => p.toUpperCase()))).toBe(wanted.some((p) => held.includes(p)))
      }),
    )
  })
  it("the owner holds everything", () => {
    fc.assert(fc.property(fc.uniqueArray(permArb, { minLength: 1 }), (wanted) => void expect(hasAll(subject([], { isOwner: true }), wanted)).toBe(true)))
    expect(hasRole(subject([], { isOwner: true }), "Owner")).toBe(true)
  })
  it("unknown permission names are never held", () => {
    expect(hasPermission(subject(["root"]), "root")).toBe(false)
  })
  it("hasRole compares names case-insensitively", () => {
    expect(hasRole(subject([], { roles: ["Security Engineer"] }), "security engineer")).toBe(true)
    expect(hasRole(subject([], { roles: ["Auditor"] }), "Admin")).toBe(false)
  })
  it("permissions are the union over built-in and custom roles", () => {
    expect(unionPermissions([{ permissions: [{ name: "read_only" }] }, { permissions: [{ name: "SCAN_SERVICE" }, { name: "read_only" }] }])).toEqual([
      "scan_service",
      "read_only",
    ])
  })
})

describe("built-in roles", () => {
  it("Admin holds all 12; a scanning role and a read-only role exist; ids are fixed and distinct", () => {
    const byName = Object.fromEntries(BUILT_IN_ROLES.map((r) => [r.name, r]))
    expect([...byName["Admin"]!.permissions]).toEqual([...PERMISSIONS])
    expect(byName["Security Engineer"]!.permissions).toContain("scan_service")
    expect(byName["Security Engineer"]!.permissions).toContain("remediate_findings")
    expect([...byName["Auditor"]!.permissions]).toEqual(["read_only"])
    expect(BUILT_IN_ROLES.map((r) => r.id)).toEqual([1, 2, 3, 4])
    // Member Manager can open the Users page (any of the eight) and read everything.
    const mm = subject(byName["Member Manager"]!.permissions)
    expect(hasAll(mm, USER_MANAGEMENT_PERMISSIONS)).toBe(true)
    expect(hasPermission(mm, "scan_service")).toBe(false)
  })
})
