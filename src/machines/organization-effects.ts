/**
 * What the organisation screens' machines need from the outside world (beyond the spec, issue 31 "Organisations and
 * fleets": GET /api/organizations/aws-template, GET /api/organizations/{id}, PUT /api/organizations/{id}/selection,
 * GET /api/organizations/{id}/syncs, POST /api/accounts/{id}/sync, GET /api/organizations/{id}/fleet-scans,
 * GET /api/fleet-scans/{id}), as types. Nothing here performs an effect: the real `OrganizationEffects` are built from
 * the SPA services by `organizationEffectsFrom(services)` (src/services/organization-api.ts) and reach the views
 * through `<OrganizationEffectsProvider>` (src/views/organizations/organization-effects-context.tsx); tests hand fakes
 * to `machine.provide()`.
 *
 * Failures reject with a catalogue error value `{ type, message, status?, data? }` (the server's message for 4xx).
 */
import type { AccountId, FleetScanId } from "../contracts/ids.ts"
import type {
  AwsTemplateResponse,
  FleetScan,
  FleetScansResponse,
  OrganizationDetail,
  OrganizationSync,
  SelectionPayload,
} from "../contracts/organizations.ts"
import type { EffectCall } from "./auth-effects.ts"

/** The CloudFormation template and CLI commands deploying the AWS member role (the answer's `data`). */
export type AwsTemplate = AwsTemplateResponse["data"]
/** One fleet scan of the organisation's list (members left out). */
export type FleetScanSummary = FleetScansResponse["data"]["fleet_scans"][number]

/** A saved selection: the server's message and the organisation re-synced with it. */
export interface SelectionSaved {
  readonly message: string
  readonly organization: OrganizationDetail
}

/** A finished sync: the server's message and what it changed. */
export interface SyncDone {
  readonly message: string
  readonly sync: OrganizationSync
}

export interface OrganizationEffects {
  /** GET /api/organizations/aws-template?role_name=&trusted_principal_arn=. */
  readonly loadAwsTemplate: EffectCall<{ readonly role_name: string; readonly trusted_principal_arn: string }, AwsTemplate>
  /** GET /api/organizations/{id}: summary, selection, units, members and recent syncs. */
  readonly loadOrganization: EffectCall<{ readonly id: AccountId }, OrganizationDetail>
  /** PUT /api/organizations/{id}/selection (the server re-syncs). */
  readonly saveSelection: EffectCall<{ readonly id: AccountId; readonly selection: SelectionPayload }, SelectionSaved>
  /** POST /api/accounts/{id}/sync. */
  readonly syncNow: EffectCall<{ readonly id: AccountId }, SyncDone>
  /** GET /api/organizations/{id}/syncs: every sync, newest first. */
  readonly listSyncs: EffectCall<{ readonly id: AccountId }, ReadonlyArray<OrganizationSync>>
  /** GET /api/organizations/{id}/fleet-scans: the fleet scans, newest first (without their members). */
  readonly listFleetScans: EffectCall<{ readonly id: AccountId }, ReadonlyArray<FleetScanSummary>>
  /** GET /api/fleet-scans/{id}: one fleet scan with its members' progress. */
  readonly getFleetScan: EffectCall<{ readonly id: FleetScanId }, FleetScan>
}

/** The organisation page of an organisation account (a page below its account's, so the account routes' rules apply). */
export const organizationPath = (accountId: number | string): string => `/dashboard/accounts/${accountId}/organization`

/** The organisation's newest fleet scan with its members (GET …/fleet-scans, then GET /api/fleet-scans/{newest}), or null. */
export const latestFleetScan = async (
  effects: Pick<OrganizationEffects, "listFleetScans" | "getFleetScan">,
  id: AccountId,
  signal?: AbortSignal,
): Promise<FleetScan | null> => {
  const scans = await effects.listFleetScans({ id }, signal)
  const newest = [...scans].sort((a, b) => b.started_at.localeCompare(a.started_at) || b.fleet_scan_id - a.fleet_scan_id)[0]
  return newest === undefined ? null : effects.getFleetScan({ id: newest.fleet_scan_id }, signal)
}
