/**
 * The organisation page (beyond the spec, issue 31 "Organisations and fleets"; /dashboard/accounts/{id}/organization):
 * one organisation account's members, units, selection, syncs and fleet scans.
 *
 * - `loading` → `ready` or `failed` ('Failed to load the organization. Please try again.' or the server's message; a
 *   retry loads again). `ready` runs four regions side by side:
 *   - `selection`: `viewing` → `editing` (a draft of the saved selection, changed by unit and member toggles with the
 *     rules of organization-selection.ts) → `saving` (PUT …/selection; the server re-syncs and answers the organisation;
 *     a toast carries its message) or back to `editing` with the failure's message.
 *   - `sync`: `idle` → `syncing` (POST /api/accounts/{id}/sync; the answer, what changed, stays on the page) →
 *     `reloading` (the organisation again, its counts and members changed) → `idle`. A failure keeps the text
 *     'Failed to sync the organization. Please try again.' or the server's (e.g. a sync already running).
 *   - `history`: `collapsed` (the organisation's recent syncs) → `loading` (GET …/syncs) → `shown` / `failed`.
 *   - `fleet`: `loading` (who is looking, for the launch rules, and the latest fleet scan with its members) →
 *     `watching` while that scan runs (GET /api/fleet-scans/{id} again every 10 s) or `idle`; 'Scan organization'
 *     checks the launch rules (scanning §5, `checkLaunchScan`) and starts a scan of the organisation account
 *     (POST /api/scans), which the server answers with the fleet scan; it is then watched.
 *
 * Events accepted:
 * - `organization.retryRequested` — the user pressed retry after the page failed to load.
 * - `selection.editRequested` — the user chose to change which units and accounts are scanned.
 * - `unit.toggled` { unitId } / `member.toggled` { cloudAccountId } — the user flipped a checkbox of the draft.
 * - `selection.cancelled` — the user dropped the draft.
 * - `selection.saveRequested` — the user saved the draft.
 * - `sync.requested` — the user pressed 'Sync now'.
 * - `history.requested` — the user asked for every sync.
 * - `fleetScan.requested` — the user pressed 'Scan organization'.
 * - `fleet.retryRequested` — the user pressed retry after the fleet scans failed to load.
 */
import { assign, fromPromise, setup } from "xstate"
import { isInProgress } from "../contracts/common.ts"
import type { AccountId } from "../contracts/ids.ts"
import {
  OrganizationMessages,
  type FleetScan,
  type MemberSelection,
  type OrganizationDetail,
  type OrganizationSync,
} from "../contracts/organizations.ts"
import { ScanningMessages } from "../contracts/messages.ts"
import { checkLaunchScan, type ScanStartPayload, type ScanStartResponse } from "../contracts/scans.ts"
import { toFailure, type NotifyParams } from "./auth-effects.ts"
import { errorOf, outputOf } from "./actor-output.ts"
import type { SelectionSaved, SyncDone } from "./organization-effects.ts"
import { toggleMember, toggleUnit } from "./organization-selection.ts"
import type { ScanViewer } from "./scan-effects.ts"

/** How often a running fleet scan is read again (as a scan's page: scanning §9). */
export const FLEET_REFRESH_MS = 10_000

export interface OrganizationInput {
  readonly organizationId: AccountId
}

/** What the fleet region loads first: who is looking (launch rules) and the latest fleet scan with its members. */
export interface FleetState {
  readonly viewer: ScanViewer
  readonly fleetScan: FleetScan | null
}

export interface OrganizationContext {
  readonly organizationId: AccountId
  readonly organization: OrganizationDetail | null
  readonly error: string | null
  /** The selection being edited (null: not editing). */
  readonly draft: MemberSelection | null
  readonly selectionError: string | null
  /** The last sync run from this page, with what it changed. */
  readonly lastSync: OrganizationSync | null
  readonly syncError: string | null
  /** Every sync, once asked for. */
  readonly syncs: ReadonlyArray<OrganizationSync> | null
  readonly historyError: string | null
  readonly viewer: ScanViewer | null
  readonly fleetScan: FleetScan | null
  readonly fleetError: string | null
}

export type OrganizationEvent =
  | { readonly type: "organization.retryRequested" }
  | { readonly type: "selection.editRequested" }
  | { readonly type: "unit.toggled"; readonly unitId: string }
  | { readonly type: "member.toggled"; readonly cloudAccountId: string }
  | { readonly type: "selection.cancelled" }
  | { readonly type: "selection.saveRequested" }
  | { readonly type: "sync.requested" }
  | { readonly type: "history.requested" }
  | { readonly type: "fleetScan.requested" }
  | { readonly type: "fleet.retryRequested" }

