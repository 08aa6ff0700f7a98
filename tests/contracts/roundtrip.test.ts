/**
 * Every response schema of the contract round-trips: a value generated from the schema (effect's own
 * Arbitrary) encodes to JSON-compatible data, survives JSON.stringify/parse, and decodes back equal.
 */
import { describe, expect, it } from "vitest"
import { Arbitrary, Effect, Schema } from "effect"
import * as Auth from "../../src/contracts/auth.ts"
import * as Workspaces from "../../src/contracts/workspaces.ts"
import * as Team from "../../src/contracts/team.ts"
import * as Invitations from "../../src/contracts/invitations.ts"
import * as Profile from "../../src/contracts/profile.ts"
import * as Providers from "../../src/contracts/providers.ts"
import * as Accounts from "../../src/contracts/accounts.ts"
import * as Scans from "../../src/contracts/scans.ts"
import * as Findings from "../../src/contracts/findings.ts"
import * as Common from "../../src/contracts/common.ts"
import * as Errors from "../../src/contracts/errors.ts"
import { HealthResponse, OutboxResponse } from "../../src/contracts/api.ts"

const responses: ReadonlyArray<readonly [string, Schema.Codec<any, any, never, never>]> = [
  ["auth.UserInfoResponse", Auth.UserInfoResponse],
  ["auth.LoginResponse", Auth.LoginResponse],
  ["auth.SignupResponse", Auth.SignupResponse],
  ["auth.TokenResponse", Auth.TokenResponse],
  ["auth.ValidateResetTokenResponse", Auth.ValidateResetTokenResponse],
  ["auth.VerifyEmailResponse", Auth.VerifyEmailResponse],
  ["auth.ResendVerificationResponse", Auth.ResendVerificationResponse],
  ["common.OkMessage", Common.OkMessage],
  ["workspaces.WorkspaceListResponse", Workspaces.WorkspaceListResponse],
  ["workspaces.SwitchWorkspaceResponse", Workspaces.SwitchWorkspaceResponse],
  ["workspaces.AcceptWorkspaceInvitationResponse", Workspaces.AcceptWorkspaceInvitationResponse],
  ["workspaces.UserPermissionsResponse", Workspaces.UserPermissionsResponse],
  ["workspaces.WorkspaceInfoResponse", Workspaces.WorkspaceInfoResponse],
  ["workspaces.WorkspaceStore", Workspaces.WorkspaceStore],
  ["team.TeamMembersResponse", Team.TeamMembersResponse],
  ["team.CreateUserResponse", Team.CreateUserResponse],
  ["team.UpdateTeamMemberResponse", Team.UpdateTeamMemberResponse],
  ["team.RolesResponse", Team.RolesResponse],
  ["team.CustomRoleResponse", Team.CustomRoleResponse],
  ["invitations.InvitationListResponse", Invitations.InvitationListResponse],
  ["invitations.BulkInviteResponse", Invitations.BulkInviteResponse],
  ["invitations.ResendInvitationResponse", Invitations.ResendInvitationResponse],
  ["invitations.InvitationCheckResponse", Invitations.InvitationCheckResponse],
  ["invitations.AcceptInvitationResponse", Invitations.AcceptInvitationResponse],
  ["profile.UpdateProfileResponse", Profile.UpdateProfileResponse],
  ["profile.TimezonesResponse", Profile.TimezonesResponse],
  ["providers.CloudProvidersResponse", Providers.CloudProvidersResponse],
  ["accounts.AccountsResponse", Accounts.AccountsResponse],
  ["accounts.AccountDetailResponse", Accounts.AccountDetailResponse],
  ["accounts.AddAccountResponse", Accounts.AddAccountResponse],
  ["accounts.RevealSecretResponse", Accounts.RevealSecretResponse],
  ["scans.ScanStartResponse", Scans.ScanStartResponse],
  ["scans.ScanListResponse", Scans.ScanListResponse],
  ["scans.ScanResponse", Scans.ScanResponse],
  ["scans.CancelScanResponse", Scans.CancelScanResponse],
  ["findings.FindingListResponse", Findings.FindingListResponse],
  ["findings.FindingResponse", Findings.FindingResponse],
  ["findings.RemediateResponse", Findings.RemediateResponse],
  ["api.HealthResponse", HealthResponse],
  ["api.OutboxResponse", OutboxResponse],
  ["errors.ApiError", Errors.ApiError],
]

/** JSON has no -0; generated numbers may be -0, which the wire turns into 0. Nothing else is normalised. */
const withoutNegativeZero = (u: unknown): unknown =>
  Object.is(u, -0)
    ? 0
    : Array.isArray(u)
      ? u.map(withoutNegativeZero)
      : typeof u === "object" && u !== null
        ? Object.fromEntries(Object.entries(u).map(([k, v]) => [k, withoutNegativeZero(v)]))
        : u

describe("every response schema round-trips (encode → JSON → decode)", () => {
  for (const [name, schema] of responses) {
    it(name, async () => {
      const encode = Schema.encodeUnknownSync(schema)
      const decode = Schema.decodeUnknownSync(schema)
      const result = await Effect.runPromise(
        Arbitrary.checkEffect(
          Arbitrary.schema(schema),
          (value) => {
            const wire = JSON.parse(JSON.stringify(encode(value)))
            const back = decode(wire)
            expect(JSON.parse(JSON.stringify(encode(back)))).toEqual(wire)
            expect(withoutNegativeZero(back)).toEqual(withoutNegativeZero(value))
            return true
          },
          { runs: 60, seed: 20240601 },
        ),
      )
      expect(Arbitrary.formatCheckFailure(result)).toBeUndefined()
      expect(result._tag).toBe("Passed")
    })
  }
})
