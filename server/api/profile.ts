/**
 * The `profile` group (access §2, §3, §5, §7): update the profile (names, email, timezone), change the password,
 * list timezones.
 *
 * A new email is not the login until verified: it is stored as `pending_email` and a verification mail goes to the
 * new address; following that link swaps it in (server/api/auth.ts verifyEmail). Changing the password needs the
 * current one (a wrong one answers 400 on `current_password`, not 401, so the SPA does not mistake it for an expired
 * session), applies the composition rule (contract schema), keeps the current session and revokes every other one.
 */
import { Effect, Layer } from "effect"
import type { HttpServerRequest } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import { SqlClient } from "effect/sql"
import { Api } from "../../src/contracts/api.ts"
import { RateLimited, Unauthorized, ValidationError } from "../../src/contracts/errors.ts"
import { AccessServerMessages, StatusMessages, SuccessMessages } from "../../src/contracts/messages.ts"
import type { ChangePasswordPayload, UpdateProfilePayload } from "../../src/contracts/profile.ts"
import { record } from "../audit/audit-log.ts"
import { AuthConfig } from "../auth/auth-config.ts"
import { captureIdentity, IdentityLive } from "../auth/identity-layer.ts"
import { issueVerificationToken } from "../auth/one-time-tokens.ts"
import { hashPassword, verifyPassword } from "../auth/passwords.ts"
import { revokeAllForUser } from "../auth/refresh-tokens.ts"
import { sqlDefects } from "../auth/sql-errors.ts"
import { isValidTimezone, listTimezones } from "../auth/timezones.ts"
import { buildUser, findUserByAnyEmail, findUserById, normalizeEmail } from "../auth/users.ts"
import { Mailer } from "../mail/mailer.ts"
import { addressInUseMail, passwordChangedMail, verificationMail } from "../mail/templates.ts"
import type { Caller } from "./middleware/authentication.ts"
import { hit, refusalWait } from "./middleware/rate-limit.ts"
import { signedIn } from "./middleware/workspace-scope.ts"
import { guard } from "./middleware/input-guard.ts"

const headerWorkspace = (request: HttpServerRequest.HttpServerRequest, caller: Caller): number | undefined => {
  const h = request.headers["x-workspace-id"]?.trim()
  return h !== undefined && /^[1-9][0-9]{0,9}$/.test(h) && Number(h) <= 2147483647 ? Number(h) : caller.tokenWorkspaceId
}

export const ProfileHandlers = HttpApiBuilder.group(
  Api,
  "profile",
  Effect.fn(function* (handlers) {
    const sql = yield* SqlClient.SqlClient
    const provide = yield* captureIdentity
    const run = <A, E, R>(effect: Effect.Effect<A, E, R>) => provide(sqlDefects(effect))
    const config = yield* AuthConfig
    const mailer = yield* Mailer

    const update = (payload: UpdateProfilePayload, request: HttpServerRequest.HttpServerRequest) =>
      signedIn(request, (caller) =>
        Effect.gen(function* () {
          const user = yield* findUserById(caller.userId)
          if (user === undefined) return yield* new Unauthorized({ message: StatusMessages.unauthorized })
          const timezone = payload.timezone?.trim()
          if (timezone !== undefined && !isValidTimezone(timezone)) {
            return yield* new ValidationError({
              message: AccessServerMessages.invalidTimezone,
              errors: [{ path: "timezone", message: AccessServerMessages.invalidTimezone }],
            })
          }
          const email = normalizeEmail(payload.email)
          const emailChange = email !== user.email && email !== user.pending_email
          // One answer whatever the address (issue 27, problem 4): a taken address gets a notice instead of a link,
          // the requester "a confirmation was sent". Requests are limited per user and per client (each mails).
          let taken = false
          if (emailChange) {
            const perUser = yield* hit(`email-change:user:${user.id}`, config.emailChangePerUser)
            const perClient = yield* hit(`email-change:address:${caller.ip}`, config.emailChangePerAddress)
            const wait = refusalWait(perUser, perClient)
            if (wait > 0) return yield* new RateLimited({ message: StatusMessages.rateLimited, retry_after_seconds: wait })
            const other = yield* findUserByAnyEmail(email)
            taken = other !== undefined && other.id !== user.id
          }
          // A taken address is never stored as pending: the request supersedes an earlier pending change either way.
          const pendingEmail = email === user.email || taken ? null : email
          yield* sql`UPDATE users SET first_name = ${payload.first_name.trim()}, last_name = ${payload.last_name.trim()},
                       timezone = ${timezone ?? user.timezone},
                       pending_email = ${pendingEmail}, updated_at = now()
                     WHERE id = ${user.id}`
          if (emailChange) {
            yield* record({
              action: "auth.email_change_requested", actorUserId: user.id, targetType: "user", targetId: user.id,
              details: { from: user.email, to: email, ...(taken ? { address_in_use: true } : {}) }, ip: caller.ip,
            })
            if (taken) {
              yield* mailer.send(addressInUseMail({ origin: config.appOrigin, to: email }))
            } else {
              const token = yield* issueVerificationToken(user.id, email)
              yield* mailer.send(verificationMail({
                origin: config.appOrigin, to: email, firstName: payload.first_name, token,
                expiresInMinutes: config.verificationTtlMinutes,
              }))
            }
          }
          const fresh = yield* findUserById(user.id)
          const pending = emailChange || (fresh !== undefined && fresh.pending_email !== null)
          return {
            ok: true,
            message: pending ? AccessServerMessages.emailChangePending : SuccessMessages.profileUpdated,
            data: yield* buildUser(fresh ?? user, headerWorkspace(request, caller)),
          }
        }))

    const changePassword = (payload: ChangePasswordPayload, request: HttpServerRequest.HttpServerRequest) =>
      signedIn(request, (caller) =>
        Effect.gen(function* () {
          const attempts = yield* hit(`password-change:${caller.userId}`, config.passwordChangePerUser)
          if (!attempts.allowed) {
            return yield* new RateLimited({ message: StatusMessages.rateLimited, retry_after_seconds: attempts.retryAfterSeconds })
          }
          const user = yield* findUserById(caller.userId)
          if (user === undefined) return yield* new Unauthorized({ message: StatusMessages.unauthorized })
          if (!(yield* verifyPassword(user.password_hash, payload.current_password))) {
            return yield* new ValidationError({
              message: AccessServerMessages.currentPasswordWrong,
              errors: [{ path: "current_password", message: AccessServerMessages.currentPasswordWrong }],
            })
          }
          const passwordHash = yield* hashPassword(payload.new_password, config.passwordParams)
          yield* sql`UPDATE users SET password_hash = ${passwordHash}, password_changed_at = now(), updated_at = now()
                     WHERE id = ${user.id}`
          const revoked = yield* revokeAllForUser(user.id, "password_changed", caller.sessionId)
          yield* record({
            action: "auth.password_changed", actorUserId: user.id, targetType: "user", targetId: user.id,
            details: { sessions_revoked: revoked }, ip: caller.ip,
          })
          yield* mailer.send(passwordChangedMail({
            origin: config.appOrigin, to: user.email, firstName: user.first_name, how: "changed",
          }))
          return { ok: true, message: SuccessMessages.passwordUpdated }
        }))

    return handlers
      .handle("update", guard(({ payload, request }) => run(update(payload, request))))
      .handle("changePassword", guard(({ payload, request }) => run(changePassword(payload, request))))
      .handle("timezones", guard(() => Effect.succeed({ ok: true, data: { timezones: listTimezones() } })))
  }),
).pipe(Layer.provide(IdentityLive))
