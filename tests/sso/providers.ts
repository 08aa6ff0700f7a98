/**
 * Real identity providers for the single-sign-on tests, started inside the test process:
 *
 * - `startOidcProvider`: node-oidc-provider (the certified OpenID provider) on 127.0.0.1 with its development
 *   interactions (a login page accepting any password for the accounts given, then a consent page), PKCE required,
 *   the `groups` claim released with the `profile` scope. `accounts` is mutable: a test changes someone's groups
 *   between sign-ins.
 * - `browse`: follows redirects through the provider's pages like a browser without JavaScript would (cookies, the
 *   login form, the consent form) until the provider sends the browser to `stopAt`; answers that URL.
 *
 * The SAML identity provider (samlify) lives in ./saml-idp.ts.
 */
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import Provider from "oidc-provider"

export interface TestAccount {
  email: string
  email_verified?: boolean
  given_name?: string
  family_name?: string
  groups: Array<string>
}

export interface OidcProviderHandle {
  readonly issuer: string
  readonly clients: ReadonlyArray<{ readonly client_id: string; readonly client_secret: string }>
  readonly accounts: Map<string, TestAccount>
  /** TCP connections the provider has accepted so far. */
  connections(): number
  stop(): Promise<void>
}

export const startOidcProvider = async (options: {
  readonly redirectUri: string
  readonly clients?: ReadonlyArray<{ readonly client_id: string; readonly client_secret: string }>
  /** The issuer the provider announces; defaults to its own URL (set another to test an issuer mismatch). */
  readonly announcedIssuer?: (url: string) => string
}): Promise<OidcProviderHandle> => {
  const accounts = new Map<string, TestAccount>()
  const clients = options.clients ?? [{ client_id: "cloud-audit", client_secret: "test-client-secret-0123456789abcdef" }]
  const server: Server = createServer()
  let connections = 0
  server.on("connection", () => {
    connections++
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const issuer = options.announcedIssuer?.(url) ?? url
  const provider = new Provider(issuer, {
    clients: clients.map((c) => ({
      ...c,
      redirect_uris: [options.redirectUri],
      grant_types: ["authorization_code"],
      response_types: ["code"],
      token_endpoint_auth_method: "client_secret_basic",
    })),
    pkce: { required: () => true },
    claims: {
      openid: ["sub"],
      email: ["email", "email_verified"],
      profile: ["given_name", "family_name", "groups"],
    },
    features: { devInteractions: { enabled: true } },
    cookies: { keys: ["sso-test-cookie-key"] },
    findAccount: async (_ctx, id) => {
      const account = accounts.get(id)
      if (account === undefined) return undefined
      return {
        accountId: id,
        claims: async () => ({
          sub: id,
          email: account.email,
          email_verified: account.email_verified ?? true,
          given_name: account.given_name ?? "Test",
          family_name: account.family_name ?? id,
          groups: account.groups,
        }),
      }
    },
  })
  server.on("request", provider.callback())
  return {
    issuer: url,
    clients,
    accounts,
    connections: () => connections,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

/** A tiny cookie jar (one host): name → value. */
const jar = () => {
  const cookies = new Map<string, string>()
  return {
    header: () => [...cookies].map(([k, v]) => `${k}=${v}`).join("; "),
    take: (response: Response) => {
      for (const line of response.headers.getSetCookie()) {
        const [pair] = line.split(";")
        const eq = pair!.indexOf("=")
        const name = pair!.slice(0, eq).trim()
        const value = pair!.slice(eq + 1).trim()
        if (/expires=Thu, 01 Jan 1970/i.test(line) || value === "") cookies.delete(name)
        else cookies.set(name, value)
      }
    },
  }
}

/**
 * Walks the provider's pages from `start` as a browser would, signing in as `login` and consenting, until a redirect
 * points at `stopAt` (our callback); answers that URL. Throws when the provider answers something else.
 */
export const browse = async (start: string, login: string, stopAt: string): Promise<string> => {
  const cookies = jar()
  let url = start
  let method = "GET"
  let body: string | undefined
  for (let hop = 0; hop < 20; hop++) {
    if (url.startsWith(stopAt)) return url
    const response = await fetch(url, {
      method,
      redirect: "manual",
      headers: {
        cookie: cookies.header(),
        ...(body !== undefined ? { "content-type": "application/x-www-form-urlencoded" } : {}),
      },
      ...(body !== undefined ? { body } : {}),
    })
    cookies.take(response)
    const location = response.headers.get("location")
    if (location !== null) {
      url = new URL(location, url).href
      method = "GET"
      body = undefined
      continue
    }
    const html = await response.text()
    if (response.status !== 200) throw new Error(`provider answered ${response.status}: ${html.slice(0, 500)}`)
    const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1]
    const prompt = /name="prompt" value="([^"]+)"/.exec(html)?.[1]
    if (action === undefined || prompt === undefined) throw new Error(`no form on the provider's page: ${html.slice(0, 500)}`)
    url = new URL(action.replace(/&amp;/g, "&"), url).href
    method = "POST"
    body = prompt === "login"
      ? new URLSearchParams({ prompt, login, password: "any-password" }).toString()
      : new URLSearchParams({ prompt }).toString()
  }
  throw new Error("too many hops at the provider")
}
