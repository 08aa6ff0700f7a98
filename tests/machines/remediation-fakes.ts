/**
 * Remediation preview and history fixtures (issue 32), decoded with the contract's schemas so a fake can never drift
 * from what the server answers.
 */
import { Schema } from "effect"
import { httpFailure } from "./auth-fakes.ts"
import { Remediation, RemediationPreview, type RemediationId } from "../../src/contracts/remediations.ts"

const decode = <S extends Schema.Top>(schema: S) => Schema.decodeUnknownSync(schema as never) as (u: unknown) => S["Type"]

const blockCall = {
  service: "s3control",
  operation: "PutPublicAccessBlock",
  region: "us-east-1",
  params: {
    AccountId: "123456789012",
    PublicAccessBlockConfiguration: { BlockPublicAcls: true, IgnorePublicAcls: true, BlockPublicPolicy: true, RestrictPublicBuckets: true },
  },
  cli: "aws s3control put-public-access-block --region us-east-1 --account-id 123456789012",
}

export const preview = (overrides: Record<string, unknown> = {}): RemediationPreview =>
  decode(RemediationPreview)({
    check_id: "s3_account_level_public_access_blocks",
    description: "Turns on all four S3 Block Public Access settings for the account.",
    cuts_access: null,
    noop: null,
    calls: [blockCall],
    effects: ["Bucket policy statement 'PublicRead' of bucket-a stops applying"],
    permissions: [
      { action: "s3:PutAccountPublicAccessBlock", status: "allowed", how: "iam:SimulatePrincipalPolicy" },
      { action: "s3:GetAccountPublicAccessBlock", status: "unknown", how: "The credentials may not simulate policies" },
    ],
    reversible: true,
    undo_calls: [{ ...blockCall, operation: "DeletePublicAccessBlock", params: { AccountId: "123456789012" } }],
    undo_note: null,
    cli: blockCall.cli,
    terraform: 'resource "aws_s3_account_public_access_block" "this" {\n  block_public_acls = true\n}',
    state: { PublicAccessBlockConfiguration: null },
    undo_retention_days: 30,
    ...overrides,
  })

export const remediation = (id: number, overrides: Record<string, unknown> = {}, undo: Record<string, unknown> = {}): Remediation =>
  decode(Remediation)({
    id,
    finding_id: 5,
    scan_id: 11,
    account_id: 1,
    check_id: "s3_account_level_public_access_blocks",
    resource_id: "bucket-a",
    region: "us-east-1",
    result_seq: 0,
    state: "verified",
    message: "Public access blocked",
    requested_by: { id: 7, email: "ada@example.com" },
    requested_at: "2025-03-01T11:00:00.000Z",
    applied_at: "2025-03-01T11:00:01.000Z",
    finished_at: "2025-03-01T11:00:02.000Z",
    pre_image: null,
    post_image: null,
    calls: [blockCall],
    effects: [],
    undo: {
      available: true,
      reason: null,
      until: "2025-03-31T11:00:02.000Z",
      calls: [{ ...blockCall, operation: "DeletePublicAccessBlock", params: { AccountId: "123456789012" } }],
      requested_at: null,
      requested_by: null,
      forced: false,
      done_at: null,
      message: null,
      differences: [],
      ...undo,
    },
    ...overrides,
  })

export const rid = (n: number): RemediationId => n as RemediationId

export const CONFLICT_BODY = {
  _tag: "RemediationConflict",
  message: "The resource changed since the fix; undo would overwrite those changes. Undo again with force to overwrite them.",
  differences: [{ path: "PublicAccessBlockConfiguration.RestrictPublicBuckets", expected: true, actual: false }],
}

/** The 409 an undo gets when the resource changed since the fix, as the API client maps it. */
export const conflictFailure = () => httpFailure("generic", 409, CONFLICT_BODY)
