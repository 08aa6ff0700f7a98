/**
 * The whole API in-process over real HTTP, on PGlite and (when TEST_DATABASE_URL is set) on PostgreSQL:
 * health, migrations idempotent on restart, JSON 404 for unknown API paths, 400 catalogue errors for bad
 * bodies, OpenAPI + docs, the SPA with its history fallback and cache headers, request ids, and many
 * concurrent requests on the embedded database (STACK.md G7).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { CONTENT_SECURITY_POLICY, docsPagePolicy, PERMISSIONS_POLICY } from "../../server/http/security-headers.ts"
import { IMMUTABLE_CACHE, REVALIDATE_CACHE } from "../../server/http/static.ts"
import { PlatformMessages } from "../../src/contracts/messages.ts"
import { makeTestDatabase, migrateTestDatabase, type TestDatabase, withSql } from "../support/db.ts"
import { startTestServer, type TestServer } from "../support/server.ts"

const kinds: ReadonlyArray<"pglite" | "postgres"> = process.env["TEST_DATABASE_URL"] ? ["pglite", "postgres"] : ["pglite"]

const INDEX_HTML = "<!doctype html><html><head><title>fixture</title></head><body><div id=root></div></body></html>"
const ASSET_JS = "console.log('fixture asset')"

const makeDist = () => {
  const dist = mkdtempSync(join(tmpdir(), "dist-fixture-"))
  mkdirSync(join(dist, "assets"))
  writeFileSync(join(dist, "index.html"), INDEX_HTML)
  writeFileSync(join(dist, "assets", "index-Ab12Cd34.js"), ASSET_JS)
  writeFileSync(join(dist, "favicon.svg"), "<svg xmlns='http://www.w3.org/2000/svg'/>")
  return dist
}

describe.each(kinds)("platform on %s", (kind) => {
  let db: TestDatabase
  let server: TestServer
  let dist: string

  beforeAll(async () => {
    dist = makeDist()
    db = await makeTestDatabase({ kind })
    server = await startTestServer({ database: db, distDir: dist })
  })

  afterAll(async () => {
    await server?.stop()
    await db?.close()
    rmSync(dist, { recursive: true, force: true })
  })

  const get = (path: string, init?: RequestInit) => fetch(`${server.baseUrl}${path}`, init)

  it("answers /api/health with 200 after checking the database", async () => {
    const res = await get("/api/health")
    expect(res.status).toBe(200)
    expect(res.headers.get("content-type")).toContain("application/json")
    expect(await res.json()).toEqual({ status: "ok", database: "ok" })
  })

  it("has applied the migrations, and applying them again is a no-op", async () => {
    const tables = await withSql(db.url, Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ key: string }>`SELECT key FROM app_meta`))
    expect(tables.map((r) => r.key)).toContain("installed_at")
    expect(await migrateTestDatabase(db.url)).toEqual([])
  })

  it("restarts on the same database without re-applying migrations", async () => {
    const second = await startTestServer({ database: db, distDir: dist })
    try {
      const res = await fetch(`${second.baseUrl}/api/health`)
      expect(res.status).toBe(200)
      const rows = await withSql(db.url, Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ n: number }>`SELECT count(*)::int AS n FROM app_meta WHERE key = 'installed_at'`))
      expect(rows[0]?.n).toBe(1)
    } finally {
      await second.stop()
    }
  })

  it("answers unknown /api paths with a JSON NotFound, never the SPA", async () => {
    for (const [method, path] of [["GET", "/api/does-not-exist"], ["POST", "/api/nope/deeper"], ["GET", "/api"], ["DELETE", "/api/health"]] as const) {
      const res = await get(path, { method, headers: { accept: "text/html,application/xhtml+xml" } })
      expect(res.status, `${method} ${path}`).toBe(404)
      expect(res.headers.get("content-type")).toContain("application/json")
      expect(await res.json()).toEqual({ _tag: "NotFound", message: `No API endpoint matches ${method} ${path}` })
    }
  })

  it("answers a malformed JSON body with a 400 ValidationError", async () => {
    const res = await get("/api/login", { method: "POST", headers: { "content-type": "application/json" }, body: "{not json" })
    expect(res.status).toBe(400)
    const body = (await res.json()) as { _tag: string; message: string }
    expect(body._tag).toBe("ValidationError")
    expect(body.message).toBe("Expected a valid JSON body")
  })

  it("answers a schema-invalid body with a 400 ValidationError listing the field", async () => {
    const res = await get("/api/login", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ password: "x" }) })
    expect(res.status).toBe(400)
    const body = (await res.json()) as { _tag: string; message: string; errors: Array<{ path: string; message: string }> }
    expect(body._tag).toBe("ValidationError")
    expect(body.errors.length).toBeGreaterThan(0)
    const email = body.errors.find((e) => e.path === "email")
    expect(email?.message.length).toBeGreaterThan(0)
    // The message is the first problem's own text (the spec's wording where the contract has one).
    expect(body.message).toBe(body.errors[0]!.message)
  })

  it("refuses bodies over the size limit with a 413 JSON error", async () => {
    const huge = JSON.stringify({ email: "a@example.com", password: "x".repeat(2 * 1024 * 1024) })
    const res = await get("/api/login", { method: "POST", headers: { "content-type": "application/json" }, body: huge })
    expect(res.status).toBe(413)
    expect(await res.json()).toEqual({ _tag: "ValidationError", message: PlatformMessages.bodyTooLarge, errors: [{ path: "", message: PlatformMessages.bodyTooLarge }] })
  })

  it("serves the OpenAPI document and the API reference", async () => {
    const spec = await get("/api/openapi.json")
    expect(spec.status).toBe(200)
    const doc = (await spec.json()) as { openapi: string; paths: Record<string, unknown> }
    expect(doc.openapi).toBe("3.1.0")
    expect(Object.keys(doc.paths)).toContain("/api/health")
    expect(Object.keys(doc.paths).every((p) => p.startsWith("/api/"))).toBe(true)
    const docs = await get("/api/docs")
    expect(docs.status).toBe(200)
    expect(docs.headers.get("content-type")).toContain("text/html")
    // Scalar is inlined: the page does not load scripts from a CDN.
    expect(await docs.text()).not.toMatch(/<script[^>]+src="https?:\/\//)
  })

  it("sends the browser defences on the SPA, the API and the API reference; the reference runs no inline script", async () => {
    const kinds = { "/login": "document", "/assets/index-Ab12Cd34.js": "document", "/api/health": "api", "/api/nope": "api", "/api/docs": "docs" } as const
    for (const [path, kind] of Object.entries(kinds)) {
      const res = await get(path, { headers: { accept: "text/html" } })
      const csp = res.headers.get("content-security-policy") ?? ""
      if (path === "/api/docs") {
        // The page's own policy: the docs policy with a fresh nonce for its <style> elements (issue 27).
        const nonce = /'nonce-([A-Za-z0-9+/=]+)'/.exec(csp)?.[1] ?? ""
        expect(csp, path).toBe(docsPagePolicy(nonce))
        expect(nonce.length).toBeGreaterThanOrEqual(16)
      } else {
        expect(csp, path).toBe(CONTENT_SECURITY_POLICY[kind])
      }
      expect(csp.match(/style-src[^;]*/)?.[0] ?? "", path).not.toContain("unsafe-inline")
      expect(res.headers.get("permissions-policy"), path).toBe(PERMISSIONS_POLICY)
      expect(res.headers.get("permissions-policy"), path).toContain("camera=()")
      if (kind === "api" || path === "/api/docs") expect(res.headers.get("cache-control"), path).toBe("no-store")
      expect(res.headers.get("x-content-type-options"), path).toBe("nosniff")
      expect(res.headers.get("x-frame-options"), path).toBe("DENY")
      expect(res.headers.get("referrer-policy"), path).toBe("no-referrer")
      // APP_ORIGIN is plain http here.
      expect(res.headers.get("strict-transport-security"), path).toBeNull()
    }
    expect(CONTENT_SECURITY_POLICY.document).toContain("script-src 'self';")
    const first = await get("/api/docs")
    const page = await first.text()
    expect(page).not.toMatch(/<script>/)
    // Every <style> and <script> of the page carries this answer's nonce; the next answer has another one.
    const nonce = /'nonce-([^']+)'/.exec(first.headers.get("content-security-policy") ?? "")?.[1]
    expect([...page.matchAll(/<(style|script)\b([^>]*)>/g)].every((m) => m[2]!.includes(`nonce="${nonce}"`))).toBe(true)
    const again = (await get("/api/docs")).headers.get("content-security-policy") ?? ""
    expect(again).not.toContain(`'nonce-${nonce}'`)
    expect(CONTENT_SECURITY_POLICY.docs).not.toContain("unsafe-inline")
    const scripts = [...page.matchAll(/<script nonce="[^"]+" src="([^"]+)"/g)].map((m) => m[1]!)
    expect(scripts.length).toBe(3)
    for (const src of scripts) {
      const script = await get(src)
      expect(script.status, src).toBe(200)
      expect(script.headers.get("content-type"), src).toContain("javascript")
    }
  })

  it("serves the SPA for deep links that accept HTML", async () => {
    for (const path of ["/", "/dashboard/scans/7", "/login?next=%2Fdashboard", "/dashboard/compliance/scans/7/cis-aws-3.0.0/1.10"]) {
      const res = await get(path, { headers: { accept: "text/html,application/xhtml+xml,*/*;q=0.8" } })
      expect(res.status, path).toBe(200)
      expect(res.headers.get("content-type")).toContain("text/html")
      expect(res.headers.get("cache-control")).toBe(REVALIDATE_CACHE)
      expect(await res.text()).toBe(INDEX_HTML)
    }
  })

  it("caches hashed assets for a year and 404s missing files", async () => {
    const asset = await get("/assets/index-Ab12Cd34.js")
    expect(asset.status).toBe(200)
    expect(asset.headers.get("cache-control")).toBe(IMMUTABLE_CACHE)
    expect(asset.headers.get("content-type")).toContain("javascript")
    expect(await asset.text()).toBe(ASSET_JS)
    const favicon = await get("/favicon.svg")
    expect(favicon.headers.get("cache-control")).toBe(REVALIDATE_CACHE)
    const missing = await get("/assets/missing-123.js", { headers: { accept: "*/*" } })
    expect(missing.status).toBe(404)
  })

  it("echoes a caller's request id and generates one otherwise", async () => {
    const mine = await get("/api/health", { headers: { "x-request-id": "test-req-42" } })
    expect(mine.headers.get("x-request-id")).toBe("test-req-42")
    const generated = await get("/api/health")
    expect(generated.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/)
  })

  it("handles many concurrent requests that use the database", async () => {
    const statuses = await Promise.all(Array.from({ length: 40 }, () => get("/api/health").then((r) => r.status)))
    expect(statuses.every((s) => s === 200)).toBe(true)
  })
})

describe("health when the database is gone", () => {
  it("answers 503 ServiceUnavailable instead of hanging or 500", async () => {
    const db = await makeTestDatabase({ kind: "pglite" })
    const server = await startTestServer({ database: db })
    try {
      expect((await fetch(`${server.baseUrl}/api/health`)).status).toBe(200)
      await db.close()
      const started = Date.now()
      const res = await fetch(`${server.baseUrl}/api/health`)
      expect(res.status).toBe(503)
      expect(await res.json()).toEqual({ _tag: "ServiceUnavailable", message: PlatformMessages.databaseUnavailable })
      expect(Date.now() - started).toBeLessThan(10_000)
    } finally {
      await server.stop()
    }
  })
})

describe("platform behind https", () => {
  it("sends Strict-Transport-Security when APP_ORIGIN is https", async () => {
    const server = await startTestServer({ env: { APP_ORIGIN: "https://audit.example.com" } })
    try {
      for (const path of ["/api/health", "/", "/api/docs"]) {
        const res = await fetch(`${server.baseUrl}${path}`)
        expect(res.headers.get("strict-transport-security"), path).toMatch(/^max-age=\d{7,}/)
      }
    } finally {
      await server.stop()
    }
  })
})
