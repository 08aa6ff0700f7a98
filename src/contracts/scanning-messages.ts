/**
 * Scanning §2, §5, §6, §8 texts, verbatim, and the server's scanning texts the spec gives no wording for. Part of the
 * one place every user-visible text lives (messages.ts re-exports this module); a module of its own so that these
 * texts load with the scanning screens, not with the sign-in page.
 */

/** Scanning §2, §6, §8 texts. */
export const ScanningMessages = {
  accountAlreadyExists: "Account already exists",
  addAccountFailed: "Failed to add account. Please try again.",
  connectionSuccessful: "Connection successful!",
  deleteAccountFailed: "Failed to delete account",
  deleteAccountFailedRetry: "Failed to delete account. Please try again.",
  dashboardUnauthorized: "You are not authorized to view this data. Please sign in again.",
  dashboardFallback: "Failed to fetch cloud provider accounts",
  startScanFailed: "Failed to start scan. Please try again.",
  launchPermissionDenied: "Permission denied: Cannot launch scans",
  launchPermissionTooltip: "You don't have permission to launch scans",
  remediateFailed: "Failed to remediate finding. Please try again.",
  remediatePermissionTooltip: "You need the 'remediate_findings' permission to fix this issue",
  remediatePermissionDenied: "You don't have permission to remediate findings",
  exportFailed: "Failed to export scan findings",
  errorLoadingScanDetails: "Error loading scan details",
  errorLoadingScansTitle: "Error Loading Scans",
  errorLoadingScanDetailsTitle: "Error Loading Scan Details",
  loadFindingFailed: "Failed to load finding details. Please try again.",
  loadAccountDetailsFailed: "Failed to load account details",
  refreshAccountDetailsFailed: "Failed to refresh account details",
  accountDetailsRefreshed: "Account details refreshed successfully",
  noScansYet: "No scans yet",
  noIssuesDetected: "No issues detected",
  noScansForAccount: "No scans have been run for this account yet.",
  noIssuesBadge: "No Issues",
  failedBadge: "Failed",
} as const

/**
 * Scanning area: the server's answers and the reasons it stores on scans, scan services and remediations (the SPA shows
 * them as `failure_reason`, a service's `error` or a remediation message), for which the spec gives no text.
 */
export const ScanningServerMessages = {
  accountAdded: "Account added successfully",
  accountDeleted: "Account deleted successfully",
  accountNotFound: "Account not found",
  scanNotFound: "Scan not found",
  findingNotFound: "Finding not found",
  serviceNotInScan: "Service not found in this scan",
  secretRevealed: "Secret revealed",
  noStoredSecret: "This account has no stored secret key",
  credentialsUnreadable: "The stored credentials could not be decrypted",
  /** Scanning §8: "Wrong cloud provider credentials … exact text not shown"; one text per provider's fields. */
  cloudCredentialsInvalid: "Invalid cloud provider credentials. Please check the access key ID and secret access key.",
  cloudCredentialsInvalidGcp: "Invalid cloud provider credentials. Please check the service account key.",
  cloudCredentialsInvalidAzure: "Invalid cloud provider credentials. Please check the tenant ID, client ID and client secret.",
  roleNeedsBaseCredentials:
    "Connecting with a role ARN needs AWS credentials on the server to assume it; enter an access key instead",
  azureCredentialsRequired: "Tenant id, client id, client secret and subscription id are required",
  externalIdChosen: "The external ID is generated for this workspace and cannot be chosen",
  scanStarted: "Scan started",
  scanAlreadyRunning: "A scan of this account is already running",
  noServicesToScan: "There is nothing to scan for this cloud provider",
  scanCanceled: "Scan canceled",
  scanNotCancelable: "Only a pending or running scan can be canceled",
  canceledReason: "Canceled by a user",
  scanNotCompleted: "Findings can be exported only when the scan is completed",
  invalidStatusFilter: "Invalid status filter: use pass, fail, remediated, not_evaluated or muted",
  invalidSeverityFilter: "Invalid severity filter: use critical, high, medium or low",
  invalidChangeFilter: "Invalid change filter: use new or fixed",
  invalidCursor: "Invalid cursor: ask for the first page again",
  rowNotInFinding: "This detail row is not part of the finding",
  rowCompliant: "This resource is compliant: there is nothing to remediate",
  rowAlreadyRemediated: "This resource has already been remediated",
  remediationPending: "A remediation of this resource is already in progress",
  noFixer: "No automatic remediation is available for this check",
  remediationQueued: "Remediation started",
  workerLost: "The worker running this service stopped without finishing it",
  remediationWorkerLost: "The worker running this remediation stopped without finishing it",
  scanTimedOut: "The scan did not finish in time",
  everyServiceFailed: "Every service of the scan failed",
} as const

/** Column labels of the rows a finding gets for inputs that could not be read (see `couldNotBeCheckedReason`). */
export const ErrorRowLabels = { operation: "Operation", error_code: "Error code", error_kind: "Error kind" } as const
