/**
 * Typed calls for every access-area endpoint (access spec §7), built on the shared API client.
 *
 * `ACCESS_ENDPOINTS` lists each call once: method, path, the contract's response schema, and the §8
 * error flow whose texts apply. `createAuthApi(client)` turns them into functions taking the contract's
 * payload types and an optional `AbortSignal` (pass the actor's signal so leaving a state cancels the
 * call). Every function resolves with the decoded response or rejects with an `ApiError`.
 *
 * Login, sign-up and refresh-token never trigger the 401 refresh (their 401 is an answer); the public
 * link calls (verify email, reset tokens, invitation check) neither: a 401 there cannot be a stale session.
 * tests/services/auth-api.test.ts checks every entry against `Api` (method, path, success schema).
 */
import { OkMessage } from "../contracts/common.ts"
import type { UserId } from "../contracts/ids.ts"
import {
  type ForgotPasswordPayload,
  LoginResponse,
  type LoginPayload,
  type ResendVerificationPayload,
  ResendVerificationResponse,
  type ResetPasswordPayload,
  SignupResponse,
  type SignupPayload,
  TokenResponse,
  UserInfoResponse,
  type ValidateResetTokenPayload,
  ValidateResetTokenResponse,
  type VerifyEmailParams,
  VerifyEmailResponse,
} from "../contracts/auth.ts"
import {
  AcceptWorkspaceInvitationResponse,
  type AcceptWorkspaceInvitationPayload,
  type SwitchWorkspacePayload,
  SwitchWorkspaceResponse,
  UserPermissionsResponse,
  WorkspaceInfoResponse,
  WorkspaceListResponse,
} from "../contracts/workspaces.ts"
import {
  CreateUserResponse,
  type CreateUserPayload,
  CustomRoleResponse,
  type CustomRolePayload,
  type MemberPasswordResetPayload,
  RolesResponse,
  TeamMembersResponse,
  type UpdateTeamMemberPayload,
  UpdateTeamMemberResponse,
} from "../contracts/team.ts"
import {
  AcceptInvitationResponse,
  type AcceptInvitationPayload,
  BulkInviteResponse,
  type BulkInvitePayload,
  InvitationCheckResponse,
  type InvitationCompletionPayload,
  InvitationListResponse,
  ResendInvitationResponse,
} from "../contracts/invitations.ts"
import {
  ChangePasswordResponse,
  type ChangePasswordPayload,
  TimezonesResponse,
  UpdateProfileResponse,
  type UpdateProfilePayload,
} from "../contracts/profile.ts"
import type { Timezone, User } from "../contracts/auth.ts"
import type { Invitation } from "../contracts/invitations.ts"
import type { TeamMember } from "../contracts/team.ts"
import type { Workspace } from "../contracts/workspaces.ts"
import { SsoExchangeResponse, SsoStartResponse, type SsoStartPayload } from "../contracts/sso.ts"
import { REFRESH_PATH, endpoint, pathWith, type ApiClient, type Endpoint } from "./api-client.ts"
import { queryKeys, type Fetcher, type QueryKey } from "./query-cache.ts"

