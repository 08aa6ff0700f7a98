/**
 * Cloud credentials at rest: AES-256-GCM under a sub-key of APP_SECRET_KEY (HKDF-SHA256, purpose
 * "accounts:credentials:v1"), with the workspace id and the account id bound as associated data, so a sealed blob copied
 * to another row or another workspace does not open. Format: `v1.<iv>.<tag>.<ciphertext>` (base64url parts, see
 * server/auth/crypto.ts `seal`).
 *
 * Invariant: plaintext credentials exist only in memory, only for the duration of a connection test, a scan job, a
 * remediation job or the audited reveal call. They are never logged, never put in a job payload and never returned
 * except by the reveal call.
 */
import { hkdfSync } from "node:crypto"
import { Redacted } from "effect"
import type { Credentials } from "../../src/contracts/accounts.ts"
import { open, seal } from "../auth/crypto.ts"

/** What is sealed: the provider credentials as entered (trimmed), plus the external id the workspace assigned. */
export type StoredCredentials = { -readonly [K in keyof Credentials]: Credentials[K] }

export interface CredentialBinding {
  readonly workspaceId: number
  readonly accountId: number
}

const keyCache = new WeakMap<object, Uint8Array>()

/** The 32-byte credentials key derived from APP_SECRET_KEY (cached per Redacted instance). */
export const credentialsKey = (secret: Redacted.Redacted<string>): Uint8Array => {
  const cached = keyCache.get(secret)
  if (cached !== undefined) return cached
  const key = new Uint8Array(
    hkdfSync("sha256", Buffer.from(Redacted.value(secret), "utf8"), Buffer.from("cloud-audit", "utf8"), "accounts:credentials:v1", 32),
  )
  keyCache.set(secret, key)
  return key
}

/** Associated data: changing either id makes the blob unreadable. */
export const associatedData = (binding: CredentialBinding): string =>
  `cloud-audit/account-credentials/v1/workspace:${binding.workspaceId}/account:${binding.accountId}`

export const sealCredentials = (
  secret: Redacted.Redacted<string>,
  credentials: StoredCredentials,
  binding: CredentialBinding,
): string => seal(credentialsKey(secret), JSON.stringify(credentials), associatedData(binding))

/** `undefined` when the blob was tampered with, moved to another row, or sealed under another APP_SECRET_KEY. */
export const openCredentials = (
  secret: Redacted.Redacted<string>,
  sealed: string,
  binding: CredentialBinding,
): StoredCredentials | undefined => {
  const text = open(credentialsKey(secret), sealed, associatedData(binding))
  if (text === undefined) return undefined
  try {
    const parsed: unknown = JSON.parse(text)
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return undefined
    const out: StoredCredentials = {}
    for (const [k, v] of Object.entries(parsed)) if (typeof v === "string") (out as Record<string, string>)[k] = v
    return out
  } catch {
    return undefined
  }
}

/** Trims every field and drops empty ones (what is sealed). */
export const normalizeCredentials = (credentials: Credentials): StoredCredentials => {
  const out: StoredCredentials = {}
  for (const [k, v] of Object.entries(credentials)) {
    if (typeof v === "string" && v.trim() !== "") (out as Record<string, string>)[k] = v.trim()
  }
  return out
}
