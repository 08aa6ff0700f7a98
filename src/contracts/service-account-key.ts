/**
 * The GCP service-account key file (the JSON Google Cloud downloads for a service-account key), validated once for
 * the add-account form, the API payload and the scanner engine (server/scanner/gcp/auth.ts decodes keys with it).
 *
 * Rules, checked in this order, each with its own message (the first failing one is reported):
 * 1. a JSON object;
 * 2. `type` is "service_account" (not an `authorized_user` or external-account credential);
 * 3. `client_email` is an e-mail address (the service account);
 * 4. `private_key` holds a PKCS#8 PEM block (-----BEGIN PRIVATE KEY----- … -----END PRIVATE KEY-----);
 * 5. `project_id` is a Google Cloud project id (6–30 lower-case letters, digits and hyphens, starting with a letter,
 *    not ending with a hyphen; legacy domain-scoped ids `example.com:my-project` are accepted);
 * 6. `token_uri`, when present, is an https URL (http only on a loopback host, for local test servers).
 * The messages never quote the key's content.
 */
import { Result, Schema } from "effect"
import { ValidationMessages as M } from "./messages.ts"
import { EMAIL_RE } from "./sign-in-rules.ts"

const PEM_RE = /-----BEGIN PRIVATE KEY-----\s*[A-Za-z0-9+/=\s]+?\s*-----END PRIVATE KEY-----/
const PROJECT_ID_RE = /^(?:[a-z0-9][a-z0-9.-]{0,61}[a-z0-9]:)?[a-z][a-z0-9-]{4,28}[a-z0-9]$/
const LOOPBACK = new Set(["localhost", "127.0.0.1", "[::1]"])

/** A Google Cloud project id (the shape the console enforces). */
export const isGcpProjectId = (s: string): boolean => PROJECT_ID_RE.test(s)

/** https, or http to a loopback host (a local token endpoint in tests). */
export const isTokenUri = (s: string): boolean => {
  try {
    const u = new URL(s)
    return u.protocol === "https:" || (u.protocol === "http:" && LOOPBACK.has(u.hostname))
  } catch {
    return false
  }
}

const isString = (v: unknown): v is string => typeof v === "string"

/** The first problem of a parsed key file (see the rules above), or undefined when it is a valid key. */
export function serviceAccountKeyIssue(value: unknown): string | undefined {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return M.serviceAccountKeyInvalid
  const k = value as Readonly<Record<string, unknown>>
  if (k["type"] !== "service_account") return M.serviceAccountKeyType
  if (!isString(k["client_email"]) || !EMAIL_RE.test(k["client_email"])) return M.serviceAccountKeyClientEmail
  if (!isString(k["private_key"]) || !PEM_RE.test(k["private_key"])) return M.serviceAccountKeyPrivateKey
  if (!isString(k["project_id"]) || !isGcpProjectId(k["project_id"])) return M.serviceAccountKeyProjectId
  if (k["token_uri"] !== undefined && (!isString(k["token_uri"]) || !isTokenUri(k["token_uri"]))) return M.serviceAccountKeyTokenUri
  return undefined
}

/** The key file's JSON text → its first problem, or undefined when valid. */
export function serviceAccountKeyTextIssue(text: string): string | undefined {
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    return M.serviceAccountKeyInvalid
  }
  return serviceAccountKeyIssue(parsed)
}

/** The fields of a valid key file (other fields, e.g. auth_uri, are dropped on decode). */
const ServiceAccountKeyFields = Schema.Struct({
  type: Schema.Literal("service_account"),
  project_id: Schema.String,
  private_key_id: Schema.optionalKey(Schema.String),
  private_key: Schema.String,
  client_email: Schema.String,
  client_id: Schema.optionalKey(Schema.String),
  token_uri: Schema.optionalKey(Schema.String),
  universe_domain: Schema.optionalKey(Schema.String),
})

/** A parsed, validated service-account key file. */
export type ServiceAccountKey = typeof ServiceAccountKeyFields.Type

/** Parses the key file (JSON text or an already parsed object): the key, or the first rule's message. */
export function decodeServiceAccountKey(input: unknown): { readonly ok: true; readonly key: ServiceAccountKey } | { readonly ok: false; readonly message: string } {
  let value = input
  if (typeof input === "string") {
    try {
      value = JSON.parse(input)
    } catch {
      return { ok: false, message: M.serviceAccountKeyInvalid }
    }
  }
  const issue = serviceAccountKeyIssue(value)
  if (issue !== undefined) return { ok: false, message: issue }
  const decoded = Schema.decodeUnknownResult(ServiceAccountKeyFields)(value)
  // Unreachable after the rules above (they check every required field's type); kept total for the type system.
  return Result.isSuccess(decoded) ? { ok: true, key: decoded.success } : { ok: false, message: M.serviceAccountKeyInvalid }
}
