/**
 * The `auth` group (access §7): login, signup, logout, refresh-token, user-info, forgot/validate/reset password,
 * verify-email (GET and POST) and resend-verification. Behaviour: access §4–§5, messages: §8 (src/contracts/messages.ts).
 *
 * Security notes: unknown emails and wrong passwords get the same 401 after the same argon2 work; sign-in passes a
 * fair hashing gate (shares per client and per account) and is rate limited per (account, client) pair, per client
 * and, for successes, per account and per client (429, windows expire, no permanent lock-out, and nobody can lock an
 * account's owner out from elsewhere: docs/identity.md, "Sign-in fairness and lock-out"); forgot-password answers
 * the same whether or not the email exists; every link is built from APP_ORIGIN; mails leave after commit.
 */
import { Effect, Layer } from "effect"
import type { HttpServerRequest } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import { SqlClient } from "effect/sql"
import { Api } from "../../src/contracts/api.ts"
import type { VerifyEmailParams } from "../../src/contracts/auth.ts"
import {
  AlreadyVerified,
  Conflict,
  EmailNotVerified,
  Forbidden,
  Gone,
  InvalidCredentials,
  InvalidToken,
  RateLimited,
  Unauthorized,
  UserNotFound,
} from "../../src/contracts/errors.ts"
import {
  AccessServerMessages,
  OtherMessages,
  RefreshMessages,
  ResendMessages,
  resendSuccessMessage,
  resendWaitMessage,
  SignupMessages,
  StatusMessages,
  SuccessMessages,
  VerificationMessages,
} from "../../src/contracts/messages.ts"
import { BuiltInRoleIds } from "../../src/contracts/permissions.ts"
import { SsoMessages } from "../../src/contracts/sso.ts"
import { record } from "../audit/audit-log.ts"
import { signAccessToken } from "../auth/access-token.ts"
import { AuthConfig } from "../auth/auth-config.ts"
import { captureIdentity, IdentityLive } from "../auth/identity-layer.ts"
import {
  consumeResetToken,
  consumeVerificationToken,
  issueResetToken,
  issueVerificationToken,
  peekResetToken,
} from "../auth/one-time-tokens.ts"
import { makeHashingGate } from "../auth/hashing-gate.ts"
import { hashPassword, makeDummyHash, needsRehash, verifyPassword } from "../auth/passwords.ts"
import { createSession, revokeAllForUser, revokeByToken, rotate } from "../auth/refresh-tokens.ts"
import { inScope, setScope, standalone } from "../auth/rls.ts"
import { onUniqueViolation, sqlDefects } from "../auth/sql-errors.ts"
import { buildUser, findUserByAnyEmail, findUserByEmail, findUserById, normalizeEmail, normalizeTimezone } from "../auth/users.ts"
import { Mailer } from "../mail/mailer.ts"
import { passwordRefusedFor } from "../sso/connections.ts"
import { passwordChangedMail, passwordResetMail, verificationMail } from "../mail/templates.ts"
import { clientAddress } from "./middleware/authentication.ts"
import { hit, peek, peekMany, refusalWait, reset } from "./middleware/rate-limit.ts"
import { signedIn } from "./middleware/workspace-scope.ts"
import { guard } from "./middleware/input-guard.ts"

/** Access token + refresh token for a new session. */
export const openSession = Effect.fn("Auth.openSession")(function* (userId: number, workspaceId: number | undefined) {
  const session = yield* createSession(userId, workspaceId)
  const access_token = yield* signAccessToken({ userId, workspaceId, sessionId: session.familyId })
  return { access_token, refresh_token: session.refreshToken, sessionId: session.familyId }
})

/** How long a refused (429) sign-in waits before it is answered (see `admitted` below). */
export const SIGN_IN_REFUSAL_DELAY = "1 second"

/** The rate-limit buckets of a sign-in (docs/identity.md, "Rate limits"). */
export const loginKeys = (email: string, ip: string) => ({
  pair: `login:account-client:${email} ${ip}`,
  account: `login:account:${email}`,
  address: `login:address:${ip}`,
  slowdown: `login:slowdown:${email} ${ip}`,
  accountSuccesses: `login:success:account:${email}`,
  addressSuccesses: `login:success:address:${ip}`,
})

