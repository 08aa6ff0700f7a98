/**
 * Odd input over every endpoint of the contract (issue 27, items 6 and 7), generated from src/contracts/api.ts:
 *  - every string field of every payload, query and path parameter receives a lone UTF-16 surrogate, a NUL or a control
 *    character, inside an otherwise sampled request, signed in with a workspace: each answer is the catalogue's 400
 *    "Contains an invalid character" naming the field (before: 500 when the audit JSON reached PostgreSQL, 503 when an
 *    SDK refused a credential) — 0 × 5xx;
 *  - AWS credentials with NUL, control characters, line breaks or non-ASCII in the header-bound fields → 400;
 *  - every path parameter receives `;` and the other separators and non-canonical numbers (`1;DROP`, `1%3B`, `1,2`,
 *    `1.`, `+1`, ` 1`, `01`, `1e0`, `0x1`, over 2^31−1): 400 or 404 catalogue answers (an id: 400 "Invalid ID"),
 *    never the resource of the leading digits — `DELETE /api/accounts/1;DROP` deleted account 1 before.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ApiErrorClasses } from "../../src/contracts/errors.ts"
import { PlatformMessages } from "../../src/contracts/messages.ts"
import { isStorableLine } from "../../src/contracts/validation.ts"
import { contractEndpoints, pathParams, sampleWire, setField, stringFields, type EndpointInfo } from "./contract-walk.ts"
import { startIdentityEnv, type Answer, type Env, type Session } from "./support.ts"

let env: Env
let owner: Session
let accountId: number
let scanId: number

beforeAll(async () => {
  env = await startIdentityEnv()
  owner = await env.signupVerified()
  const rows = await env.sql((q) => q<{ id: number }>`
    INSERT INTO accounts (workspace_id, cloud_provider_id, account_name, cloud_account_id, auth_method, credentials_sealed)
    VALUES (${owner.workspaceId}, 1, 'Odd input', '444444444444', 'access_key', 'v1.x') RETURNING id`)
  accountId = rows[0].id
  const scans = await env.sql((q) => q<{ id: number }>`
    INSERT INTO scans (workspace_id, account_id, cloud_provider_id, status, total_services, completed_services)
    VALUES (${owner.workspaceId}, ${accountId}, 1, 'completed', 0, 0) RETURNING id`)
  scanId = scans[0].id
}, 60_000)
afterAll(async () => {
  await env?.stop()
})

const endpoints = contractEndpoints()
const TAGS = new Set<string>(ApiErrorClasses.map((c) => (c as unknown as { identifier?: string }).identifier ?? c.name))

/** What no field may carry: lone surrogates (high, low, reversed pair), NUL, C0 controls. */
const BAD: ReadonlyArray<readonly [string, string]> = [
  ["lone high surrogate", "Ada\ud800"],
  ["lone low surrogate", "\udc00Ada"],
  ["reversed pair", "\ude00\ud83d"],
  ["NUL", "a\u0000b"],
  ["SOH", "\u0001"],
  ["ESC", "\u001b[31mred"],
  ["vertical tab", "a\u000bb"],
]

/** A sample with every string made storable (Arbitrary draws control characters and lone surrogates too). */
const clean = (v: unknown): unknown =>
  typeof v === "string" ? (isStorableLine(v) ? v : "x")
  : Array.isArray(v) ? v.map(clean)
  : v !== null && typeof v === "object" ? Object.fromEntries(Object.entries(v).filter(([k]) => isStorableLine(k)).map(([k, x]) => [k, clean(x)]))
  : v

const hasBody = (e: EndpointInfo) => e.method !== "GET" && e.method !== "DELETE"

const send = (e: EndpointInfo, path: string, body?: unknown) =>
  env.call(e.method, path, { token: owner.access, workspaceId: owner.workspaceId, ...(body !== undefined ? { body } : {}) })

const filled = (e: EndpointInfo, values: Record<string, string> = {}) =>
  e.path.replace(/:([A-Za-z_]+)/g, (_m, k: string) => values[k] ?? (k === "framework_id" ? "cis-aws-v3.0.0" : k === "requirement_id" ? "1.1" : k === "token" ? "t".repeat(40) : "1"))

/** Percent-encodes like encodeURIComponent, a lone surrogate as the three bytes UTF-8 would give it (not UTF-8). */
const encode = (s: string): string => {
  let out = ""
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    const next = s.charCodeAt(i + 1)
    if (c >= 0xd800 && c <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
      out += encodeURIComponent(s.slice(i, i + 2))
      i++
    } else if (c >= 0xd800 && c <= 0xdfff) {
      out += [0xe0 | (c >> 12), 0x80 | ((c >> 6) & 0x3f), 0x80 | (c & 0x3f)].map((b) => `%${b.toString(16).toUpperCase()}`).join("")
    } else {
      out += encodeURIComponent(s[i]!)
    }
  }
  return out
}

