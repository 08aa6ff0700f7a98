/**
 * The `jira` group (beyond the spec, issue 33 part 5; contract src/contracts/jira.ts, domain server/integrations/jira*.ts;
 * docs/integrations-jira.md):
 *   GET    /api/integrations/jira                   → the workspace's Jira connection (never its token), or null;
 *   PUT    /api/integrations/jira                   → saves it (the token may be left out to keep the stored one; audited);
 *   DELETE /api/integrations/jira                   → removes it (audited; issues already created stay listed);
 *   POST   /api/integrations/jira/test              → reads the configured project with the stored credentials;
 *   GET    /api/findings/{id}/jira-issues           → the issues of the finding's (account, check), with their statuses;
 *   POST   /api/findings/{id}/jira-issues           → creates one issue for the finding, or one per failing resource;
 *                                                     a key that has an issue already is not created again (409 with
 *                                                     the existing key when nothing is left to create);
 *   POST   /api/findings/{id}/jira-issues/refresh   → reads the statuses from Jira now.
 *
 * Configuration: workspace admins (as every integration). Creating issues: remediate_findings (an issue is the
 * hand-off of a remediation; docs/permissions.md); reading and refreshing: the findings' read permissions. Jira is
 * called with no database transaction open (read, call, write). Jira refusing the setup (credentials, permissions,
 * project, fields) → 400 with the reason; Jira unreachable or answering outside its contract → 503.
 */
import { Effect, Layer } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import type { HttpServerRequest } from "effect/http"
import { Api } from "../../src/contracts/api.ts"
import { Conflict, NotFound, ServiceUnavailable, ValidationError } from "../../src/contracts/errors.ts"
import { JIRA_MAX_ISSUES_PER_REQUEST, JiraMessages as M, type JiraIssueMode } from "../../src/contracts/jira.ts"
import { AuthConfigFromApp } from "../auth/identity-layer.ts"
import { AppConfig } from "../config.ts"
import {
  connectionView,
  createInJira,
  deleteJiraConnection,
  failureMessage,
  findingSubject,
  getJiraConnection,
  issuesOf,
  loadJiraConnection,
  planIssues,
  probeProject,
  readStatuses,
  recordCreated,
  recordStatuses,
  saveJiraConnection,
  siteUrlAllowed,
} from "../integrations/jira.ts"
import type { JiraFailure } from "../integrations/jira-client.ts"
import { READ, REMEDIATE, scoped } from "./middleware/scanning-access.ts"
import { asIntegrationAdmin } from "./security-hub.ts"

const jiraError = (failure: JiraFailure, projectKey: string) => {
  const { message, unavailable } = failureMessage(failure, projectKey)
  return unavailable ? new ServiceUnavailable({ message }) : new ValidationError({ message })
}

const dieOnQueue = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  effect.pipe(
    Effect.catchTag("JobQueueError" as never, (e) => Effect.die(e)),
    Effect.catchTag("JobPayloadInvalid" as never, (e) => Effect.die(e)),
  ) as Effect.Effect<A, Exclude<E, { readonly _tag: "JobQueueError" | "JobPayloadInvalid" }>, R>

const createIssues = (request: HttpServerRequest.HttpServerRequest, findingId: number, mode: JiraIssueMode) =>
  Effect.gen(function* () {
    const config = yield* AppConfig
    // 1. Read: permission, the finding, the connection, what exists already.
    const prepared = yield* scoped(request, REMEDIATE, (ctx) =>
      Effect.gen(function* () {
        const subject = yield* findingSubject(ctx.workspaceId, findingId)
        if (subject === undefined) return yield* new NotFound({ message: M.findingNotFound })
        const loaded = yield* loadJiraConnection(ctx.workspaceId)
        if (loaded === undefined) return yield* new ValidationError({ message: M.notConfigured })
        if (subject.failing.length === 0) return yield* new ValidationError({ message: M.nothingFailing })
        if (mode === "per_resource" && subject.failing.length > JIRA_MAX_ISSUES_PER_REQUEST) {
          return yield* new ValidationError({ message: M.tooManyResources(JIRA_MAX_ISSUES_PER_REQUEST) })
        }
        const plan = planIssues(subject, mode, yield* issuesOf(ctx.workspaceId, subject.accountId, subject.checkId))
        if (plan.create.length === 0) {
          return yield* new Conflict({ message: mode === "finding" ? M.alreadyExists(plan.existing[0]!.issue_key) : M.allResourcesHaveIssues })
        }
        return { subject, loaded, plan }
      }), M.createPermissionDenied)
    const { subject, loaded, plan } = prepared
    // 2. Jira (no transaction open).
    const findingUrl = `${config.appOrigin}/dashboard/scans/${subject.scanId}/findings/${subject.findingId}`
    const outcome = yield* Effect.promise(() => createInJira(loaded, subject, plan.create, findingUrl))
    // 3. Write what was created, even when a later one failed (so a retry does not duplicate it).
    const issues = yield* scoped(request, REMEDIATE, (ctx) =>
      Effect.gen(function* () {
        yield* dieOnQueue(recordCreated(ctx, subject, loaded.site.siteUrl, outcome.created))
        return yield* issuesOf(ctx.workspaceId, subject.accountId, subject.checkId)
      }), M.createPermissionDenied)
    if (outcome.failure !== undefined) return yield* jiraError(outcome.failure, loaded.connection.project_key)
    const keys = new Set(outcome.created.map((c) => c.key))
    return {
      ok: true,
      message: M.created(outcome.created.map((c) => c.key)),
      data: { created: issues.filter((i) => keys.has(i.issue_key)), existing: plan.existing },
    }
  })

