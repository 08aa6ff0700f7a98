/**
 * Account groups (beyond the spec, issue 31 item 5; docs/permissions.md "Account groups"): named sets of a workspace's
 * accounts that a custom role can be limited to, so a member holding it sees and acts only on those accounts.
 * Shapes shared by the server (server/api/account-groups.ts) and the SPA; messages are the texts both show.
 *
 * A group is one of three kinds:
 * - `unit`: an organisation's unit and every unit below it (`organization_id`, `unit_id`): follows accounts as the
 *   organisation's syncs move them between units;
 * - `tag`: the accounts carrying the tag `tag_key` (with the value `tag_value`; null: any value);
 * - `manual`: the accounts listed in `account_ids`.
 * Whatever the kind, `matched_account_ids` lists the accounts the group holds now.
 */
import { Schema } from "effect"
import { AccountId, RoleId, idParam } from "./ids.ts"
import { OkMessage, Timestamp, withData } from "./common.ts"
import { requiredString } from "./validation.ts"

export const AccountGroupId = Schema.Int.check(Schema.isGreaterThan(0)).pipe(Schema.brand("AccountGroupId"))
export type AccountGroupId = typeof AccountGroupId.Type

export const AccountGroupMessages = {
  nameRequired: "Please enter a group name",
  nameTooLong: "Group names are at most 100 characters",
  nameExists: "A group with this name already exists",
  unitRequired: "Please choose an organisation unit",
  unitNotFound: "That organisation unit does not exist",
  tagKeyRequired: "Please enter a tag key",
  accountNotFound: "One of the chosen accounts does not exist",
  groupNotFound: "Account group not found",
  groupInUse: "This group limits a role; remove it from the role first",
  groupCreated: "Account group created",
  groupUpdated: "Account group updated",
  groupDeleted: "Account group deleted",
  adminOnly: "Only workspace admins with access to every account can manage account groups",
  limitedCannotAddAccounts: "Your role is limited to account groups: ask a workspace admin to add accounts",
  limitedCannotManageOrganization:
    "Your role is limited to account groups: ask a workspace admin to sync the organization or change its selection",
  limitedCannotScanFleet:
    "Your role is limited to account groups: a fleet scan covers the whole organization. Scan your accounts one by one, or ask a workspace admin",
  /** The organisation page of a limited member (docs/organizations.md "Access by group"). */
  limitedOrganizationView:
    "Your role is limited to account groups: you see your own accounts of this organization, and the units they sit in",
  cannotGrantWiderAccess: "You cannot grant access to accounts outside your own account groups",
} as const

export const AccountGroupKind = Schema.Literals(["unit", "tag", "manual"])
export type AccountGroupKind = typeof AccountGroupKind.Type

/** What defines a group (create and update). Fields of other kinds must be absent or null. */
export const AccountGroupPayload = Schema.Struct({
  name: requiredString(AccountGroupMessages.nameRequired).check(Schema.isMaxLength(100, { message: AccountGroupMessages.nameTooLong })),
  kind: AccountGroupKind,
  organization_id: Schema.optionalKey(Schema.NullOr(AccountId)),
  unit_id: Schema.optionalKey(Schema.NullOr(Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(256)))),
  tag_key: Schema.optionalKey(Schema.NullOr(Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(128)))),
  tag_value: Schema.optionalKey(Schema.NullOr(Schema.String.check(Schema.isMaxLength(256)))),
  account_ids: Schema.optionalKey(Schema.Array(AccountId).check(Schema.isMaxLength(10_000))),
})
export type AccountGroupPayload = typeof AccountGroupPayload.Type

export const AccountGroup = Schema.Struct({
  id: AccountGroupId,
  name: Schema.String,
  kind: AccountGroupKind,
  organization_id: Schema.NullOr(AccountId),
  unit_id: Schema.NullOr(Schema.String),
  /** The unit's path as the organisation's last sync saw it ("Root / Prod / Web"); null when not a unit group or unknown. */
  unit_path: Schema.NullOr(Schema.String),
  tag_key: Schema.NullOr(Schema.String),
  tag_value: Schema.NullOr(Schema.String),
  /** The hand-picked accounts (manual groups; empty otherwise). */
  account_ids: Schema.Array(AccountId),
  /** The accounts the group holds now, whatever its kind. */
  matched_account_ids: Schema.Array(AccountId),
  /** The custom roles limited to this group. */
  role_ids: Schema.Array(RoleId),
  created_at: Timestamp,
  updated_at: Timestamp,
})
export type AccountGroup = typeof AccountGroup.Type

export const AccountGroupsResponse = withData(Schema.Array(AccountGroup))
export type AccountGroupsResponse = typeof AccountGroupsResponse.Type

export const AccountGroupResponse = Schema.Struct({ ok: Schema.Boolean, message: Schema.String, data: AccountGroup })
export type AccountGroupResponse = typeof AccountGroupResponse.Type

export const AccountGroupDeleteResponse = OkMessage

export const AccountGroupIdParams = Schema.Struct({ id: idParam(AccountGroupId) })

/**
 * The account groups a custom role is limited to, in role payloads and answers: null (or absent when creating): every
 * account; a list: the accounts of those groups only (an empty list: no account). Absent when updating: unchanged.
 */
export const RoleAccountGroups = Schema.NullOr(Schema.Array(AccountGroupId).check(Schema.isMaxLength(100)))
