/**
 * Characters no endpoint can carry, refused before any handler runs (issue 27, item 6): PostgreSQL refuses NUL in
 * text and JSON and lone UTF-16 surrogates in JSON (the audit log's details), and the cloud SDKs cannot put control
 * characters into the headers credentials end up in. Rather than each handler failing late with a 500 or a 503, the
 * request middleware (./middleware.ts) checks
 *  - the URL: every path segment and every query name and value, decoded: no control character (C0, DEL), no lone
 *    surrogate, no percent-encoding that is not UTF-8;
 *  - a JSON body: every string and every object key: no NUL, no control character but tab, line feed and carriage
 *    return, no lone surrogate (`isStorableText`; a field that must be one line, like a credential, is checked by its
 *    own schema in src/contracts);
 * and answers 400 `ValidationError` "Contains an invalid character" naming the field (`errors[].path`).
 */
import { isStorableLine, isStorableText } from "../../src/contracts/validation.ts"

export interface CharacterIssue {
  readonly path: string
}

const decodeOrNull = (s: string): string | null => {
  try {
    return decodeURIComponent(s)
  } catch {
    return null
  }
}

/** The first bad path segment or query part of a request URL (`/api/x/1?a=b`), if any. */
export const urlCharacterIssue = (url: string): CharacterIssue | undefined => {
  const hash = url.indexOf("#")
  const bare = hash === -1 ? url : url.slice(0, hash)
  const q = bare.indexOf("?")
  const path = q === -1 ? bare : bare.slice(0, q)
  for (const segment of path.split("/")) {
    const decoded = decodeOrNull(segment)
    if (decoded === null || !isStorableLine(decoded)) return { path: "params" }
  }
  if (q === -1) return undefined
  for (const part of bare.slice(q + 1).split("&")) {
    const eq = part.indexOf("=")
    const name = decodeOrNull((eq === -1 ? part : part.slice(0, eq)).replace(/\+/g, " "))
    const value = eq === -1 ? "" : decodeOrNull(part.slice(eq + 1).replace(/\+/g, " "))
    if (name === null || !isStorableLine(name)) return { path: "query" }
    if (value === null || !isStorableLine(value)) return { path: `query.${name}` }
  }
  return undefined
}

/**
 * The path to the first string (or key) of a parsed JSON value that cannot be stored, innermost step first; the path is
 * only built for a bad value (this walk runs on every JSON body).
 */
const badJsonPath = (value: unknown): Array<string> | undefined => {
  if (typeof value === "string") return isStorableText(value) ? undefined : []
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const inner = badJsonPath(value[i])
      if (inner !== undefined) return (inner.push(String(i)), inner)
    }
    return undefined
  }
  if (value !== null && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) {
      if (!isStorableText(k)) return [k]
      const inner = badJsonPath(v)
      if (inner !== undefined) return (inner.push(k), inner)
    }
  }
  return undefined
}

/** The first string (or key) of a parsed JSON value that cannot be stored, with its path (`credentials.secret_key`). */
export const jsonCharacterIssue = (value: unknown, path: ReadonlyArray<string> = []): CharacterIssue | undefined => {
  const inner = badJsonPath(value)
  return inner === undefined ? undefined : { path: [...path, ...inner.reverse()].join(".") }
}

/** Whether a content type is JSON (`application/json`, `application/x+json`, with parameters). */
export const isJsonContentType = (contentType: string | undefined): boolean =>
  contentType !== undefined && /^application\/([a-z0-9.+-]*\+)?json\s*(;|$)/i.test(contentType.trim())
