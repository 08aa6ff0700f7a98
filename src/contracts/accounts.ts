/**
 * Cloud accounts (scanning §2, §3, §5, §7): list per provider, detail, add (which also tests the
 * connection), delete, and (beyond the spec) the audited secret reveal.
 *
 * Secrets: the add payload carries credentials as plain JSON strings (that is what the SPA sends); the
 * server encrypts them at rest. Responses never carry a secret except `RevealSecretResponse`; the detail's
 * `credential_data.secret_key` is a mask.
 */
import { Schema } from "effect"
import { AccountId, CloudProviderId, ScanId } from "./ids.ts"
import { Count, NullableTimestamp, OkMessage, RunStatus, SecretString, Timestamp, withData } from "./common.ts"
import { ProviderIds } from "./constants.ts"
import { ValidationMessages as M } from "./messages.ts"
import { isGcpProjectId, serviceAccountKeyTextIssue } from "./service-account-key.ts"
import { PlatformMessages } from "./server-messages.ts"
import { OrganizationSettings, OrganizationSummary, OrganizationSync } from "./organizations.ts"
import { formErrors, isStorableLine, requiredString, type FieldErrors } from "./validation.ts"

/** Scanning §3 account (list item). `account_id` is the cloud-side id; `status` is the last scan's. */
export const Account = Schema.Struct({
  id: AccountId,
  account_name: Schema.String,
  account_id: Schema.NullOr(Schema.String),
  cloud_provider_id: CloudProviderId,
  cloud_provider_name: Schema.String,
  last_scan_date: NullableTimestamp,
  total_scans: Count,
  failed_findings: Count,
  status: Schema.NullOr(RunStatus),
  /** Beyond the spec (issue 31): an organisation (AWS Organization, GCP organisation or folder, Azure management group). */
  is_organization: Schema.optionalKey(Schema.Boolean),
  /** Beyond the spec (issue 31): a member's organisation (its account id here) and unit path ("Root / Prod / Web"). */
  organization_account_id: Schema.optionalKey(Schema.NullOr(AccountId)),
  org_unit_path: Schema.optionalKey(Schema.NullOr(Schema.String)),
  /** Beyond the spec (issue 31): a member retired from its organisation (kept with its history, no longer scanned). */
  retired_at: Schema.optionalKey(NullableTimestamp),
})
export type Account = typeof Account.Type

export const AccountsQuery = Schema.Struct({ cloud_provider_id: CloudProviderId })
export type AccountsQuery = typeof AccountsQuery.Type

/** GET /api/accounts?cloud_provider_id=…: data.accounts[]. */
export const AccountsResponse = withData(Schema.Struct({ accounts: Schema.Array(Account) }))
export type AccountsResponse = typeof AccountsResponse.Type

export const RecentScan = Schema.Struct({
  id: ScanId,
  status: RunStatus,
  scan_start: Timestamp,
  scan_end: NullableTimestamp,
  findings_count: Count,
  failed_findings: Count,
  /** Beyond the spec (issue 28): the scan's other check counts (docs/outcomes.md): findings_count = passed + failed + muted + not evaluated. */
  passed_findings: Count,
  muted_findings: Count,
  not_evaluated_findings: Count,
})
export type RecentScan = typeof RecentScan.Type

/**
 * The account detail's credentials (scanning §3 lists aws_account_id, access_key and secret_key; the GCP and Azure
 * fields are ours). Which fields are filled depends on the provider:
 * - AWS: `aws_account_id` (12 digits) and `access_key` (the access key id; null for a role without keys);
 * - GCP: `project_id` and `client_email` (the service account); `aws_account_id` and `access_key` are null;
 * - Azure: `tenant_id` (null for accounts added before it was recorded), `client_id` and `subscription_id`;
 *   `aws_account_id` and `access_key` are null.
 * `secret_key` is always a mask (AWS secret access key, GCP service-account key, Azure client secret) or null when
 * nothing secret is stored; the real value needs the audited reveal call.
 */
