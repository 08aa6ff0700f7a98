/**
 * Branded identifiers shared by the SPA and the server.
 *
 * Every id in both specs is a positive integer on the wire (the access spec says `workspace_id` is a
 * number; the other ids follow the same convention). Brands stop a `ScanId` from being passed where a
 * `FindingId` is expected; on the wire they are plain JSON numbers, and in URL paths/queries the HttpApi
 * builder coerces them from their string form.
 */
import { Schema } from "effect"

const PositiveInt = Schema.Int.check(Schema.isGreaterThan(0))

export const WorkspaceId = PositiveInt.pipe(Schema.brand("WorkspaceId"))
export type WorkspaceId = typeof WorkspaceId.Type

export const UserId = PositiveInt.pipe(Schema.brand("UserId"))
export type UserId = typeof UserId.Type

/** Our id of a connected cloud account (not the provider-side account id, which is a string). */
export const AccountId = PositiveInt.pipe(Schema.brand("AccountId"))
export type AccountId = typeof AccountId.Type

export const CloudProviderId = PositiveInt.pipe(Schema.brand("CloudProviderId"))
export type CloudProviderId = typeof CloudProviderId.Type

export const ScanId = PositiveInt.pipe(Schema.brand("ScanId"))
export type ScanId = typeof ScanId.Type

/** Id of one service row of a scan (`services[].id`); `service_id` of that row is a `ServiceId`. */
export const ScanServiceId = PositiveInt.pipe(Schema.brand("ScanServiceId"))
export type ScanServiceId = typeof ScanServiceId.Type

export const ServiceId = PositiveInt.pipe(Schema.brand("ServiceId"))
export type ServiceId = typeof ServiceId.Type

export const FindingId = PositiveInt.pipe(Schema.brand("FindingId"))
export type FindingId = typeof FindingId.Type

export const InvitationId = PositiveInt.pipe(Schema.brand("InvitationId"))
export type InvitationId = typeof InvitationId.Type

/** Built-in and custom roles share one id space; `is_custom` / `is_custom_role` tells them apart. */
export const RoleId = PositiveInt.pipe(Schema.brand("RoleId"))
export type RoleId = typeof RoleId.Type

export const PermissionId = PositiveInt.pipe(Schema.brand("PermissionId"))
export type PermissionId = typeof PermissionId.Type
