/**
 * Serves the built SPA from `distDir` on every GET/HEAD that no other route claims:
 *
 * - files as-is; Vite's content-hashed files under /assets/ are cached for a year (`immutable`), everything
 *   else (index.html, favicon, ...) must be revalidated (`no-cache`), so a deploy is picked up at once;
 * - history fallback: a path without a file extension whose request accepts HTML gets index.html, so deep
 *   links such as /dashboard/scans/7 load the app; so does any other missing file asked for as HTML outside /assets/
 *   (app paths may end in a dotted id, e.g. /dashboard/compliance/scans/7/cis-aws-3.0.0/1.10);
 * - never for /api: unknown API paths fail with RouteNotFound and become a JSON 404 (./errors.ts).
 */
import { existsSync } from "node:fs"
import { join } from "node:path"
import { Effect, Layer } from "effect"
import { HttpRouter, HttpServerError, HttpServerRequest, HttpServerResponse, HttpStaticServer } from "effect/http"

export const IMMUTABLE_CACHE = "public, max-age=31536000, immutable"
export const REVALIDATE_CACHE = "no-cache"

const isApiPath = (path: string) => path === "/api" || path.startsWith("/api/")

/** Whether the URL path names a file of the build (only checked: files are still served by the static server). */
const fileExists = (distDir: string, path: string): boolean => {
  try {
    return path !== "/" && existsSync(join(distDir, decodeURIComponent(path)))
  } catch {
    return false
  }
}

export const staticLayer = (distDir: string) =>
  Layer.effectDiscard(
    Effect.gen(function* () {
      const router = yield* HttpRouter.HttpRouter
      const serveFiles = yield* HttpStaticServer.make({ root: distDir, spa: true, index: "index.html" })
      const handler = Effect.gen(function* () {
        const request = yield* HttpServerRequest.HttpServerRequest
        const path = request.url.replace(/[?#].*$/, "")
        if (isApiPath(path)) {
          return yield* Effect.fail(new HttpServerError.HttpServerError({ reason: new HttpServerError.RouteNotFound({ request }) }))
        }
        if (!existsSync(join(distDir, "index.html")) && (request.headers["accept"] ?? "").includes("text/html")) {
          return HttpServerResponse.text(
            "The web app has not been built yet. Run `npm run build` (or `npm start`, which builds it).",
            { status: 503, headers: { "cache-control": "no-store" } },
          )
        }
        const missingPage = !path.startsWith("/assets/") && (request.headers["accept"] ?? "").includes("text/html") && !fileExists(distDir, path)
        const response = missingPage
          ? yield* HttpServerResponse.file(join(distDir, "index.html"), { contentType: "text/html; charset=utf-8" })
          : yield* serveFiles
        if (response.status >= 400) return response
        return HttpServerResponse.setHeader(response, "cache-control", path.startsWith("/assets/") ? IMMUTABLE_CACHE : REVALIDATE_CACHE)
      })
      yield* router.add("GET", "/*", handler)
    }),
  )