/** Workspace a fresh sign-in is scoped to: the only one when the user has exactly one (access §4). */
const soleWorkspace = Effect.fn("Auth.soleWorkspace")(function* (userId: number) {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql<{ workspace_id: number }>`SELECT workspace_id FROM memberships WHERE user_id = ${userId} LIMIT 2`
  return rows.length === 1 ? rows[0]!.workspace_id : undefined
})

export const AuthHandlers = HttpApiBuilder.group(
  Api,
  "auth",
  Effect.fn(function* (handlers) {
    const sql = yield* SqlClient.SqlClient
    const provide = yield* captureIdentity
    const run = <A, E, R>(effect: Effect.Effect<A, E, R>) => provide(sqlDefects(effect))
    const config = yield* AuthConfig
    const mailer = yield* Mailer
    // Verified against when the email is unknown, so both paths cost one argon2 verification.
    const dummyHash = yield* makeDummyHash(config.passwordParams)
    const rateLimited = (retryAfterSeconds: number, message: string = StatusMessages.rateLimited) =>
      new RateLimited({ message, retry_after_seconds: retryAfterSeconds })
    // Sign-ins (argon2 and a dozen statements each) wait in a bounded, fair queue: one client or one account holds at
    // most a share of it; beyond that they get 429 before any database work (server/auth/hashing-gate.ts).
    // A refused sign-in (gate or limit) is answered after SIGN_IN_REFUSAL_DELAY: a client that ignores retry_after_seconds and asks
    // again at once gets at most one answer per connection per delay, so its flood of cheap refusals cannot take the
    // event loop (and the database, for the limits read there) from everyone else's sign-ins. A timer is all it costs.
    const signIns = makeHashingGate()
    const admitted = <A, E, R>(effect: Effect.Effect<A, E, R>, payload: { readonly email: string }, request: HttpServerRequest.HttpServerRequest) =>
      signIns.run(effect, { client: clientAddress(request), account: normalizeEmail(payload.email) }, (retryAfter) => rateLimited(retryAfter)).pipe(
        Effect.tapError((error) => (error as { readonly _tag?: unknown })._tag === "RateLimited" ? Effect.sleep(SIGN_IN_REFUSAL_DELAY) : Effect.void),
      )

    // ---- login ---------------------------------------------------------------------------------------------------
    /**
     * Limits (docs/identity.md, "Sign-in fairness and lock-out"): failures lock one (account, client) pair, never the
     * account for everyone; failures per client across accounts; an account under attack (many failures from anywhere)
     * slows down only the clients that failed on it; successes are limited per account and per client.
     */
    const login = Effect.fn("Auth.login")(function* (
      payload: { readonly email: string; readonly password: string },
      request: HttpServerRequest.HttpServerRequest,
    ) {
      const email = normalizeEmail(payload.email)
      const ip = clientAddress(request)
      const keys = loginKeys(email, ip)
      const [pair, account, address, accountSuccesses, addressSuccesses] = yield* peekMany([
        { key: keys.pair, rule: config.loginPerAccountClient },
        { key: keys.account, rule: config.loginPerAccount },
        { key: keys.address, rule: config.loginPerAddress },
        { key: keys.accountSuccesses, rule: config.loginSuccessPerAccount },
        { key: keys.addressSuccesses, rule: config.loginSuccessPerAddress },
      ])
      let wait = refusalWait(pair!, address!, accountSuccesses!, addressSuccesses!)
      if (wait === 0 && !account!.allowed && pair!.hits > 0) {
        // The account is under attack and this client has failed on it: one attempt per slow-down interval.
        const slow = yield* hit(keys.slowdown, { limit: 1, windowSeconds: config.loginSlowdownSeconds })
        if (!slow.allowed) wait = slow.retryAfterSeconds
      }
      if (wait > 0) {
        yield* record({ action: "auth.sign_in_rate_limited", details: { email }, ip })
        return yield* rateLimited(wait)
      }
      const user = yield* findUserByEmail(email)
      // A domain whose workspace requires single sign-on: no password sign-in, except the owner's (docs/sso.md).
      if (yield* passwordRefusedFor(email, user?.id)) {
        yield* record({ action: "auth.sign_in_sso_required", actorUserId: user?.id, details: { email }, ip })
        return yield* new Forbidden({ message: SsoMessages.ssoRequired })
      }
      const valid = user === undefined
        ? yield* verifyPassword(dummyHash, payload.password).pipe(Effect.as(false))
        : yield* verifyPassword(user.password_hash, payload.password)
      if (user === undefined || !valid) {
        yield* hit(keys.pair, config.loginPerAccountClient)
        yield* hit(keys.account, config.loginPerAccount)
        yield* hit(keys.address, config.loginPerAddress)
        yield* record({ action: "auth.sign_in_failed", actorUserId: user?.id, details: { email }, ip })
        return yield* new InvalidCredentials({ message: AccessServerMessages.invalidCredentials })
      }
      if (!user.email_verified) {
        return yield* new EmailNotVerified({
          message: StatusMessages.emailNotVerifiedAtLogin,
          data: { error_type: "email_not_verified", email: user.email },
        })
      }
      if (pair!.hits > 0) yield* reset(keys.pair)
      yield* hit(keys.accountSuccesses, config.loginSuccessPerAccount)
      yield* hit(keys.addressSuccesses, config.loginSuccessPerAddress)
      if (needsRehash(user.password_hash, config.passwordParams)) {
        const upgraded = yield* hashPassword(payload.password, config.passwordParams)
        yield* standalone(sql`UPDATE users SET password_hash = ${upgraded}, updated_at = now() WHERE id = ${user.id}`)
      }
      return yield* inScope({ userId: user.id })(Effect.gen(function* () {
        const workspaceId = yield* soleWorkspace(user.id)
        yield* sql`UPDATE users SET last_login_at = now() WHERE id = ${user.id}`
        const tokens = yield* openSession(user.id, workspaceId)
        yield* record({ action: "auth.sign_in", actorUserId: user.id, details: { session: tokens.sessionId }, ip })
        const data = yield* buildUser(user, workspaceId)
        return { access_token: tokens.access_token, refresh_token: tokens.refresh_token, data }
      }))
    })

    // ---- signup --------------------------------------------------------------------------------------------------
    const signup = Effect.fn("Auth.signup")(function* (
      payload: {
        readonly first_name: string
        readonly last_name: string
        readonly email: string
        readonly password: string
        readonly workspace_name: string
        readonly timezone?: string
      },
      request: HttpServerRequest.HttpServerRequest,
    ) {
      const ip = clientAddress(request)
      const email = normalizeEmail(payload.email)
      const limit = yield* hit(`signup:address:${ip}`, config.sensitivePerAddress)
      // The spec's 409 'already exists' answers are an account oracle: a client gets a budget of them (then waits).
      const exists = yield* peek(`signup:exists:${ip}`, config.signupExistsPerAddress)
      const wait = refusalWait(limit, exists)
      if (wait > 0) return yield* rateLimited(wait, SignupMessages.tooManyAttempts)
      const accountExists = (verified: boolean) =>
        verified
          ? new Conflict({ message: SignupMessages.accountExistsVerified, data: { error_type: "account_exists" } })
          : new Conflict({ message: SignupMessages.accountExistsUnverified, data: { error_type: "account_unverified", email } })
      const existing = yield* findUserByEmail(email)
      if (existing !== undefined) {
        yield* hit(`signup:exists:${ip}`, config.signupExistsPerAddress)
        return yield* accountExists(existing.email_verified)
      }
      const passwordHash = yield* hashPassword(payload.password, config.passwordParams)
      const workspaceName = payload.workspace_name.trim()

      yield* inScope({})(Effect.gen(function* () {
        const users = yield* sql<{ id: number }>`
          INSERT INTO users (email, password_hash, first_name, last_name, timezone)
          VALUES (${email}, ${passwordHash}, ${payload.first_name.trim()}, ${payload.last_name.trim()},
                  ${normalizeTimezone(payload.timezone)})
          RETURNING id`.pipe(onUniqueViolation("users_email_key", () => accountExists(false)))
        const userId = users[0]!.id
        yield* setScope({ userId })
        const workspaces = yield* sql<{ id: number }>`
          INSERT INTO workspaces (name, owner_id) VALUES (${workspaceName}, ${userId}) RETURNING id`.pipe(
          onUniqueViolation("workspaces_name_key", () =>
            new Conflict({ message: SignupMessages.workspaceExists, data: { error_type: "workspace_exists" } })),
        )
        const workspaceId = workspaces[0]!.id
        yield* setScope({ userId, workspaceId })
        yield* sql`INSERT INTO memberships (workspace_id, user_id, role_id) VALUES (${workspaceId}, ${userId}, ${BuiltInRoleIds.Admin})`
        const token = yield* issueVerificationToken(userId, email)
        yield* hit(`resend:${email}`, { limit: 1, windowSeconds: config.resendCooldownSeconds })
        yield* record({ action: "auth.signup", workspaceId, actorUserId: userId, targetType: "user", targetId: userId, ip })
        yield* mailer.send(verificationMail({
          origin: config.appOrigin, to: email, firstName: payload.first_name, token,
          expiresInMinutes: config.verificationTtlMinutes,
        }))
      }))
      return {
        ok: true,
        status_code: 201,
        message: SignupMessages.verificationSent,
        data: { note: "verification_pending" as const, email },
      }
    })

    // ---- email verification -----------------------------------------------------------------------------------------
    const verifyEmail = Effect.fn("Auth.verifyEmail")(function* (params: VerifyEmailParams, ip: string) {
      const email = normalizeEmail(params.email)
      // The spec's 404 (unknown) and 409 (verified) come before the token is checked: a budget per client.
      const misses = yield* peek(`verify:misses:${ip}`, config.verifyMissesPerAddress)
      if (!misses.allowed) return yield* rateLimited(misses.retryAfterSeconds)
      return yield* inScope({})(Effect.gen(function* () {
        const user = yield* findUserByAnyEmail(email)
        if (user === undefined) return yield* new UserNotFound({ message: VerificationMessages.status404 })
        if (user.email === email && user.email_verified) {
          return yield* new AlreadyVerified({ message: VerificationMessages.status409 })
        }
        const outcome = yield* consumeVerificationToken(params.token, email)
        if (outcome._tag === "expired") return yield* new Gone({ message: VerificationMessages.status410 })
        if (outcome._tag === "invalid" || outcome.userId !== user.id) {
          return yield* new InvalidToken({ message: VerificationMessages.status400 })
        }
        if (user.email === email) {
          yield* sql`UPDATE users SET email_verified = true, email_verified_at = now(), updated_at = now() WHERE id = ${user.id}`
        } else {
          // A verified change of email: the new address becomes the login.
          yield* sql`UPDATE users SET email = pending_email, pending_email = NULL, email_verified = true,
                       email_verified_at = now(), updated_at = now() WHERE id = ${user.id} AND pending_email = ${email}`.pipe(
            // The contract declares no 409 on verify-email: an address taken meanwhile answers 400 with the reason.
            onUniqueViolation("users_email_key", () => new InvalidToken({ message: AccessServerMessages.emailInUse })),
          )
        }
        yield* sql`UPDATE email_verification_tokens SET consumed_at = now() WHERE email = ${email} AND consumed_at IS NULL`
        yield* record({ action: "auth.email_verified", actorUserId: user.id, targetType: "user", targetId: user.id, details: { email }, ip })
        return { ok: true, message: SuccessMessages.emailVerified, data: { email } }
      })).pipe(
        // Counted outside the transaction, which the error rolls back.
        Effect.tapError((error) =>
          error._tag === "UserNotFound" || error._tag === "AlreadyVerified" ? hit(`verify:misses:${ip}`, config.verifyMissesPerAddress) : Effect.void),
      )
    })

    /**
     * Resend answers 404 / 409 / 200 with the spec's texts, which tells whether an address has an account. The oracle
     * is kept useless at scale by limits per client address (every request; and a small budget of unknown-address
     * answers, after which every resend from that client waits) and per email address (mail flood), on top of the
     * 60 s cool-down. The client address honours TRUST_PROXY.
     */
    const resendVerification = Effect.fn("Auth.resendVerification")(function* (emailInput: string, ip: string) {
      const email = normalizeEmail(emailInput)
      const wait = (seconds: number) => rateLimited(seconds, resendWaitMessage(seconds))
      const client = yield* hit(`resend:address:${ip}`, config.resendPerAddress)
      const misses = yield* peek(`resend:misses:${ip}`, config.resendMissesPerAddress)
      const refused = refusalWait(client, misses)
      if (refused > 0) return yield* wait(refused)
      const perEmail = yield* hit(`resend:email:${email}`, config.resendPerEmail)
      if (!perEmail.allowed) return yield* wait(perEmail.retryAfterSeconds)
      const cooldown = yield* hit(`resend:${email}`, { limit: 1, windowSeconds: config.resendCooldownSeconds })
      if (!cooldown.allowed) return yield* wait(cooldown.retryAfterSeconds)
      return yield* inScope({})(Effect.gen(function* () {
        const user = yield* findUserByAnyEmail(email)
        if (user === undefined) return yield* new UserNotFound({ message: VerificationMessages.status404 })
        if (user.email === email && user.email_verified) return yield* new AlreadyVerified({ message: ResendMessages.alreadyVerified })
        const token = yield* issueVerificationToken(user.id, email)
        yield* mailer.send(verificationMail({
          origin: config.appOrigin, to: email, firstName: user.first_name, token, expiresInMinutes: config.verificationTtlMinutes,
        }))
        return {
          ok: true,
          message: resendSuccessMessage(email, config.verificationTtlMinutes),
          data: { email, expires_in_minutes: config.verificationTtlMinutes },
        }
      })).pipe(
        // Counted outside the transaction, which the 404 rolls back.
        Effect.tapError((error) => error._tag === "UserNotFound" ? hit(`resend:misses:${ip}`, config.resendMissesPerAddress) : Effect.void),
      )
    })

    // ---- sessions ------------------------------------------------------------------------------------------------------
    const refresh = Effect.fn("Auth.refresh")(function* (refreshToken: string, ip: string) {
      const outcome = yield* rotate(refreshToken)
      if (outcome._tag === "fail") {
        if (outcome.problem === "reused") {
          yield* record({ action: "auth.refresh_reuse_detected", actorUserId: outcome.userId, ip })
        }
        return yield* new Unauthorized({ message: RefreshMessages.sessionExpired })
      }
      const { session } = outcome
      const access_token = yield* signAccessToken({
        userId: session.userId, workspaceId: session.workspaceId, sessionId: session.familyId,
      })
      return { access_token, refresh_token: session.refreshToken }
    })

    const logout = Effect.fn("Auth.logout")(function* (refreshToken: string, ip: string) {
      const userId = yield* revokeByToken(refreshToken)
      if (userId !== undefined) yield* record({ action: "auth.logout", actorUserId: userId, ip })
      return { ok: true, message: AccessServerMessages.loggedOut }
    })

    const userInfo = (request: HttpServerRequest.HttpServerRequest) =>
      signedIn(request, (caller) =>
        Effect.gen(function* () {
          const user = yield* findUserById(caller.userId)
          if (user === undefined) return yield* new UserNotFound({ message: VerificationMessages.status404 })
          const header = request.headers["x-workspace-id"]?.trim()
          const workspaceId = header !== undefined && /^[1-9][0-9]{0,9}$/.test(header) && Number(header) <= 2147483647
            ? Number(header)
            : caller.tokenWorkspaceId
          return { ok: true, data: yield* buildUser(user, workspaceId) }
        }))

    // ---- password reset ----------------------------------------------------------------------------------------------
    const forgotPassword = Effect.fn("Auth.forgotPassword")(function* (emailInput: string, ip: string) {
      const email = normalizeEmail(emailInput)
      const address = yield* hit(`forgot:address:${ip}`, config.sensitivePerAddress)
      if (!address.allowed) return yield* rateLimited(address.retryAfterSeconds)
      // Decided from the domain (and the owner's id), so the refusal says nothing about whether the account exists.
      if (yield* passwordRefusedFor(email, (yield* findUserByEmail(email))?.id)) {
        return yield* new Forbidden({ message: SsoMessages.ssoRequired })
      }
      // Per-address mail flood protection: silently send nothing more (the answer must not differ).
      const perEmail = yield* hit(`forgot:email:${email}`, { limit: 3, windowSeconds: 15 * 60 })
      const user = perEmail.allowed ? yield* findUserByEmail(email) : undefined
      if (user !== undefined) {
        yield* inScope({})(Effect.gen(function* () {
          const token = yield* issueResetToken(user.id)
          yield* record({ action: "auth.password_reset_requested", actorUserId: user.id, targetType: "user", targetId: user.id, ip })
          yield* mailer.send(passwordResetMail({
            origin: config.appOrigin, to: user.email, firstName: user.first_name, token, expiresInMinutes: config.resetTtlMinutes,
          }))
        }))
      }
      return { ok: true, message: SuccessMessages.passwordResetEmailSent }
    })

    const validateResetToken = Effect.fn("Auth.validateResetToken")(function* (token: string) {
      const found = yield* peekResetToken(token)
      if (found === undefined) return yield* new InvalidToken({ message: OtherMessages.invalidResetLink })
      return { ok: true, data: { email: found.email } }
    })

    const resetPassword = Effect.fn("Auth.resetPassword")(function* (token: string, newPassword: string, ip: string) {
      const found = yield* peekResetToken(token)
      if (found === undefined) {
        return yield* new InvalidToken({ message: OtherMessages.invalidResetLink })
      }
      // A link mailed before the workspace required single sign-on no longer sets a password.
      if (yield* passwordRefusedFor(found.email, (yield* findUserByEmail(found.email))?.id)) {
        return yield* new Forbidden({ message: SsoMessages.ssoRequired })
      }
      const passwordHash = yield* hashPassword(newPassword, config.passwordParams)
      return yield* inScope({})(Effect.gen(function* () {
        const userId = yield* consumeResetToken(token)
        if (userId === undefined) return yield* new InvalidToken({ message: OtherMessages.invalidResetLink })
        // Following an emailed link proves the address, so an unverified account becomes verified.
        const rows = yield* sql<{ email: string; first_name: string }>`
          UPDATE users SET password_hash = ${passwordHash}, password_changed_at = now(), updated_at = now(),
                 email_verified = true, email_verified_at = coalesce(email_verified_at, now())
          WHERE id = ${userId} RETURNING email, first_name`
        const user = rows[0]!
        const revoked = yield* revokeAllForUser(userId, "password_reset")
        // The owner proved the address: the account's attack counter and this client's failures on it start over.
        yield* reset(loginKeys(user.email, ip).account)
        yield* reset(loginKeys(user.email, ip).pair)
        yield* record({ action: "auth.password_reset", actorUserId: userId, targetType: "user", targetId: userId, details: { sessions_revoked: revoked }, ip })
        yield* mailer.send(passwordChangedMail({ origin: config.appOrigin, to: user.email, firstName: user.first_name, how: "reset" }))
        return { ok: true, message: SuccessMessages.passwordReset }
      }))
    })

    return handlers
      .handle("login", guard(({ payload, request }) => run(admitted(login(payload, request), payload, request))))
      .handle("signup", guard(({ payload, request }) => run(signup(payload, request))))
      .handle("logout", guard(({ payload, request }) => run(logout(payload.refresh_token, clientAddress(request)))))
      .handle("refreshToken", guard(({ payload, request }) => run(refresh(payload.refresh_token, clientAddress(request)))))
      .handle("userInfo", guard(({ request }) => run(userInfo(request))))
      .handle("forgotPassword", guard(({ payload, request }) => run(forgotPassword(payload.email, clientAddress(request)))))
      .handle("validateResetToken", guard(({ payload }) => run(validateResetToken(payload.token))))
      .handle("resetPassword", guard(({ payload, request }) =>
        run(resetPassword(payload.token, payload.new_password, clientAddress(request)))))
      .handle("verifyEmail", guard(({ query, request }) => run(verifyEmail(query, clientAddress(request)))))
      .handle("verifyEmailPost", guard(({ payload, request }) => run(verifyEmail(payload, clientAddress(request)))))
      .handle("resendVerification", guard(({ payload, request }) => run(resendVerification(payload.email, clientAddress(request)))))
  }),
).pipe(Layer.provide(IdentityLive))
