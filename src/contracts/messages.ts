/**
 * Every user-visible text of both specs, verbatim, in one place, and the server's own user-visible texts the
 * specs give no wording for (`AccessServerMessages`, `ScanningServerMessages`, `PlatformMessages`). Nothing else in
 * the code base restates these strings: validation schemas, the error mapping, the server's error bodies and
 * stored reasons, machines and views import them from here. Texts with a value in them are functions. Only
 * log lines stay next to the server code that writes them.
 *
 * Spec references: access §2, §4, §5, §8 (access-workspaces-team.md) and scanning §2, §5, §6, §8
 * (accounts-scans-findings.md).
 */

/** Access §5 and scanning §5: validation messages. */
export const ValidationMessages = {
  emailRequired: "Email is required",
  emailInvalid: "Please enter a valid email address",
  /** The sign-in password rule (≥ 8) has no text in the spec; this one mirrors the add-user hint. */
  passwordMin: "Password must be at least 8 characters",
  passwordRequired: "Password is required",
  passwordComposition: "Password must contain at least one uppercase letter, one lowercase letter, and one number",
  confirmPasswordRequired: "Please confirm your password",
  passwordsDontMatch: "Passwords don't match",
  newPasswordsDontMatch: "New passwords don't match",
  currentPasswordRequired: "Current password is required",
  firstNameRequired: "First name is required",
  firstNameTooLong: "First name must be less than 50 characters",
  lastNameRequired: "Last name is required",
  lastNameTooLong: "Last name must be less than 50 characters",
  workspaceNameMin: "Workspace name must be at least 3 characters",
  timezoneEmpty: "Timezone cannot be empty",
  verificationTokenFormat: "Invalid verification token format.",
  verificationEmailFormat: "Invalid email format in verification link.",
  verificationMissingParams: "Invalid verification link. Missing required parameters.",
  invitationsMin: "At least one invitation is required",
  invitationsMax: "Maximum 50 invitations allowed at once",
  invitationsDuplicate: "Duplicate email addresses are not allowed",
  selectRole: "Please select a role",
  selectValidRole: "Please select a valid role",
  invitationTokenInvalid: "Invalid invitation token",
  resetTokenRequired: "Invalid or expired reset link",
  accountNameRequired: "Account name is required",
  accessKeyRequired: "Access Key ID is required",
  secretKeyRequired: "Secret Access Key is required",
  /** Beyond the spec: the later providers' credential variants. */
  roleArnRequired: "Role ARN is required",
  serviceAccountKeyRequired: "Service account key is required",
  serviceAccountKeyInvalid: "Service account key must be valid JSON",
  serviceAccountKeyType: 'Service account key must be a service account key file ("type": "service_account")',
  serviceAccountKeyClientEmail: "Service account key must contain a valid client_email",
  serviceAccountKeyPrivateKey: "Service account key must contain a PEM private_key (-----BEGIN PRIVATE KEY-----)",
  serviceAccountKeyProjectId: "Service account key must contain a valid project_id",
  serviceAccountKeyTokenUri: "Service account key token_uri must be an https URL",
  gcpProjectIdInvalid: "Project ID must be 6 to 30 lower-case letters, digits or hyphens, starting with a letter",
  tenantIdRequired: "Tenant ID is required",
  clientIdRequired: "Client ID is required",
  clientSecretRequired: "Client secret is required",
  subscriptionIdRequired: "Subscription ID is required",
  cloudProviderRequired: "Please select a cloud provider",
  selectAccountToScan: "Please select an account to scan",
  invalidCloudProvider: "Invalid cloud provider",
  invalidAccountId: "Invalid account ID",
  userAuthRequired: "User authentication required. Please log in again.",
  needAccountBeforeScan: "You need to create an account before running a scan",
  customRoleNameRequired: "Role name is required",
  customRolePermissionsRequired: "Select at least one permission",
  invalidPermission: "Unknown permission",
} as const