/** Every access-area call (access §7), by name. */
export const ACCESS_ENDPOINTS = {
  // auth
  login: endpoint({ method: "POST", path: "/api/login", response: LoginResponse, flow: "login", refreshOn401: false }),
  signup: endpoint({ method: "POST", path: "/api/signup", response: SignupResponse, flow: "signup", refreshOn401: false }),
  logout: endpoint({ method: "POST", path: "/api/logout", response: OkMessage, refreshOn401: false }),
  refreshToken: endpoint({
    method: "POST",
    path: REFRESH_PATH,
    response: TokenResponse,
    flow: "refresh",
    refreshOn401: false,
    retry: false,
  }),
  userInfo: endpoint({ method: "GET", path: "/api/user-info", response: UserInfoResponse }),
  ssoStart: endpoint({ method: "POST", path: "/api/sso/start", response: SsoStartResponse, flow: "login", refreshOn401: false }),
  ssoExchange: endpoint({ method: "POST", path: "/api/sso/exchange", response: SsoExchangeResponse, flow: "login", refreshOn401: false }),
  forgotPassword: endpoint({
    method: "POST",
    path: "/api/forgot-password",
    response: OkMessage,
    flow: "forgot-password",
    refreshOn401: false,
  }),
  validateResetToken: endpoint({
    method: "POST",
    path: "/api/validate-reset-token",
    response: ValidateResetTokenResponse,
    flow: "reset-password",
    refreshOn401: false,
  }),
  resetPassword: endpoint({
    method: "POST",
    path: "/api/reset-password",
    response: OkMessage,
    flow: "reset-password",
    refreshOn401: false,
  }),
  verifyEmail: endpoint({
    method: "GET",
    path: "/api/verify-email",
    response: VerifyEmailResponse,
    flow: "verification",
    refreshOn401: false,
  }),
  resendVerification: endpoint({
    method: "POST",
    path: "/api/resend-verification-link",
    response: ResendVerificationResponse,
    flow: "resend",
    refreshOn401: false,
  }),
  // workspaces
  workspaces: endpoint({ method: "GET", path: "/api/workspaces", response: WorkspaceListResponse, flow: "load-workspaces" }),
  switchWorkspace: endpoint({
    method: "POST",
    path: "/api/user/switch-workspace",
    response: SwitchWorkspaceResponse,
    flow: "select-workspace",
  }),
  acceptWorkspaceInvitation: endpoint({
    method: "POST",
    path: "/api/workspaces/accept-invitation",
    response: AcceptWorkspaceInvitationResponse,
    flow: "accept-workspace-invitation",
  }),
  permissions: endpoint({ method: "GET", path: "/api/user/permissions", response: UserPermissionsResponse }),
  workspaceInfo: endpoint({ method: "GET", path: "/api/workspace-info", response: WorkspaceInfoResponse }),
  // team
  teamMembers: endpoint({ method: "GET", path: "/api/team-members", response: TeamMembersResponse, flow: "team-load-members" }),
  createUser: endpoint({ method: "POST", path: "/api/admin/users", response: CreateUserResponse, flow: "team-add-member" }),
  deleteUser: endpoint({ method: "DELETE", path: "/api/admin/users", response: OkMessage, flow: "team-delete-member" }),
  updateMember: endpoint({
    method: "PUT",
    path: "/api/team-member",
    response: UpdateTeamMemberResponse,
    flow: "team-update-member",
  }),
  memberPasswordReset: endpoint({
    method: "POST",
    path: "/api/admin/users/reset-password",
    response: OkMessage,
    flow: "forgot-password",
  }),
  roles: endpoint({ method: "GET", path: "/api/roles", response: RolesResponse }),
  createCustomRole: endpoint({ method: "POST", path: "/api/roles/custom", response: CustomRoleResponse }),
  updateCustomRole: endpoint({ method: "PUT", path: "/api/roles/custom/:id", response: CustomRoleResponse }),
  deleteCustomRole: endpoint({ method: "DELETE", path: "/api/roles/custom/:id", response: OkMessage }),
  // invitations
  inviteMembers: endpoint({ method: "POST", path: "/api/admin/users/invite", response: BulkInviteResponse, flow: "team-invite" }),
  invitations: endpoint({
    method: "GET",
    path: "/api/admin/users/invitations",
    response: InvitationListResponse,
    flow: "team-load-invitations",
  }),
  resendInvitation: endpoint({
    method: "POST",
    path: "/api/admin/users/invitations/:invitation_id/resend",
    response: ResendInvitationResponse,
    flow: "team-resend-invitation",
  }),
  cancelInvitation: endpoint({
    method: "DELETE",
    path: "/api/admin/users/invitations/:id",
    response: OkMessage,
    flow: "team-cancel-invitation",
  }),
  checkInvitation: endpoint({
    method: "GET",
    path: "/api/invitation/verify/:token",
    response: InvitationCheckResponse,
    flow: "invitation",
    refreshOn401: false,
  }),
  acceptInvitation: endpoint({
    method: "POST",
    path: "/api/invitations/accept",
    response: AcceptInvitationResponse,
    flow: "invitation",
  }),
  completeInvitation: endpoint({
    method: "POST",
    path: "/api/invitations/accept",
    response: AcceptInvitationResponse,
    flow: "invitation-completion",
    refreshOn401: false,
  }),
  // profile
  updateProfile: endpoint({
    method: "PUT",
    path: "/api/update-user-info",
    response: UpdateProfileResponse,
    flow: "profile-update",
  }),
  changePassword: endpoint({
    method: "POST",
    path: "/api/update-password",
    response: ChangePasswordResponse,
    flow: "password-change",
  }),
  timezones: endpoint({ method: "GET", path: "/api/timezones", response: TimezonesResponse, refreshOn401: false }),
} satisfies Record<string, Endpoint<unknown>>

