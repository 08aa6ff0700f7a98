/**
 * What the Account groups page's machine and the team page's custom-role editor need from the outside world (beyond the spec, issue 31 item 5: GET, POST,
 * PUT, DELETE /api/account-groups, and the organisations' units and the workspace's accounts to choose from), as
 * types. Nothing here performs an effect: the real `AccountGroupsEffects` are built from the SPA services by
 * `accountGroupsEffectsFrom(services)` (src/services/account-groups-api.ts) and reach the view through
 * `<AccountGroupsEffectsProvider>` (src/views/account-groups/account-groups-effects-context.tsx); tests hand fakes to
 * `machine.provide()`.
 *
 * Failures reject with a catalogue error value `{ type, message, status?, data? }`: the server's message for a 4xx
 * (403 `AccountGroupMessages.adminOnly`, 409 `nameExists` or `groupInUse`, 404 `unitNotFound`, `accountNotFound` or
 * `groupNotFound`), with a 400's field errors in `data.errors`.
 */
import type { AccountGroup, AccountGroupId, AccountGroupPayload } from "../contracts/account-groups.ts"
import type { AccountId, RoleId } from "../contracts/ids.ts"
import type { CustomRolePayload } from "../contracts/team.ts"
import type { RoleWithPermissions } from "../contracts/workspaces.ts"
import type { EffectCall } from "./auth-effects.ts"

/** An organisation unit a `unit` group can name (the organisation's id here, the unit's id and path). */
export interface UnitChoice {
  readonly organizationId: AccountId
  readonly organizationName: string
  readonly unitId: string
  readonly path: string
}

/** An account a `manual` group can list. */
export interface AccountChoice {
  readonly id: AccountId
  readonly name: string
  /** The cloud-side id (AWS account, GCP project, Azure subscription); null when unknown. */
  readonly cloudId: string | null
  readonly provider: string
}

export interface AccountGroupChoices {
  readonly units: ReadonlyArray<UnitChoice>
  readonly accounts: ReadonlyArray<AccountChoice>
}

export interface AccountGroupsLoaded {
  readonly groups: ReadonlyArray<AccountGroup>
  readonly choices: AccountGroupChoices
}

export interface AccountGroupSaved {
  readonly message: string
  readonly group: AccountGroup
}

/** The workspace's custom roles and the groups they can be limited to (null: the user may not manage groups). */
export interface CustomRolesLoaded {
  readonly roles: ReadonlyArray<RoleWithPermissions>
  readonly groups: ReadonlyArray<Pick<AccountGroup, "id" | "name">> | null
}

export interface CustomRoleSaved {
  readonly message: string
  readonly role: RoleWithPermissions
}

export interface AccountGroupsEffects {
  /** GET /api/account-groups, with the units of every organisation and the workspace's accounts to choose from. */
  readonly loadAccountGroups: EffectCall<void, AccountGroupsLoaded>
  /** POST /api/account-groups (id null) or PUT /api/account-groups/{id}. */
  readonly saveAccountGroup: EffectCall<{ readonly id: AccountGroupId | null; readonly payload: AccountGroupPayload }, AccountGroupSaved>
  /** DELETE /api/account-groups/{id}: the server's message. */
  readonly deleteAccountGroup: EffectCall<{ readonly id: AccountGroupId }, { readonly message: string }>
  /** The team page's custom roles (GET /api/roles) with the account groups (GET /api/account-groups; a 403 → null). */
  readonly loadCustomRoles: EffectCall<void, CustomRolesLoaded>
  /** POST /api/roles/custom (id null) or PUT /api/roles/custom/{id}. */
  readonly saveCustomRole: EffectCall<{ readonly id: RoleId | null; readonly payload: CustomRolePayload }, CustomRoleSaved>
  /** DELETE /api/roles/custom/{id}: the server's message. */
  readonly deleteCustomRole: EffectCall<{ readonly id: RoleId }, { readonly message: string }>
}

/** Where the page lives (a workspace admin's settings page, linked from the user menu next to Storage). */
export const ACCOUNT_GROUPS_PATH = "/dashboard/settings/account-groups"
