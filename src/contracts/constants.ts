/**
 * Business constants and limits of access §9 and scanning §9 (plus the few numbers §2/§4 state).
 * Durations are in milliseconds unless the name says otherwise.
 */
import type { WorkspaceStore } from "./workspaces.ts"

const SECOND = 1000
const MINUTE = 60 * SECOND
const HOUR = 60 * MINUTE
const DAY = 24 * HOUR

export const AppInfo = {
  version: "0.1.0",
  environments: ["production", "staging", "development"] as const,
} as const

export const ApiClient = {
  timeoutMs: 30_000,
  /** Maximum retries of the shared client: 3 in the production build, 2 otherwise. */
  maxRetriesProduction: 3,
  maxRetriesDefault: 2,
  /** Retry delay 1000 ms times a doubling factor: 1 s, 2 s, 4 s. */
  retryBaseDelayMs: 1000,
  retryFactor: 2,
  slowCallWarningMs: 1000,
  performanceInfoMs: 500,
  /** Units not stated in the spec; kept as given. */
  sessionTimeout: 60,
  tokenRefreshThreshold: 5,
  /** Scanning §7: client errors are not retried, other failures up to 3 times. */
  scanningMaxRetries: 3,
} as const

/** Delay before retry number `attempt` (0-based): 1000 · 2^attempt (access §7: 1 s, 2 s, 4 s). */
export const retryDelayMs = (attempt: number): number => ApiClient.retryBaseDelayMs * ApiClient.retryFactor ** Math.max(0, attempt)

export const Query = {
  /** Permissions, workspaces, roles, users and team members. */
  staleTimeMs: 5 * MINUTE,
  invitationsStaleTimeMs: 30 * SECOND,
  timezonesStaleTimeMs: 1 * HOUR,
  userFreshMs: 5 * MINUTE,
  cacheTimeMs: 10 * MINUTE,
  /** Queries retry twice with exponential backoff (1 s doubling, capped at 30 s). */
  retries: 2,
  retryBaseDelayMs: 1000,
  retryMaxDelayMs: 30 * SECOND,
  /** Invitations: no retry on 4xx, otherwise up to 3 tries. */
  invitationsMaxTries: 3,
  accountsStaleTimeMs: 1 * SECOND,
  cloudProvidersCacheMs: 5 * MINUTE,
  accountDetailPrefetchMs: 60 * SECOND,
} as const

/** Query retry delay: 1 s doubling, capped at 30 s. */
export const queryRetryDelayMs = (attempt: number): number =>
  Math.min(Query.retryMaxDelayMs, Query.retryBaseDelayMs * 2 ** Math.max(0, attempt))

export const PageSizes = {
  scans: 20,
  findings: 20,
  roles: 10,
} as const

/** Beyond the spec: paging of a finding's detail rows (GET /api/findings/{id}?details_page…). */
export const DetailPaging = {
  defaultPageSize: 50,
  maxPageSize: 500,
  maxQueryLength: 256,
} as const

export const Toasts = {
  defaultMs: 4000,
  successMs: 2000,
  errorMs: 4000,
  maxShown: 20,
  /** Access §8: "You've been added to ..." shows 5 s. */
  addedToWorkspaceMs: 5000,
} as const

export const Overlay = { timeoutMs: 30 * SECOND } as const

/** The persisted workspace store before anything was chosen (a plain value: the first page load reads it). */
export const emptyWorkspaceStore: WorkspaceStore = {
  selectedWorkspaceId: null,
  lastAccessedWorkspaces: {},
  newlyAddedWorkspaces: {},
}

export const Workspaces = {
  newBadgeMs: 7 * DAY,
  /** The search box appears only when there are more than this many workspaces. */
  searchAbove: 3,
} as const

export const Limits = {
  nameMax: 50,
  passwordMin: 8,
  workspaceNameMin: 3,
  verificationTokenMin: 32,
  invitationsMax: 50,
  invitationsMin: 1,
} as const

export const StorageKeys = {
  accessToken: "access_token",
  refreshToken: "refresh_token",
  userEmail: "user_email",
  workspaceName: "workspace_name",
  pendingWorkspaceInvitation: "pending_workspace_invitation",
  pendingWorkspaceId: "pending_workspace_id",
  workspaceStore: "workspace-store",
} as const

export const Redirects = {
  afterInvitationCompletionMs: 3 * SECOND,
  afterAlreadyAcceptedMs: 1.5 * SECOND,
} as const

export const Polling = {
  scanListMs: 15 * SECOND,
  scanDetailMs: 10 * SECOND,
} as const

export const DetailDisplay = {
  maxArrayItems: 5,
  longStringAbove: 150,
  truncateTo: 97,
  remediationCollapseAbove: 100,
} as const

export const Layout = {
  sidebarCollapsedPx: 80,
  sidebarExpandedPx: 300,
  desktopBreakpointPx: 1024,
  rowMenuWidthPx: 192,
  rowMenuOffsetPx: 8,
  rowMenuItemHeightPx: 40,
  rowMenuListenerDelayMs: 100,
  tableSkeletonRows: 5,
  invitationSkeletonRows: 3,
} as const

export const Verification = {
  linkValidityMinutes: 30,
  resendCooldownSeconds: 60,
  /** Default of `expires_in_minutes` in the resend toast. */
  defaultExpiresInMinutes: 1440,
} as const

export const Dates = {
  minYear: 1900,
  maxYear: 2100,
  fallback: "N/A",
} as const

/** Scanning §3: built-in provider ids, extended by the server list. */
export const ProviderIds = { AWS: 1, GCP: 2, Azure: 3 } as const

export const ExportFormats = ["csv", "json", "ocsf"] as const
