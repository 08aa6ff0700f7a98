/**
 * The `sso` group (beyond the spec, issue 33 part 3; contract src/contracts/sso.ts; docs/sso.md):
 *   GET/PUT/DELETE /api/workspaces/{id}/sso  → the workspace's identity provider (workspace admins only: the owner, or a
 *                                              member holding every permission; anyone else 403 Forbidden). PUT and
 *                                              DELETE are audited (`sso.configured` with before/after, `sso.removed`);
 *                                              the client secret is never answered.
 *   POST /api/sso/start                      → public: the email's domain → its enabled connection → a login state →
 *                                              the provider's URL; no connection → 404 with the contract's message.
 *   GET  /api/sso/oidc/callback              → the OpenID provider's return; POST /api/sso/saml/acs: the SAML IdP's.
 *                                              Both answer 302 to `${APP_ORIGIN}/login/sso` with `code=<one-time code>`
 *                                              or `error=<SsoErrorKey>` (never a 500 for a bad or replayed answer).
 *   GET  /api/sso/saml/{id}/metadata         → our SP metadata for workspace {id} (404 when it has no SAML connection).
 *   POST /api/sso/exchange                   → the one-time code → the session, as POST /api/login answers.
 */
import { Effect, Layer, Redacted } from "effect"
import { HttpServerResponse, type HttpServerRequest } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../../src/contracts/api.ts"
import { Conflict, Forbidden, InvalidToken, NotFound, ServiceUnavailable, ValidationError, WorkspaceAccessDenied } from "../../src/contracts/errors.ts"
import { AccessServerMessages } from "../../src/contracts/messages.ts"
import { normalizeCertificatePem, safeReturnPath, type SsoConnectionPayload, SsoMessages as M, type SsoErrorKey } from "../../src/contracts/sso.ts"
import { record } from "../audit/audit-log.ts"
import { AuthConfig } from "../auth/auth-config.ts"
import { randomToken } from "../auth/crypto.ts"
import { captureIdentity, IdentityLive } from "../auth/identity-layer.ts"
import { inScope, inScopeForMember } from "../auth/rls.ts"
import { sqlDefects } from "../auth/sql-errors.ts"
import { buildUser, findUserById, normalizeEmail } from "../auth/users.ts"
import { logLine } from "../log.ts"
import {
  type ConnectionRow,
  connectionForEmail,
  connectionRow,
  deleteConnection,
  openClientSecret,
  readConnection,
  saveConnection,
  serviceProvider,
} from "../sso/connections.ts"
import { oidcAuthorizationUrl, oidcComplete, type OidcSettings } from "../sso/oidc.ts"
import { newRequestId, samlAuthorizationUrl, samlComplete, samlMetadata, type SamlSettings } from "../sso/saml.ts"
import { admit, consumeHandoff, consumeLoginState, type ProvidedIdentity, saveLoginState } from "../sso/sign-in.ts"
import { openSession } from "./auth.ts"
import { clientAddress, sessionRevoked, verifyBearer } from "./middleware/authentication.ts"
import { guard } from "./middleware/input-guard.ts"
import { toMembership, type WorkspaceContext } from "./middleware/workspace-scope.ts"
import { isWorkspaceAdmin } from "./storage.ts"

/** Runs `body` in the scope of the path's workspace for one of its admins (the owner, or every permission, unlimited). */
const asAdmin = <A, E, R>(
  request: HttpServerRequest.HttpServerRequest,
  workspaceId: number,
  body: (ctx: WorkspaceContext) => Effect.Effect<A, E, R>,
) =>
  Effect.gen(function* () {
    const caller = yield* verifyBearer(request)
    return yield* inScopeForMember({ workspaceId, userId: caller.userId }, caller.sessionId, sessionRevoked, (row) =>
      Effect.gen(function* () {
        if (row === undefined) return yield* new WorkspaceAccessDenied({ message: AccessServerMessages.workspaceAccessDenied })
        const ctx: WorkspaceContext = { ...caller, ...toMembership(row), workspaceId, ip: clientAddress(request) }
        // A role limited to account groups is not an admin here: its holder could map a group to an unlimited role.
        if (!isWorkspaceAdmin(ctx) || ctx.accountGroupIds !== null) return yield* new Forbidden({ message: M.permissionDenied })
        return yield* body(ctx)
      }))
  })

