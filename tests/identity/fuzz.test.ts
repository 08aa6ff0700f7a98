/**
 * Bad input never yields a 5xx: every endpoint of the identity groups (read from the contract) receives
 *  - schema-derived requests: params/query/payload sampled from the contract's own schemas (effect/Arbitrary) and
 *    encoded as the wire format, sent signed in (with a workspace) and signed out;
 *  - malformed requests: non-JSON bodies, JSON of the wrong shape (fast-check `jsonValue`), every payload field
 *    replaced by a hostile value, absurd headers (bearer, X-Workspace-ID), odd path segments.
 * Each answer must be below 500 and, when JSON, carry a `message` for 4xx.
 */
import { Effect, Schema } from "effect"
import * as Arbitrary from "effect/Arbitrary"
import fc from "fast-check"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { identityEndpoints, type EndpointInfo } from "./contract-walk.ts"
import { startIdentityEnv, type Env, type Session } from "./support.ts"

let env: Env
let owner: Session

beforeAll(async () => {
  env = await startIdentityEnv()
  owner = await env.signupVerified()
}, 60_000)
afterAll(async () => {
  await env?.stop()
})

const SAMPLES = 6

/** Samples of a contract schema, encoded to the wire. Struct-level rules (confirm = password) are satisfied after. */
const sample = (schema: unknown, seed: number): ReadonlyArray<unknown> => {
  if (schema === undefined) return [undefined]
  const draw = (s: Schema.Codec<unknown, unknown>) =>
    Effect.runSync(Arbitrary.sampleEffect(Arbitrary.schema(s as never), { count: SAMPLES, seed }).pipe(Effect.option))
  let s = schema as Schema.Codec<unknown, unknown>
  let values = draw(s)
  if (values._tag === "None" && "fields" in (schema as object)) {
    // A struct with a cross-field check: sample its fields, then make the confirmation match.
    s = Schema.Struct((schema as { fields: Schema.Struct.Fields }).fields) as unknown as Schema.Codec<unknown, unknown>
    values = draw(s)
  }
  if (values._tag === "None") return [{}]
  return values.value.map((v) => {
    const fixed = typeof v === "object" && v !== null && "confirm_password" in v
      ? { ...(v as object), confirm_password: (v as Record<string, unknown>)["new_password"] ?? (v as Record<string, unknown>)["password"] }
      : v
    try {
      return Schema.encodeUnknownSync(s)(fixed)
    } catch {
      return fixed
    }
  })
}

const HOSTILE: ReadonlyArray<unknown> = [
  null, 0, -1, 1.5, 2 ** 53, "", " ", "x".repeat(20_000), "\u0000", "' OR 1=1 --", "<script>alert(1)</script>",
  "😀".repeat(100), [], {}, { __proto__: { admin: true } }, true, "1e999", "NaN",
]

const pathWith = (e: EndpointInfo, value: string) => e.path.replace(/:([A-Za-z_]+)/g, () => encodeURIComponent(value))

const toQuery = (q: unknown): string => {
  if (q === undefined || q === null || typeof q !== "object") return ""
  const p = new URLSearchParams()
  for (const [k, v] of Object.entries(q as Record<string, unknown>)) p.set(k, typeof v === "string" ? v : JSON.stringify(v))
  return `?${p.toString()}`
}

type Shot = { readonly path: string; readonly raw?: string; readonly body?: unknown; readonly headers?: Record<string, string>; readonly signedIn: boolean }

