/**
 * A contract stub of the three Jira Cloud platform REST v3 operations the product calls (docs/integrations-jira.md,
 * "What was verified, and how"), on a loopback port:
 *   GET  /rest/api/3/project/{projectIdOrKey}      → Project
 *   POST /rest/api/3/issue                         → 201 CreatedIssue
 *   GET  /rest/api/3/issue/{issueIdOrKey}?fields=… → Issue (fields.status: StatusDetails)
 *
 * Its shapes come from jira.js 6, whose request parameters and response models are generated from Atlassian's
 * published OpenAPI document of the platform API:
 * - every request body is validated against jira.js's zod schema of that operation's parameters (`CreateIssueSchema`),
 *   plus the rules the document states in prose for the fields we send (project, issuetype, summary, an ADF
 *   description with version 1, labels without spaces); a violation answers 400 with Jira's ErrorCollection shape and
 *   is recorded in `violations` (tests assert it stays empty);
 * - every answer is typed with jira.js's model types (`Project`, `CreatedIssue`, `Issue`, `StatusDetails`), so the
 *   compiler checks each shape, and the product's client validates it again against the zod models at run time;
 * - Basic authentication (email:API token) is checked; a wrong token answers 401 as Jira does.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import type { CreatedIssue, Issue, Project, StatusDetails } from "jira.js/cloud"
// The parameter schemas are not in jira.js's package exports; they ship in its dist (generated from the same document).
import { CreateIssueSchema } from "../../node_modules/jira.js/dist/cloud/parameters/createIssue.js"

export interface StubIssue {
  readonly id: string
  readonly key: string
  readonly fields: Record<string, any>
  status: StatusDetails
}

export interface JiraStub {
  readonly url: string
  readonly issues: Array<StubIssue>
  /** Every request that broke the contract (method path: reason). */
  readonly violations: Array<string>
  /** Every request received (method, path, search). */
  readonly requests: Array<{ method: string; path: string; search: string }>
  /** Moves an issue to a status of the given category. */
  transition(key: string, name: string, category: "new" | "indeterminate" | "done"): void
  stop(): Promise<void>
}

const CATEGORY_IDS = { new: 2, indeterminate: 4, done: 3 } as const

const ADF_NODES = new Set(["doc", "paragraph", "text", "bulletList", "orderedList", "listItem", "heading", "codeBlock", "rule", "hardBreak"])
const ADF_MARKS = new Set(["strong", "em", "code", "link", "underline", "strike"])

/** The ADF rules of the document's `description` (a doc node of version 1, known node and mark types, text as text). */
const adfViolation = (node: any, path = "description"): string | undefined => {
  if (node === null || typeof node !== "object") return `${path} is not an ADF node`
  if (path === "description" && (node.type !== "doc" || node.version !== 1)) return "description must be an ADF doc of version 1"
  if (!ADF_NODES.has(node.type)) return `${path}: unknown ADF node type ${String(node.type)}`
  if (node.type === "text") {
    if (typeof node.text !== "string" || node.text === "") return `${path}: a text node needs non-empty text`
    for (const mark of node.marks ?? []) {
      if (!ADF_MARKS.has(mark.type)) return `${path}: unknown mark ${String(mark.type)}`
      if (mark.type === "link" && typeof mark.attrs?.href !== "string") return `${path}: a link mark needs attrs.href`
    }
    return undefined
  }
  if (node.content !== undefined && !Array.isArray(node.content)) return `${path}.content must be an array`
  for (const [i, child] of (node.content ?? []).entries()) {
    const v = adfViolation(child, `${path}.content[${i}]`)
    if (v !== undefined) return v
  }
  return undefined
}