export const CredentialData = Schema.Struct({
  aws_account_id: Schema.NullOr(Schema.String),
  access_key: Schema.NullOr(Schema.String),
  secret_key: Schema.NullOr(Schema.String),
  project_id: Schema.optionalKey(Schema.NullOr(Schema.String)),
  client_email: Schema.optionalKey(Schema.NullOr(Schema.String)),
  tenant_id: Schema.optionalKey(Schema.NullOr(Schema.String)),
  client_id: Schema.optionalKey(Schema.NullOr(Schema.String)),
  subscription_id: Schema.optionalKey(Schema.NullOr(Schema.String)),
})
export type CredentialData = typeof CredentialData.Type

/** Scanning §3 account detail. `secret_key` here is masked; the real value needs the reveal call. */
export const AccountDetail = Schema.Struct({
  id: AccountId,
  account_name: Schema.String,
  cloud_provider_name: Schema.String,
  cloud_provider_id: CloudProviderId,
  created_at: Timestamp,
  credential_data: CredentialData,
  recent_scans: Schema.Array(RecentScan),
  /** Beyond the spec (issue 31): a member retired from its organisation: its history stays readable, it is no longer scanned or remediated. */
  retired_at: Schema.optionalKey(NullableTimestamp),
})
export type AccountDetail = typeof AccountDetail.Type

export const AccountDetailResponse = withData(AccountDetail)
export type AccountDetailResponse = typeof AccountDetailResponse.Type

/** One labelled identifier of the account detail's credentials card. */
export interface CredentialFact {
  readonly label: string
  readonly value: string | null
}

/**
 * The credentials card of the account page, per provider: the identifiers with their labels, and how the masked
 * secret is called (also the reveal button's name).
 */
export function credentialFacts(detail: { readonly cloud_provider_id: number; readonly credential_data: CredentialData }): {
  readonly facts: ReadonlyArray<CredentialFact>
  readonly secretLabel: string
} {
  const c = detail.credential_data
  switch (detail.cloud_provider_id) {
    case ProviderIds.GCP:
      return {
        facts: [
          { label: "Project ID", value: c.project_id ?? null },
          { label: "Service account", value: c.client_email ?? null },
        ],
        secretLabel: "Service account key",
      }
    case ProviderIds.Azure:
      return {
        facts: [
          { label: "Tenant ID", value: c.tenant_id ?? null },
          { label: "Client ID", value: c.client_id ?? null },
          { label: "Subscription ID", value: c.subscription_id ?? null },
        ],
        secretLabel: "Client secret",
      }
    default:
      return {
        facts: [
          { label: "Cloud account ID", value: c.aws_account_id },
          { label: "Access key ID", value: c.access_key },
        ],
        secretLabel: "Secret access key",
      }
  }
}

/**
 * Account page: passed checks, as the scan counts them (docs/outcomes.md): checks passed or remediated; checks passed
 * with exceptions (muted) and checks not evaluated are counted apart, never as passed.
 */
export const passedChecks = (scan: { readonly passed_findings: number }): number => scan.passed_findings

/**
 * Beyond the spec (issue 31): whether the account is a member retired from its organisation (its history stays readable;
 * the server refuses its scans, remediations and undos with 409 `account_retired`).
 */
export const isRetiredAccount = (a: { readonly retired_at?: string | null | undefined } | null | undefined): boolean =>
  a?.retired_at !== null && a?.retired_at !== undefined

/** Dashboard card badge (scanning §2). */
export const accountBadge = (a: {
  readonly failed_findings: number
  readonly status: string | null
}): { readonly kind: "issues"; readonly count: number } | { readonly kind: "no-issues" } | { readonly kind: "failed" } | { readonly kind: "none" } => {
  if (a.failed_findings > 0) return { kind: "issues", count: a.failed_findings }
  if (a.status === "completed") return { kind: "no-issues" }
  if (a.status === "failed") return { kind: "failed" }
  return { kind: "none" }
}

// ---------------------------------------------------------------------------------------------------
// Add account

/**
 * Credentials of every provider in one object (plain strings on the wire):
 * - AWS keys: access_key + secret_key (+ optional session_token);
 * - AWS role: role_arn (+ external_id);
 * - GCP: service_account_key (the key file's JSON text, validated in full by src/contracts/service-account-key.ts),
 *   optional project_id: the project scanned when it is not the key's own (an organisation's member project, scanned
 *   with the organisation's key: issue 31);
 * - Azure: tenant_id, client_id, client_secret, subscription_id.
 * Which fields are required depends on `cloud_provider_id` (see `credentialIssues`).
 */
