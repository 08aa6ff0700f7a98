/**
 * One error shape, before and after routing: every endpoint of every contract group receives requests that fail
 * before a handler runs or that carry characters the database cannot hold —
 *  - non-JSON content types (text/plain, XML, forms, multipart, octet-stream, none, look-alikes);
 *  - NUL and other control characters in path segments, query values and JSON string fields (raw and escaped);
 *  - a query string and a header over Node's header limit (431), a long but acceptable query;
 * plus, on a raw socket, requests Node's parser refuses (NUL in a header, malformed request line or header).
 * Every 4xx/5xx answer must be the catalogue's JSON body (`_tag` of a catalogue class, `message` string), NUL is
 * always a 400, and nothing is a 5xx. The test counts the answers outside the catalogue: the count must be 0.
 */
import { connect } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Api } from "../../src/contracts/api.ts"
import { ApiErrorClasses } from "../../src/contracts/errors.ts"
import { startIdentityEnv, type Env, type Session } from "../identity/support.ts"

let env: Env
let owner: Session

beforeAll(async () => {
  env = await startIdentityEnv()
  owner = await env.signupVerified()
}, 60_000)
afterAll(async () => {
  await env?.stop()
})

const TAGS = new Set<string>(ApiErrorClasses.map((c) => (c as unknown as { identifier?: string }).identifier ?? c.name))

interface Endpoint { readonly group: string; readonly name: string; readonly method: string; readonly path: string; readonly hasPayload: boolean }

const endpoints: ReadonlyArray<Endpoint> = Object.entries(
  (Api as unknown as { groups: Record<string, { endpoints: Record<string, { method: string; path: string; payload: Map<string, unknown> }> }> }).groups,
).flatMap(([group, g]) => Object.entries(g.endpoints).map(([name, e]) => ({ group, name, method: e.method, path: e.path, hasPayload: e.payload.size > 0 })))

const CONTENT_TYPES = [
  "text/plain", "application/xml", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x",
  "application/octet-stream", "text/html", "application/jsonx", "json", "",
]
const CONTROL = ["\u0000", "a\u0000b", "\u0001\u0002\u001f", "\u007f", "\u001b[31m", "\r\n"]

interface Answer { readonly status: number; readonly body: string }

/** Whether an answer is acceptable: below 500, and the catalogue's JSON body when it is an error. */
const problem = (a: Answer): string | undefined => {
  if (a.status >= 500) return `status ${a.status}`
  if (a.status < 400) return undefined
  let body: unknown
  try {
    body = JSON.parse(a.body)
  } catch {
    return `non-JSON ${a.status} body ${JSON.stringify(a.body.slice(0, 80))}`
  }
  const tag = (body as { _tag?: unknown })?._tag
  if (typeof tag !== "string" || !TAGS.has(tag)) return `unknown _tag ${JSON.stringify(tag)}`
  if (typeof (body as { message?: unknown }).message !== "string") return "no message"
  return undefined
}

const send = async (method: string, path: string, init: { headers?: Record<string, string>; body?: string } = {}): Promise<Answer> => {
  const res = await fetch(`${env.base}${path}`, {
    method,
    headers: { authorization: `Bearer ${owner.access}`, "x-workspace-id": String(owner.workspaceId), ...init.headers },
    ...(init.body !== undefined && method !== "GET" && method !== "HEAD" ? { body: init.body } : {}),
  })
  return { status: res.status, body: await res.text() }
}

/** A raw HTTP/1.1 exchange (for what fetch refuses to send). */
const raw = (request: string | Buffer): Promise<Answer> =>
  new Promise((resolve, reject) => {
    const url = new URL(env.base)
    const socket = connect(Number(url.port), url.hostname)
    const chunks: Array<Buffer> = []
    socket.on("data", (c) => chunks.push(c))
    socket.on("error", reject)
    socket.on("close", () => {
      const text = Buffer.concat(chunks).toString("utf8")
      const [head = "", ...rest] = text.split("\r\n\r\n")
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0), body: rest.join("\r\n\r\n") })
    })
    socket.write(request)
  })