/** Access §8 "Status mapping" (the generic flow). */
export const StatusMessages = {
  noResponse: "Unable to connect to the server. Please check your internet connection.",
  badRequest: "Invalid input. Please check your details and try again.",
  unauthorized: "Please sign in to continue.",
  emailNotVerifiedAtLogin: "Please verify your email address to continue",
  forbidden: "You do not have permission to perform this action.",
  conflict: "Resource already exists.",
  rateLimited: "Too many requests. Please try again later.",
  serverError: "We're experiencing technical difficulties. Please try again later.",
  unexpected: "An unexpected error occurred. Please try again.",
} as const

/** Access §5 / §8 "Session refresh". */
export const RefreshMessages = {
  noRefreshToken: "No refresh token available",
  sessionExpired: "Your session has expired. Please sign in again.",
  refreshAuthFailed: "Failed to refresh authentication. Please sign in again.",
  tokenRefreshFailed: "Token refresh failed. Please sign in again.",
  refreshSessionFailed: "Failed to refresh your session. Please sign in again.",
  invalidTokenResponse: "Invalid token response from server",
} as const

/** Access §8 "Email verification" and §2/§4 verification screens. */
export const VerificationMessages = {
  status400: "Invalid verification token. Please request a new verification email.",
  status404: "User not found. Please sign up again.",
  status409: "Email is already verified! You can sign in now.",
  status410: "Verification link has expired. Please request a new one.",
  screenInvalid: "Invalid or expired verification link. Please request a new one.",
  screenExpired: "Verification link has expired. Please request a new one.",
  screenUserNotFound: "User not found. Please sign up again.",
  network: "Network error. Please check your connection and try again.",
  validation: "Invalid verification data. Please try again.",
  unexpected: "An unexpected error occurred during verification",
  alreadyVerifiedSuccess: "Email is already verified!",
  verifiedSuccess: "Email verified successfully!",
  linkValidity: "Verification links are valid for 30 minutes.",
} as const

/** Access §8 "Resend". */
export const ResendMessages = {
  alreadyVerified: "Email is already verified! You can sign in now.",
  invalidEmail: "Invalid email address. Please check and try again.",
  fallback: "Failed to resend verification email. Please try again.",
} as const

/** Access §8 "Signup" and §4. */
export const SignupMessages = {
  authFailed: "Authentication failed. Please try again.",
  workspaceExists: "Workspace already exists. Please choose a different workspace name.",
  unprocessable: "Please check your input and try again.",
  tooManyAttempts: "Too many signup attempts. Please try again later.",
  serverUnavailable: "Server is temporarily unavailable. Please try again later.",
  fallback: "Failed to create account. Please try again.",
  verificationSent:
    "Verification email sent! Please check your inbox and follow the link to activate your account.",
  /** The 409 "resend hint" (§8: the spec shows no exact text for these two). */
  accountExistsUnverified:
    "An account with this email already exists but is not verified. Please check your inbox or request a new verification email.",
  accountExistsVerified: "An account with this email already exists. Please sign in.",
} as const

/** Access §8 "Invitation" and §2 invitation screens. */
export const InvitationMessages = {
  status400: "Invalid invitation token. Please check your invitation link.",
  status404: "Invitation not found. The invitation may have been revoked.",
  status410: "Invitation has expired. Please request a new invitation.",
  screenExpired: "This invitation has expired. Please request a new invitation.",
  screenAlreadyAccepted: "This invitation has already been accepted. You can sign in now.",
  pageInvalid: "Invalid or expired invitation link",
  invalidInvitationTitle: "Invalid invitation",
  completionFailed: "Failed to complete signup",
  completionAlreadyMember: "You're already a member of this workspace",
  completionExpired: "This invitation has expired. Please request a new one.",
  completionInvalid: "Invalid invitation link. Please check your email for the correct link.",
  registrationComplete: "Registration Complete!",
} as const

/** Access §8 "Other messages". */
export const OtherMessages = {
  invalidResetLink: "Invalid or expired reset link",
  resetFailed: "Failed to reset password",
  forgotFailed: "Failed to send password reset email",
  selectWorkspaceFailed: "Failed to select workspace",
  acceptWorkspaceInvitationFailed: "Failed to accept workspace invitation",
  errorLoadingWorkspaces: "Error loading workspaces",
  loadWorkspacesFailed: "Failed to load workspaces",
  noWorkspaces: "No workspaces available",
  permissionRequiredForPage: "You do not have permission to access this page",
  authenticating: "Authenticating...",
  pageNotFoundTitle: "Page Not Found",
  pageNotFoundBody: "The page you're looking for doesn't exist or has been moved.",
} as const