const oidcSettings = (secret: Redacted.Redacted<string>, row: ConnectionRow): OidcSettings | undefined => {
  const clientSecret = openClientSecret(secret, row)
  return row.oidc_issuer === null || row.oidc_client_id === null || clientSecret === undefined
    ? undefined
    : { issuer: row.oidc_issuer, clientId: row.oidc_client_id, clientSecret }
}

const samlSettings = (appOrigin: string, row: ConnectionRow): SamlSettings | undefined => {
  const sp = serviceProvider(appOrigin, row.workspace_id)
  return row.saml_idp_entity_id === null || row.saml_sso_url === null || row.saml_idp_certificate === null
    ? undefined
    : { entityId: sp.saml_entity_id, acsUrl: sp.saml_acs_url, idpEntityId: row.saml_idp_entity_id, ssoUrl: row.saml_sso_url, certificate: normalizeCertificatePem(row.saml_idp_certificate) }
}

/** An error and its causes in one line (openid-client wraps the SSRF guard's refusal as the cause). */
const describe = (error: unknown): string => {
  const parts: Array<string> = []
  for (let e: unknown = error, depth = 0; e !== undefined && e !== null && depth < 4; depth++) {
    parts.push(e instanceof Error ? `${e.name}: ${e.message}` : String(e))
    e = e instanceof Error ? e.cause : undefined
  }
  return parts.join(" ← ").slice(0, 500)
}

