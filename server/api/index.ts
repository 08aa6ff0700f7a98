/**
 * Composition of the API's group handler layers. ONE line per contract group: a group is served by its
 * real layer once it exists, else by `notImplemented(<group>)` (every endpoint answers 501). To switch a
 * group, replace its `notImplemented("x")` with the layer (and add the import), e.g.
 *   import { AuthHandlers } from "./auth.ts"
 *   AuthHandlers,            // was: notImplemented("auth"),
 * Services a group layer needs (SqlClient, AppConfig, mailer, ...) are provided by server/http/server.ts;
 * group-specific ones (an auth middleware layer, ...) are provided here with `Layer.provide`.
 */
import { Layer } from "effect"
import { AccountGroupsHandlers } from "./account-groups.ts"
import { AccountsHandlers } from "./accounts.ts"
import { ApiKeysHandlers } from "./api-keys.ts"
import { AuthHandlers } from "./auth.ts"
import { ComplianceHandlers } from "./compliance.ts"
import { FindingsHandlers } from "./findings.ts"
import { InvitationsHandlers } from "./invitations.ts"
import { JiraHandlers } from "./jira.ts"
import { notImplemented } from "./not-implemented.ts"
import { OrganizationsHandlers } from "./organizations.ts"
import { PostureHandlers } from "./posture.ts"
import { ProfileHandlers } from "./profile.ts"
import { ProvidersHandlers } from "./providers.ts"
import { RemediationBatchesHandlers } from "./remediation-batches.ts"
import { RemediationRequestsHandlers } from "./remediation-requests.ts"
import { RemediationsHandlers } from "./remediations.ts"
import { ScansHandlers } from "./scans.ts"
import { SecurityHubHandlers } from "./security-hub.ts"
import { SsoHandlers } from "./sso.ts"
import { StorageHandlers } from "./storage.ts"
import { SystemHandlers } from "./system.ts"
import { TeamHandlers } from "./team.ts"
import { WebhooksHandlers } from "./webhooks.ts"
import { WorkspacesHandlers } from "./workspaces.ts"

export const ApiHandlers = Layer.mergeAll(
  SystemHandlers,
  AuthHandlers,
  WorkspacesHandlers,
  TeamHandlers,
  InvitationsHandlers,
  ProfileHandlers,
  ProvidersHandlers,
  AccountsHandlers,
  ScansHandlers,
  FindingsHandlers,
  PostureHandlers,
  ComplianceHandlers,
  StorageHandlers,
  OrganizationsHandlers,
  AccountGroupsHandlers,
  ApiKeysHandlers,
  RemediationRequestsHandlers,
  SsoHandlers,
  SecurityHubHandlers,
  JiraHandlers,
  WebhooksHandlers,
  RemediationsHandlers,
  RemediationBatchesHandlers,
)