const toQuery = (q: unknown): string => {
  if (q === undefined || q === null || typeof q !== "object") return ""
  const parts = Object.entries(q as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${encode(k)}=${encode(typeof v === "string" ? v : JSON.stringify(v))}`)
  return parts.length === 0 ? "" : `?${parts.join("&")}`
}

/** Problems of an answer that should be the 400 naming `field`. */
const notRefused = (label: string, a: Answer, field: string | undefined): string | undefined => {
  if (a.status !== 400) return `${label}: ${a.status} ${JSON.stringify(a.body)?.slice(0, 200)}`
  if (a.body?._tag !== "ValidationError" || a.body?.message !== PlatformMessages.invalidCharacter) return `${label}: ${JSON.stringify(a.body).slice(0, 200)}`
  if (field !== undefined && a.body.errors?.[0]?.path !== field) return `${label}: path ${JSON.stringify(a.body.errors?.[0]?.path)}, expected ${field}`
  return undefined
}

describe("odd characters in every string field of every endpoint", () => {
  it("walks the whole contract", () => {
    expect(endpoints.length).toBeGreaterThan(60)
    const fields = endpoints.flatMap((e) => [...stringFields(e.payload), ...stringFields(e.query)])
    expect(fields.length).toBeGreaterThan(80)
  })

  it("answers 400 'Contains an invalid character' naming the field, never a 5xx", async () => {
    const failures: Array<string> = []
    let shots = 0
    for (const [index, e] of endpoints.entries()) {
      const base = filled(e)
      if (hasBody(e)) {
        const valid = clean(sampleWire(e.payload, 4000 + index))
        for (const field of stringFields(e.payload)) {
          for (const [name, bad] of BAD) {
            shots++
            const body = setField(valid, field, bad)
            const failure = notRefused(`${e.method} ${e.path} ${field.join(".")} ${name}`, await send(e, base, body), field.join(".").replace(/\*/g, "0"))
            if (failure !== undefined) failures.push(failure)
          }
        }
      }
      const validQuery = clean(sampleWire(e.query, 5000 + index))
      for (const field of stringFields(e.query)) {
        if (field.length !== 1) continue
        for (const [name, bad] of BAD) {
          shots++
          const query = toQuery(setField(validQuery, field, bad))
          const failure = notRefused(`${e.method} ${e.path}?${field[0]} ${name}`, await send(e, `${base}${query}`), undefined)
          if (failure !== undefined) failures.push(failure)
        }
      }
      for (const param of pathParams(e.path)) {
        for (const [name, bad] of BAD) {
          shots++
          const path = filled(e, { [param]: encode(bad) })
          const failure = notRefused(`${e.method} ${e.path} :${param} ${name}`, await send(e, path), undefined)
          if (failure !== undefined) failures.push(failure)
        }
      }
    }
    expect(shots).toBeGreaterThan(700)
    expect(failures, failures.slice(0, 40).join("\n")).toEqual([])
  }, 300_000)

  it("refuses AWS credentials the SDK cannot send (400, not a failed connection test)", async () => {
    const add = (credentials: Record<string, string>) =>
      env.as(owner, "POST", "/api/accounts", { cloud_provider_id: 1, account_name: "Odd keys", is_organization: false, credentials, test_only: true })
    for (const [credentials, field] of [
      [{ access_key: "AKIA\u0000EXAMPLE", secret_key: "secret" }, "access_key"],
      [{ access_key: "AKIAEXAMPLE", secret_key: "se\u0001cret" }, "secret_key"],
      [{ access_key: "AKIA\nEXAMPLE", secret_key: "secret" }, "access_key"],
      [{ access_key: "AKIA\tEXAMPLE", secret_key: "secret" }, "access_key"],
      [{ access_key: "AKIAEXAMPLE", secret_key: "secret", session_token: "tok\r\nen" }, "session_token"],
      [{ access_key: "AKIAÉXAMPLE😀", secret_key: "secret" }, "access_key"],
      [{ access_key: "AKIAEXAMPLE", secret_key: "sec\ud800ret" }, "secret_key"],
      [{ role_arn: "arn:aws:iam::123456789012:role/x\n" }, "role_arn"],
    ] as const) {
      const res = await add(credentials)
      expect(res.status, `${JSON.stringify(credentials)} → ${JSON.stringify(res.body)}`).toBe(400)
      expect(res.body).toMatchObject({ _tag: "ValidationError", message: PlatformMessages.invalidCharacter })
      expect(res.body.errors.map((i: { path: string }) => i.path)).toContain(`credentials.${field}`)
    }
  })
})

/** Separators and non-canonical numbers in a path parameter; `${id}` stands for the real id. */
const SEPARATED: ReadonlyArray<string> = [
  "${id};DROP", "${id};x", "${id};", "${id}%3B", "${id}%3BDROP", "${id}%3bx", "${id},2", "${id}%2C2", "${id}.", "${id}.0",
  "${id}+1", "+${id}", "%2B${id}", "%20${id}", "${id}%20", "0${id}", "00${id}", "${id}e0", "0x${id}", "-${id}", "${id}%00",
  "${id}%09", "2147483648", "99999999999", "9".repeat(40), "0", "1e3", "Infinity", "NaN",
]

describe("strict ids in every path parameter", () => {
  it("answers 400 or 404 from the catalogue for separators and non-canonical numbers, and touches nothing", async () => {
    const withParams = endpoints.filter((e) => pathParams(e.path).length > 0)
    expect(withParams.length).toBeGreaterThan(20)
    const real = (param: string, e: EndpointInfo): string =>
      param === "scan_id" || (param === "id" && e.path.startsWith("/api/scans/")) ? String(scanId)
      : param === "account_id" || (param === "id" && e.path.startsWith("/api/accounts/")) ? String(accountId)
      : "1"
    const failures: Array<string> = []
    let shots = 0
    for (const e of withParams) {
      for (const param of pathParams(e.path)) {
        const isId = e.idFields.some((f) => f.slot === "params" && f.path.join(".") === param)
        for (const variant of SEPARATED) {
          const segment = variant.replace("${id}", real(param, e))
          const path = filled(e, { [param]: segment })
          const res = await send(e, path, hasBody(e) ? sampleWire(e.payload, 77) : undefined)
          shots++
          const label = `${e.method} ${path}`
          if (res.status !== 400 && res.status !== 404) failures.push(`${label}: ${res.status} ${JSON.stringify(res.body)?.slice(0, 160)}`)
          else if (!(isId ? ["ValidationError", "NotFound"].includes(res.body?._tag) : TAGS.has(res.body?._tag)) || typeof res.body?.message !== "string") {
            failures.push(`${label}: not a catalogue body ${JSON.stringify(res.body)?.slice(0, 160)}`)
          } else if (isId && !segment.includes(";") && res.status === 400 && ![PlatformMessages.invalidId, PlatformMessages.invalidCharacter].includes(res.body.message)) {
            failures.push(`${label}: message ${res.body.message}`)
          }
        }
      }
    }
    expect(shots).toBeGreaterThan(500)
    expect(failures, failures.slice(0, 40).join("\n")).toEqual([])
    // Nothing was deleted or changed: the account and the scan are still there, under their own ids.
    expect((await env.as(owner, "GET", `/api/accounts/${accountId}`)).status).toBe(200)
    expect((await env.as(owner, "GET", `/api/scans/${scanId}`)).status).toBe(200)
    const left = await env.sql((q) => q<{ n: number }>`SELECT count(*)::int AS n FROM accounts WHERE id = ${accountId}`)
    expect(left[0].n).toBe(1)
  }, 300_000)

  it("the issue's two requests: DELETE /api/accounts/<id>;DROP deletes nothing, GET /api/scans/<id>;x answers no scan", async () => {
    const del = await env.as(owner, "DELETE", `/api/accounts/${accountId};DROP`)
    expect(del.status).toBe(404)
    expect(del.body._tag).toBe("NotFound")
    expect((await env.as(owner, "GET", `/api/accounts/${accountId}`)).status).toBe(200)
    const get = await env.as(owner, "GET", `/api/scans/${scanId};x`)
    expect(get.status).toBe(404)
    expect(get.body.data).toBeUndefined()
    for (const odd of [`0${scanId}`, `+${scanId}`, `${scanId}.0`, `${scanId}e0`]) {
      const res = await env.as(owner, "GET", `/api/scans/${encodeURIComponent(odd)}`)
      expect(res.status, odd).toBe(400)
      expect(res.body).toMatchObject({ _tag: "ValidationError", message: PlatformMessages.invalidId })
    }
    expect((await env.as(owner, "GET", `/api/scans/${scanId}`)).status).toBe(200)
  })
})