/** The launch rules for 'Scan organization' (scanning §5), with the organisation account as the account. */
export const fleetLaunch = (context: Pick<OrganizationContext, "viewer" | "organization" | "organizationId">) =>
  checkLaunchScan({
    canLaunch: context.viewer?.canLaunchScans ?? false,
    userId: context.viewer?.userId,
    accountId: context.organizationId,
    cloudProviderId: context.organization?.cloud_provider_id,
    cloudProviderName: context.organization?.cloud_provider_name ?? null,
  })

const isFleetScan = (data: ScanStartResponse["data"]): data is FleetScan => "fleet_scan_id" in data

export const organizationMachine = setup({
  types: {
    context: {} as OrganizationContext,
    events: {} as OrganizationEvent,
    input: {} as OrganizationInput,
  },
  actors: {
    /** GET /api/organizations/{id}. */
    loadOrganization: fromPromise<OrganizationDetail, { readonly id: AccountId }>(async () => {
      throw new Error("loadOrganization is not provided")
    }),
    /** PUT /api/organizations/{id}/selection. */
    saveSelection: fromPromise<SelectionSaved, { readonly id: AccountId; readonly selection: MemberSelection }>(async () => {
      throw new Error("saveSelection is not provided")
    }),
    /** POST /api/accounts/{id}/sync. */
    syncNow: fromPromise<SyncDone, { readonly id: AccountId }>(async () => {
      throw new Error("syncNow is not provided")
    }),
    /** GET /api/organizations/{id}/syncs. */
    listSyncs: fromPromise<ReadonlyArray<OrganizationSync>, { readonly id: AccountId }>(async () => {
      throw new Error("listSyncs is not provided")
    }),
    /** The viewer's launch permission and the latest fleet scan (GET …/fleet-scans, then GET /api/fleet-scans/{latest}). */
    loadFleet: fromPromise<FleetState, { readonly id: AccountId }>(async () => {
      throw new Error("loadFleet is not provided")
    }),
    /** GET /api/fleet-scans/{id}. */
    getFleetScan: fromPromise<FleetScan, { readonly id: FleetScan["fleet_scan_id"] }>(async () => {
      throw new Error("getFleetScan is not provided")
    }),
    /** POST /api/scans with the organisation account: answers the fleet scan. */
    startScan: fromPromise<ScanStartResponse, ScanStartPayload>(async () => {
      throw new Error("startScan is not provided")
    }),
  },
  delays: {
    fleetRefresh: FLEET_REFRESH_MS,
  },
  guards: {
    /** The fleet loaded with a fleet scan still pending or running. */
    loadedRunningFleet: ({ event }) => {
      const scan = outputOf<FleetState>(event).fleetScan
      return scan !== null && isInProgress(scan.status)
    },
    /** The fleet scan read again is still pending or running. */
    isStillRunning: ({ event }) => isInProgress(outputOf<FleetScan>(event).status),
    /** The launch rules hold for the organisation account. */
    mayLaunch: ({ context }) => fleetLaunch(context).ok,
    /** The scan start answered a fleet scan. */
    startedFleetScan: ({ event }) => isFleetScan(outputOf<ScanStartResponse>(event).data),
  },
  actions: {
    assignOrganization: assign({ organization: ({ event }) => outputOf<OrganizationDetail>(event), error: null }),
    assignLoadError: assign({
      error: ({ event }) => toFailure(errorOf(event), OrganizationMessages.loadOrganizationFailed).message,
    }),
    startDraft: assign({ draft: ({ context }) => context.organization?.selection ?? null, selectionError: null }),
    toggleDraftUnit: assign({
      draft: ({ context, event }) =>
        event.type === "unit.toggled" && context.draft !== null && context.organization !== null
          ? toggleUnit(context.draft, context.organization.units, event.unitId)
          : context.draft,
    }),
    toggleDraftMember: assign({
      draft: ({ context, event }) => {
        if (event.type !== "member.toggled" || context.draft === null || context.organization === null) return context.draft
        const member = context.organization.members.find((m) => m.cloud_account_id === event.cloudAccountId)
        return member === undefined ? context.draft : toggleMember(context.draft, context.organization.units, member)
      },
    }),
    dropDraft: assign({ draft: null, selectionError: null }),
    assignSaved: assign({ organization: ({ event }) => outputOf<SelectionSaved>(event).organization, draft: null, selectionError: null }),
    assignSelectionError: assign({
      selectionError: ({ event }) => toFailure(errorOf(event), OrganizationMessages.loadOrganizationFailed).message,
    }),
    assignSync: assign({ lastSync: ({ event }) => outputOf<SyncDone>(event).sync, syncError: null }),
    assignSyncError: assign({ syncError: ({ event }) => toFailure(errorOf(event), OrganizationMessages.syncFailed).message }),
    assignSyncs: assign({ syncs: ({ event }) => outputOf<ReadonlyArray<OrganizationSync>>(event), historyError: null }),
    assignHistoryError: assign({
      historyError: ({ event }) => toFailure(errorOf(event), OrganizationMessages.loadOrganizationFailed).message,
    }),
    assignFleet: assign(({ event }) => {
      const fleet = outputOf<FleetState>(event)
      return { viewer: fleet.viewer, fleetScan: fleet.fleetScan, fleetError: null }
    }),
    assignFleetScan: assign({ fleetScan: ({ event }) => outputOf<FleetScan>(event), fleetError: null }),
    assignStartedFleetScan: assign({ fleetScan: ({ event }) => outputOf<ScanStartResponse>(event).data as FleetScan, fleetError: null }),
    assignFleetError: assign({ fleetError: ({ event }) => toFailure(errorOf(event), OrganizationMessages.loadFleetFailed).message }),
    assignStartError: assign({ fleetError: ({ event }) => toFailure(errorOf(event), ScanningMessages.startScanFailed).message }),
    assignLaunchRefusal: assign({
      fleetError: ({ context }) => {
        const check = fleetLaunch(context)
        return check.ok ? null : check.message
      },
    }),
    /** Environment: a toast (supplied at the React boundary). */
    notify: (_, _params: NotifyParams) => {},
  },
}).createMachine({
  id: "organization",
  context: ({ input }) => ({
    organizationId: input.organizationId,
    organization: null,
    error: null,
    draft: null,
    selectionError: null,
    lastSync: null,
    syncError: null,
    syncs: null,
    historyError: null,
    viewer: null,
    fleetScan: null,
    fleetError: null,
  }),
  initial: "loading",
  states: {
    loading: {
      description: "The organisation (summary, units, members, selection and recent syncs) is being fetched.",
      invoke: {
        id: "loadOrganization",
        src: "loadOrganization",
        input: ({ context }) => ({ id: context.organizationId }),
        /** The organisation arrived: the page shows. */
        onDone: { target: "ready", actions: "assignOrganization" },
        /** The organisation could not be loaded: the failure's message (by default 'Failed to load the organization. Please try again.') with a retry. */
        onError: { target: "failed", actions: "assignLoadError" },
      },
    },
    failed: {
      description: "The organisation could not be loaded: its error is shown with a retry button.",
      on: { "organization.retryRequested": "loading" },
    },
    ready: {
      type: "parallel",
      description: "The organisation page: summary, units and members, selection, syncs and the fleet scan.",
      states: {
        selection: {
          description: "Which units and member accounts are scanned.",
          initial: "viewing",
          states: {
            viewing: {
              description: "The saved selection is shown (each member's `included`).",
              on: { "selection.editRequested": { target: "editing", actions: "startDraft" } },
            },
            editing: {
              description: "A draft of the selection: checkboxes on units and members, with Save and Cancel (and the last save's error).",
              on: {
                "unit.toggled": { actions: "toggleDraftUnit" },
                "member.toggled": { actions: "toggleDraftMember" },
                "selection.cancelled": { target: "viewing", actions: "dropDraft" },
                "selection.saveRequested": "saving",
              },
            },
            saving: {
              description: "The draft is being saved (the server re-syncs the organisation).",
              invoke: {
                id: "saveSelection",
                src: "saveSelection",
                input: ({ context }) => ({ id: context.organizationId, selection: context.draft! }),
                /** Saved: the organisation as re-synced replaces the page's, and a toast carries the server's message. */
                onDone: {
                  target: "viewing",
                  actions: ["assignSaved", { type: "notify", params: ({ event }) => ({ kind: "success", message: event.output.message }) }],
                },
                /** The save failed: the draft stays with the failure's message. */
                onError: { target: "editing", actions: "assignSelectionError" },
              },
            },
          },
        },
        sync: {
          description: "'Sync now' and what the last sync changed.",
          initial: "idle",
          states: {
            idle: { description: "'Sync now' is offered; the last sync's changes (or error) are shown.", on: { "sync.requested": "syncing" } },
            syncing: {
              description: "The organisation is being rediscovered.",
              invoke: {
                id: "syncNow",
                src: "syncNow",
                input: ({ context }) => ({ id: context.organizationId }),
                /** Synced: what changed is shown, a toast carries the server's message, and the organisation is read again. */
                onDone: {
                  target: "reloading",
                  actions: ["assignSync", { type: "notify", params: ({ event }) => ({ kind: "success", message: event.output.message }) }],
                },
                /** The sync failed: the failure's message (by default 'Failed to sync the organization. Please try again.'). */
                onError: { target: "idle", actions: "assignSyncError" },
              },
            },
            reloading: {
              description: "After a sync: the organisation (counts, units, members, recent syncs) is read again.",
              invoke: {
                id: "reloadOrganization",
                src: "loadOrganization",
                input: ({ context }) => ({ id: context.organizationId }),
                /** The re-read organisation replaces the page's. */
                onDone: { target: "idle", actions: "assignOrganization" },
                /** The re-read failed: the page keeps what it showed, with the load failure's message on the sync. */
                onError: { target: "idle", actions: "assignSyncError" },
              },
            },
          },
        },
        history: {
          description: "The sync history: the recent syncs, or every sync once asked for.",
          initial: "collapsed",
          states: {
            collapsed: { description: "The organisation's recent syncs are shown.", on: { "history.requested": "loading" } },
            loading: {
              description: "Every sync is being fetched.",
              invoke: {
                id: "listSyncs",
                src: "listSyncs",
                input: ({ context }) => ({ id: context.organizationId }),
                /** Every sync is shown. */
                onDone: { target: "shown", actions: "assignSyncs" },
                /** The syncs could not be loaded: the failure's message with a retry. */
                onError: { target: "failed", actions: "assignHistoryError" },
              },
            },
            shown: { description: "Every sync is shown; asking again reloads them.", on: { "history.requested": "loading" } },
            failed: { description: "The syncs could not be loaded: the error with a retry.", on: { "history.requested": "loading" } },
          },
        },
        fleet: {
          description: "The organisation's latest fleet scan, its members' progress, and 'Scan organization'.",
          initial: "loading",
          states: {
            loading: {
              description: "Who is looking (launch rules) and the latest fleet scan are being fetched.",
              invoke: {
                id: "loadFleet",
                src: "loadFleet",
                input: ({ context }) => ({ id: context.organizationId }),
                /** Loaded: a running fleet scan is watched; otherwise the last one (if any) is shown. */
                onDone: [
                  { guard: "loadedRunningFleet", target: "watching", actions: "assignFleet" },
                  { target: "idle", actions: "assignFleet" },
                ],
                /** The fleet could not be loaded: 'Failed to load the fleet. Please try again.' (or the server's message) with a retry. */
                onError: { target: "failed", actions: "assignFleetError" },
              },
            },
            failed: { description: "The fleet could not be loaded: the error with a retry.", on: { "fleet.retryRequested": "loading" } },
            idle: {
              description: "No fleet scan is running: the last one's outcome (if any) and 'Scan organization'.",
              on: {
                "fleetScan.requested": [
                  { guard: "mayLaunch", target: "starting" },
                  { actions: "assignLaunchRefusal" },
                ],
              },
            },
            starting: {
              description: "A scan of the organisation account is being started.",
              invoke: {
                id: "startScan",
                src: "startScan",
                input: ({ context }) => {
                  const check = fleetLaunch(context)
                  if (!check.ok) throw new Error(check.message)
                  return check.payload
                },
                /** Started: a toast carries the server's message and the fleet scan is watched (anything else: the fleet is read again). */
                onDone: [
                  {
                    guard: "startedFleetScan",
                    target: "watching",
                    actions: ["assignStartedFleetScan", { type: "notify", params: ({ event }) => ({ kind: "success", message: event.output.message }) }],
                  },
                  { target: "loading" },
                ],
                /** The start failed: the failure's message (by default 'Failed to start scan. Please try again.', or e.g. a fleet scan already running). */
                onError: { target: "idle", actions: "assignStartError" },
              },
            },
            watching: {
              description: "A fleet scan runs: its members' progress is shown and read again every 10 s.",
              initial: "waiting",
              states: {
                waiting: { description: "Until the next read.", after: { fleetRefresh: "refreshing" } },
                refreshing: {
                  description: "The fleet scan is being read again.",
                  invoke: {
                    id: "getFleetScan",
                    src: "getFleetScan",
                    input: ({ context }) => ({ id: context.fleetScan!.fleet_scan_id }),
                    /** Read: still running waits for the next read; finished stops watching. */
                    onDone: [
                      { guard: "isStillRunning", target: "waiting", actions: "assignFleetScan" },
                      { target: "#organization.ready.fleet.idle", actions: "assignFleetScan" },
                    ],
                    /** A failed read keeps the last progress and tries again at the next tick. */
                    onError: { target: "waiting", actions: "assignFleetError" },
                  },
                },
              },
            },
          },
        },
      },
    },
  },
})
