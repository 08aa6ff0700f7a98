/**
 * The statechart site at /docs/statecharts: the static pages `npm run docs` writes to docs/statecharts/site/
 * (scripts/statechart-site.ts), one per XState machine of the web app, plus the index, the diagrams and the stylesheet.
 *
 * - `/docs/statecharts` redirects to `/docs/statecharts/` (the index), so the pages' relative links resolve;
 * - `/docs/statecharts/<machine>` and `/docs/statecharts/<machine>.html` serve a machine's page,
 *   `<machine>.svg` its diagram, `site.css` the stylesheet;
 * - read-only (GET only) and no path traversal: a file name must be lower-case words joined by `-` with an optional
 *   .html/.svg/.css extension, so `..`, `/`, `\` and percent-encoded forms never reach the file system;
 *   anything else is the catalogue's JSON 404, like any unknown path;
 * - files are read on each request (`no-cache`): regenerated docs show without a restart.
 *
 * The pages load nothing but site.css and their SVG, and carry no script or inline style, so they get the SPA's
 * strict `document` Content-Security-Policy from the global middleware (./security-headers.ts) unchanged.
 */
import { readFile } from "node:fs/promises"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { Effect, Layer } from "effect"
import { HttpRouter, HttpServerError, HttpServerRequest, HttpServerResponse } from "effect/http"

export const STATECHARTS_PATH = "/docs/statecharts"

/** Where `npm run docs` writes the site. */
export const STATECHART_SITE_DIR = fileURLToPath(new URL("../../docs/statecharts/site/", import.meta.url))

const CONTENT_TYPES = {
  html: "text/html; charset=utf-8",
  svg: "image/svg+xml",
  css: "text/css; charset=utf-8",
} as const

type Extension = keyof typeof CONTENT_TYPES

const FILE_NAME = /^([a-z0-9]+(?:-[a-z0-9]+)*)(?:\.(html|svg|css))?$/

export type StatechartRequest =
  | { readonly _tag: "Redirect"; readonly location: string }
  | { readonly _tag: "File"; readonly name: string; readonly contentType: string }
  | { readonly _tag: "NotFound" }

/** What a path under /docs/statecharts asks for (the path without query string). */
export const resolveStatechartPath = (path: string): StatechartRequest => {
  if (path === STATECHARTS_PATH) return { _tag: "Redirect", location: `${STATECHARTS_PATH}/` }
  if (!path.startsWith(`${STATECHARTS_PATH}/`)) return { _tag: "NotFound" }
  const rest = path.slice(STATECHARTS_PATH.length + 1)
  if (rest === "") return { _tag: "File", name: "index.html", contentType: CONTENT_TYPES.html }
  const match = FILE_NAME.exec(rest)
  if (match === null) return { _tag: "NotFound" }
  const extension = (match[2] ?? "html") as Extension
  return { _tag: "File", name: `${match[1]!}.${extension}`, contentType: CONTENT_TYPES[extension] }
}

export const statechartDocsLayer = (siteDir: string = STATECHART_SITE_DIR) =>
  Layer.effectDiscard(
    Effect.gen(function* () {
      const router = yield* HttpRouter.HttpRouter
      const handler = Effect.gen(function* () {
        const request = yield* HttpServerRequest.HttpServerRequest
        const resolved = resolveStatechartPath(request.url.replace(/[?#].*$/, ""))
        if (resolved._tag === "Redirect") {
          return HttpServerResponse.redirect(resolved.location, { status: 301 })
        }
        const content =
          resolved._tag === "File"
            ? yield* Effect.promise(() => readFile(join(siteDir, resolved.name)).then((data) => data, () => null))
            : null
        if (resolved._tag !== "File" || content === null) {
          return yield* Effect.fail(new HttpServerError.HttpServerError({ reason: new HttpServerError.RouteNotFound({ request }) }))
        }
        return HttpServerResponse.uint8Array(content, {
          contentType: resolved.contentType,
          headers: { "cache-control": "no-cache" },
        })
      })
      // The wildcard route also matches the bare path (which redirects).
      yield* router.add("GET", `${STATECHARTS_PATH}/*`, handler)
    }),
  )