describe("fuzz: every error is the catalogue's JSON body", () => {
  it("covers every endpoint of every contract group", () => {
    expect(endpoints.length).toBeGreaterThan(45)
    expect(TAGS.has("ValidationError")).toBe(true)
  })

  it("answers content types, control characters, NUL and oversized requests on every endpoint inside the catalogue", async () => {
    const outside: Array<string> = []
    const nulNot400: Array<string> = []
    let count = 0
    const check = (label: string, a: Answer, nul = false) => {
      count++
      const p = problem(a)
      if (p !== undefined) outside.push(`${label}: ${p}`)
      if (nul && a.status !== 400) nulNot400.push(`${label}: ${a.status} ${a.body.slice(0, 120)}`)
    }
    for (const e of endpoints) {
      const base = e.path.replace(/:([A-Za-z_]+)/g, "1")
      const label = `${e.method} ${e.path}`
      const hasBody = e.method !== "GET" && e.method !== "HEAD"
      if (hasBody) {
        for (const type of CONTENT_TYPES) {
          check(`${label} content-type ${JSON.stringify(type)}`, await send(e.method, base, { headers: { "content-type": type }, body: "{}" }))
        }
        for (const c of CONTROL) {
          const body = JSON.stringify({ email: `a${c}@example.com`, name: c, password: c, workspace_name: c, q: c })
          check(`${label} body ${JSON.stringify(c)}`, await send(e.method, base, { headers: { "content-type": "application/json" }, body }), e.hasPayload && c.includes("\u0000"))
        }
        check(`${label} raw control bytes`, await send(e.method, base, { headers: { "content-type": "application/json" }, body: "\u0001\u0000{" }))
      }
      for (const c of CONTROL) {
        const q = encodeURIComponent(c)
        check(`${label} query ${JSON.stringify(c)}`, await send(e.method, `${base}?q=${q}&email=${q}&to=${q}&page=${q}`), c.includes("\u0000"))
      }
      if (e.path.includes(":")) {
        for (const seg of ["%00", "a%00b", "%01", "%1F%7F"]) {
          check(`${label} segment ${seg}`, await send(e.method, e.path.replace(/:([A-Za-z_]+)/g, seg)), seg.includes("%00"))
        }
      }
      check(`${label} long query`, await send(e.method, `${base}?x=${"y".repeat(70_000)}`))
      check(`${label} long header`, await send(e.method, base, { headers: { "x-padding": "z".repeat(20_000) } }))
      check(`${label} long acceptable query`, await send(e.method, `${base}?x=${"y".repeat(8_000)}`))
    }
    // What Node's parser refuses before any route.
    for (const request of [
      Buffer.from("GET /api/health HTTP/1.1\r\nHost: x\r\nX-Bad: a\u0000b\r\nConnection: close\r\n\r\n", "latin1"),
      "GET /api/health HTTP/1.1\r\nHost: x\r\nNo-Colon-Here\r\nConnection: close\r\n\r\n",
      "BROKEN\r\n\r\n",
      "GET /api/health HTTP/9.9\r\nHost: x\r\nConnection: close\r\n\r\n",
      `GET /api/health HTTP/1.1\r\nHost: x\r\nX-Long: ${"q".repeat(20_000)}\r\nConnection: close\r\n\r\n`,
      "POST /api/login HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\nConnection: close\r\n\r\n",
    ]) {
      const answer = await raw(request)
      expect(answer.status, String(request).slice(0, 60)).toBeGreaterThanOrEqual(400)
      check(`raw ${JSON.stringify(String(request).slice(0, 40))}`, answer)
    }
    expect(count).toBeGreaterThan(1000)
    expect(outside, outside.slice(0, 30).join("\n")).toEqual([])
    expect(nulNot400, nulNot400.slice(0, 30).join("\n")).toEqual([])
  }, 600_000)

  it("answers 431 with the catalogue body for a query or header over the limit", async () => {
    for (const a of [
      await send("GET", `/api/health?x=${"y".repeat(70_000)}`),
      await send("GET", "/api/health", { headers: { "x-padding": "z".repeat(20_000) } }),
    ]) {
      expect(a.status).toBe(431)
      expect(JSON.parse(a.body)).toMatchObject({ _tag: "ValidationError", message: expect.any(String) })
    }
  })

  it("answers 415 with the catalogue body for a non-JSON content type", async () => {
    const a = await send("POST", "/api/login", { headers: { "content-type": "text/plain" }, body: "email=a" })
    expect(a.status).toBe(415)
    expect(JSON.parse(a.body)).toMatchObject({ _tag: "ValidationError", errors: [{ path: "" }] })
  })
})