type Response<K extends keyof typeof ACCESS_ENDPOINTS> = (typeof ACCESS_ENDPOINTS)[K] extends Endpoint<infer A> ? A : never
type Call<P, K extends keyof typeof ACCESS_ENDPOINTS> = (payload: P, signal?: AbortSignal) => Promise<Response<K>>
type Query<K extends keyof typeof ACCESS_ENDPOINTS> = (signal?: AbortSignal) => Promise<Response<K>>

export interface AuthApi {
  // auth
  readonly login: Call<LoginPayload, "login">
  readonly signup: Call<SignupPayload, "signup">
  readonly logout: Call<{ readonly refresh_token: string }, "logout">
  readonly userInfo: Query<"userInfo">
  readonly forgotPassword: Call<ForgotPasswordPayload, "forgotPassword">
  readonly validateResetToken: Call<ValidateResetTokenPayload, "validateResetToken">
  readonly resetPassword: Call<ResetPasswordPayload, "resetPassword">
  readonly verifyEmail: Call<VerifyEmailParams, "verifyEmail">
  readonly resendVerification: Call<ResendVerificationPayload, "resendVerification">
  readonly ssoStart: Call<SsoStartPayload, "ssoStart">
  readonly ssoExchange: Call<{ readonly code: string }, "ssoExchange">
  // workspaces
  readonly workspaces: Query<"workspaces">
  readonly switchWorkspace: Call<SwitchWorkspacePayload, "switchWorkspace">
  readonly acceptWorkspaceInvitation: Call<AcceptWorkspaceInvitationPayload, "acceptWorkspaceInvitation">
  readonly permissions: Query<"permissions">
  readonly workspaceInfo: Query<"workspaceInfo">
  // team
  readonly teamMembers: Query<"teamMembers">
  readonly createUser: Call<CreateUserPayload, "createUser">
  readonly deleteUser: Call<{ readonly user_to_delete: UserId | number }, "deleteUser">
  readonly updateMember: Call<UpdateTeamMemberPayload, "updateMember">
  readonly memberPasswordReset: Call<MemberPasswordResetPayload, "memberPasswordReset">
  readonly roles: Query<"roles">
  readonly createCustomRole: Call<CustomRolePayload, "createCustomRole">
  readonly updateCustomRole: Call<{ readonly id: number; readonly role: CustomRolePayload }, "updateCustomRole">
  readonly deleteCustomRole: Call<{ readonly id: number }, "deleteCustomRole">
  // invitations
  readonly inviteMembers: Call<BulkInvitePayload, "inviteMembers">
  readonly invitations: Query<"invitations">
  readonly resendInvitation: Call<{ readonly invitation_id: number }, "resendInvitation">
  readonly cancelInvitation: Call<{ readonly id: number }, "cancelInvitation">
  readonly checkInvitation: Call<{ readonly token: string }, "checkInvitation">
  /** Accept by link as a signed-in user (invitation_token + timezone): invitation texts. */
  readonly acceptInvitation: Call<AcceptInvitationPayload, "acceptInvitation">
  /** Invitation sign-up (completion payload): completion texts, no session refresh. */
  readonly completeInvitation: Call<InvitationCompletionPayload, "completeInvitation">
  // profile
  readonly updateProfile: Call<UpdateProfilePayload, "updateProfile">
  readonly changePassword: Call<ChangePasswordPayload, "changePassword">
  readonly timezones: Query<"timezones">
}

const signalOpt = (signal: AbortSignal | undefined) => (signal === undefined ? {} : { signal })

