/**
 * Browser defences sent with every response (SPA, API, API docs, and the bare answers Node writes itself for requests
 * it cannot parse). The threat model and the token-storage decision they back are in docs/identity.md.
 *
 * - Content-Security-Policy, per kind of response:
 *   - `document` (the SPA: index.html and its assets): only this origin's scripts, styles, images, fonts and API;
 *     no inline script or style (React Aria's two injected <style> elements are allowed by hash), no plugins, no <base>, no framing, forms post to this origin only, and Trusted Types
 *     required for every DOM XSS sink (the SPA writes no HTML strings; React creates no policy), so a string that
 *     slips past output escaping still cannot become script;
 *   - `docs` (/api/docs, the Scalar reference): the same without Trusted Types; Scalar injects its own <style>
 *     elements, which the page's policy allows by a per-response nonce (`docsPagePolicy`: the page's prelude gives every
 *     <style> element created on it that nonce), never by 'unsafe-inline' (issue 27); scripts come from
 *     /api/docs/*.js only;
 *   - `api` (JSON and exports): nothing may load or run at all (`default-src 'none'`), should a response ever be
 *     rendered as a page.
 * - X-Content-Type-Options: nosniff; X-Frame-Options: DENY (for browsers without frame-ancestors);
 *   Referrer-Policy: no-referrer (emailed links carry tokens in their query string);
 *   Cross-Origin-Opener-Policy / Cross-Origin-Resource-Policy: same-origin.
 * - Permissions-Policy: no powerful feature (camera, microphone, geolocation, payment, USB, sensors, ...) for this
 *   origin or anything it frames.
 * - Cache-Control: no-store on every API answer (sign-in and refresh answers carry tokens, the reveal call a secret,
 *   the rest workspace data: none may stay in a browser or proxy cache); an answer that sets its own keeps it.
 * - Strict-Transport-Security when APP_ORIGIN is https (never over plain http, where it would be ignored anyway).
 */
export type ResponseKind = "document" | "docs" | "api"

export interface SecurityOptions {
  /** APP_ORIGIN is https: send HSTS. */
  readonly hsts: boolean
  /** TRUST_PROXY: reverse proxies whose X-Forwarded-For entry names the client (0: the socket's peer only). */
  readonly trustProxy?: number
}

/**
 * The two <style> elements React Aria injects at run time (usePress: touch-action for pressables; usePreventScroll:
 * overscroll containment on iOS), allowed by the hash of their exact text rather than by 'unsafe-inline'. A React
 * Aria upgrade that changes them shows up as a violation in e2e/security-headers.e2e.test.ts.
 */
export const REACT_ARIA_STYLE_HASHES = [
  "'sha256-38RhXrc7EdReTKsOm23ZPOCUgniTUUcjky8QOOrQx6o='",
  "'sha256-gYiS/BvZvRcK27JIXTuwhZ3hs2+VJ1X+2gUlE+farlg='",
]

const COMMON = [
  "object-src 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
]

export const CONTENT_SECURITY_POLICY: { readonly [K in ResponseKind]: string } = {
  document: [
    "default-src 'self'",
    "script-src 'self'",
    `style-src 'self' ${REACT_ARIA_STYLE_HASHES.join(" ")}`,
    "img-src 'self' data:",
    "font-src 'self'",
    "connect-src 'self'",
    "form-action 'self'",
    ...COMMON,
    "require-trusted-types-for 'script'",
    "trusted-types 'none'",
  ].join("; "),
  docs: [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "form-action 'self'",
    ...COMMON,
  ].join("; "),
  api: ["default-src 'none'", "form-action 'none'", ...COMMON].join("; "),
}

/** The policy of the /api/docs page itself: the docs policy, with the page's <style> elements allowed by `nonce`. */
export const docsPagePolicy = (nonce: string): string =>
  CONTENT_SECURITY_POLICY.docs.replace("style-src 'self'", `style-src 'self' 'nonce-${nonce}'`)

export const PERMISSIONS_POLICY = [
  "accelerometer=()", "camera=()", "display-capture=()", "geolocation=()", "gyroscope=()", "magnetometer=()",
  "microphone=()", "midi=()", "payment=()", "serial=()", "usb=()", "xr-spatial-tracking=()",
].join(", ")

export const HSTS = "max-age=31536000; includeSubDomains"

/** Which policy a path gets (the SPA owns every path outside /api). */
export const responseKindOf = (path: string): ResponseKind =>
  path === "/api/docs" || path.startsWith("/api/docs/") ? "docs" : path === "/api" || path.startsWith("/api/") ? "api" : "document"

/** The headers for one response, lower-case names. */
export const securityHeaders = (kind: ResponseKind, options: SecurityOptions): Readonly<Record<string, string>> => ({
  "content-security-policy": CONTENT_SECURITY_POLICY[kind],
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
  "referrer-policy": "no-referrer",
  "cross-origin-opener-policy": "same-origin",
  "cross-origin-resource-policy": "same-origin",
  "permissions-policy": PERMISSIONS_POLICY,
  ...(kind === "api" ? { "cache-control": "no-store" } : {}),
  ...(options.hsts ? { "strict-transport-security": HSTS } : {}),
})
