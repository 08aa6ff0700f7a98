/**
 * The services the identity handlers need, built from the platform configuration:
 * AuthConfig (APP_SECRET_KEY, APP_ORIGIN, SMTP_URL, NODE_ENV; argon2 at the minimum under NODE_ENV=test,
 * the production parameters otherwise) and the Mailer. Every identity group layer provides this one value, so the
 * layers are built once (layer memoization).
 */
import { Effect, Layer } from "effect"
import { AppConfig } from "../config.ts"
import { Mailer } from "../mail/mailer.ts"
import { AuthConfig, AuthSettingsOverrides, defaultAuthSettings } from "./auth-config.ts"
import { MINIMUM_PASSWORD_PARAMS, PRODUCTION_PASSWORD_PARAMS } from "./passwords.ts"

export const AuthConfigFromApp = Layer.effect(
  AuthConfig,
  Effect.gen(function* () {
    const app = yield* AppConfig
    const overrides = yield* AuthSettingsOverrides
    return defaultAuthSettings({
      secretKey: app.appSecretKey,
      appOrigin: app.appOrigin,
      environment: app.nodeEnv,
      smtpUrl: app.smtpUrl,
      smtpFrom: app.smtpFrom,
      passwordParams: app.nodeEnv === "test" ? MINIMUM_PASSWORD_PARAMS : PRODUCTION_PASSWORD_PARAMS,
      ...overrides,
    })
  }),
)

export const IdentityLive = Layer.provideMerge(Mailer.layer, AuthConfigFromApp)

/**
 * Handlers run with the router's services, not the group layer's: this captures AuthConfig and Mailer while the
 * group layer is built and answers a function that provides them to a handler's effect.
 */
export const captureIdentity = Effect.gen(function* () {
  const config = yield* AuthConfig
  const mailer = yield* Mailer
  return <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, Exclude<R, AuthConfig | Mailer>> =>
    effect.pipe(Effect.provideService(AuthConfig, config), Effect.provideService(Mailer, mailer)) as Effect.Effect<A, E, Exclude<R, AuthConfig | Mailer>>
})