export const Credentials = Schema.Struct({
  access_key: Schema.optionalKey(Schema.String),
  secret_key: Schema.optionalKey(Schema.String),
  session_token: Schema.optionalKey(Schema.String),
  role_arn: Schema.optionalKey(Schema.String),
  external_id: Schema.optionalKey(Schema.String),
  service_account_key: Schema.optionalKey(Schema.String),
  project_id: Schema.optionalKey(Schema.String),
  tenant_id: Schema.optionalKey(Schema.String),
  client_id: Schema.optionalKey(Schema.String),
  client_secret: Schema.optionalKey(Schema.String),
  subscription_id: Schema.optionalKey(Schema.String),
})
export type Credentials = typeof Credentials.Type

export type AwsKeyCredentials = { readonly access_key: string; readonly secret_key: string; readonly session_token?: string }
export type AwsRoleCredentials = { readonly role_arn: string; readonly external_id?: string }
export type GcpCredentials = { readonly service_account_key: string; readonly project_id?: string }
export type AzureCredentials = {
  readonly tenant_id: string
  readonly client_id: string
  readonly client_secret: string
  readonly subscription_id: string
}

/**
 * Server-side view of `Credentials`: the same JSON, with every secret (secret_key, session_token,
 * client_secret, service_account_key) decoded into `Redacted<string>`. Use
 * `Schema.decodeUnknownSync(ServerCredentials)(payload.credentials)` before the value travels further.
 */
export const ServerCredentials = Schema.Struct({
  ...Credentials.fields,
  secret_key: Schema.optionalKey(SecretString),
  session_token: Schema.optionalKey(SecretString),
  service_account_key: Schema.optionalKey(SecretString),
  client_secret: Schema.optionalKey(SecretString),
})
export type ServerCredentials = typeof ServerCredentials.Type

const blank = (s: string | undefined): boolean => s === undefined || s.trim() === ""

/** Credentials the SDKs put into HTTP headers (the access key id in `Authorization`, the session token): visible ASCII. */
const HEADER_BOUND: ReadonlyArray<keyof Credentials> = ["access_key", "session_token"]
/** Every one-line credential (all but the GCP key file): no control character, no lone surrogate. */
const ONE_LINE: ReadonlyArray<keyof Credentials> = [
  "access_key", "secret_key", "session_token", "role_arn", "external_id", "project_id", "tenant_id", "client_id", "client_secret", "subscription_id",
]

/** Required-field problems of `creds` for the provider (paths relative to the payload). */
export const credentialIssues = (
  cloudProviderId: number,
  creds: Credentials,
  options: { readonly organization?: boolean } = {},
): ReadonlyArray<{ readonly path: readonly [string, string]; readonly issue: string }> => {
  const out: Array<{ path: readonly [string, string]; issue: string }> = []
  const need = (key: keyof Credentials, message: string) => {
    if (blank(creds[key])) out.push({ path: ["credentials", key], issue: message })
  }
  // Characters the cloud SDKs cannot send (a 400 here, not a failed connection test: issue 27).
  for (const key of ONE_LINE) {
    const value = creds[key]
    if (typeof value !== "string" || value === "") continue
    const text = HEADER_BOUND.includes(key) ? value.trim() : value
    if (!isStorableLine(text) || (HEADER_BOUND.includes(key) && !/^[\x21-\x7e]+$/.test(text))) {
      out.push({ path: ["credentials", key], issue: PlatformMessages.invalidCharacter })
    }
  }
  if (cloudProviderId === ProviderIds.AWS) {
    if (!blank(creds.role_arn)) return out
    need("access_key", M.accessKeyRequired)
    need("secret_key", M.secretKeyRequired)
  } else if (cloudProviderId === ProviderIds.GCP) {
    need("service_account_key", M.serviceAccountKeyRequired)
    if (!blank(creds.service_account_key)) {
      const issue = serviceAccountKeyTextIssue(creds.service_account_key ?? "")
      if (issue !== undefined) out.push({ path: ["credentials", "service_account_key"], issue })
    }
    if (!blank(creds.project_id) && !isGcpProjectId((creds.project_id ?? "").trim())) out.push({ path: ["credentials", "project_id"], issue: M.gcpProjectIdInvalid })
  } else if (cloudProviderId === ProviderIds.Azure) {
    need("tenant_id", M.tenantIdRequired)
    need("client_id", M.clientIdRequired)
    need("client_secret", M.clientSecretRequired)
    // An organisation (issue 31) is read through its management group, not one subscription.
    if (options.organization !== true) need("subscription_id", M.subscriptionIdRequired)
  }
  return out
}

