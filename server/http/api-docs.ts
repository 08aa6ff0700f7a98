/**
 * The API reference at /api/docs (Scalar, bundled: no internet needed at run time), served so that the page runs
 * under a CSP without inline script (./security-headers.ts): the page itself is static HTML that loads
 * /api/docs/prelude.js, /api/docs/scalar.js (the Scalar bundle shipped with effect) and /api/docs/init.js (which points
 * Scalar at /api/openapi.json). Scalar's web fonts are turned off: the page loads nothing from another origin.
 * A bar above the reference links to the statechart site (./statechart-docs.ts).
 *
 * The page runs without `style-src 'unsafe-inline'` (issue 27): each answer of the page carries a fresh nonce in its
 * policy and on its own <style> and <script> elements; the prelude reads it (`document.currentScript.nonce`) and gives
 * it to every <style> element created on the page, which is how Scalar (and the Vue runtime inside it) add theirs.
 * Style attributes in markup Scalar writes (`innerHTML`, HTML its sanitizer parses with DOMParser) or sets with
 * `setAttribute` are renamed before parsing and applied through CSSOM, which the policy does not govern, so no inline
 * style is parsed. An injected <style> without the nonce, or any inline script, is still refused (e2e test).
 *
 * The prelude turns `Function` into a constructor that always throws: the bundle's schema library probes whether it
 * may compile validators from strings (`new Function("")`), a probe the CSP (no 'unsafe-eval') would block and
 * report as a violation; with the prelude the probe fails quietly and the library uses its interpreter. Everything
 * else about `Function` (its prototype, `instanceof Function`) is unchanged.
 */
import { randomBytes } from "node:crypto"
import { Effect, Layer } from "effect"
import { HttpRouter, HttpServerResponse } from "effect/http"
import { docsPagePolicy } from "./security-headers.ts"
import { STATECHARTS_PATH } from "./statechart-docs.ts"

export const DOCS_PATH = "/api/docs"

const page = (nonce: string) => `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <title>Cloud Audit API</title>
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <style nonce="${nonce}">
      .other-docs { font: 14px/1.5 system-ui, sans-serif; padding: 8px 16px; background: #0f172a; color: #e2e8f0; }
      .other-docs a { color: #c7d2fe; }
    </style>
  </head>
  <body>
    <nav class="other-docs" aria-label="Other documentation">
      Also: <a href="${STATECHARTS_PATH}/">Statecharts of the web app</a> (every XState machine: diagram, states, events, test coverage)
    </nav>
    <div id="api-reference-container"></div>
    <script nonce="${nonce}" src="${DOCS_PATH}/prelude.js"></script>
    <script nonce="${nonce}" src="${DOCS_PATH}/scalar.js"></script>
    <script nonce="${nonce}" src="${DOCS_PATH}/init.js"></script>
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
  const nonce = document.currentScript && document.currentScript.nonce
  if (nonce) {
    const create = Document.prototype.createElement
    Document.prototype.createElement = function (name, options) {
      const element = create.call(this, name, options)
      if (String(name).toLowerCase() === "style") element.setAttribute("nonce", nonce)
      return element
    }
  }
  // A style attribute written as markup would need 'unsafe-inline'; the same declarations through CSSOM do not.
  const setAttribute = Element.prototype.setAttribute
  Element.prototype.setAttribute = function (name, value) {
    if (String(name).toLowerCase() === "style" && this.style) {
      this.style.cssText = String(value)
      return
    }
    return setAttribute.call(this, name, value)
  }
  // Markup with style attributes (Scalar's highlighted code, Vue's static content, HTML its sanitizer parses with
  // DOMParser): the attributes are renamed before parsing and applied through CSSOM once the markup is in the page, so
  // no inline style is ever parsed.
  const STYLE_IN_TAG = /(<[A-Za-z][^<>]*?[ \\t\\n\\r\\f])style([ \\t\\n\\r\\f]*=)/g
  const rename = (html) => {
    let renamed = html
    for (let previous = ""; previous !== renamed;) {
      previous = renamed
      renamed = renamed.replace(STYLE_IN_TAG, "$1data-csp-style$2")
    }
    return renamed
  }
  const parse = DOMParser.prototype.parseFromString
  DOMParser.prototype.parseFromString = function (source, type) {
    return parse.call(this, typeof source === "string" && /html/i.test(String(type)) ? rename(source) : source, type)
  }
  const applyRenamed = (root) => {
    for (const element of root.querySelectorAll("[data-csp-style]")) {
      if (element.style) element.style.cssText = element.getAttribute("data-csp-style")
      element.removeAttribute("data-csp-style")
    }
  }
  // What the setter parses is the value as a string (null: nothing), so a value that is not a string (an object whose
  // toString is markup) is renamed as well.
  const markup = (html) => (html === null || html === undefined ? "" : String(html))
  const inner = Object.getOwnPropertyDescriptor(Element.prototype, "innerHTML")
  Object.defineProperty(Element.prototype, "innerHTML", {
    ...inner,
    set(value) {
      const html = markup(value)
      if (!/style/i.test(html)) return inner.set.call(this, html)
      inner.set.call(this, rename(html))
      applyRenamed(this instanceof HTMLTemplateElement ? this.content : this)
    },
  })
  // The other ways markup enters the page: the same renaming.
  const adjacent = Element.prototype.insertAdjacentHTML
  Element.prototype.insertAdjacentHTML = function (position, value) {
    const html = markup(value)
    if (!/style/i.test(html)) return adjacent.call(this, position, html)
    adjacent.call(this, position, rename(html))
    applyRenamed(this.parentElement || this)
  }
  const fragment = Range.prototype.createContextualFragment
  Range.prototype.createContextualFragment = function (value) {
    const html = markup(value)
    if (!/style/i.test(html)) return fragment.call(this, html)
    const parsed = fragment.call(this, rename(html))
    applyRenamed(parsed)
    return parsed
  }
  const setAttributeNS = Element.prototype.setAttributeNS
  Element.prototype.setAttributeNS = function (ns, name, value) {
    if (String(name).toLowerCase() === "style" && this.style) {
      this.style.cssText = String(value)
      return
    }
    return setAttributeNS.call(this, ns, name, value)
  }
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
    // A fresh nonce per answer; never cached (a cached page would reuse its nonce).
    const docsPage = Effect.sync(() => {
      const nonce = randomBytes(16).toString("base64")
      return HttpServerResponse.text(page(nonce), {
        contentType: "text/html; charset=utf-8",
        headers: { "content-security-policy": docsPagePolicy(nonce), "cache-control": "no-store" },
      })
    })
    const bundle = script(javascript)
    const init = script(INIT)
    const prelude = script(PRELUDE)
    yield* router.add("GET", DOCS_PATH, docsPage)
    yield* router.add("GET", `${DOCS_PATH}/prelude.js`, Effect.succeed(prelude))
    yield* router.add("GET", `${DOCS_PATH}/scalar.js`, Effect.succeed(bundle))
    yield* router.add("GET", `${DOCS_PATH}/init.js`, Effect.succeed(init))
  }),
)