export const startJiraStub = async (options: { readonly email: string; readonly apiToken: string; readonly projectKey: string }): Promise<JiraStub> => {
  const issues: Array<StubIssue> = []
  const violations: Array<string> = []
  const requests: Array<{ method: string; path: string; search: string }> = []
  let base = ""

  const send = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { "content-type": "application/json;charset=UTF-8" })
    res.end(JSON.stringify(body))
  }
  const errorCollection = (res: ServerResponse, status: number, errorMessages: ReadonlyArray<string>, errors: Record<string, string> = {}) =>
    send(res, status, { errorMessages, errors })

  const readBody = (req: IncomingMessage) =>
    new Promise<string>((resolve) => {
      let text = ""
      req.on("data", (c: Buffer) => (text += c.toString("utf8")))
      req.on("end", () => resolve(text))
    })

  const statusOf = (name: string, category: "new" | "indeterminate" | "done"): StatusDetails => ({
    self: `${base}/rest/api/3/status/${category === "done" ? 10002 : category === "indeterminate" ? 3 : 10000}`,
    id: category === "done" ? "10002" : category === "indeterminate" ? "3" : "10000",
    name,
    description: "",
    iconUrl: `${base}/images/icons/statuses/generic.png`,
    statusCategory: {
      self: `${base}/rest/api/3/statuscategory/${CATEGORY_IDS[category]}`,
      id: CATEGORY_IDS[category],
      key: category,
      colorName: category === "done" ? "green" : category === "indeterminate" ? "yellow" : "blue-gray",
      name: category === "done" ? "Done" : category === "indeterminate" ? "In Progress" : "To Do",
    },
  })

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? "/", "http://stub")
    const method = req.method ?? "GET"
    requests.push({ method, path: url.pathname, search: url.search })
    const expected = `Basic ${Buffer.from(`${options.email}:${options.apiToken}`, "utf8").toString("base64")}`
    if (req.headers.authorization !== expected) {
      res.writeHead(401, { "content-type": "text/plain" })
      res.end("Client must be authenticated to access this resource.")
      return
    }
    const project = /^\/rest\/api\/3\/project\/([^/]+)$/.exec(url.pathname)
    if (method === "GET" && project !== null) {
      if (decodeURIComponent(project[1]!) !== options.projectKey) {
        return errorCollection(res, 404, [`No project could be found with key '${decodeURIComponent(project[1]!)}'.`])
      }
      const answer: Project = {
        self: `${base}/rest/api/3/project/10000`, id: "10000", key: options.projectKey, name: "Security", projectTypeKey: "software",
        simplified: false, style: "classic", isPrivate: false,
      }
      return send(res, 200, answer)
    }
    if (method === "POST" && url.pathname === "/rest/api/3/issue") {
      const text = await readBody(req)
      let body: any
      try {
        body = JSON.parse(text)
      } catch {
        violations.push("POST /rest/api/3/issue: body is not JSON")
        return errorCollection(res, 400, ["Invalid request payload. Refer to the REST API documentation and try again."])
      }
      const parsed = CreateIssueSchema.safeParse(body)
      const fields = body?.fields ?? {}
      const rule =
        !parsed.success ? `does not match CreateIssue: ${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`
          : fields.project?.key !== options.projectKey && fields.project?.id === undefined ? "fields.project must name the project"
            : typeof fields.issuetype?.name !== "string" && typeof fields.issuetype?.id !== "string" ? "fields.issuetype must name the issue type"
              : typeof fields.summary !== "string" || fields.summary === "" || fields.summary.length > 255 ? "fields.summary must be 1–255 characters"
                : !Array.isArray(fields.labels) || fields.labels.some((l: unknown) => typeof l !== "string" || /\s/.test(l)) ? "fields.labels must be strings without spaces"
                  : adfViolation(fields.description)
      if (rule !== undefined) {
        violations.push(`POST /rest/api/3/issue: ${rule}`)
        return errorCollection(res, 400, [], { fields: rule })
      }
      const n = issues.length + 1
      const issue: StubIssue = { id: String(10000 + n), key: `${options.projectKey}-${n}`, fields, status: statusOf("To Do", "new") }
      issues.push(issue)
      const answer: CreatedIssue = { id: issue.id, key: issue.key, self: `${base}/rest/api/3/issue/${issue.id}` }
      return send(res, 201, answer)
    }
    const one = /^\/rest\/api\/3\/issue\/([^/]+)$/.exec(url.pathname)
    if (method === "GET" && one !== null) {
      const key = decodeURIComponent(one[1]!)
      const issue = issues.find((i) => i.key === key || i.id === key)
      if (issue === undefined) return errorCollection(res, 404, ["Issue does not exist or you do not have permission to see it."])
      const wanted = (url.searchParams.get("fields") ?? "*all").split(",")
      const answer: Issue = {
        id: issue.id, key: issue.key, self: `${base}/rest/api/3/issue/${issue.id}`, expand: "renderedFields,names,schema,operations",
        fields: wanted.includes("status") || wanted.includes("*all") ? { status: issue.status } : {},
      }
      return send(res, 200, answer)
    }
    violations.push(`${method} ${url.pathname}: not an operation of the stub`)
    return errorCollection(res, 404, ["Not found"])
  }

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      violations.push(`stub crashed: ${String(error)}`)
      res.writeHead(500)
      res.end()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const address = server.address()
  base = `http://127.0.0.1:${typeof address === "object" && address !== null ? address.port : 0}`
  return {
    url: base,
    issues,
    violations,
    requests,
    transition(key, name, category) {
      const issue = issues.find((i) => i.key === key)
      if (issue === undefined) throw new Error(`no issue ${key}`)
      issue.status = statusOf(name, category)
    },
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}
