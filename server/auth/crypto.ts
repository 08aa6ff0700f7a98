/**
 * Small cryptographic primitives for identity: random opaque tokens, their SHA-256 digests (the only form stored),
 * sub-keys derived from APP_SECRET_KEY with HKDF, and AES-256-GCM sealing (used to keep invitation links showable to
 * workspace admins without storing a usable token in clear).
 */
import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes, timingSafeEqual } from "node:crypto"

/** A URL-safe random token of `bytes` random bytes (default 32 bytes = 256 bits, 43 characters). */
export const randomToken = (bytes = 32): string => randomBytes(bytes).toString("base64url")

/** Hex SHA-256 of a token: what the database keeps instead of the token. */
export const sha256Hex = (value: string): string => createHash("sha256").update(value, "utf8").digest("hex")

/** A 32-byte sub-key for one purpose ("access-token", "invitation-link", ...), derived from the application secret. */
export const deriveKey = (secret: string, purpose: string): Uint8Array =>
  new Uint8Array(hkdfSync("sha256", Buffer.from(secret, "utf8"), Buffer.from("cloud-audit", "utf8"), `identity:${purpose}`, 32))

/** Constant-time string comparison (equal lengths compared in constant time; different lengths are simply unequal). */
export const safeEqual = (a: string, b: string): boolean => {
  const x = Buffer.from(a, "utf8")
  const y = Buffer.from(b, "utf8")
  return x.length === y.length && timingSafeEqual(x, y)
}

/** AES-256-GCM: `v1.<iv>.<tag>.<ciphertext>` (base64url parts); `context` is bound as associated data. */
export const seal = (key: Uint8Array, plaintext: string, context: string): string => {
  const iv = randomBytes(12)
  const cipher = createCipheriv("aes-256-gcm", key, iv)
  cipher.setAAD(Buffer.from(context, "utf8"))
  const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()])
  return ["v1", iv.toString("base64url"), cipher.getAuthTag().toString("base64url"), body.toString("base64url")].join(".")
}

/** Opens what `seal` produced with the same key and context; `undefined` when anything does not match. */
export const open = (key: Uint8Array, sealed: string, context: string): string | undefined => {
  const [version, iv, tag, body] = sealed.split(".")
  if (version !== "v1" || iv === undefined || tag === undefined || body === undefined) return undefined
  try {
    const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(iv, "base64url"))
    decipher.setAAD(Buffer.from(context, "utf8"))
    decipher.setAuthTag(Buffer.from(tag, "base64url"))
    return Buffer.concat([decipher.update(Buffer.from(body, "base64url")), decipher.final()]).toString("utf8")
  } catch {
    return undefined
  }
}
