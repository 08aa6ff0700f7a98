/**
 * Jira Cloud (beyond the spec, issue 33 part 5; docs/integrations-jira.md): one Jira site per workspace (configured by
 * workspace admins), and issues created from a finding — one for the finding, or one per failing resource — with a
 * link back to the finding page and labels. A finding shows its issues' keys and statuses (refreshed by a job and on
 * demand); an issue whose status category is "done" shows as closed. Shapes shared by server/api/jira.ts and the SPA;
 * messages are the texts both show. The API token is write-only: answers say only that one is stored.
 */
import { Schema } from "effect"
import { AccountId, FindingId, idParam } from "./ids.ts"
import { NullableTimestamp, OkMessage, Timestamp, withData } from "./common.ts"

export const JiraMessages = {
  adminOnly: "Only workspace admins can configure integrations",
  createPermissionDenied: "You don't have permission to create Jira issues",
  siteUrlInvalid: "Enter your Jira site address, like https://your-team.atlassian.net",
  emailInvalid: "Enter the email address of the Jira account",
  tokenRequired: "Enter an API token",
  projectKeyInvalid: "Project keys are upper-case letters and digits, like SEC",
  issueTypeRequired: "Enter an issue type, like Task or Bug",
  labelInvalid: "Labels cannot contain spaces and are at most 255 characters",
  connectionSaved: "Jira connection saved",
  connectionRemoved: "Jira connection removed",
  connectionWorks: (project: string) => `Connected: project ${project} is reachable`,
  notConfigured: "Connect Jira in Settings › Integrations first",
  findingNotFound: "Finding not found",
  nothingFailing: "This finding has no failing resource to report",
  tooManyResources: (max: number) => `One issue per resource is available up to ${max} failing resources; create one issue for the finding instead`,
  alreadyExists: (key: string) => `This finding already has Jira issue ${key}`,
  allResourcesHaveIssues: "Every failing resource of this finding already has a Jira issue",
  created: (keys: ReadonlyArray<string>) => (keys.length === 1 ? `Jira issue ${keys[0]} created` : `${keys.length} Jira issues created`),
  refreshed: "Jira statuses refreshed",
  unauthorized: "Jira refused the credentials: check the account email and API token",
  forbidden: "The Jira account may not do this in the project: check its project permissions",
  projectNotFound: (key: string) => `Jira has no project ${key} (or the account cannot see it)`,
  rejected: (detail: string) => `Jira refused the issue: ${detail}`,
  unreachable: "Jira could not be reached; try again later",
  blockedAddress: "The Jira site address points to a network this server may not call",
} as const

export const JIRA_MAX_ISSUES_PER_REQUEST = 50

/** http: passes the contract; the server accepts it only where private targets are allowed (docs/integrations-jira.md). */
const SITE = /^https?:\/\/[a-z0-9.-]+(?::\d{1,5})?\/?$/i
const PROJECT_KEY = /^[A-Z][A-Z0-9_]{0,254}$/
const LABEL = /^[^\s]{1,255}$/

export const JiraLabel = Schema.String.check(Schema.isPattern(LABEL, { message: JiraMessages.labelInvalid }))

export const JiraConnectionPayload = Schema.Struct({
  site_url: Schema.String.check(Schema.isMaxLength(2048), Schema.isPattern(SITE, { message: JiraMessages.siteUrlInvalid })),
  email: Schema.String.check(Schema.isMaxLength(320), Schema.isPattern(/^[^\s@]+@[^\s@]+$/, { message: JiraMessages.emailInvalid })),
  /** Absent when updating: the stored token is kept. Required when no connection exists. */
  api_token: Schema.optionalKey(Schema.String.check(Schema.isMinLength(1, { message: JiraMessages.tokenRequired }), Schema.isMaxLength(1024))),
  project_key: Schema.String.check(Schema.isPattern(PROJECT_KEY, { message: JiraMessages.projectKeyInvalid })),
  issue_type: Schema.String.check(Schema.isMinLength(1, { message: JiraMessages.issueTypeRequired }), Schema.isMaxLength(255)),
  labels: Schema.Array(JiraLabel).check(Schema.isMaxLength(20)),
})
export type JiraConnectionPayload = typeof JiraConnectionPayload.Type