export const createAuthApi = (client: ApiClient): AuthApi => {
  const E = ACCESS_ENDPOINTS
  const post =
    <K extends keyof typeof E, P>(key: K) =>
    (payload: P, signal?: AbortSignal) =>
      client.request(E[key] as Endpoint<Response<K>>, { body: payload, ...signalOpt(signal) })
  const get =
    <K extends keyof typeof E>(key: K) =>
    (signal?: AbortSignal) =>
      client.request(E[key] as Endpoint<Response<K>>, signalOpt(signal))
  const at = <K extends keyof typeof E>(key: K, params: Readonly<Record<string, string | number>>): Endpoint<Response<K>> => {
    const e = E[key] as Endpoint<Response<K>>
    return { ...e, path: pathWith(e.path, params) }
  }
  return {
    login: post("login"),
    signup: post("signup"),
    logout: post("logout"),
    userInfo: get("userInfo"),
    forgotPassword: post("forgotPassword"),
    validateResetToken: post("validateResetToken"),
    resetPassword: post("resetPassword"),
    verifyEmail: ({ token, email }, signal) =>
      client.request(E.verifyEmail, { query: { token, email }, ...signalOpt(signal) }),
    resendVerification: post("resendVerification"),
    ssoStart: post("ssoStart"),
    ssoExchange: post("ssoExchange"),
    workspaces: get("workspaces"),
    switchWorkspace: post("switchWorkspace"),
    acceptWorkspaceInvitation: post("acceptWorkspaceInvitation"),
    permissions: get("permissions"),
    workspaceInfo: get("workspaceInfo"),
    teamMembers: get("teamMembers"),
    createUser: post("createUser"),
    deleteUser: ({ user_to_delete }, signal) =>
      client.request(E.deleteUser, { query: { user_to_delete }, ...signalOpt(signal) }),
    updateMember: post("updateMember"),
    memberPasswordReset: post("memberPasswordReset"),
    roles: get("roles"),
    createCustomRole: post("createCustomRole"),
    updateCustomRole: ({ id, role }, signal) =>
      client.request(at("updateCustomRole", { id }), { body: role, ...signalOpt(signal) }),
    deleteCustomRole: ({ id }, signal) => client.request(at("deleteCustomRole", { id }), signalOpt(signal)),
    inviteMembers: post("inviteMembers"),
    invitations: get("invitations"),
    resendInvitation: ({ invitation_id }, signal) =>
      client.request(at("resendInvitation", { invitation_id }), signalOpt(signal)),
    cancelInvitation: ({ id }, signal) => client.request(at("cancelInvitation", { id }), signalOpt(signal)),
    checkInvitation: ({ token }, signal) => client.request(at("checkInvitation", { token }), signalOpt(signal)),
    acceptInvitation: post("acceptInvitation"),
    completeInvitation: post("completeInvitation"),
    updateProfile: post("updateProfile"),
    changePassword: post("changePassword"),
    timezones: get("timezones"),
  }
}

// ---------------------------------------------------------------------------------------------------
// Queries: one key, one fetcher and one cached shape per access-area read, shared by every consumer.

/** A cacheable read: its key and the fetcher that yields the cached value. */
export interface AccessQuery<T> {
  readonly key: QueryKey
  readonly fetch: Fetcher<T>
}

/**
 * The access-area queries. Cached values are the payloads screens use (the `data` of wrapped answers):
 * `user` → User, `workspaces` → Workspace[], `permissions` → roles + custom roles (+ is_owner), etc.
 */
export const accessQueries = (api: AuthApi) => ({
  user: (): AccessQuery<User> => ({ key: queryKeys.user(), fetch: (s) => api.userInfo(s).then((r) => r.data) }),
  workspaces: (): AccessQuery<ReadonlyArray<Workspace>> => ({
    key: queryKeys.workspaces(),
    fetch: (s) => api.workspaces(s).then((r) => r.data),
  }),
  permissions: (workspaceId: number | null): AccessQuery<UserPermissionsResponse> => ({
    key: queryKeys.permissions(workspaceId),
    fetch: (s) => api.permissions(s),
  }),
  workspaceInfo: (workspaceId: number | null): AccessQuery<WorkspaceInfoResponse> => ({
    key: queryKeys.workspaceInfo(workspaceId),
    fetch: (s) => api.workspaceInfo(s),
  }),
  roles: (workspaceId: number | null): AccessQuery<RolesResponse["data"]> => ({
    key: queryKeys.roles(workspaceId),
    fetch: (s) => api.roles(s).then((r) => r.data),
  }),
  teamMembers: (workspaceId: number | null): AccessQuery<ReadonlyArray<TeamMember>> => ({
    key: queryKeys.teamMembers(workspaceId),
    fetch: (s) => api.teamMembers(s).then((r) => r.data),
  }),
  invitations: (workspaceId: number | null): AccessQuery<ReadonlyArray<Invitation>> => ({
    key: queryKeys.invitations(workspaceId),
    fetch: (s) => api.invitations(s).then((r) => r.data),
  }),
  timezones: (): AccessQuery<ReadonlyArray<Timezone>> => ({
    key: queryKeys.timezones(),
    fetch: (s) => api.timezones(s).then((r) => r.data.timezones),
  }),
})
export type AccessQueries = ReturnType<typeof accessQueries>