const shotsFor = (e: EndpointInfo, seed: number): Array<Shot> => {
  const shots: Array<Shot> = []
  const params = sample(e.params, seed)
  const queries = sample(e.query, seed + 1)
  const payloads = sample(e.payload, seed + 2)
  for (let i = 0; i < SAMPLES; i++) {
    const p = params[i % params.length] as Record<string, unknown> | undefined
    const path = e.path.replace(/:([A-Za-z_]+)/g, (_m, k: string) => encodeURIComponent(String(p?.[k] ?? "1")))
    const q = toQuery(queries[i % queries.length])
    const body = e.method === "GET" || e.method === "DELETE" ? undefined : payloads[i % payloads.length]
    shots.push({ path: `${path}${q}`, body, signedIn: i % 2 === 0 })
  }
  // Malformed bodies.
  const jsonValues = fc.sample(fc.jsonValue({ maxDepth: 4 }), { numRuns: 8, seed })
  const base = e.path.replace(/:([A-Za-z_]+)/g, "1")
  for (const v of jsonValues) shots.push({ path: base, body: v, signedIn: true })
  for (const raw of ["{", "not json", "[1,2", "\"unterminated", "{\"a\":}", "\u0000\u0001", "null"]) {
    shots.push({ path: base, raw, signedIn: true })
  }
  // Each field of a valid-shaped payload replaced by hostile values.
  const valid = payloads[0]
  if (valid !== null && typeof valid === "object" && !Array.isArray(valid)) {
    for (const key of Object.keys(valid)) {
      for (const h of HOSTILE) shots.push({ path: base, body: { ...(valid as object), [key]: h }, signedIn: true })
    }
    shots.push({ path: base, body: {}, signedIn: true })
    shots.push({ path: base, body: { ...(valid as object), extra: "field", constructor: { prototype: 1 } }, signedIn: true })
  }
  // Odd path segments and query strings.
  if (e.path.includes(":")) {
    for (const seg of ["0", "-1", "abc", "9".repeat(30), "1.5", "%00", "..%2F..%2Fetc", " "]) shots.push({ path: pathWith(e, seg), body: valid, signedIn: true })
  }
  shots.push({ path: `${base}?x=${"y".repeat(5000)}&token=&email=%FF`, body: valid, signedIn: true })
  // Hostile headers.
  for (const headers of [
    { authorization: "Bearer" }, { authorization: "Bearer a.b.c" }, { authorization: "Basic Zm9vOmJhcg==" },
    { authorization: `Bearer ${"x".repeat(4000)}` }, { "x-workspace-id": "-1" }, { "x-workspace-id": "1e3" },
    { "x-workspace-id": "99999999999999" }, { "x-workspace-id": "1; DROP TABLE users" }, { "x-workspace-id": "0" },
  ]) shots.push({ path: base, body: valid, headers, signedIn: !("authorization" in headers) })
  return shots
}

describe("fuzz: no identity endpoint answers 5xx", () => {
  const endpoints = identityEndpoints()

  it("covers every identity endpoint of the contract", () => {
    expect(endpoints.length).toBeGreaterThanOrEqual(35)
  })

  for (const [index, e] of endpoints.entries()) {
    it(`${e.method} ${e.path}`, async () => {
      const shots = shotsFor(e, 1000 + index * 7)
      const failures: Array<string> = []
      for (const raw of shots) {
        // GET requests carry no body: what would be the body goes into the query string instead.
        const shot: Shot = e.method === "GET" && (raw.body !== undefined || raw.raw !== undefined)
          ? {
            signedIn: raw.signedIn,
            ...(raw.headers !== undefined ? { headers: raw.headers } : {}),
            path: `${raw.path}${raw.path.includes("?") ? "&" : "?"}${toQuery(typeof raw.body === "object" && raw.body !== null && !Array.isArray(raw.body) ? raw.body : { q: raw.raw ?? raw.body }).slice(1)}`,
          }
          : raw
        const res = await env.call(e.method, shot.path, {
          ...(shot.signedIn ? { token: owner.access, workspaceId: owner.workspaceId } : {}),
          ...(shot.raw !== undefined ? { raw: shot.raw } : shot.body !== undefined ? { body: shot.body } : {}),
          ...(shot.headers !== undefined ? { headers: shot.headers } : {}),
        })
        if (res.status >= 500) failures.push(`${res.status} ${shot.path} ${JSON.stringify(shot.body ?? shot.raw)?.slice(0, 200)} → ${JSON.stringify(res.body)?.slice(0, 300)}`)
        else if (res.status >= 400 && typeof res.body === "object" && res.body !== null && typeof res.body.message !== "string") {
          failures.push(`${res.status} without message: ${JSON.stringify(res.body).slice(0, 200)}`)
        }
      }
      expect(failures, failures.join("\n")).toEqual([])
      expect(shots.length).toBeGreaterThan(10)
    })
  }
})