export const JiraConnection = Schema.Struct({
  site_url: Schema.String,
  email: Schema.String,
  project_key: Schema.String,
  issue_type: Schema.String,
  labels: Schema.Array(Schema.String),
  /** Always true: an API token is stored (it is never answered). */
  token_set: Schema.Boolean,
  updated_at: Timestamp,
})
export type JiraConnection = typeof JiraConnection.Type

export const JiraConnectionResponse = withData(Schema.NullOr(JiraConnection))
export type JiraConnectionResponse = typeof JiraConnectionResponse.Type

export const JiraConnectionSaved = Schema.Struct({ ok: Schema.Boolean, message: Schema.String, data: JiraConnection })
export type JiraConnectionSaved = typeof JiraConnectionSaved.Type

export const JiraStatusCategory = Schema.Literals(["new", "indeterminate", "done"])
export type JiraStatusCategory = typeof JiraStatusCategory.Type

export const JiraIssue = Schema.Struct({
  account_id: AccountId,
  check_id: Schema.String,
  /** The resource the issue is about; null: the whole finding. */
  resource_uid: Schema.NullOr(Schema.String),
  issue_key: Schema.String,
  issue_url: Schema.String,
  status_name: Schema.String,
  status_category: JiraStatusCategory,
  /** The issue's status category is "done". */
  closed: Schema.Boolean,
  refreshed_at: NullableTimestamp,
  created_at: Timestamp,
})
export type JiraIssue = typeof JiraIssue.Type

export const FindingJiraIssuesResponse = withData(Schema.Array(JiraIssue))
export type FindingJiraIssuesResponse = typeof FindingJiraIssuesResponse.Type

export const JiraIssueMode = Schema.Literals(["finding", "per_resource"])
export type JiraIssueMode = typeof JiraIssueMode.Type

export const CreateJiraIssuesPayload = Schema.Struct({ mode: JiraIssueMode })
export type CreateJiraIssuesPayload = typeof CreateJiraIssuesPayload.Type

export const CreateJiraIssuesResponse = Schema.Struct({
  ok: Schema.Boolean,
  message: Schema.String,
  data: Schema.Struct({ created: Schema.Array(JiraIssue), existing: Schema.Array(JiraIssue) }),
})
export type CreateJiraIssuesResponse = typeof CreateJiraIssuesResponse.Type

export const FindingIssueParams = Schema.Struct({ id: idParam(FindingId) })

export const JiraTestResponse = OkMessage
export const JiraRemoveResponse = OkMessage

/** Texts of the Integrations settings page (Jira and Security Hub) that are not answers of the server. */
export const IntegrationsPageMessages = {
  loadFailed: "Failed to load the integrations. Please try again.",
  saveJiraFailed: "Failed to save the Jira connection. Please try again.",
  testJiraFailed: "The Jira connection could not be tested. Please try again.",
  removeJiraFailed: "Failed to remove the Jira connection. Please try again.",
  saveHubFailed: "Failed to save the Security Hub settings. Please try again.",
  exportHubFailed: "Failed to queue the Security Hub export. Please try again.",
  adminOnly: JiraMessages.adminOnly,
} as const

/** The Jira form's fields as typed (labels: a comma- or space-separated list). */
export const JIRA_FIELDS = ["site_url", "email", "api_token", "project_key", "issue_type", "labels"] as const
export type JiraField = (typeof JIRA_FIELDS)[number]
export type JiraValues = { readonly [K in JiraField]: string }

/** The payload the Jira form describes (an empty token: keep the stored one). */
export const jiraPayloadOf = (values: JiraValues): JiraConnectionPayload => {
  const token = values.api_token.trim()
  return {
    site_url: values.site_url.trim().replace(/\/+$/, ""),
    email: values.email.trim(),
    ...(token === "" ? {} : { api_token: token }),
    project_key: values.project_key.trim(),
    issue_type: values.issue_type.trim(),
    labels: values.labels.split(/[\s,]+/).filter((l) => l !== ""),
  }
}

/** The form showing a saved connection (the token is never shown: empty keeps it). */
export const jiraValuesOf = (connection: JiraConnection | null): JiraValues => ({
  site_url: connection?.site_url ?? "",
  email: connection?.email ?? "",
  api_token: "",
  project_key: connection?.project_key ?? "",
  issue_type: connection?.issue_type ?? "Task",
  labels: connection?.labels.join(", ") ?? "",
})
