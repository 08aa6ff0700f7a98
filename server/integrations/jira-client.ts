/**
 * The Jira Cloud client (issue 33 part 5; docs/integrations-jira.md): jira.js 6's typed platform API
 * (`createCloudClient`, generated from Atlassian's OpenAPI document) driven by our own transport, so that:
 * - every request goes through the SSRF guard (./safe-fetch.ts: each resolved address checked, the connection pinned
 *   to it, redirects checked hop by hop, a deadline and a size cap): the site URL is typed by a workspace admin;
 * - every answer is validated against jira.js's schema of that operation (the zod schemas generated from the same
 *   OpenAPI document); an answer that does not match is a failure (`JiraFailure` "contract"), never half-read.
 *
 * Errors: `JiraFailure` with a `reason` (unauthorized, forbidden, not_found, rejected, unreachable, blocked, contract)
 * and Jira's own error messages in `detail` (errorMessages / errors of the ErrorCollection body).
 */
import { createCloudClient, type CloudClient } from "jira.js"
import type { Client, SendRequestOptions } from "jira.js/core"
import { safeFetch, type SafeFetchOptions } from "./safe-fetch.ts"

export type JiraFailureReason = "unauthorized" | "forbidden" | "not_found" | "rejected" | "unreachable" | "blocked" | "contract"

export class JiraFailure extends Error {
  override readonly name = "JiraFailure"
  readonly reason: JiraFailureReason
  readonly detail: string
  readonly status: number | undefined
  constructor(reason: JiraFailureReason, detail: string, status?: number) {
    super(`${reason}${status === undefined ? "" : ` (HTTP ${status})`}: ${detail}`)
    this.reason = reason
    this.detail = detail
    this.status = status
  }
}

export interface JiraSite {
  readonly siteUrl: string
  readonly email: string
  readonly apiToken: string
}

/** Transport options (tests: a resolver and address rule that let a loopback stub stand in for a public site). */
export type JiraTransportOptions = Pick<SafeFetchOptions, "allowPrivateTargets" | "resolve" | "refuseAddress" | "timeoutMs" | "signal">

const query = (params: Record<string, unknown> | undefined): string => {
  if (params === undefined) return ""
  const search = new URLSearchParams()
  for (const [key, value] of Object.entries(params)) {
    if (value === undefined || value === null) continue
    if (Array.isArray(value)) search.set(key, value.map(String).join(","))
    else search.set(key, String(value))
  }
  const text = search.toString()
  return text === "" ? "" : `?${text}`
}

/** Jira's ErrorCollection in one line ("summary: Field required; Issue type is required"). */
const errorText = (body: string): string => {
  try {
    const parsed = JSON.parse(body) as { errorMessages?: unknown; errors?: unknown }
    const messages = Array.isArray(parsed.errorMessages) ? parsed.errorMessages.map(String) : []
    const fields = parsed.errors !== null && typeof parsed.errors === "object"
      ? Object.entries(parsed.errors as Record<string, unknown>).map(([k, v]) => `${k}: ${String(v)}`)
      : []
    const all = [...messages, ...fields]
    if (all.length > 0) return all.join("; ").slice(0, 500)
  } catch {
    // not JSON
  }
  return body.slice(0, 200)
}

/** A jira.js `Client` whose requests go through the SSRF guard and whose answers are checked against their schema. */
export const guardedTransport = (site: JiraSite, options: JiraTransportOptions = {}): Client => ({
  async sendRequest<T>(request: SendRequestOptions<T>): Promise<T> {
    const base = site.siteUrl.replace(/\/+$/, "")
    const path = request.url.startsWith("/") ? request.url : `/${request.url}`
    const body = request.body === undefined || request.body === null ? undefined : JSON.stringify(request.body)
    let response
    try {
      response = await safeFetch(`${base}${path}${query(request.searchParams)}`, {
        method: request.method ?? "GET",
        headers: {
          accept: "application/json",
          authorization: `Basic ${Buffer.from(`${site.email}:${site.apiToken}`, "utf8").toString("base64")}`,
          ...(body === undefined ? {} : { "content-type": "application/json" }),
        },
        ...(body === undefined ? {} : { body }),
        maxRedirects: 0,
        timeoutMs: options.timeoutMs ?? 15_000,
        maxResponseBytes: 1024 * 1024,
        ...(options.allowPrivateTargets === undefined ? {} : { allowPrivateTargets: options.allowPrivateTargets }),
        ...(options.resolve === undefined ? {} : { resolve: options.resolve }),
        ...(options.refuseAddress === undefined ? {} : { refuseAddress: options.refuseAddress }),
        ...(options.signal === undefined ? {} : { signal: options.signal }),
      })
    } catch (error) {
      const failure = error as { reason?: string; message?: string }
      throw new JiraFailure(failure.reason === "refused_address" || failure.reason === "invalid_url" ? "blocked" : "unreachable", failure.message ?? String(error))
    }
    const text = response.text()
    if (response.status === 401) throw new JiraFailure("unauthorized", errorText(text), 401)
    if (response.status === 403) throw new JiraFailure("forbidden", errorText(text), 403)
    if (response.status === 404) throw new JiraFailure("not_found", errorText(text), 404)
    if (response.status >= 400 && response.status < 500) throw new JiraFailure("rejected", errorText(text), response.status)
    if (response.status >= 300) throw new JiraFailure("unreachable", errorText(text), response.status)
    if (response.status === 204 || text === "") return undefined as T
    let data: unknown
    try {
      data = JSON.parse(text)
    } catch {
      throw new JiraFailure("contract", `${request.method ?? "GET"} ${request.url} answered a body that is not JSON`, response.status)
    }
    if (request.schema === undefined) return data as T
    const parsed = request.schema.safeParse(data)
    if (!parsed.success) {
      const issues = parsed.error.issues.slice(0, 3).map((i) => `${i.path.join(".") || "(body)"}: ${i.message}`).join("; ")
      throw new JiraFailure("contract", `${request.method ?? "GET"} ${request.url} answered a body its schema rejects (${issues})`, response.status)
    }
    return parsed.data
  },
})

export const jiraClient = (site: JiraSite, options: JiraTransportOptions = {}): CloudClient =>
  createCloudClient(guardedTransport(site, options))
