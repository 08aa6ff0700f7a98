/**
 * What the fleet screens' machines need from the outside world (beyond the spec, issue 31 item 4 "See the fleet":
 * GET /api/organizations/{id}/fleet), as types, and the fleet screens' paths. Nothing here performs an effect: the
 * real `FleetEffects` are built from the SPA services by `fleetEffectsFrom(services)` (src/services/fleet-api.ts) and
 * reach the views through `<FleetEffectsProvider>` (src/views/organizations/fleet-effects-context.tsx); tests hand
 * fakes to `machine.provide()`. The cross-account findings list uses the scan screens' `listFindings`
 * (GET /api/findings without scan_id) and the organisation screens' `loadOrganization` (units and members to filter by).
 *
 * Failures reject with a catalogue error value `{ type, message, status?, data? }` (the server's message for 4xx).
 */
import type { Framework } from "../contracts/compliance.ts"
import type { AccountId } from "../contracts/ids.ts"
import type { FleetDashboard, FleetFilter, FleetQuery, OrgCompliance } from "../contracts/organizations.ts"
import type { EffectCall } from "./auth-effects.ts"
import type { DownloadedFile } from "./compliance-effects.ts"

/** Which organisation compliance file: one row per requirement (CSV), members × requirements (CSV), or the PDF report. */
export type OrgComplianceFileKind = "requirements" | "members" | "pdf"

export interface OrgComplianceRequest {
  readonly id: AccountId
  readonly frameworkId: string
  readonly filter: FleetFilter
}

export interface FleetEffects {
  /** GET /api/organizations/{id}/fleet?unit=&tag=&sort=&stale_days=: members × severity, totals and the 30-day trend. */
  readonly loadFleet: EffectCall<{ readonly id: AccountId; readonly query: FleetQuery }, FleetDashboard>
  /** The frameworks of the organisation's provider (GET /api/organizations, GET /api/compliance/frameworks). */
  readonly loadOrgFrameworks: EffectCall<{ readonly id: AccountId }, ReadonlyArray<Framework>>
  /** GET /api/organizations/{id}/compliance/{framework}?unit=&tag=: per requirement, the members passing, failing, with exceptions. */
  readonly loadOrgCompliance: EffectCall<OrgComplianceRequest, OrgCompliance>
  /** GET …/compliance/{framework}/csv?part= or …/pdf, as a file named as the server names it. */
  readonly downloadOrgCompliance: EffectCall<OrgComplianceRequest & { readonly kind: OrgComplianceFileKind }, DownloadedFile>
}

/** The fleet dashboard of an organisation account. */
export const fleetPath = (organizationId: number | string): string => `/dashboard/organizations/${organizationId}/fleet`
/** The findings of every member of an organisation (each member's latest completed scan). */
export const fleetFindingsPath = (organizationId: number | string): string => `/dashboard/organizations/${organizationId}/findings`

/** Shown when the findings across accounts cannot be read (the client's message wins when it has one). */
export const FLEET_FINDINGS_FAILED = "Failed to load the findings. Please try again."
