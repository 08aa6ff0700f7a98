/**
 * The API reference at /api/docs (Scalar, bundled: no internet needed at run time), served so that the page runs
 * under a CSP without inline script (./security-headers.ts): the page itself is static HTML that loads
 * /api/docs/prelude.js, /api/docs/scalar.js (the Scalar bundle shipped with effect) and /api/docs/init.js (which points
 * Scalar at /api/openapi.json). Scalar's web fonts are turned off: the page loads nothing from another origin.
 * A bar above the reference links to the statechart site (./statechart-docs.ts).
 *
 * The prelude turns `Function` into a constructor that always throws: the bundle's schema library probes whether it
 * may compile validators from strings (`new Function("")`), a probe the CSP (no 'unsafe-eval') would block and
 * report as a violation; with the prelude the probe fails quietly and the library uses its interpreter. Everything
 * else about `Function` (its prototype, `instanceof Function`) is unchanged.
 */
import { Effect, Layer } from "effect"
import { HttpRouter, HttpServerResponse } from "effect/http"
import { STATECHARTS_PATH } from "./statechart-docs.ts"

export const DOCS_PATH = "/api/docs"

const PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <title>Cloud Audit API</title>
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <style>
      .other-docs { font: 14px/1.5 system-ui, sans-serif; padding: 8px 16px; background: #0f172a; color: #e2e8f0; }
      .other-docs a { color: #c7d2fe; }
    </style>
  </head>
  <body>
    <nav class="other-docs" aria-label="Other documentation">
      Also: <a href="${STATECHARTS_PATH}/">Statecharts of the web app</a> (every XState machine: diagram, states, events, test coverage)
    </nav>
    <div id="api-reference-container"></div>
    <script src="${DOCS_PATH}/prelude.js"></script>
    <script src="${DOCS_PATH}/scalar.js"></script>
    <script src="${DOCS_PATH}/init.js"></script>
  </body>
</html>
`

const INIT = `window.Scalar.createApiReference(document.getElementById("api-reference-container"), ${JSON.stringify({
  _integration: "html",
  url: "/api/openapi.json",
  withDefaultFonts: false,
  hideClientButton: true,
  telemetry: false,
})})
`

const PRELUDE = `(() => {
  const refuse = () => { throw new EvalError("code generation from strings is disabled on this page") }
  window.Function = new Proxy(Function, { apply: refuse, construct: refuse })
})()
`

const script = (source: string) =>
  HttpServerResponse.text(source, { contentType: "text/javascript; charset=utf-8", headers: { "cache-control": "no-cache" } })

export const apiDocsLayer = Layer.effectDiscard(
  Effect.gen(function* () {
    const router = yield* HttpRouter.HttpRouter
    // The Scalar bundle effect ships for HttpApiScalar (3 MB of source text). effect's package exports hide its
    // internal modules, so it is imported by file URL, next to the public http-api entry.
    const { javascript } = yield* Effect.promise(
      () => import(new URL("./internal/httpApiScalar.js", import.meta.resolve("effect/http-api")).href) as Promise<{ readonly javascript: string }>,
    )
    const page = HttpServerResponse.html(PAGE)
    const bundle = script(javascript)
    const init = script(INIT)
    const prelude = script(PRELUDE)
    yield* router.add("GET", DOCS_PATH, Effect.succeed(page))
    yield* router.add("GET", `${DOCS_PATH}/prelude.js`, Effect.succeed(prelude))
    yield* router.add("GET", `${DOCS_PATH}/scalar.js`, Effect.succeed(bundle))
    yield* router.add("GET", `${DOCS_PATH}/init.js`, Effect.succeed(init))
  }),
)