/** Access §8 team failure toasts (used when the error carries no message). */
export const TeamFailureMessages = {
  addMember: "Failed to add team member",
  sendInvitations: "Failed to send invitations",
  resendInvitation: "Failed to resend invitation",
  cancelInvitation: "Failed to cancel invitation",
  deleteMember: "Failed to delete team member",
  updateMember: "Failed to update team member",
  updateProfile: "Failed to update profile. Please try again.",
  updatePassword: "Failed to update password. Please try again.",
  copyInvitationLink: "Failed to copy invitation link",
  noInvitationLink: "No invitation link available",
  loadTeamMembers: "Failed to load team members",
  loadInvitations: "Failed to load invitations",
} as const

/** Access §8 success messages (fixed ones; the counted ones are functions below). */
export const SuccessMessages = {
  passwordResetEmailSent: "Password reset email sent successfully",
  passwordReset: "Password reset successfully!",
  emailVerified: "Email verified successfully!",
  teamMemberAdded: "Team member added successfully",
  teamMemberDeleted: "Team member deleted successfully",
  profileUpdated: "Profile updated successfully",
  passwordUpdated: "Password updated successfully",
  invitationLinkCopied: "Invitation link copied to clipboard",
} as const

// The scanning screens' texts and the server's own texts are in modules of their own, re-exported here: each then
// loads with the screens (or the server) that use it, not with the sign-in page (issue 17).
export { ErrorRowLabels, ScanningMessages, ScanningServerMessages } from "./scanning-messages.ts"
export { AccessServerMessages, PlatformMessages } from "./server-messages.ts"

// ---------------------------------------------------------------------------------------------------
// Texts with values in them.

/**
 * Access §8 resend: 429 → minutes from `retry_after_seconds` (default 60), rounded up, at least 1.
 * Values above a day are treated as a day (a wait longer than that is a server bug, not a cool-down).
 */
export const resendWaitMessage = (retryAfterSeconds: number | undefined): string => {
  const seconds =
    retryAfterSeconds !== undefined && Number.isFinite(retryAfterSeconds) && retryAfterSeconds > 0
      ? Math.min(retryAfterSeconds, 86_400)
      : 60
  const minutes = Math.max(1, Math.ceil(seconds / 60))
  return `Please wait ${minutes} minute(s) before requesting another verification email`
}

/**
 * Access §8 / §9 resend toast: the link validity from `expires_in_minutes` (default 1440), in hours when
 * 60 or more. Returns e.g. "Verification email sent! The link expires in 24 hour(s)." — the spec gives no
 * exact sentence, only the unit rule, so the sentence is ours and the duration part is `formatExpiry`.
 */
export const formatExpiry = (expiresInMinutes: number | undefined): string => {
  const minutes =
    expiresInMinutes !== undefined && Number.isFinite(expiresInMinutes) && expiresInMinutes > 0
      ? Math.round(expiresInMinutes)
      : 1440
  if (minutes >= 60) {
    const hours = Math.floor(minutes / 60)
    return `${hours} hour${hours === 1 ? "" : "s"}`
  }
  return `${minutes} minute${minutes === 1 ? "" : "s"}`
}
export const resendSuccessMessage = (email: string, expiresInMinutes: number | undefined): string =>
  `Verification email sent to ${email}. The link expires in ${formatExpiry(expiresInMinutes)}.`

export const allInvitationsSentMessage = (n: number): string => `All ${n} invitation(s) sent successfully`
export const someInvitationsSentMessage = (n: number, m: number): string =>
  `${n} invitation(s) sent successfully, ${m} failed`
export const allInvitationsFailedMessage = (m: number): string => `All ${m} invitations failed to send`
export const skippedInvitationsMessage = (emails: ReadonlyArray<string>, firstReason: string | undefined): string =>
  `Skipped: ${emails.join(", ")}${firstReason ? ` (${firstReason})` : ""}`

