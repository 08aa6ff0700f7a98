/**
 * The HttpApi definition of the whole product: one group per area, covering every call of the access
 * spec §7 and the scanning spec §7, plus the few calls we add (each marked "beyond the spec").
 * Paths the spec does not show are our choice; docs/api.md lists them.
 *
 * Conventions:
 * - Every path starts with /api. Every endpoint declares its success schema and the catalogue errors it
 *   may answer with (`src/contracts/errors.ts`); undeclared failures become 500 `ServerError`.
 * - Authentication (bearer access token) and workspace scoping (`X-Workspace-ID`) are applied by the
 *   server itself; they are not declared as middleware here so the contract stays free of server code.
 * - The export call answers a file (`text/csv` or `application/json`) as a byte stream; the server
 *   handler sets the exact Content-Type and a Content-Disposition file name (`exportFileName`).
 */
import { Schema } from "effect"
import { HttpApi, HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { AccountId, FleetScanId, InvitationId, RoleId, ScanId, FindingId, WorkspaceId, idParam } from "./ids.ts"
import {
  AwsTemplateQuery,
  AwsTemplateResponse,
  FleetFilter,
  OrgComplianceQuery,
  FleetQuery,
  FleetResponse,
  OrgComplianceCsvQuery,
  OrgComplianceResponse,
  FleetScanResponse,
  FleetScansResponse,
  OrganizationResponse,
  OrganizationsResponse,
  SelectionPayload,
  SyncResponse,
  SyncsResponse,
} from "./organizations.ts"
import { RetentionSetting, WorkspaceStorageResponse } from "./storage.ts"
import {
  RemediationConflict,
  RemediationIdParams,
  RemediationListResponse,
  RemediationPreviewPayload,
  RemediationPreviewResponse,
  RemediationResponse,
  RemediationsQuery,
  UndoPayload,
} from "./remediations.ts"
import {
  BatchActionResponse,
  BatchCreatedResponse,
  BatchesQuery,
  BatchItemsQuery,
  BatchItemsResponse,
  BatchUndoPayload,
  CreateBatchPayload,
  RemediationBatchesResponse,
  RemediationBatchIdParams,
  RemediationBatchResponse,
} from "./remediation-batches.ts"
import {
  CreateWebhookPayload,
  DeliveriesQuery,
  DeliveriesResponse,
  DeliveryQueuedResponse,
  UpdateWebhookPayload,
  WebhookCreatedResponse,
  WebhookDeletedResponse,
  WebhookDeliveryParams,
  WebhookIdParams,
  WebhookResponse,
  WebhooksResponse,
} from "./webhooks.ts"
import {
  OidcCallbackQuery,
  SamlAcsPayload,
  SsoConnectionPayload,
  SsoExchangePayload,
  SsoExchangeResponse,
  SsoSettingsResponse,
  SsoStartPayload,
  SsoStartResponse,
} from "./sso.ts"
import { ApiKeyCreatedResponse, ApiKeyIdParams, ApiKeyRevokeResponse, ApiKeysResponse, CreateApiKeyPayload } from "./api-keys.ts"
import {
  SecurityHubAccountParams,
  SecurityHubAccountsResponse,
  SecurityHubExportResponse,
  SecurityHubSettingsPayload,
  SecurityHubSettingsResponse,
} from "./security-hub.ts"
import {
  CreateJiraIssuesPayload,
  CreateJiraIssuesResponse,
  FindingIssueParams,
  FindingJiraIssuesResponse,
  JiraConnectionPayload,
  JiraConnectionResponse,
  JiraConnectionSaved,
  JiraRemoveResponse,
  JiraTestResponse,
} from "./jira.ts"
import { AccountGroupDeleteResponse, AccountGroupIdParams, AccountGroupPayload, AccountGroupResponse, AccountGroupsResponse } from "./account-groups.ts"
import { OkMessage, Timestamp, withData } from "./common.ts"
import {
  DigestPreference,
  DigestPreferenceResponse,
  MuteRuleDeleteResponse,
  MuteRuleIdParams,
  MuteRuleListResponse,
  MuteRulePayload,
  MuteRuleResponse,
  MuteRulesQuery,
  PostureOverviewResponse,
  ResourceHistoryQuery,
  ResourceHistoryResponse,
  ScanSchedulePayload,
  ScanScheduleResponse,
} from "./posture.ts"
import {
  AlreadyVerified,
  CommonErrors,
  Conflict,
  EmailNotVerified,
  Forbidden,
  Gone,
  InvalidCredentials,
  InvalidToken,
  NotFound,
  ServiceUnavailable,
  Unauthorized,
  UserNotFound,
  WorkspaceErrors,
  WorkspaceNotFound,
  WorkspaceAccessDenied,
  AuthErrors,
} from "./errors.ts"
import {
  ForgotPasswordPayload,
  LoginPayload,
  LoginResponse,
  LogoutPayload,
  RefreshPayload,
  ResendVerificationPayload,
  ResendVerificationResponse,
  ResetPasswordPayload,
  SignupPayload,
  SignupResponse,
  TokenResponse,
  UserInfoResponse,
  ValidateResetTokenPayload,
  ValidateResetTokenResponse,
  VerifyEmailParams,
  VerifyEmailResponse,
} from "./auth.ts"
import {
  AcceptWorkspaceInvitationPayload,
  AcceptWorkspaceInvitationResponse,
  SwitchWorkspacePayload,
  SwitchWorkspaceResponse,
  UserPermissionsResponse,
  WorkspaceInfoResponse,
  WorkspaceListResponse,
} from "./workspaces.ts"
import {
  CreateUserPayload,
  CreateUserResponse,
  CustomRolePayload,
  CustomRoleResponse,
  DeleteUserQuery,
  MemberPasswordResetPayload,
  RolesResponse,
  TeamMembersResponse,
  UpdateTeamMemberPayload,
  UpdateTeamMemberResponse,
} from "./team.ts"
import {
  AcceptInvitationPayload,
  AcceptInvitationResponse,
  BulkInvitePayload,
  BulkInviteResponse,
  InvitationCheckResponse,
  InvitationListResponse,
  ResendInvitationResponse,
} from "./invitations.ts"
import { ChangePasswordResponse, ChangePasswordPayload, TimezonesResponse, UpdateProfilePayload, UpdateProfileResponse } from "./profile.ts"
import { CloudProvidersResponse } from "./providers.ts"
import {
  AccountDetailResponse,
  AccountsQuery,
  AccountsResponse,
  AddAccountPayload,
  AddAccountResponse,
  DeleteAccountResponse,
  ExternalIdResponse,
  RevealSecretResponse,
} from "./accounts.ts"
import {
  CancelScanResponse,
  ExportQuery,
  ScanListResponse,
  ScanResponse,
  ScanStartPayload,
  ScanStartResponse,
  ScansQuery,
} from "./scans.ts"
import { FindingDetailQuery, FindingListResponse, FindingResponse, FindingsQuery, RemediatePayload, RemediateResponse } from "./findings.ts"
import {
  ApprovalSetting,
  ApprovalSettingResponse,
  DecisionPayload,
  RemediationRequestedResponse,
  RemediationRequestIdParams,
  RemediationRequestResponse,
  RemediationRequestsQuery,
  RemediationRequestsResponse,
} from "./remediation-requests.ts"
import {
  ComplianceAccountsResponse,
  CreateReportPayload,
  FrameworkDetailResponse,
  FrameworkId,
  FrameworkListResponse,
  ReportId,
  ReportListQuery,
  ReportListResponse,
  ReportResponse,
  RequirementDetailQuery,
  RequirementDetailResponse,
  RequirementId,
  ScanComplianceResponse,
  ScanFrameworkResponse,
  TrendQuery,
  TrendResponse,
} from "./compliance.ts"

// ---------------------------------------------------------------------------------------------------
// system

export const HealthResponse = Schema.Struct({ status: Schema.Literal("ok"), database: Schema.Literal("ok") })
export type HealthResponse = typeof HealthResponse.Type

/** One captured mail of the development outbox (no SMTP_URL). */
export const OutboxMail = Schema.Struct({
  id: Schema.String,
  to: Schema.String,
  subject: Schema.String,
  text: Schema.String,
  html: Schema.optionalKey(Schema.String),
  links: Schema.Array(Schema.String),
  created_at: Timestamp,
})
export type OutboxMail = typeof OutboxMail.Type
export const OutboxResponse = withData(Schema.Array(OutboxMail))
export type OutboxResponse = typeof OutboxResponse.Type

export const OutboxQuery = Schema.Struct({ to: Schema.optionalKey(Schema.String) })

export class SystemGroup extends HttpApiGroup.make("system")
  .add(
    HttpApiEndpoint.get("health", "/api/health", {
      success: HealthResponse,
      error: [ServiceUnavailable, ...CommonErrors],
    }),
    /** Beyond the spec: development-only mail outbox (404 outside development). */
    HttpApiEndpoint.get("devOutbox", "/api/dev/outbox", {
      query: OutboxQuery,
      success: OutboxResponse,
      error: [NotFound, ...CommonErrors],
    }),
  )
  .annotateMerge(OpenApi.annotations({ title: "System", description: "Health check and development helpers." })) {}

// ---------------------------------------------------------------------------------------------------
// auth (access §7)

export class AuthGroup extends HttpApiGroup.make("auth")
  .add(
    HttpApiEndpoint.post("login", "/api/login", {
      payload: LoginPayload,
      success: LoginResponse,
      error: [InvalidCredentials, EmailNotVerified, Unauthorized, Forbidden, ...CommonErrors],
    }),
    HttpApiEndpoint.post("signup", "/api/signup", {
      payload: SignupPayload,
      success: SignupResponse,
      error: [Conflict, ...CommonErrors],
    }),
    HttpApiEndpoint.post("logout", "/api/logout", {
      payload: LogoutPayload,
      success: OkMessage,
      error: [...AuthErrors, ...CommonErrors],
    }),
    HttpApiEndpoint.post("refreshToken", "/api/refresh-token", {
      payload: RefreshPayload,
      success: TokenResponse,
      error: [Unauthorized, Forbidden, ...CommonErrors],
    }),
    HttpApiEndpoint.get("userInfo", "/api/user-info", {
      success: UserInfoResponse,
      error: [...AuthErrors, UserNotFound, ...CommonErrors],
    }),
    HttpApiEndpoint.post("forgotPassword", "/api/forgot-password", {
      payload: ForgotPasswordPayload,
      success: OkMessage,
      error: [Forbidden, ...CommonErrors],
    }),
    HttpApiEndpoint.post("validateResetToken", "/api/validate-reset-token", {
      payload: ValidateResetTokenPayload,
      success: ValidateResetTokenResponse,
      error: [InvalidToken, Gone, NotFound, ...CommonErrors],
    }),
    HttpApiEndpoint.post("resetPassword", "/api/reset-password", {
      payload: ResetPasswordPayload,
      success: OkMessage,
      error: [InvalidToken, Gone, NotFound, Forbidden, ...CommonErrors],
    }),
    /** The spec is uncertain between GET and POST: both are served. */
    HttpApiEndpoint.get("verifyEmail", "/api/verify-email", {
      query: VerifyEmailParams,
      success: VerifyEmailResponse,
      error: [InvalidToken, UserNotFound, AlreadyVerified, Gone, ...CommonErrors],
    }),
    HttpApiEndpoint.post("verifyEmailPost", "/api/verify-email", {
      payload: VerifyEmailParams,
      success: VerifyEmailResponse,
      error: [InvalidToken, UserNotFound, AlreadyVerified, Gone, ...CommonErrors],
    }),
    HttpApiEndpoint.post("resendVerification", "/api/resend-verification-link", {
      payload: ResendVerificationPayload,
      success: ResendVerificationResponse,
      error: [AlreadyVerified, UserNotFound, ...CommonErrors],
    }),
  )
  .annotateMerge(
    OpenApi.annotations({
      title: "Auth",
      description: "Sign-in, sign-up, tokens, password reset and email verification (access spec §7).",
    }),
  ) {}

// ---------------------------------------------------------------------------------------------------
// workspaces (access §7; the spec shows no path for several of these: ours are listed in docs/api.md)

export class WorkspacesGroup extends HttpApiGroup.make("workspaces")
  .add(
    HttpApiEndpoint.get("list", "/api/workspaces", {
      success: WorkspaceListResponse,
      error: [...AuthErrors, ...CommonErrors],
    }),
    HttpApiEndpoint.post("switch", "/api/user/switch-workspace", {
      payload: SwitchWorkspacePayload,
      success: SwitchWorkspaceResponse,
      error: [...AuthErrors, WorkspaceNotFound, WorkspaceAccessDenied, ...CommonErrors],
    }),
    HttpApiEndpoint.post("acceptInvitation", "/api/workspaces/accept-invitation", {
      payload: AcceptWorkspaceInvitationPayload,
      success: AcceptWorkspaceInvitationResponse,
      error: [...AuthErrors, InvalidToken, NotFound, Gone, Conflict, ...CommonErrors],
    }),
    HttpApiEndpoint.get("permissions", "/api/user/permissions", {
      success: UserPermissionsResponse,
      error: [...WorkspaceErrors, ...CommonErrors],
    }),
    HttpApiEndpoint.get("info", "/api/workspace-info", {
      success: WorkspaceInfoResponse,
      error: [...WorkspaceErrors, ...CommonErrors],
    }),
  )
  .annotateMerge(
    OpenApi.annotations({
      title: "Workspaces",
      description: "Workspace list, selection, invitations by token, permissions and workspace info.",
    }),
  ) {}

// ---------------------------------------------------------------------------------------------------
// team (access §7) + custom roles (beyond the spec)

export const RoleIdParams = Schema.Struct({ id: idParam(RoleId) })

export class TeamGroup extends HttpApiGroup.make("team")
  .add(
    HttpApiEndpoint.get("members", "/api/team-members", {
      success: TeamMembersResponse,
      error: [...WorkspaceErrors, ...CommonErrors],
    }),
    HttpApiEndpoint.post("createUser", "/api/admin/users", {
      payload: CreateUserPayload,
      success: CreateUserResponse,
      error: [...WorkspaceErrors, Conflict, NotFound, ...CommonErrors],
    }),
    HttpApiEndpoint.delete("deleteUser", "/api/admin/users", {
      query: DeleteUserQuery,
      success: OkMessage,
      error: [...WorkspaceErrors, NotFound, ...CommonErrors],
    }),
    HttpApiEndpoint.put("updateMember", "/api/team-member", {
      payload: UpdateTeamMemberPayload,
      success: UpdateTeamMemberResponse,
      error: [...WorkspaceErrors, NotFound, ...CommonErrors],
    }),
    HttpApiEndpoint.post("memberPasswordReset", "/api/admin/users/reset-password", {
      payload: MemberPasswordResetPayload,
      success: OkMessage,
      error: [...WorkspaceErrors, NotFound, ...CommonErrors],
    }),
    HttpApiEndpoint.get("roles", "/api/roles", {
      success: RolesResponse,
      error: [...WorkspaceErrors, ...CommonErrors],
    }),
    /** Beyond the spec: custom roles per workspace. */
    HttpApiEndpoint.post("createCustomRole", "/api/roles/custom", {
      payload: CustomRolePayload,
      success: CustomRoleResponse,
      error: [...WorkspaceErrors, Conflict, ...CommonErrors],
    }),
    HttpApiEndpoint.put("updateCustomRole", "/api/roles/custom/:id", {
      params: RoleIdParams,
      payload: CustomRolePayload,
      success: CustomRoleResponse,
      error: [...WorkspaceErrors, NotFound, Conflict, ...CommonErrors],
    }),
    HttpApiEndpoint.delete("deleteCustomRole", "/api/roles/custom/:id", {
      params: RoleIdParams,
      success: OkMessage,
      error: [...WorkspaceErrors, NotFound, Conflict, ...CommonErrors],
    }),
  )
  .annotateMerge(
    OpenApi.annotations({ title: "Team", description: "Team members, roles and custom roles (access spec §7)." }),
  ) {}

// ---------------------------------------------------------------------------------------------------
// invitations (access §7)

export class InvitationsGroup extends HttpApiGroup.make("invitations")
  .add(
    HttpApiEndpoint.post("invite", "/api/admin/users/invite", {
      payload: BulkInvitePayload,
      success: BulkInviteResponse,
      error: [...WorkspaceErrors, ...CommonErrors],
    }),
    HttpApiEndpoint.get("list", "/api/admin/users/invitations", {
      success: InvitationListResponse,
      error: [...WorkspaceErrors, ...CommonErrors],
    }),
    HttpApiEndpoint.post("resend", "/api/admin/users/invitations/:invitation_id/resend", {
      params: { invitation_id: idParam(InvitationId) },
      success: ResendInvitationResponse,
      error: [...WorkspaceErrors, NotFound, Conflict, ...CommonErrors],
    }),
    HttpApiEndpoint.delete("cancel", "/api/admin/users/invitations/:id", {
      params: { id: idParam(InvitationId) },
      success: OkMessage,
      error: [...WorkspaceErrors, NotFound, Conflict, ...CommonErrors],
    }),
    HttpApiEndpoint.get("check", "/api/invitation/verify/:token", {
      params: { token: Schema.String },
      success: InvitationCheckResponse,
      error: [InvalidToken, NotFound, Gone, Conflict, ...CommonErrors],
    }),
    /** Both accept-by-link paths of the spec are served, with the same payload and answer. */
    HttpApiEndpoint.post("accept", "/api/invitations/accept", {
      payload: AcceptInvitationPayload,
      success: AcceptInvitationResponse,
      error: [...AuthErrors, InvalidToken, NotFound, Gone, Conflict, ...CommonErrors],
    }),
    HttpApiEndpoint.post("acceptAlias", "/api/invitation/accept", {
      payload: AcceptInvitationPayload,
      success: AcceptInvitationResponse,
      error: [...AuthErrors, InvalidToken, NotFound, Gone, Conflict, ...CommonErrors],
    }),
  )
  .annotateMerge(
    OpenApi.annotations({
      title: "Invitations",
      description: "Bulk invitations, their list, resend and cancel; checking and accepting by link (access spec §7).",
    }),
  ) {}

// ---------------------------------------------------------------------------------------------------
// profile (access §7)

export class ProfileGroup extends HttpApiGroup.make("profile")
  .add(
    HttpApiEndpoint.put("update", "/api/update-user-info", {
      payload: UpdateProfilePayload,
      success: UpdateProfileResponse,
      error: [...AuthErrors, Conflict, ...CommonErrors],
    }),
    HttpApiEndpoint.post("changePassword", "/api/update-password", {
      payload: ChangePasswordPayload,
      success: ChangePasswordResponse,
      error: [...AuthErrors, InvalidCredentials, ...CommonErrors],
    }),
    HttpApiEndpoint.get("timezones", "/api/timezones", {
      success: TimezonesResponse,
      error: CommonErrors,
    }),
  )
  .annotateMerge(OpenApi.annotations({ title: "Profile", description: "Profile, password change and timezones." })) {}

// ---------------------------------------------------------------------------------------------------
// providers, accounts, scans, findings (scanning §7)

export class ProvidersGroup extends HttpApiGroup.make("providers")
  .add(
    HttpApiEndpoint.get("list", "/api/cloud-providers", {
      success: CloudProvidersResponse,
      error: [...WorkspaceErrors, ...CommonErrors],
    }),
  )
  .annotateMerge(OpenApi.annotations({ title: "Cloud providers", description: "Providers the server supports." })) {}

export const AccountIdParams = Schema.Struct({ id: idParam(AccountId) })

export class AccountsGroup extends HttpApiGroup.make("accounts")
  .add(
    HttpApiEndpoint.get("list", "/api/accounts", {
      query: AccountsQuery,
      success: AccountsResponse,
      error: [...WorkspaceErrors, ...CommonErrors],
    }),
    /**
     * Beyond the spec: the workspace's AWS external id (created on first use), shown by the add-account wizard;
     * needs create_account. Static segment, so the router never takes it for `/api/accounts/:id`.
     */
    HttpApiEndpoint.get("externalId", "/api/accounts/external-id", {
      success: ExternalIdResponse,
      error: [...WorkspaceErrors, ...CommonErrors],
    }),
    HttpApiEndpoint.get("get", "/api/accounts/:id", {
      params: AccountIdParams,
      success: AccountDetailResponse,
      error: [...WorkspaceErrors, NotFound, ...CommonErrors],
    }),
    /** Also tests the connection; wrong cloud credentials answer 401 `Unauthorized`, duplicates 409. */
    HttpApiEndpoint.post("create", "/api/accounts", {
      payload: AddAccountPayload,
      success: AddAccountResponse,
      error: [...WorkspaceErrors, Conflict, ...CommonErrors],
    }),
    HttpApiEndpoint.delete("delete", "/api/accounts/:id", {
      params: AccountIdParams,
      success: DeleteAccountResponse,
      error: [...WorkspaceErrors, NotFound, Conflict, ...CommonErrors],
    }),
    /** Beyond the spec: the audited, permission-checked reveal of the stored secret. */
    HttpApiEndpoint.post("revealSecret", "/api/accounts/:id/reveal-secret", {
      params: AccountIdParams,
      success: RevealSecretResponse,
      error: [...WorkspaceErrors, NotFound, ...CommonErrors],
    }),
  )
  .annotateMerge(OpenApi.annotations({ title: "Accounts", description: "Connected cloud accounts (scanning spec §7)." })) {}

export const ScanIdParams = Schema.Struct({ id: idParam(ScanId) })

/** The export file: a byte stream sent as text/csv (csv) or application/json (json, ocsf). */
export const ExportFile = HttpApiSchema.StreamUint8Array({ contentType: ["text/csv", "application/json"] })

export class ScansGroup extends HttpApiGroup.make("scans")
  .add(
    HttpApiEndpoint.post("start", "/api/scans", {
      payload: ScanStartPayload,
      success: ScanStartResponse,
      error: [...WorkspaceErrors, NotFound, Conflict, ...CommonErrors],
    }),
    HttpApiEndpoint.get("list", "/api/scans", {
      query: ScansQuery,
      success: ScanListResponse,
      error: [...WorkspaceErrors, ...CommonErrors],
    }),
    HttpApiEndpoint.get("get", "/api/scans/:id", {
      params: ScanIdParams,
      success: ScanResponse,
      error: [...WorkspaceErrors, NotFound, ...CommonErrors],
    }),
    HttpApiEndpoint.get("export", "/api/scans/:id/export", {
      params: ScanIdParams,
      query: ExportQuery,
      success: ExportFile,
      error: [...WorkspaceErrors, NotFound, Conflict, ...CommonErrors],
    }),
    /** Beyond the spec: cancel a pending or running scan. */
    HttpApiEndpoint.post("cancel", "/api/scans/:id/cancel", {
      params: ScanIdParams,
      success: CancelScanResponse,
      error: [...WorkspaceErrors, NotFound, Conflict, ...CommonErrors],
    }),
  )
  .annotateMerge(OpenApi.annotations({ title: "Scans", description: "Scans, per-service results and export (scanning spec §7)." })) {}

export const FindingIdParams = Schema.Struct({ id: idParam(FindingId) })

export class FindingsGroup extends HttpApiGroup.make("findings")
  .add(
    HttpApiEndpoint.get("list", "/api/findings", {
      query: FindingsQuery,
      success: FindingListResponse,
      error: [...WorkspaceErrors, NotFound, ...CommonErrors],
    }),
    HttpApiEndpoint.get("get", "/api/findings/:id", {
      params: FindingIdParams,
      query: FindingDetailQuery,
      success: FindingResponse,
      error: [...WorkspaceErrors, NotFound, ...CommonErrors],
    }),
    HttpApiEndpoint.post("remediate", "/api/findings/:id/remediate", {
      params: FindingIdParams,
      payload: RemediatePayload,
      // 202 with the request created when the account requires approval (issue 32, ./remediation-requests.ts).
      success: [RemediationRequestedResponse, RemediateResponse],
      error: [...WorkspaceErrors, NotFound, Conflict, ...CommonErrors],
    }),
  )
  .annotateMerge(OpenApi.annotations({ title: "Findings", description: "Findings and remediation (scanning spec §7)." })) {}

// ---------------------------------------------------------------------------------------------------
// compliance and reports (beyond the spec: issue 14; src/contracts/compliance.ts)

const ScanFrameworkParams = Schema.Struct({ scan_id: idParam(ScanId), framework_id: FrameworkId })
/** The framework CSV (text/csv) and the PDF report (application/pdf), each a byte stream. */
export const ComplianceCsvFile = HttpApiSchema.StreamUint8Array({ contentType: ["text/csv"] })
export const ReportPdfFile = HttpApiSchema.StreamUint8Array({ contentType: ["application/pdf"] })

export class ComplianceGroup extends HttpApiGroup.make("compliance")
  .add(
    HttpApiEndpoint.get("frameworks", "/api/compliance/frameworks", {
      success: FrameworkListResponse,
      error: [...WorkspaceErrors, ...CommonErrors],
    }),
    HttpApiEndpoint.get("framework", "/api/compliance/frameworks/:framework_id", {
      params: { framework_id: FrameworkId },
      success: FrameworkDetailResponse,
      error: [...WorkspaceErrors, NotFound, ...CommonErrors],
    }),
    HttpApiEndpoint.get("accounts", "/api/compliance/accounts", {
      success: ComplianceAccountsResponse,
      error: [...WorkspaceErrors, ...CommonErrors],
    }),
    HttpApiEndpoint.get("trend", "/api/compliance/accounts/:account_id/frameworks/:framework_id/trend", {
      params: { account_id: idParam(AccountId), framework_id: FrameworkId },
      query: TrendQuery,
      success: TrendResponse,
      error: [...WorkspaceErrors, NotFound, ...CommonErrors],
    }),
    HttpApiEndpoint.get("scan", "/api/compliance/scans/:scan_id", {
      params: { scan_id: idParam(ScanId) },
      success: ScanComplianceResponse,
      error: [...WorkspaceErrors, NotFound, Conflict, ...CommonErrors],
    }),
    HttpApiEndpoint.get("scanFramework", "/api/compliance/scans/:scan_id/frameworks/:framework_id", {
      params: ScanFrameworkParams,
      success: ScanFrameworkResponse,
      error: [...WorkspaceErrors, NotFound, Conflict, ...CommonErrors],
    }),
    HttpApiEndpoint.get("requirement", "/api/compliance/scans/:scan_id/frameworks/:framework_id/requirements/:requirement_id", {
      params: { scan_id: idParam(ScanId), framework_id: FrameworkId, requirement_id: RequirementId },
      query: RequirementDetailQuery,
      success: RequirementDetailResponse,
      error: [...WorkspaceErrors, NotFound, Conflict, ...CommonErrors],
    }),
    HttpApiEndpoint.get("csv", "/api/compliance/scans/:scan_id/frameworks/:framework_id/csv", {
      params: ScanFrameworkParams,
      success: ComplianceCsvFile,
      error: [...WorkspaceErrors, NotFound, Conflict, ...CommonErrors],
    }),
    /** The scan's reports, newest first: the screen finds a report started earlier (still running, or ready). */
    HttpApiEndpoint.get("reports", "/api/compliance/scans/:scan_id/reports", {
      params: { scan_id: idParam(ScanId) },
      query: ReportListQuery,
      success: ReportListResponse,
      error: [...WorkspaceErrors, NotFound, ...CommonErrors],
    }),
    /** Starts the PDF report job (202-like: answers the pending report at once). */
    HttpApiEndpoint.post("createReport", "/api/compliance/scans/:scan_id/reports", {
      params: { scan_id: idParam(ScanId) },
      payload: CreateReportPayload,
      success: ReportResponse,
      error: [...WorkspaceErrors, NotFound, Conflict, ...CommonErrors],
    }),
    HttpApiEndpoint.get("report", "/api/compliance/reports/:report_id", {
      params: { report_id: idParam(ReportId) },
      success: ReportResponse,
      error: [...WorkspaceErrors, NotFound, ...CommonErrors],
    }),
    HttpApiEndpoint.get("downloadReport", "/api/compliance/reports/:report_id/download", {
      params: { report_id: idParam(ReportId) },
      success: ReportPdfFile,
      error: [...WorkspaceErrors, NotFound, Conflict, ...CommonErrors],
    }),
  )
  .annotateMerge(
    OpenApi.annotations({
      title: "Compliance",
      description:
        "Frameworks and their requirements, per-scan requirement status and score, an account's trend, the requirement drill-down, the framework CSV and PDF reports made by a job (beyond the spec).",
    }),
  ) {}

// ---------------------------------------------------------------------------------------------------
// posture (beyond the spec, issue 13): mute rules, scan schedules, scan digest preference

export class PostureGroup extends HttpApiGroup.make("posture")
  .add(
    HttpApiEndpoint.get("listMuteRules", "/api/mute-rules", {
      query: MuteRulesQuery,
      success: MuteRuleListResponse,
      error: [...WorkspaceErrors, ...CommonErrors],
    }),
    HttpApiEndpoint.post("createMuteRule", "/api/mute-rules", {
      payload: MuteRulePayload,
      success: MuteRuleResponse,
      error: [...WorkspaceErrors, ...CommonErrors],
    }),
    HttpApiEndpoint.put("updateMuteRule", "/api/mute-rules/:id", {
      params: MuteRuleIdParams,
      payload: MuteRulePayload,
      success: MuteRuleResponse,
      error: [...WorkspaceErrors, NotFound, ...CommonErrors],
    }),
    HttpApiEndpoint.delete("deleteMuteRule", "/api/mute-rules/:id", {
      params: MuteRuleIdParams,
      success: MuteRuleDeleteResponse,
      error: [...WorkspaceErrors, NotFound, ...CommonErrors],
    }),
    HttpApiEndpoint.get("getSchedule", "/api/accounts/:id/schedule", {
      params: AccountIdParams,
      success: ScanScheduleResponse,
      error: [...WorkspaceErrors, NotFound, ...CommonErrors],
    }),
    HttpApiEndpoint.put("putSchedule", "/api/accounts/:id/schedule", {
      params: AccountIdParams,
      payload: ScanSchedulePayload,
      success: ScanScheduleResponse,
      error: [...WorkspaceErrors, NotFound, ...CommonErrors],
    }),
    HttpApiEndpoint.get("resourceHistory", "/api/resources/history", {
      query: ResourceHistoryQuery,
      success: ResourceHistoryResponse,
      error: [...WorkspaceErrors, NotFound, ...CommonErrors],
    }),
    HttpApiEndpoint.get("overview", "/api/posture/overview", {
      success: PostureOverviewResponse,
      error: [...WorkspaceErrors, ...CommonErrors],
    }),
    HttpApiEndpoint.get("getDigest", "/api/user/scan-digest", {
      success: DigestPreferenceResponse,
      error: [...AuthErrors, ...CommonErrors],
    }),
    HttpApiEndpoint.put("putDigest", "/api/user/scan-digest", {
      payload: DigestPreference,
      success: DigestPreferenceResponse,
      error: [...AuthErrors, ...CommonErrors],
    }),
  )
  .annotateMerge(
    OpenApi.annotations({
      title: "Posture",
      description:
        "Beyond the spec: mute rules (accepted risks, applied to every stored scan at once), scan schedules with their scope, and the scan digest email preference.",
    }),
  ) {}

// ---------------------------------------------------------------------------------------------------
// storage and retention (beyond the spec, issue 30; src/contracts/storage.ts): workspace admins only

export const WorkspaceIdParams = Schema.Struct({ id: idParam(WorkspaceId) })

export class StorageGroup extends HttpApiGroup.make("storage")
  .add(
    HttpApiEndpoint.get("getStorage", "/api/workspaces/:id/storage", {
      params: WorkspaceIdParams,
      success: WorkspaceStorageResponse,
      error: [...WorkspaceErrors, ...CommonErrors],
    }),
    /** Saves the retention setting; answers the storage page recomputed with it. */
    HttpApiEndpoint.put("putRetention", "/api/workspaces/:id/retention", {
      params: WorkspaceIdParams,
      payload: RetentionSetting,
      success: WorkspaceStorageResponse,
      error: [...WorkspaceErrors, ...CommonErrors],
    }),
  )
  .annotateMerge(
    OpenApi.annotations({
      title: "Storage",
      description:
        "Beyond the spec: what the workspace's scan history occupies per account, what its retention setting would free, and the setting itself (workspace admins: the owner, or a member holding every permission).",
    }),
  ) {}

// ---------------------------------------------------------------------------------------------------
// organisations and fleets (beyond the spec, issue 31; src/contracts/organizations.ts)

export const FleetScanIdParams = Schema.Struct({ id: idParam(FleetScanId) })
const OrgFrameworkParams = Schema.Struct({ id: idParam(AccountId), framework_id: FrameworkId })

export class OrganizationsGroup extends HttpApiGroup.make("organizations")
  .add(
    HttpApiEndpoint.get("list", "/api/organizations", {
      success: OrganizationsResponse,
      error: [...WorkspaceErrors, ...CommonErrors],
    }),
    /** The CloudFormation template deploying the member role (stack + service-managed StackSet); needs create_account. */
    HttpApiEndpoint.get("awsTemplate", "/api/organizations/aws-template", {
      query: AwsTemplateQuery,
      success: AwsTemplateResponse,
      error: [...WorkspaceErrors, ...CommonErrors],
    }),
    HttpApiEndpoint.get("get", "/api/organizations/:id", {
      params: AccountIdParams,
      success: OrganizationResponse,
      error: [...WorkspaceErrors, NotFound, ...CommonErrors],
    }),
    /** Saves which units and accounts are included, then re-syncs; answers the organisation. */
    HttpApiEndpoint.put("putSelection", "/api/organizations/:id/selection", {
      params: AccountIdParams,
      payload: SelectionPayload,
      success: OrganizationResponse,
      error: [...WorkspaceErrors, NotFound, Conflict, ...CommonErrors],
    }),
    HttpApiEndpoint.get("syncs", "/api/organizations/:id/syncs", {
      params: AccountIdParams,
      success: SyncsResponse,
      error: [...WorkspaceErrors, NotFound, ...CommonErrors],
    }),
    /** Rediscovers the organisation now: new members join, removed or closed members retire (history kept). */
    HttpApiEndpoint.post("sync", "/api/accounts/:id/sync", {
      params: AccountIdParams,
      success: SyncResponse,
      error: [...WorkspaceErrors, NotFound, Conflict, ...CommonErrors],
    }),
    HttpApiEndpoint.get("fleetScans", "/api/organizations/:id/fleet-scans", {
      params: AccountIdParams,
      success: FleetScansResponse,
      error: [...WorkspaceErrors, NotFound, ...CommonErrors],
    }),
    HttpApiEndpoint.get("fleetScan", "/api/fleet-scans/:id", {
      params: FleetScanIdParams,
      success: FleetScanResponse,
      error: [...WorkspaceErrors, NotFound, ...CommonErrors],
    }),
    /** The fleet dashboard: a page of the members (not retired) × severity by their latest completed scan, risk, stale members; totals and trend over all of them. */
    HttpApiEndpoint.get("fleet", "/api/organizations/:id/fleet", {
      params: AccountIdParams,
      query: FleetQuery,
      success: FleetResponse,
      error: [...WorkspaceErrors, NotFound, ...CommonErrors],
    }),
    /** Per requirement of the framework, the members passing, failing, with exceptions, not evaluated (latest completed scans). */
    HttpApiEndpoint.get("orgCompliance", "/api/organizations/:id/compliance/:framework_id", {
      params: OrgFrameworkParams,
      query: OrgComplianceQuery,
      success: OrgComplianceResponse,
      error: [...WorkspaceErrors, NotFound, ...CommonErrors],
    }),
    HttpApiEndpoint.get("orgComplianceCsv", "/api/organizations/:id/compliance/:framework_id/csv", {
      params: OrgFrameworkParams,
      query: OrgComplianceCsvQuery,
      success: ComplianceCsvFile,
      error: [...WorkspaceErrors, NotFound, ...CommonErrors],
    }),
    HttpApiEndpoint.get("orgCompliancePdf", "/api/organizations/:id/compliance/:framework_id/pdf", {
      params: OrgFrameworkParams,
      query: FleetFilter,
      success: ReportPdfFile,
      error: [...WorkspaceErrors, NotFound, ...CommonErrors],
    }),
  )
  .annotateMerge(
    OpenApi.annotations({
      title: "Organizations",
      description:
        "Beyond the spec: organisations onboarded in one step (AWS Organizations, GCP organisations and folders, Azure management groups), their members, syncs and fleet scans.",
    }),
  ) {}

// ---------------------------------------------------------------------------------------------------
// account groups (beyond the spec, issue 31 item 5; src/contracts/account-groups.ts): workspace admins only

export class AccountGroupsGroup extends HttpApiGroup.make("accountGroups")
  .add(
    HttpApiEndpoint.get("list", "/api/account-groups", {
      success: AccountGroupsResponse,
      error: [...WorkspaceErrors, ...CommonErrors],
    }),
    HttpApiEndpoint.post("create", "/api/account-groups", {
      payload: AccountGroupPayload,
      success: AccountGroupResponse,
      error: [...WorkspaceErrors, Conflict, NotFound, ...CommonErrors],
    }),
    HttpApiEndpoint.put("update", "/api/account-groups/:id", {
      params: AccountGroupIdParams,
      payload: AccountGroupPayload,
      success: AccountGroupResponse,
      error: [...WorkspaceErrors, Conflict, NotFound, ...CommonErrors],
    }),
    HttpApiEndpoint.delete("delete", "/api/account-groups/:id", {
      params: AccountGroupIdParams,
      success: AccountGroupDeleteResponse,
      error: [...WorkspaceErrors, Conflict, NotFound, ...CommonErrors],
    }),
  )
  .annotateMerge(
    OpenApi.annotations({
      title: "Account groups",
      description:
        "Beyond the spec: groups of accounts (an organisation unit and the units below it, a tag, or hand-picked accounts) that custom roles can be limited to (workspace admins with access to every account).",
    }),
  ) {}

// ---------------------------------------------------------------------------------------------------
// single sign-on (beyond the spec, issue 33 part 3; src/contracts/sso.ts): configuration by workspace admins, public
// sign-in calls (start, the identity provider's return, the one-time code exchange, SAML metadata)

export class SsoGroup extends HttpApiGroup.make("sso")
  .add(
    HttpApiEndpoint.get("getSso", "/api/workspaces/:id/sso", {
      params: WorkspaceIdParams,
      success: SsoSettingsResponse,
      error: [...WorkspaceErrors, ...CommonErrors],
    }),
    /** Saves the whole configuration (the client secret may be omitted to keep the stored one). */
    HttpApiEndpoint.put("putSso", "/api/workspaces/:id/sso", {
      params: WorkspaceIdParams,
      payload: SsoConnectionPayload,
      success: SsoSettingsResponse,
      error: [...WorkspaceErrors, Conflict, ...CommonErrors],
    }),
    HttpApiEndpoint.delete("deleteSso", "/api/workspaces/:id/sso", {
      params: WorkspaceIdParams,
      success: SsoSettingsResponse,
      error: [...WorkspaceErrors, NotFound, ...CommonErrors],
    }),
    /** Public: the email's domain → its workspace's identity provider; answers the URL to send the browser to. */
    HttpApiEndpoint.post("ssoStart", "/api/sso/start", {
      payload: SsoStartPayload,
      success: SsoStartResponse,
      error: [NotFound, ServiceUnavailable, ...CommonErrors],
    }),
    /** The OpenID provider sends the browser back here: answered with a redirect to /login/sso (code or error). */
    HttpApiEndpoint.get("oidcCallback", "/api/sso/oidc/callback", {
      query: OidcCallbackQuery,
      success: HttpApiSchema.Empty(302),
      error: CommonErrors,
    }),
    /** SAML assertion consumer service (HTTP-POST binding): answered with a redirect to /login/sso. */
    HttpApiEndpoint.post("samlAcs", "/api/sso/saml/acs", {
      payload: SamlAcsPayload.pipe(HttpApiSchema.asFormUrlEncoded()),
      success: HttpApiSchema.Empty(302),
      error: CommonErrors,
    }),
    /** Our SAML service-provider metadata for the workspace (entity id, ACS URL). */
    HttpApiEndpoint.get("samlMetadata", "/api/sso/saml/:id/metadata", {
      params: WorkspaceIdParams,
      success: Schema.String.pipe(HttpApiSchema.asText({ contentType: "application/samlmetadata+xml" })),
      error: [NotFound, ...CommonErrors],
    }),
    /** The one-time code of /login/sso?code=… → the normal session (as POST /api/login answers). */
    HttpApiEndpoint.post("ssoExchange", "/api/sso/exchange", {
      payload: SsoExchangePayload,
      success: SsoExchangeResponse,
      error: [InvalidToken, ...CommonErrors],
    }),
  )
  .annotateMerge(
    OpenApi.annotations({
      title: "Single sign-on",
      description:
        "Beyond the spec: a workspace's OpenID Connect or SAML 2.0 identity provider, its email domains, group → role mappings and the SSO requirement (configured by workspace admins), and the public sign-in calls.",
    }),
  ) {}

// ---------------------------------------------------------------------------------------------------
// API keys (beyond the spec, issue 33; src/contracts/api-keys.ts): sign-in only (a key cannot manage keys)

export class ApiKeysGroup extends HttpApiGroup.make("apiKeys")
  .add(
    HttpApiEndpoint.get("list", "/api/api-keys", {
      success: ApiKeysResponse,
      error: [...WorkspaceErrors, ...CommonErrors],
    }),
    HttpApiEndpoint.post("create", "/api/api-keys", {
      payload: CreateApiKeyPayload,
      success: ApiKeyCreatedResponse,
      error: [...WorkspaceErrors, NotFound, ...CommonErrors],
    }),
    HttpApiEndpoint.delete("revoke", "/api/api-keys/:id", {
      params: ApiKeyIdParams,
      success: ApiKeyRevokeResponse,
      error: [...WorkspaceErrors, NotFound, ...CommonErrors],
    }),
  )
  .annotateMerge(
    OpenApi.annotations({
      title: "API keys",
      description:
        "Beyond the spec: named keys for scripts and CI, sent as `Authorization: Bearer ca_live_…` or `X-API-Key: ca_live_…`. A key acts in its workspace with its role's permissions intersected with its creator's current ones; these three calls need a signed-in session (a key gets 403).",
    }),
  ) {}

// ---------------------------------------------------------------------------------------------------
// remediation approvals, four eyes (beyond the spec, issue 32; src/contracts/remediation-requests.ts)

export class RemediationRequestsGroup extends HttpApiGroup.make("remediationRequests")
  .add(
    HttpApiEndpoint.get("getApproval", "/api/accounts/:id/approval", {
      params: AccountIdParams,
      success: ApprovalSettingResponse,
      error: [...WorkspaceErrors, NotFound, ...CommonErrors],
    }),
    HttpApiEndpoint.put("putApproval", "/api/accounts/:id/approval", {
      params: AccountIdParams,
      payload: ApprovalSetting,
      success: ApprovalSettingResponse,
      error: [...WorkspaceErrors, NotFound, ...CommonErrors],
    }),
    HttpApiEndpoint.get("list", "/api/remediation-requests", {
      query: RemediationRequestsQuery,
      success: RemediationRequestsResponse,
      error: [...WorkspaceErrors, ...CommonErrors],
    }),
    HttpApiEndpoint.post("approve", "/api/remediation-requests/:id/approve", {
      params: RemediationRequestIdParams,
      payload: DecisionPayload,
      success: RemediationRequestResponse,
      error: [...WorkspaceErrors, NotFound, Conflict, ...CommonErrors],
    }),
    HttpApiEndpoint.post("reject", "/api/remediation-requests/:id/reject", {
      params: RemediationRequestIdParams,
      payload: DecisionPayload,
      success: RemediationRequestResponse,
      error: [...WorkspaceErrors, NotFound, Conflict, ...CommonErrors],
    }),
    HttpApiEndpoint.post("cancel", "/api/remediation-requests/:id/cancel", {
      params: RemediationRequestIdParams,
      payload: DecisionPayload,
      success: RemediationRequestResponse,
      error: [...WorkspaceErrors, NotFound, Conflict, ...CommonErrors],
    }),
  )
  .annotateMerge(
    OpenApi.annotations({
      title: "Remediation approvals",
      description:
        "Beyond the spec: an account marked as requiring approval turns Remediate into a request that another member with remediate_findings approves or rejects; requests expire after the account's set time.",
    }),
  ) {}

// ---------------------------------------------------------------------------------------------------
// integrations: AWS Security Hub and Jira (beyond the spec: issue 33 parts 5 and 6; src/contracts/{security-hub,jira}.ts)

export class SecurityHubGroup extends HttpApiGroup.make("securityHub")
  .add(
    HttpApiEndpoint.get("list", "/api/integrations/security-hub/accounts", {
      success: SecurityHubAccountsResponse,
      error: [...WorkspaceErrors, ...CommonErrors],
    }),
    HttpApiEndpoint.put("put", "/api/integrations/security-hub/accounts/:id", {
      params: SecurityHubAccountParams,
      payload: SecurityHubSettingsPayload,
      success: SecurityHubSettingsResponse,
      error: [...WorkspaceErrors, NotFound, ...CommonErrors],
    }),
    HttpApiEndpoint.post("exportNow", "/api/integrations/security-hub/accounts/:id/export", {
      params: SecurityHubAccountParams,
      success: SecurityHubExportResponse,
      error: [...WorkspaceErrors, NotFound, ...CommonErrors],
    }),
  )
  .annotateMerge(
    OpenApi.annotations({
      title: "AWS Security Hub",
      description:
        "Beyond the spec: per AWS account, send each completed scan's failing resources to the account's Security Hub as ASFF findings (BatchImportFindings), archiving fixed ones (workspace admins).",
    }),
  ) {}

export class JiraGroup extends HttpApiGroup.make("jira")
  .add(
    HttpApiEndpoint.get("getConnection", "/api/integrations/jira", {
      success: JiraConnectionResponse,
      error: [...WorkspaceErrors, ...CommonErrors],
    }),
    HttpApiEndpoint.put("putConnection", "/api/integrations/jira", {
      payload: JiraConnectionPayload,
      success: JiraConnectionSaved,
      error: [...WorkspaceErrors, ...CommonErrors],
    }),
    HttpApiEndpoint.delete("deleteConnection", "/api/integrations/jira", {
      success: JiraRemoveResponse,
      error: [...WorkspaceErrors, NotFound, ...CommonErrors],
    }),
    HttpApiEndpoint.post("testConnection", "/api/integrations/jira/test", {
      success: JiraTestResponse,
      error: [...WorkspaceErrors, NotFound, ...CommonErrors],
    }),
    HttpApiEndpoint.get("findingIssues", "/api/findings/:id/jira-issues", {
      params: FindingIssueParams,
      success: FindingJiraIssuesResponse,
      error: [...WorkspaceErrors, NotFound, ...CommonErrors],
    }),
    HttpApiEndpoint.post("createIssues", "/api/findings/:id/jira-issues", {
      params: FindingIssueParams,
      payload: CreateJiraIssuesPayload,
      success: CreateJiraIssuesResponse,
      error: [...WorkspaceErrors, NotFound, Conflict, ...CommonErrors],
    }),
    HttpApiEndpoint.post("refreshIssues", "/api/findings/:id/jira-issues/refresh", {
      params: FindingIssueParams,
      success: FindingJiraIssuesResponse,
      error: [...WorkspaceErrors, NotFound, ...CommonErrors],
    }),
  )
  .annotateMerge(
    OpenApi.annotations({
      title: "Jira",
      description:
        "Beyond the spec: the workspace's Jira Cloud connection (workspace admins) and Jira issues created from findings (remediate_findings), with their refreshed statuses.",
    }),
  ) {}

// ---------------------------------------------------------------------------------------------------

// ---------------------------------------------------------------------------------------------------
// webhooks and Slack (beyond the spec, issue 33; src/contracts/webhooks.ts, event bodies src/contracts/integrations-events.ts)

export class WebhooksGroup extends HttpApiGroup.make("webhooks")
  .add(
    HttpApiEndpoint.get("list", "/api/integrations/webhooks", {
      success: WebhooksResponse,
      error: [...WorkspaceErrors, ...CommonErrors],
    }),
    /** Creates a destination; the answer carries the signing secret, shown this once. */
    HttpApiEndpoint.post("create", "/api/integrations/webhooks", {
      payload: CreateWebhookPayload,
      success: WebhookCreatedResponse,
      error: [...WorkspaceErrors, ...CommonErrors],
    }),
    HttpApiEndpoint.patch("update", "/api/integrations/webhooks/:id", {
      params: WebhookIdParams,
      payload: UpdateWebhookPayload,
      success: WebhookResponse,
      error: [...WorkspaceErrors, NotFound, ...CommonErrors],
    }),
    HttpApiEndpoint.delete("remove", "/api/integrations/webhooks/:id", {
      params: WebhookIdParams,
      success: WebhookDeletedResponse,
      error: [...WorkspaceErrors, NotFound, ...CommonErrors],
    }),
    /** Queues a `webhook.test` event to this destination; answers its delivery. */
    HttpApiEndpoint.post("test", "/api/integrations/webhooks/:id/test", {
      params: WebhookIdParams,
      success: DeliveryQueuedResponse,
      error: [...WorkspaceErrors, NotFound, Conflict, ...CommonErrors],
    }),
    HttpApiEndpoint.get("deliveries", "/api/integrations/webhooks/:id/deliveries", {
      params: WebhookIdParams,
      query: DeliveriesQuery,
      success: DeliveriesResponse,
      error: [...WorkspaceErrors, NotFound, ...CommonErrors],
    }),
    /** Sends a delivery's body again, as a new delivery. */
    HttpApiEndpoint.post("replay", "/api/integrations/webhooks/:id/deliveries/:delivery_id/replay", {
      params: WebhookDeliveryParams,
      success: DeliveryQueuedResponse,
      error: [...WorkspaceErrors, NotFound, Conflict, ...CommonErrors],
    }),
  )
  .annotateMerge(
    OpenApi.annotations({
      title: "Webhooks",
      description:
        "Beyond the spec: webhook and Slack destinations of the workspace's events (scan completed, new failing resources, mute rules, remediations, reports), signed deliveries with retries, the delivery log and replay (workspace admins).",
    }),
  ) {}

// ---------------------------------------------------------------------------------------------------
// remediation preview and undo (beyond the spec: issue 32; src/contracts/remediations.ts, docs/remediation.md)

export class RemediationsGroup extends HttpApiGroup.make("remediations")
  .add(
    /** What the fix of one row would do, read from the cloud without changing it. Needs remediate_findings. */
    HttpApiEndpoint.post("preview", "/api/findings/:id/remediation-preview", {
      params: FindingIdParams,
      payload: RemediationPreviewPayload,
      success: RemediationPreviewResponse,
      error: [...WorkspaceErrors, NotFound, Conflict, ...CommonErrors],
    }),
    HttpApiEndpoint.get("list", "/api/remediations", {
      query: RemediationsQuery,
      success: RemediationListResponse,
      error: [...WorkspaceErrors, NotFound, ...CommonErrors],
    }),
    HttpApiEndpoint.get("get", "/api/remediations/:id", {
      params: RemediationIdParams,
      success: RemediationResponse,
      error: [...WorkspaceErrors, NotFound, ...CommonErrors],
    }),
    /** Restores the state before the fix (a job); 409 RemediationConflict with the difference unless `force`. */
    HttpApiEndpoint.post("undo", "/api/remediations/:id/undo", {
      params: RemediationIdParams,
      payload: UndoPayload,
      success: RemediationResponse,
      error: [...WorkspaceErrors, NotFound, Conflict, RemediationConflict, ...CommonErrors],
    }),
  )
  .annotateMerge(OpenApi.annotations({ title: "Remediations", description: "Remediation preview, history and undo (issue 32)." })) {}

// ---------------------------------------------------------------------------------------------------
// bulk remediation (beyond the spec: issue 32 part 4; src/contracts/remediation-batches.ts, docs/remediation.md "Bulk")

export class RemediationBatchesGroup extends HttpApiGroup.make("remediationBatches")
  .add(
    /** A selection of rows or every failing row of a check, fixed as one job. Needs remediate_findings. */
    HttpApiEndpoint.post("create", "/api/remediation-batches", {
      payload: CreateBatchPayload,
      success: BatchCreatedResponse,
      error: [...WorkspaceErrors, NotFound, Conflict, ...CommonErrors],
    }),
    HttpApiEndpoint.get("list", "/api/remediation-batches", {
      query: BatchesQuery,
      success: RemediationBatchesResponse,
      error: [...WorkspaceErrors, ...CommonErrors],
    }),
    HttpApiEndpoint.get("get", "/api/remediation-batches/:id", {
      params: RemediationBatchIdParams,
      success: RemediationBatchResponse,
      error: [...WorkspaceErrors, NotFound, ...CommonErrors],
    }),
    HttpApiEndpoint.get("items", "/api/remediation-batches/:id/items", {
      params: RemediationBatchIdParams,
      query: BatchItemsQuery,
      success: BatchItemsResponse,
      error: [...WorkspaceErrors, NotFound, ...CommonErrors],
    }),
    /** Items not yet started are skipped; running ones finish. */
    HttpApiEndpoint.post("stop", "/api/remediation-batches/:id/stop", {
      params: RemediationBatchIdParams,
      success: BatchActionResponse,
      error: [...WorkspaceErrors, NotFound, Conflict, ...CommonErrors],
    }),
    /** One undo of every fixed item; an item whose resource changed since its fix fails with its differences unless `force`. */
    HttpApiEndpoint.post("undo", "/api/remediation-batches/:id/undo", {
      params: RemediationBatchIdParams,
      payload: BatchUndoPayload,
      success: BatchActionResponse,
      error: [...WorkspaceErrors, NotFound, Conflict, ...CommonErrors],
    }),
  )
  .annotateMerge(
    OpenApi.annotations({
      title: "Bulk remediation",
      description:
        "Beyond the spec: remediate a selection of rows, or every failing row of a check, across the workspace's accounts as one job with progress, per-resource outcomes, stop and one undo for the whole batch (remediate_findings).",
    }),
  ) {}

export class Api extends HttpApi.make("cloud-audit")
  .add(SystemGroup)
  .add(AuthGroup)
  .add(WorkspacesGroup)
  .add(TeamGroup)
  .add(InvitationsGroup)
  .add(ProfileGroup)
  .add(ProvidersGroup)
  .add(AccountsGroup)
  .add(ScansGroup)
  .add(FindingsGroup)
  .add(ComplianceGroup)
  .add(PostureGroup)
  .add(StorageGroup)
  .add(OrganizationsGroup)
  .add(AccountGroupsGroup)
  .add(RemediationRequestsGroup)
  .add(SsoGroup)
  .add(WebhooksGroup)
  .add(ApiKeysGroup)
  .add(SecurityHubGroup)
  .add(JiraGroup)
  .add(RemediationsGroup)
  .add(RemediationBatchesGroup)
  .annotateMerge(
    OpenApi.annotations({
      title: "Cloud Audit API",
      version: "0.1.0",
      description:
        "Multi-workspace cloud security audit API. Authenticated calls carry `Authorization: Bearer <access_token>`; workspace-scoped calls also carry `X-Workspace-ID`. Scripts may send an API key instead (`Authorization: Bearer ca_live_…` or `X-API-Key: ca_live_…`): every workspace call its role allows works with it; sign-in-only calls answer 403.",
    }),
  ) {}

/** Group names, in order (the platform's 501 layer and tests iterate them). */
export const GROUP_NAMES = [
  "system",
  "auth",
  "workspaces",
  "team",
  "invitations",
  "profile",
  "providers",
  "accounts",
  "scans",
  "findings",
  "compliance",
  "posture",
  "storage",
  "organizations",
  "accountGroups",
  "remediationRequests",
  "sso",
  "webhooks",
  "apiKeys",
  "securityHub",
  "jira",
  "remediations",
  "remediationBatches",
] as const
export type GroupName = (typeof GROUP_NAMES)[number]