export const SsoHandlers = HttpApiBuilder.group(
  Api,
  "sso",
  Effect.fn(function* (handlers) {
    const provide = yield* captureIdentity
    const run = <A, E, R>(effect: Effect.Effect<A, E, R>) => provide(sqlDefects(effect))
    const config = yield* AuthConfig
    const landing = (query: Record<string, string>) =>
      HttpServerResponse.redirect(`${config.appOrigin}/login/sso?${new URLSearchParams(query).toString()}`, { status: 302 })

    const settings = (workspaceId: number) =>
      Effect.map(readConnection(workspaceId), (connection) => ({
        connection,
        service_provider: serviceProvider(config.appOrigin, workspaceId),
      }))

    // ---- configuration (workspace admins) ---------------------------------------------------------------------------
    const getSso = (request: HttpServerRequest.HttpServerRequest, workspaceId: number) =>
      asAdmin(request, workspaceId, (ctx) => Effect.map(settings(ctx.workspaceId), (data) => ({ ok: true, data })))

    const putSso = (request: HttpServerRequest.HttpServerRequest, workspaceId: number, payload: SsoConnectionPayload) =>
      asAdmin(request, workspaceId, (ctx) =>
        Effect.gen(function* () {
          const outcome = yield* saveConnection({ workspaceId: ctx.workspaceId, userId: ctx.userId, secret: config.secretKey }, payload)
          switch (outcome._tag) {
            case "missingSecret":
              return yield* new Conflict({ message: M.clientSecretRequired, data: { error_type: "client_secret_required" } })
            case "missingSettings":
              return yield* new Conflict({
                message: payload.protocol === "oidc" ? M.issuerInvalid : M.ssoUrlInvalid,
                data: { error_type: "settings_required" },
              })
            case "badCertificate":
              return yield* new ValidationError({ message: M.certificateUnreadable, errors: [{ path: "saml.certificate", message: M.certificateUnreadable }] })
            case "unknownRole":
              return yield* new Conflict({ message: M.roleUnknown, data: { error_type: "unknown_role" } })
            case "domainTaken":
              return yield* new Conflict({ message: `${M.domainTaken}: ${outcome.domain}`, data: { error_type: "domain_taken" } })
          }
          const data = yield* settings(ctx.workspaceId)
          yield* record({
            action: "sso.configured", workspaceId: ctx.workspaceId, actorUserId: ctx.userId, targetType: "sso_connection",
            targetId: ctx.workspaceId, details: { before: outcome.before, after: data.connection, created: outcome.created }, ip: ctx.ip,
          })
          return { ok: true, message: M.saved, data }
        }))

    const deleteSso = (request: HttpServerRequest.HttpServerRequest, workspaceId: number) =>
      asAdmin(request, workspaceId, (ctx) =>
        Effect.gen(function* () {
          const before = yield* readConnection(ctx.workspaceId)
          if (!(yield* deleteConnection(ctx.workspaceId))) return yield* new NotFound({ message: M.notConfigured })
          yield* record({
            action: "sso.removed", workspaceId: ctx.workspaceId, actorUserId: ctx.userId, targetType: "sso_connection",
            targetId: ctx.workspaceId, details: { before }, ip: ctx.ip,
          })
          return { ok: true, message: M.deleted, data: yield* settings(ctx.workspaceId) }
        }))

    // ---- sign-in --------------------------------------------------------------------------------------------------
    const start = Effect.fn("Sso.start")(function* (payload: { readonly email: string; readonly return_to?: string }) {
      const email = normalizeEmail(payload.email)
      const connection = yield* connectionForEmail(email)
      if (connection === undefined) return yield* new NotFound({ message: M.noConnectionForDomain })
      const returnTo = safeReturnPath(payload.return_to)
      const state = randomToken(32)
      const unavailable = (error: unknown) => {
        logLine("warn", "sso start failed", { workspace_id: connection.workspace_id, error: describe(error) })
        return new ServiceUnavailable({ message: M.discoveryFailed })
      }
      let url: string
      if (connection.protocol === "oidc") {
        const oidc = oidcSettings(config.secretKey, connection)
        if (oidc === undefined) return yield* unavailable("the stored client secret does not open")
        const started = yield* Effect.tryPromise({
          try: () => oidcAuthorizationUrl(oidc, serviceProvider(config.appOrigin, connection.workspace_id).oidc_redirect_uri, email, state),
          catch: unavailable,
        })
        // The provider is told `state`; we keep its digest, the nonce and the PKCE verifier.
        url = started.url
        yield* saveLoginState(state, {
          connection_id: connection.id, workspace_id: connection.workspace_id, nonce: started.nonce,
          code_verifier: started.codeVerifier, return_to: returnTo,
        })
      } else {
        const saml = samlSettings(config.appOrigin, connection)
        if (saml === undefined) return yield* unavailable("incomplete SAML settings")
        const requestId = newRequestId()
        url = yield* Effect.tryPromise({ try: () => samlAuthorizationUrl(saml, requestId, state), catch: unavailable })
        yield* saveLoginState(state, {
          connection_id: connection.id, workspace_id: connection.workspace_id, nonce: requestId, code_verifier: null, return_to: returnTo,
        })
      }
      return { ok: true, data: { redirect_url: url } }
    })

    /** The connection a consumed login state belongs to (read in its workspace's scope). */
    const stateConnection = (workspaceId: number, connectionId: number) =>
      Effect.map(inScope({ workspaceId })(connectionRow(workspaceId)), (row) => (row !== undefined && row.id === connectionId && row.enabled ? row : undefined))

    /** Validates through `complete`, admits, and answers the landing redirect (code or error key). */
    const finish = Effect.fn("Sso.finish")(function* (
      connection: ConnectionRow,
      returnTo: string | null,
      ip: string,
      complete: () => Promise<ProvidedIdentity>,
    ) {
      const fail = (key: SsoErrorKey, reason: string) =>
        Effect.as(
          record({ action: "auth.sso_sign_in_failed", workspaceId: connection.workspace_id, details: { protocol: connection.protocol, reason }, ip }),
          landing({ error: key }),
        )
      const identity = yield* Effect.tryPromise({ try: complete, catch: describe }).pipe(Effect.result)
      if (identity._tag === "Failure") return yield* fail("signInFailed", identity.failure)
      const outcome = yield* admit(connection, identity.success, { ip, returnTo })
      if (outcome._tag === "refused") return yield* fail(outcome.key, outcome.reason)
      return landing({ code: outcome.code })
    })

    const oidcCallback = Effect.fn("Sso.oidcCallback")(function* (request: HttpServerRequest.HttpServerRequest, query: Record<string, string | undefined>) {
      const ip = clientAddress(request)
      const state = query["state"]
      const login = state === undefined ? undefined : yield* consumeLoginState(state)
      if (login === undefined || login.nonce === null || login.code_verifier === null) {
        yield* record({ action: "auth.sso_sign_in_failed", details: { protocol: "oidc", reason: "unknown, used or expired state" }, ip })
        return landing({ error: "signInExpired" })
      }
      const connection = yield* stateConnection(login.workspace_id, login.connection_id)
      const oidc = connection === undefined ? undefined : oidcSettings(config.secretKey, connection)
      if (connection === undefined || oidc === undefined) return landing({ error: "signInFailed" })
      if (query["error"] !== undefined) {
        yield* record({
          action: "auth.sso_sign_in_failed", workspaceId: connection.workspace_id,
          details: { protocol: "oidc", reason: `provider error ${query["error"]}`.slice(0, 300) }, ip,
        })
        return landing({ error: "providerRefused" })
      }
      // The URL the provider redirected to, rebuilt on APP_ORIGIN (the registered redirect URI), never the Host header.
      const callbackUrl = new URL(serviceProvider(config.appOrigin, connection.workspace_id).oidc_redirect_uri)
      for (const [key, value] of Object.entries(query)) if (value !== undefined) callbackUrl.searchParams.set(key, value)
      const checks = { state: state!, nonce: login.nonce, codeVerifier: login.code_verifier }
      return yield* finish(connection, login.return_to, ip, () =>
        oidcComplete(oidc, callbackUrl, checks, connection.groups_attribute).then((identity) => ({ ...identity })))
    })

    const samlAcs = Effect.fn("Sso.samlAcs")(function* (request: HttpServerRequest.HttpServerRequest, payload: { readonly SAMLResponse: string; readonly RelayState?: string }) {
      const ip = clientAddress(request)
      const login = payload.RelayState === undefined ? undefined : yield* consumeLoginState(payload.RelayState)
      if (login === undefined || login.nonce === null) {
        yield* record({ action: "auth.sso_sign_in_failed", details: { protocol: "saml", reason: "unknown, used or expired RelayState" }, ip })
        return landing({ error: "signInExpired" })
      }
      const connection = yield* stateConnection(login.workspace_id, login.connection_id)
      const saml = connection === undefined ? undefined : samlSettings(config.appOrigin, connection)
      if (connection === undefined || saml === undefined) return landing({ error: "signInFailed" })
      const requestId = login.nonce
      return yield* finish(connection, login.return_to, ip, () =>
        samlComplete(saml, requestId, payload.SAMLResponse, connection.groups_attribute)
          // The assertion is signed by the IdP (checked above): its email is the IdP's word.
          .then((identity) => ({ ...identity, emailVerified: true })))
    })

    const metadata = Effect.fn("Sso.metadata")(function* (workspaceId: number) {
      const row = yield* inScope({ workspaceId })(connectionRow(workspaceId))
      if (row === undefined || row.protocol !== "saml") return yield* new NotFound({ message: M.notConfigured })
      const sp = serviceProvider(config.appOrigin, workspaceId)
      return HttpServerResponse.text(samlMetadata(sp.saml_entity_id, sp.saml_acs_url), { contentType: "application/samlmetadata+xml" })
    })

    const exchange = Effect.fn("Sso.exchange")(function* (code: string, ip: string) {
      const handoff = yield* consumeHandoff(code)
      if (handoff === undefined) return yield* new InvalidToken({ message: M.codeInvalid })
      const user = yield* findUserById(handoff.user_id)
      if (user === undefined) return yield* new InvalidToken({ message: M.codeInvalid })
      return yield* inScope({ userId: user.id })(Effect.gen(function* () {
        const tokens = yield* openSession(user.id, handoff.workspace_id)
        yield* record({ action: "auth.sign_in", actorUserId: user.id, details: { session: tokens.sessionId, via: "sso" }, ip })
        return {
          access_token: tokens.access_token,
          refresh_token: tokens.refresh_token,
          data: yield* buildUser(user, handoff.workspace_id),
          return_to: safeReturnPath(handoff.return_to),
        }
      }))
    })

    return handlers
      .handle("getSso", guard(({ request, params }) => run(getSso(request, params.id))))
      .handle("putSso", guard(({ request, params, payload }) => run(putSso(request, params.id, payload))))
      .handle("deleteSso", guard(({ request, params }) => run(deleteSso(request, params.id))))
      .handle("ssoStart", guard(({ payload }) => run(start(payload))))
      .handle("oidcCallback", ({ request, query }) => run(oidcCallback(request, query)))
      .handle("samlAcs", ({ request, payload }) => run(samlAcs(request, payload)))
      .handle("samlMetadata", ({ params }) => run(metadata(params.id)))
      .handle("ssoExchange", guard(({ payload, request }) => run(exchange(payload.code, clientAddress(request)))))
  }),
).pipe(Layer.provide(IdentityLive))