export interface InviteResultCounts {
  readonly sent_count: number
  readonly resent_count: number
  readonly skipped_count: number
  readonly skipped_emails: ReadonlyArray<{ readonly email: string; readonly reason: string }>
}
/**
 * Access §8: the toasts after a bulk invite. Sent plus resent counts as sent; when nothing was sent the
 * single toast is 'All {m} invitations failed to send'; skipped ones add a toast beginning 'Skipped:'.
 */
export const inviteResultToasts = (
  r: InviteResultCounts,
): ReadonlyArray<{ readonly kind: "success" | "error" | "warning"; readonly message: string }> => {
  const sent = r.sent_count + r.resent_count
  const failed = r.skipped_count
  const out: Array<{ kind: "success" | "error" | "warning"; message: string }> = []
  if (sent === 0 && failed > 0) out.push({ kind: "error", message: allInvitationsFailedMessage(failed) })
  else if (failed === 0) out.push({ kind: "success", message: allInvitationsSentMessage(sent) })
  else out.push({ kind: "warning", message: someInvitationsSentMessage(sent, failed) })
  if (r.skipped_emails.length > 0) {
    out.push({
      kind: "warning",
      message: skippedInvitationsMessage(
        r.skipped_emails.map((s) => s.email),
        r.skipped_emails[0]?.reason,
      ),
    })
  }
  return out
}

export const invitationResentMessage = (email: string): string => `Invitation resent to ${email}`
export const invitationCanceledMessage = (email: string): string => `Invitation canceled for ${email}`
export const addedToWorkspaceMessage = (workspaceName: string): string => `You've been added to ${workspaceName}`
export const invitationsTotalMessage = (n: number): string => `Track the status of sent invitations (${n} total)`
export const cancelInvitationConfirmMessage = (email: string): string =>
  `Are you sure you want to cancel the invitation to ${email}? This action cannot be undone.`
export const deleteAccountConfirmMessage = (provider: string, name: string): string =>
  `This will permanently delete the ${provider} account "${name}" and remove all scan history. This action cannot be undone.`
export const serviceNotFoundMessage = (name: string): string => `Service "${name}" not found in this scan`
export const issuesFoundMessage = (n: number): string => `${n} issues found`
export const scanTitle = (id: number | string): string => `Scan #${id}`
export const accountTitle = (id: number | string): string => `Account #${id}`
export const findingTitle = (id: number | string): string => `Finding #${id}`
/** Server-side 501 text, also used by the platform's not-implemented layer. */
export const notImplementedMessage = (method: string, path: string): string => `${method} ${path} is not implemented yet`
/** Server-side 404 for a path no endpoint serves. */
export const noEndpointMessage = (method: string, path: string): string => `No API endpoint matches ${method} ${path}`
/** Add-account 503: the provider could not be reached to test the connection (`detail`: an error code, "timeout"…). */
export const cloudUnreachableMessage = (provider: string, detail: string): string =>
  `Could not reach ${provider} to test the connection (${detail})`
/** Why an input could not be read, by error kind (server/scanner/check.ts `ErrorKind`). */
const NOT_EVALUATED_CAUSES: Readonly<Record<string, string>> = {
  access_denied: "access denied",
  unsupported: "the API is not enabled or not available here",
  throttled: "throttled beyond retries",
  region_disabled: "the region is not enabled",
}
/** The reason stored on a finding's row for an input the scan could not read (the check was not evaluated). */
export const notEvaluatedReason = (operation: string, code: string, kind: string, detail: string): string =>
  `Not evaluated: ${operation} failed with ${code} (${NOT_EVALUATED_CAUSES[kind] ?? "error"}): ${detail}`
/** A not-evaluated finding's reason: its first row's, and how many other inputs could not be read. */
export const notEvaluatedSummary = (first: string, others: number): string =>
  others === 0 ? first : `${first} (and ${others} other input${others === 1 ? "" : "s"})`
/** The message stored on a remediation whose fixer threw. */
export const remediationFailedMessage = (detail: string): string => `Remediation failed: ${detail}`
