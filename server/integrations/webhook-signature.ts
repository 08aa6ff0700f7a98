/**
 * The signature of a webhook delivery (docs/integrations.md "Verifying a delivery"):
 * `X-Cloud-Audit-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>" keyed with the webhook's secret>`.
 * The timestamp is part of what is signed, so a receiver that refuses old timestamps (5 minutes is the usual tolerance)
 * also refuses a replayed capture; every attempt is signed afresh with its own `t`.
 */
import { createHmac, timingSafeEqual } from "node:crypto"

export const signatureOf = (secret: string, timestamp: number, body: string): string =>
  createHmac("sha256", secret).update(`${timestamp}.${body}`, "utf8").digest("hex")

export const signatureHeader = (secret: string, timestamp: number, body: string): string =>
  `t=${timestamp},v1=${signatureOf(secret, timestamp, body)}`

/**
 * What a receiver does (kept here so the tests check the documented procedure): parse `t` and every `v1`, refuse a
 * timestamp further than `toleranceSeconds` from `now`, compare the expected HMAC in constant time.
 */
export const verifySignature = (
  secret: string,
  header: string,
  body: string,
  options: { readonly now?: number; readonly toleranceSeconds?: number } = {},
): boolean => {
  const parts = header.split(",").map((p) => p.trim().split("="))
  const t = Number(parts.find(([k]) => k === "t")?.[1])
  if (!Number.isInteger(t)) return false
  const now = options.now ?? Math.floor(Date.now() / 1000)
  if (Math.abs(now - t) > (options.toleranceSeconds ?? 300)) return false
  const expected = Buffer.from(signatureOf(secret, t, body), "hex")
  return parts.some(([k, v]) => {
    if (k !== "v1" || v === undefined || !/^[0-9a-f]{64}$/.test(v)) return false
    return timingSafeEqual(expected, Buffer.from(v, "hex"))
  })
}