const refreshIssues = (request: HttpServerRequest.HttpServerRequest, findingId: number) =>
  Effect.gen(function* () {
    const prepared = yield* scoped(request, READ, (ctx) =>
      Effect.gen(function* () {
        const subject = yield* findingSubject(ctx.workspaceId, findingId)
        if (subject === undefined) return yield* new NotFound({ message: M.findingNotFound })
        const loaded = yield* loadJiraConnection(ctx.workspaceId)
        if (loaded === undefined) return yield* new ValidationError({ message: M.notConfigured })
        return { subject, loaded, issues: yield* issuesOf(ctx.workspaceId, subject.accountId, subject.checkId) }
      }))
    const { statuses, failure } = yield* Effect.promise(() => readStatuses(prepared.loaded.site, prepared.issues.map((i) => i.issue_key)))
    const issues = yield* scoped(request, READ, (ctx) =>
      Effect.gen(function* () {
        yield* recordStatuses(ctx.workspaceId, statuses)
        return yield* issuesOf(ctx.workspaceId, prepared.subject.accountId, prepared.subject.checkId)
      }))
    if (failure !== undefined && failure.reason !== "not_found") return yield* jiraError(failure, prepared.loaded.connection.project_key)
    return { ok: true, data: issues }
  })

export const JiraHandlers = HttpApiBuilder.group(Api, "jira", (handlers) =>
  handlers
    .handle("getConnection", ({ request }) =>
      asIntegrationAdmin(request, (ctx) => Effect.map(getJiraConnection(ctx.workspaceId), (row) => ({ ok: true, data: connectionView(row) }))))
    .handle("putConnection", ({ request, payload }) =>
      asIntegrationAdmin(request, (ctx) =>
        Effect.gen(function* () {
          if (!siteUrlAllowed(payload.site_url)) {
            return yield* new ValidationError({ message: M.siteUrlInvalid, errors: [{ path: "site_url", message: M.siteUrlInvalid }] })
          }
          const saved = yield* saveJiraConnection(ctx, payload)
          if ("missingToken" in saved) {
            return yield* new ValidationError({ message: M.tokenRequired, errors: [{ path: "api_token", message: M.tokenRequired }] })
          }
          return { ok: true, message: M.connectionSaved, data: saved.connection }
        })))
    .handle("deleteConnection", ({ request }) =>
      asIntegrationAdmin(request, (ctx) =>
        Effect.gen(function* () {
          if (!(yield* deleteJiraConnection(ctx))) return yield* new NotFound({ message: M.notConfigured })
          return { ok: true, message: M.connectionRemoved }
        })))
    .handle("testConnection", ({ request }) =>
      Effect.gen(function* () {
        const loaded = yield* asIntegrationAdmin(request, (ctx) =>
          Effect.gen(function* () {
            const l = yield* loadJiraConnection(ctx.workspaceId)
            if (l === undefined) return yield* new NotFound({ message: M.notConfigured })
            return l
          }))
        const project = yield* probeProject(loaded.site, loaded.connection.project_key).pipe(
          Effect.mapError((failure) => jiraError(failure, loaded.connection.project_key)),
        )
        return { ok: true, message: M.connectionWorks(project) }
      }))
    .handle("findingIssues", ({ request, params }) =>
      scoped(request, READ, (ctx) =>
        Effect.gen(function* () {
          const subject = yield* findingSubject(ctx.workspaceId, params.id)
          if (subject === undefined) return yield* new NotFound({ message: M.findingNotFound })
          return { ok: true, data: yield* issuesOf(ctx.workspaceId, subject.accountId, subject.checkId) }
        })))
    .handle("createIssues", ({ request, params, payload }) => createIssues(request, params.id, payload.mode))
    .handle("refreshIssues", ({ request, params }) => refreshIssues(request, params.id)),
).pipe(Layer.provide(AuthConfigFromApp))
