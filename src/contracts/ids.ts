/**
 * Branded identifiers shared by the SPA and the server.
 *
 * Every id in both specs is a positive integer on the wire (the access spec says `workspace_id` is a
 * number; the other ids follow the same convention). Brands stop a `ScanId` from being passed where a
 * `FindingId` is expected; on the wire they are plain JSON numbers, and in URL paths/queries the HttpApi
 * builder coerces them from their string form.
 */
import { Schema, SchemaTransformation } from "effect"
import { PlatformMessages } from "./server-messages.ts"

const PositiveInt = Schema.Int.check(Schema.isGreaterThan(0))

/** The largest id (PostgreSQL `integer`). */
export const MAX_ID = 2_147_483_647

/**
 * An id in a URL path (`/api/accounts/:id`): only its canonical decimal form — digits, no sign, no space, no leading
 * zero, no fraction, exponent or hex — and at most MAX_ID. Anything else (`1;x`, `1,2`, `+1`, ` 1`, `01`, `1e0`,
 * `0x1`, `99999999999`) is a 400 `ValidationError` "Invalid ID", never read as another id (issue 27). The decoded
 * value is `id`'s branded number; on the wire it is the string the path carries.
 */
export const idParam = <S extends Schema.Codec<number, number>>(id: S) =>
  Schema.String.check(
    Schema.isPattern(/^[1-9][0-9]{0,9}$/, { message: PlatformMessages.invalidId }),
    Schema.makeFilter((s: string) => Number(s) <= MAX_ID || PlatformMessages.invalidId),
  ).pipe(Schema.decodeTo(id, SchemaTransformation.transform({ decode: (s: string) => Number(s), encode: (n: number) => String(n) })))

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

/** Beyond the spec (issue 31): a scan of an organisation's members. */
export const FleetScanId = PositiveInt.pipe(Schema.brand("FleetScanId"))
export type FleetScanId = typeof FleetScanId.Type
