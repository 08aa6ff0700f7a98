/**
 * The server's own user-visible texts the access spec gives no wording for, and the platform's (request-level) texts.
 * Part of the one place every user-visible text lives (messages.ts re-exports this module); a module of its own so
 * that the sign-in page does not carry them.
 */

/**
 * Access area: the server's answers (error bodies, success messages, skip reasons of a bulk invite) for which the
 * spec gives no text. Listed in docs/identity.md.
 */
export const AccessServerMessages = {
  invalidCredentials: "Invalid email or password",
  workspaceRequired: "Please select a workspace (X-Workspace-ID header missing or invalid)",
  workspaceAccessDenied: "You do not have access to this workspace",
  loggedOut: "Logged out",
  memberNotFound: "Team member not found",
  roleNotFound: "Role not found",
  invitationNotFound: "Invitation not found",
  invitationNotPending: "Only pending invitations can be resent or canceled",
  cannotDeleteSelf: "You cannot delete your own account from the workspace",
  cannotDeleteOwner: "The workspace owner cannot be removed",
  onlyOwnerChangesRoles: "Only the workspace owner can change a member's role",
  ownerRoleFixed: "The owner's role cannot be changed",
  cannotGrantRole: "You cannot grant a role with permissions you do not hold",
  emailInUse: "An account with this email already exists",
  memberAlreadyExists: "This user is already a member of this workspace",
  userAlreadyExistsElsewhere: "An account with this email already exists. Invite them instead.",
  roleNameExists: "A role with this name already exists",
  roleInUse: "This role is assigned to members; assign them another role first",
  currentPasswordWrong: "Current password is incorrect",
  invitationOtherEmail: "This invitation was sent to a different email address",
  invitationSignInRequired: "An account with this email already exists. Please sign in to accept the invitation.",
  invitationAccepted: "Invitation accepted",
  invitationSignupDetailsRequired: "First name, last name and password are required to complete signup",
  /** Skip reasons of a bulk invite (the SPA shows the first one in the 'Skipped:' toast). */
  alreadyMemberSkip: "already a member",
  invalidRoleSkip: "invalid role",
  roleNotGrantableSkip: "role not allowed",
  emailChangePending:
    "Profile updated successfully. Please verify your new email address; until then, sign in with your current email.",
  invalidTimezone: "Unknown timezone",
  roleCreated: "Role created",
  roleUpdated: "Role updated",
  roleDeleted: "Role deleted",
  memberUpdated: "Team member updated successfully",
} as const

/** The platform's own answers (any endpoint): the spec gives no text for them. */
export const PlatformMessages = {
  /** 500 body; the SPA shows access §8's 'We're experiencing technical difficulties…' for any 500 anyway. */
  serverError: "An unexpected error occurred. Please try again later.",
  bodyTooLarge: "The request body is too large",
  bodyUnreadable: "The request body could not be read",
  requestNotProcessed: "The request could not be processed",
  databaseUnavailable: "The database is unavailable. Please try again later.",
  invalidCharacter: "Contains an invalid character",
  /** A path id that is not a plain positive whole number (`1;x`, `01`, `+1`, `1e0`, over 2147483647). */
  invalidId: "Invalid ID",
  notFound: "Not found",
  unsupportedContentType: "The request body must be JSON (Content-Type: application/json)",
  headersTooLarge: "The request headers or URL are too large",
  /** 408: the headers or the body did not arrive in time (HTTP_HEADERS_TIMEOUT_SECONDS / HTTP_REQUEST_TIMEOUT_SECONDS). */
  requestTimedOut: "The request took too long to arrive",
} as const