const AccountName = Schema.String.check(
  Schema.makeFilter((s: string) => s.trim() !== "" || M.accountNameRequired),
  Schema.isMaxLength(100),
).pipe(Schema.annotateKey({ messageMissingKey: M.accountNameRequired }))

const ProviderIdField = CloudProviderId.pipe(Schema.annotateKey({ messageMissingKey: M.cloudProviderRequired }))

const AddAccountFields = Schema.Struct({
  cloud_provider_id: ProviderIdField,
  account_name: AccountName,
  /**
   * False in the spec's SPA. Beyond the spec (issue 31): true onboards an organisation with the management (or delegated
   * administrator) credentials and the `organization` settings; its members become accounts of the workspace.
   */
  is_organization: Schema.Boolean,
  organization: Schema.optionalKey(OrganizationSettings),
  credentials: Credentials,
  /** Beyond the spec: true = only test the connection, do not save (the wizard's "Test connection"). */
  test_only: Schema.optionalKey(Schema.Boolean),
})

/** Scanning §3/§5 add-account payload with the spec's messages. */
export const AddAccountPayload = AddAccountFields.check(
  Schema.makeFilter((v: typeof AddAccountFields.Type) => {
    const issues = credentialIssues(v.cloud_provider_id, v.credentials, { organization: v.is_organization })
    return issues.length === 0 ? undefined : issues
  }),
)
export type AddAccountPayload = typeof AddAccountPayload.Type

/** Add-account form: keys `account_name`, `credentials.access_key`, `credentials.secret_key`, … */
export const validateAddAccount = (input: unknown): FieldErrors => {
  const errors: Record<string, string> = { ...formErrors(AddAccountPayload, input) }
  if (typeof input === "object" && input !== null) {
    const r = input as Record<string, unknown>
    const pid = typeof r["cloud_provider_id"] === "number" ? r["cloud_provider_id"] : undefined
    const creds = typeof r["credentials"] === "object" && r["credentials"] !== null ? (r["credentials"] as Credentials) : {}
    if (pid !== undefined) {
      for (const i of credentialIssues(pid, creds, { organization: r["is_organization"] === true })) {
        const k = i.path.join(".")
        if (!(k in errors)) errors[k] = i.issue
      }
    }
  }
  return errors
}

/** ok, data.account (with cloud_provider_id). A test-only call answers ok and no account. */
export const AddAccountResponse = Schema.Struct({
  ok: Schema.Boolean,
  message: Schema.String,
  data: Schema.Struct({
    account: Schema.optionalKey(Account),
    tested: Schema.optionalKey(Schema.Boolean),
    /** Beyond the spec (issue 31): the onboarded organisation with its first sync. */
    organization: Schema.optionalKey(OrganizationSummary),
    sync: Schema.optionalKey(OrganizationSync),
  }),
})
export type AddAccountResponse = typeof AddAccountResponse.Type

export const DeleteAccountResponse = OkMessage

/** POST /api/accounts/{id}/reveal-secret (beyond the spec; permission-checked and audited). */
export const RevealSecretResponse = withData(Schema.Struct({ secret_key: Schema.String }))
export type RevealSecretResponse = typeof RevealSecretResponse.Type

/**
 * GET /api/accounts/external-id (beyond the spec): the workspace's AWS external id for role access, generated by the
 * server on first use (one per workspace), shown in the add-account wizard, never chosen by the user.
 */
export const ExternalIdResponse = withData(Schema.Struct({ external_id: Schema.String }))
export type ExternalIdResponse = typeof ExternalIdResponse.Type

/** Mask used for secrets in the detail view: never reveals length or content. */
export const SECRET_MASK = "••••••••••••••••"
