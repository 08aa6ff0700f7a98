/**
 * Webhook secrets at rest. A webhook's URL (a Slack incoming-webhook URL is itself a credential; a generic URL may carry
 * a token) and its signing secret are sealed with AES-256-GCM under a sub-key of APP_SECRET_KEY (HKDF-SHA256, purpose
 * "webhooks:v1"), as cloud credentials are (server/accounts/credential-vault.ts), with the workspace id, the webhook id
 * and the field bound as associated data: a sealed value copied to another row, another field or another workspace
 * does not open. The signing secret must be recoverable (the server signs every delivery with it), so it is sealed,
 * not hashed; it is shown once, in the answer that creates the webhook (or rotates its secret).
 *
 * Invariant: plaintext URLs and secrets exist only in memory while a delivery is signed and sent; they are never logged,
 * never put in a job payload, never returned except the secret in the creation answer.
 */
import { hkdfSync, randomBytes } from "node:crypto"
import { Redacted } from "effect"
import { open, seal } from "../auth/crypto.ts"

const keyCache = new WeakMap<object, Uint8Array>()

export const webhooksKey = (secret: Redacted.Redacted<string>): Uint8Array => {
  const cached = keyCache.get(secret)
  if (cached !== undefined) return cached
  const key = new Uint8Array(hkdfSync("sha256", Buffer.from(Redacted.value(secret), "utf8"), Buffer.from("cloud-audit", "utf8"), "webhooks:v1", 32))
  keyCache.set(secret, key)
  return key
}

export interface WebhookBinding {
  readonly workspaceId: number
  readonly webhookId: number
}

type Field = "url" | "secret"

const context = (binding: WebhookBinding, field: Field) =>
  `cloud-audit/webhooks/v1/workspace:${binding.workspaceId}/webhook:${binding.webhookId}/${field}`

export const sealWebhookValue = (appSecret: Redacted.Redacted<string>, binding: WebhookBinding, field: Field, value: string): string =>
  seal(webhooksKey(appSecret), value, context(binding, field))

/** `undefined` when tampered with, moved to another row or field, or sealed under another APP_SECRET_KEY. */
export const openWebhookValue = (appSecret: Redacted.Redacted<string>, binding: WebhookBinding, field: Field, sealed: string): string | undefined =>
  open(webhooksKey(appSecret), sealed, context(binding, field))

/** A new signing secret: `whsec_` and 32 random bytes (base64url). */
export const newSigningSecret = (): string => `whsec_${randomBytes(32).toString("base64url")}`

/** What the settings page shows of a URL: its origin and the last 4 characters of the rest. */
export const urlHint = (url: URL): string => {
  const rest = `${url.pathname}${url.search}`
  return rest.length <= 1 ? url.origin : `${url.origin}/…${rest.slice(-4)}`
}
