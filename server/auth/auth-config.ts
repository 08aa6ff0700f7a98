/**
 * Settings of the identity area, resolved once at start-up from the platform configuration (server/config.ts) or
 * built directly by tests. Durations are the spec's numbers (§5, §9) unless the issue sets them (token lifetimes).
 */
import { Context, Layer, Redacted } from "effect"
import type { PasswordParams } from "./passwords.ts"
import { PRODUCTION_PASSWORD_PARAMS } from "./passwords.ts"

export interface RateRule {
  /** Attempts allowed inside one window. */
  readonly limit: number
  readonly windowSeconds: number
}

export interface AuthSettings {
  /** APP_SECRET_KEY: signs access tokens (HKDF sub-key), seals invitation links. */
  readonly secretKey: Redacted.Redacted<string>
  /** APP_ORIGIN without trailing slash: every emailed link starts here, never at the request's Host. */
  readonly appOrigin: string
  /** "production" hides the development outbox. */
  readonly environment: "development" | "test" | "production"
  readonly passwordParams: PasswordParams
  readonly accessTokenTtlSeconds: number
  readonly refreshTokenTtlSeconds: number
  readonly verificationTtlMinutes: number
  readonly resetTtlMinutes: number
  readonly invitationTtlDays: number
  readonly resendCooldownSeconds: number
  /** Resend requests per client address (every request counts, whatever the answer). */
  readonly resendPerAddress: RateRule
  /** Resend requests per client address answered 404 (unknown email): the enumeration oracle's budget. */
  readonly resendMissesPerAddress: RateRule
  /** Verification mails per email address through resend, on top of the cool-down. */
  readonly resendPerEmail: RateRule
  /**
   * Failed sign-ins per (account, client address) before that client gets 429 for that account: a lock-out for the
   * client that failed, never for the owner signing in from elsewhere.
   */
  readonly loginPerAccountClient: RateRule
  /**
   * Failed sign-ins per account from every client: past `limit` in the window the account is under attack and every
   * client that has failed on it may try once per `loginSlowdownSeconds` (clients with no failure there are not slowed).
   */
  readonly loginPerAccount: RateRule
  readonly loginSlowdownSeconds: number
  /** Failed sign-ins per client address (all accounts) before 429, per window. */
  readonly loginPerAddress: RateRule
  /** Successful sign-ins per account (email), per window. */
  readonly loginSuccessPerAccount: RateRule
  /** Successful sign-ins per client address (all accounts), per window. */
  readonly loginSuccessPerAddress: RateRule
  /** Change-password attempts per user. */
  readonly passwordChangePerUser: RateRule
  /** Email-change requests (each mails the new address) per user and per client address. */
  readonly emailChangePerUser: RateRule
  readonly emailChangePerAddress: RateRule
  /**
   * Create-user answers 'already exists, invite them instead' (an account-existence oracle) per user and per client
   * address; once either is spent, every create-user call of that user or client waits for the window to end.
   */
  readonly accountProbesPerUser: RateRule
  readonly accountProbesPerAddress: RateRule
  /**
   * Sign-up answers 409 'an account with this email already exists' (required by access §8) per client address: once
   * spent, every sign-up from that client waits, as with resend's unknown-address budget.
   */
  readonly signupExistsPerAddress: RateRule
  /**
   * Email-verification answers 404 (unknown address) and 409 (already verified) per client address: the spec's
   * answers come before the token is checked, so they tell addresses apart; once spent, every verification from that
   * client waits.
   */
  readonly verifyMissesPerAddress: RateRule
  /** Invitation checks (GET /api/invitation/verify/{token}, the invitation sign-up) per client address. */
  readonly invitationChecksPerAddress: RateRule
  /** Distinct invitations of one inviter checked per window (each check tells whether the invitee has an account). */
  readonly invitationChecksPerInviter: RateRule
  /** Forgot-password and signup requests per client address. */
  readonly sensitivePerAddress: RateRule
  /** SMTP_URL; undefined → log + development outbox. */
  /** Requests per API key (docs/api-keys.md): every call made with one key counts, whatever its client address. */
  readonly apiKeyRequests: RateRule
  readonly smtpUrl: Redacted.Redacted<string> | undefined
  readonly smtpFrom: string
}

export const defaultAuthSettings = (
  overrides: Pick<AuthSettings, "secretKey" | "appOrigin"> & Partial<AuthSettings>,
): AuthSettings => ({
  environment: "development",
  passwordParams: PRODUCTION_PASSWORD_PARAMS,
  accessTokenTtlSeconds: 15 * 60,
  refreshTokenTtlSeconds: 30 * 24 * 3600,
  verificationTtlMinutes: 30,
  resetTtlMinutes: 30,
  invitationTtlDays: 7,
  resendCooldownSeconds: 60,
  resendPerAddress: { limit: 20, windowSeconds: 15 * 60 },
  resendMissesPerAddress: { limit: 10, windowSeconds: 60 * 60 },
  resendPerEmail: { limit: 5, windowSeconds: 60 * 60 },
  loginPerAccountClient: { limit: 10, windowSeconds: 15 * 60 },
  loginPerAccount: { limit: 10, windowSeconds: 15 * 60 },
  loginSlowdownSeconds: 30,
  loginPerAddress: { limit: 50, windowSeconds: 15 * 60 },
  loginSuccessPerAccount: { limit: 20, windowSeconds: 15 * 60 },
  loginSuccessPerAddress: { limit: 100, windowSeconds: 15 * 60 },
  passwordChangePerUser: { limit: 10, windowSeconds: 15 * 60 },
  emailChangePerUser: { limit: 5, windowSeconds: 60 * 60 },
  emailChangePerAddress: { limit: 20, windowSeconds: 60 * 60 },
  accountProbesPerUser: { limit: 10, windowSeconds: 60 * 60 },
  accountProbesPerAddress: { limit: 10, windowSeconds: 60 * 60 },
  signupExistsPerAddress: { limit: 10, windowSeconds: 60 * 60 },
  verifyMissesPerAddress: { limit: 20, windowSeconds: 60 * 60 },
  invitationChecksPerAddress: { limit: 30, windowSeconds: 15 * 60 },
  invitationChecksPerInviter: { limit: 50, windowSeconds: 60 * 60 },
  sensitivePerAddress: { limit: 30, windowSeconds: 15 * 60 },
  apiKeyRequests: { limit: 600, windowSeconds: 60 },
  smtpUrl: undefined,
  smtpFrom: "Cloud Audit <no-reply@localhost>",
  ...overrides,
  appOrigin: overrides.appOrigin.replace(/\/+$/, ""),
})

export class AuthConfig extends Context.Service<AuthConfig, AuthSettings>()("cloud-audit/auth/AuthConfig") {
  static readonly layer = (settings: AuthSettings) => Layer.succeed(AuthConfig, settings)
}

/**
 * Test and benchmark knobs merged over the settings derived from AppConfig (a Context.Reference: absent = no overrides).
 * Provide it next to the server layer: `Layer.succeed(AuthSettingsOverrides, { loginPerAddress: {...} })`.
 */
export const AuthSettingsOverrides = Context.Reference<Partial<AuthSettings>>("cloud-audit/auth/AuthSettingsOverrides", {
  defaultValue: () => ({}),
})
