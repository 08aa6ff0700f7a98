/**
 * The statechart site at /docs/statecharts (server/http/statechart-docs.ts), over real HTTP: the index and a machine's
 * page, its diagram and the stylesheet with the SPA's security headers; the bare path redirects to the index; only
 * GET; no path traversal (plain, percent-encoded, double-encoded, backslashes) reaches a file outside the site; the
 * API reference links to the site.
 */
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { CONTENT_SECURITY_POLICY } from "../../server/http/security-headers.ts"
import { resolveStatechartPath, STATECHART_SITE_DIR } from "../../server/http/statechart-docs.ts"
import { startTestServer, type TestServer } from "../support/server.ts"

describe("resolveStatechartPath", () => {
  it("maps the index, pages, diagrams and the stylesheet to files of the site", () => {
    expect(resolveStatechartPath("/docs/statecharts")).toEqual({ _tag: "Redirect", location: "/docs/statecharts/" })
    expect(resolveStatechartPath("/docs/statecharts/")).toMatchObject({ _tag: "File", name: "index.html" })
    expect(resolveStatechartPath("/docs/statecharts/session")).toMatchObject({ _tag: "File", name: "session.html" })
    expect(resolveStatechartPath("/docs/statecharts/auth-gate.html")).toMatchObject({ _tag: "File", name: "auth-gate.html" })
    expect(resolveStatechartPath("/docs/statecharts/session.svg")).toEqual({ _tag: "File", name: "session.svg", contentType: "image/svg+xml" })
    expect(resolveStatechartPath("/docs/statecharts/site.css")).toMatchObject({ _tag: "File", name: "site.css" })
  })

  it("refuses anything that is not a plain file name of the site", () => {
    for (const path of [
      "/docs/statecharts/../statecharts.ts",
      "/docs/statecharts/..",
      "/docs/statecharts/%2e%2e/README.md",
      "/docs/statecharts/..%2f..%2fpackage.json",
      "/docs/statecharts/%252e%252e%252fpackage.json",
      "/docs/statecharts/..\\..\\package.json",
      "/docs/statecharts/site/index.html",
      "/docs/statecharts/session.ts",
      "/docs/statecharts/Session",
      "/docs/statecharts/session.html/",
      "/docs/statecharts/.hidden",
      "/docs/statechartsX",
    ]) {
      expect(resolveStatechartPath(path), path).toEqual({ _tag: "NotFound" })
    }
  })
})

describe("the statechart site over HTTP", () => {
  let server: TestServer
  beforeAll(async () => {
    server = await startTestServer()
  })
  afterAll(async () => {
    await server?.stop()
  })
  const get = (path: string, init?: RequestInit) => fetch(`${server.baseUrl}${path}`, { redirect: "manual", ...init })

  it("serves the index, a machine's page, its diagram and the stylesheet with the SPA's security headers", async () => {
    const cases = [
      ["/docs/statecharts/", "text/html", "index.html"],
      ["/docs/statecharts/session", "text/html", "session.html"],
      ["/docs/statecharts/session.html", "text/html", "session.html"],
      ["/docs/statecharts/session.svg", "image/svg+xml", "session.svg"],
      ["/docs/statecharts/site.css", "text/css", "site.css"],
    ] as const
    for (const [path, type, file] of cases) {
      const res = await get(path, { headers: { accept: "text/html" } })
      expect(res.status, path).toBe(200)
      expect(res.headers.get("content-type"), path).toContain(type)
      expect(res.headers.get("cache-control"), path).toBe("no-cache")
      expect(res.headers.get("content-security-policy"), path).toBe(CONTENT_SECURITY_POLICY.document)
      expect(res.headers.get("x-content-type-options"), path).toBe("nosniff")
      expect(res.headers.get("x-frame-options"), path).toBe("DENY")
      expect(await res.text(), path).toBe(readFileSync(join(STATECHART_SITE_DIR, file), "utf8"))
    }
  })

  it("redirects the bare path to the index, so the pages' relative links resolve", async () => {
    const res = await get("/docs/statecharts")
    expect(res.status).toBe(301)
    expect(res.headers.get("location")).toBe("/docs/statecharts/")
  })

  it("answers unknown pages and traversal attempts with the JSON 404, never a file or the SPA", async () => {
    for (const path of [
      "/docs/statecharts/no-such-machine",
      "/docs/statecharts/../../package.json",
      "/docs/statecharts/%2e%2e/%2e%2e/package.json",
      "/docs/statecharts/..%2f..%2fpackage.json",
      "/docs/statecharts/%252e%252e%252fpackage.json",
      "/docs/statecharts/..%5c..%5cpackage.json",
      "/docs/statecharts/session.ts",
      "/docs/statecharts/site/session.html",
    ]) {
      const res = await get(path, { headers: { accept: "text/html" } })
      const body = await res.text()
      // fetch normalises plain `../` itself: the request then leaves /docs/statecharts and gets the (empty) SPA.
      expect(body, path).not.toContain('"name": "cloud-audit"')
      if (new URL(path, server.baseUrl).pathname.startsWith("/docs/statecharts/")) {
        expect(res.status, path).toBe(404)
        expect(res.headers.get("content-type"), path).toContain("application/json")
      }
    }
  })

  it("is read-only", async () => {
    for (const method of ["POST", "PUT", "DELETE"]) {
      const res = await get("/docs/statecharts/session", { method })
      expect(res.status, method).toBe(404)
    }
  })

  it("is linked from the API reference", async () => {
    const page = await (await get("/api/docs")).text()
    expect(page).toContain('href="/docs/statecharts/"')
  })
})
