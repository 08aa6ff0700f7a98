/**
 * A SAML 2.0 identity provider for the single-sign-on tests, built with samlify (a maintained SAML library): it reads
 * our AuthnRequest (HTTP-Redirect binding) and answers a Response whose assertion it signs with its own RSA key
 * (a throw-away self-signed certificate made with openssl), carrying the email, names and groups as attributes.
 *
 * `startSamlIdpServer` also serves it over HTTP for the browser tests: GET /sso shows a sign-in form (email and
 * groups), POST /sso answers the auto-submitting form that posts the SAMLResponse to our ACS, as real IdPs do.
 */
import { execFileSync } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as samlify from "samlify"

// samlify asks for an XML-schema validator before it parses anything; this IdP parses only our own AuthnRequests, whose
// checks are not under test here (the validation under test is the product's, of the IdP's answers).
samlify.setSchemaValidator({ validate: async () => "skipped" })

export interface KeyPair {
  readonly privateKey: string
  readonly certificate: string
}

/** A fresh RSA key and self-signed certificate. */
export const makeKeyPair = (cn = "test-idp"): KeyPair => {
  const dir = mkdtempSync(join(tmpdir(), "saml-idp-"))
  try {
    execFileSync("openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-sha256", "-days", "2", "-subj", `/CN=${cn}`,
      "-keyout", join(dir, "key.pem"), "-out", join(dir, "cert.pem")], { stdio: "ignore" })
    return { privateKey: readFileSync(join(dir, "key.pem"), "utf8"), certificate: readFileSync(join(dir, "cert.pem"), "utf8") }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

export interface SamlUser {
  readonly email: string
  readonly firstName?: string
  readonly lastName?: string
  readonly groups?: ReadonlyArray<string>
}

const escapeXml = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;")

const attribute = (name: string, values: ReadonlyArray<string>) =>
  `<saml:Attribute Name="${escapeXml(name)}" NameFormat="urn:oasis:names:tc:SAML:2.0:attrname-format:basic">${
    values.map((v) => `<saml:AttributeValue xsi:type="xs:string">${escapeXml(v)}</saml:AttributeValue>`).join("")}</saml:Attribute>`

export interface SamlIdp {
  readonly entityId: string
  readonly ssoUrl: string
  readonly keys: KeyPair
  /**
   * The base64 SAMLResponse answering the AuthnRequest in `redirectUrl` (our start URL) for `user`, as the SP
   * `spEntityId` / `acsUrl` expects it (audience and recipient; override them to test refusals).
   */
  respond(redirectUrl: string, user: SamlUser, sp: { readonly entityId: string; readonly acsUrl: string }): Promise<{ readonly samlResponse: string; readonly relayState: string }>
}

export const makeSamlIdp = (options: { readonly entityId: string; readonly ssoUrl: string; readonly keys?: KeyPair }): SamlIdp => {
  const keys = options.keys ?? makeKeyPair()
  const idp = samlify.IdentityProvider({
    entityID: options.entityId,
    privateKey: keys.privateKey,
    signingCert: keys.certificate,
    singleSignOnService: [{ Binding: samlify.Constants.namespace.binding.redirect, Location: options.ssoUrl }],
    nameIDFormat: ["urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress"],
  })
  return {
    entityId: options.entityId,
    ssoUrl: options.ssoUrl,
    keys,
    respond: async (redirectUrl, user, spOptions) => {
      const sp = samlify.ServiceProvider({
        entityID: spOptions.entityId,
        assertionConsumerService: [{ Binding: samlify.Constants.namespace.binding.post, Location: spOptions.acsUrl }],
        wantAssertionsSigned: true,
      })
      const url = new URL(redirectUrl)
      const query = Object.fromEntries(url.searchParams)
      const request = await idp.parseLoginRequest(sp, "redirect", { query, octetString: url.search.slice(1) })
      const requestId = String((request.extract as { request?: { id?: string } }).request?.id ?? "")
      const now = new Date()
      const later = new Date(now.getTime() + 5 * 60_000)
      const attributes = [
        attribute("email", [user.email]),
        attribute("firstName", [user.firstName ?? "Sam"]),
        attribute("lastName", [user.lastName ?? "Ell"]),
        attribute("groups", user.groups ?? []),
      ].join("")
      const response = await idp.createLoginResponse(sp, { extract: request.extract } as Parameters<typeof idp.createLoginResponse>[1], "post", { email: user.email }, {
        relayState: query["RelayState"] ?? "",
        customTagReplacement: (template: string) => {
          const id = `_${Math.random().toString(16).slice(2)}${Date.now().toString(16)}`
          const values: Record<string, string> = {
            ID: id,
            AssertionID: `_a${Math.random().toString(16).slice(2)}${Date.now().toString(16)}`,
            Destination: spOptions.acsUrl,
            Audience: spOptions.entityId,
            EntityID: spOptions.entityId,
            SubjectRecipient: spOptions.acsUrl,
            Issuer: options.entityId,
            IssueInstant: now.toISOString(),
            StatusCode: "urn:oasis:names:tc:SAML:2.0:status:Success",
            ConditionsNotBefore: now.toISOString(),
            ConditionsNotOnOrAfter: later.toISOString(),
            SubjectConfirmationDataNotOnOrAfter: later.toISOString(),
            NameIDFormat: "urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress",
            NameID: user.email,
            InResponseTo: requestId,
          }
          // replaceTagsByValue escapes values: the two statements (XML) are put in first.
          const withStatements = template
            .replace("{AuthnStatement}", `<saml:AuthnStatement AuthnInstant="${now.toISOString()}" SessionIndex="${id}"><saml:AuthnContext><saml:AuthnContextClassRef>urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport</saml:AuthnContextClassRef></saml:AuthnContext></saml:AuthnStatement>`)
            .replace("{AttributeStatement}", `<saml:AttributeStatement>${attributes}</saml:AttributeStatement>`)
          return { id, context: samlify.SamlLib.replaceTagsByValue(withStatements, values) }
        },
      })
      return { samlResponse: response.context, relayState: query["RelayState"] ?? "" }
    },
  }
}

/** The SAMLResponse with every XML signature removed (an unsigned answer). */
export const stripSignatures = (samlResponse: string): string =>
  Buffer.from(Buffer.from(samlResponse, "base64").toString("utf8").replace(/<ds:Signature[\s\S]*?<\/ds:Signature>/g, ""), "utf8").toString("base64")

/** The SAMLResponse with `from` replaced by `to` inside the signed XML (a tampered answer). */
export const tamper = (samlResponse: string, from: string, to: string): string =>
  Buffer.from(Buffer.from(samlResponse, "base64").toString("utf8").split(from).join(to), "utf8").toString("base64")

export interface SamlIdpServer {
  readonly idp: SamlIdp
  stop(): Promise<void>
}

/**
 * The IdP over HTTP on 127.0.0.1: GET /sso?SAMLRequest…&RelayState… shows a sign-in form; POST /sso (email, groups)
 * answers an auto-submitting form posting the signed SAMLResponse and the RelayState to the SP's ACS.
 */
export const startSamlIdpServer = async (sp: { readonly entityId: string; readonly acsUrl: string }, entityId = "https://idp.test/saml"): Promise<SamlIdpServer> => {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const ssoUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/sso`
  const idp = makeSamlIdp({ entityId, ssoUrl })
  server.on("request", (req, res) => {
    const url = new URL(req.url ?? "/", ssoUrl)
    if (req.method === "GET" && url.pathname === "/sso") {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" })
      res.end(`<!doctype html><html lang="en"><head><title>Test SAML IdP</title></head><body><main><h1>Test SAML IdP</h1>
        <form method="post" action="/sso?${escapeXml(url.search.slice(1))}">
        <label>Email <input name="email" type="email" required></label>
        <label>Groups <input name="groups" type="text"></label>
        <button type="submit">Sign in</button></form></main></body></html>`)
      return
    }
    if (req.method === "POST" && url.pathname === "/sso") {
      let body = ""
      req.on("data", (chunk) => { body += chunk })
      req.on("end", () => {
        const form = new URLSearchParams(body)
        const groups = (form.get("groups") ?? "").split(",").map((g) => g.trim()).filter((g) => g !== "")
        idp.respond(`${ssoUrl}${url.search}`, { email: form.get("email") ?? "", groups }, sp).then(
          ({ samlResponse, relayState }) => {
            res.writeHead(200, { "content-type": "text/html; charset=utf-8" })
            res.end(`<!doctype html><html lang="en"><head><title>Signing in</title></head><body onload="document.forms[0].submit()">
              <form method="post" action="${escapeXml(sp.acsUrl)}"><input type="hidden" name="SAMLResponse" value="${escapeXml(samlResponse)}">
              <input type="hidden" name="RelayState" value="${escapeXml(relayState)}"><noscript><button type="submit">Continue</button></noscript></form></body></html>`)
          },
          (error: unknown) => {
            res.writeHead(500, { "content-type": "text/plain" })
            res.end(String(error))
          },
        )
      })
      return
    }
    res.writeHead(404)
    res.end()
  })
  return { idp, stop: () => new Promise<void>((resolve) => server.close(() => resolve())) }
}
