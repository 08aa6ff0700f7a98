/**
 * The finding page's Jira panel machine (issue 33 part 5): every (state, event) edge is driven (model-based,
 * xstate/graph), then the flow: issues read, one created for the finding (toast names the key), a duplicate's 409 as
 * an error toast with the existing key, refresh showing a done issue as closed, and refresh offered only with issues.
 */
import { describe, expect, it } from "vitest"
import { createActor } from "xstate"
import { JiraMessages, type CreateJiraIssuesResponse, type JiraIssue, type JiraIssueMode } from "../../src/contracts/jira.ts"
import { findingJiraMachine, FindingJiraTexts, mergeIssues } from "../../src/machines/finding-jira.machine.ts"
import { coverTransitions, formatCoverage } from "../support/graph.ts"
import { controlled, httpFailure, never } from "./auth-fakes.ts"
import { environment } from "./scan-fakes.ts"

const issue = (key: string, resource: string | null, category: JiraIssue["status_category"] = "new"): JiraIssue => ({
  account_id: 1 as JiraIssue["account_id"], check_id: "s3_bucket_versioning_enabled", resource_uid: resource, issue_key: key,
  issue_url: `https://acme.atlassian.net/browse/${key}`, status_name: category === "done" ? "Done" : "To Do", status_category: category,
  closed: category === "done", refreshed_at: null, created_at: "2026-11-27T10:00:00.000Z",
})

describe("finding-jira machine", () => {
  it("drives every (state, event) edge", async () => {
    const provided = findingJiraMachine.provide({ actors: { findingIssues: never(), createIssues: never(), refreshIssues: never() } })
    const created: CreateJiraIssuesResponse = { ok: true, message: JiraMessages.created(["SEC-1"]), data: { created: [issue("SEC-1", null)], existing: [] } }
    const coverage = await coverTransitions(provided, {
      input: { findingId: 7 },
      createActor: (clock) => createActor(provided, { clock, input: { findingId: 7 } }),
      events: [
        { type: "xstate.done.actor.findingIssues", output: [issue("SEC-1", null)] },
        { type: "xstate.error.actor.findingIssues", error: httpFailure("generic", 500) },
        { type: "jira.retryRequested" },
        { type: "jira.createRequested", mode: "finding" },
        { type: "jira.refreshRequested" },
        { type: "xstate.done.actor.createIssues", output: created },
        { type: "xstate.error.actor.createIssues", error: httpFailure("generic", 409, { message: JiraMessages.alreadyExists("SEC-1") }) },
        { type: "xstate.done.actor.refreshIssues", output: [issue("SEC-1", null, "done")] },
        { type: "xstate.error.actor.refreshIssues", error: httpFailure("generic", 503, { message: JiraMessages.unreachable }) },
      ],
      serializeState: (s) => JSON.stringify([s.value, s.context.issues.length > 0]),
    })
    console.info(formatCoverage("findingJira", coverage))
    expect(coverage.missing).toEqual([])
    expect(coverage.driven).toBe(coverage.total)
  })

  it("reads, creates, refuses a duplicate with its key, and refreshes a done issue as closed", async () => {
    const load = controlled<number, ReadonlyArray<JiraIssue>>()
    const create = controlled<{ findingId: number; mode: JiraIssueMode }, CreateJiraIssuesResponse>()
    const refresh = controlled<number, ReadonlyArray<JiraIssue>>()
    const env = environment()
    const actor = createActor(
      findingJiraMachine.provide({ actors: { findingIssues: load.logic, createIssues: create.logic, refreshIssues: refresh.logic }, actions: { notify: env.notify } }),
      { input: { findingId: 7 } },
    ).start()
    try {
      expect(load.calls).toEqual([7])
      await load.resolve([])
      actor.send({ type: "jira.refreshRequested" })
      expect(actor.getSnapshot().value).toBe("ready")
      actor.send({ type: "jira.createRequested", mode: "per_resource" })
      expect(create.calls).toEqual([{ findingId: 7, mode: "per_resource" }])
      await create.resolve({ ok: true, message: JiraMessages.created(["SEC-2", "SEC-3"]), data: { created: [issue("SEC-3", "b"), issue("SEC-2", "a")], existing: [] } })
      expect(actor.getSnapshot().context.issues.map((i) => i.issue_key)).toEqual(["SEC-2", "SEC-3"])
      actor.send({ type: "jira.createRequested", mode: "per_resource" })
      await create.reject(httpFailure("generic", 409, { message: JiraMessages.allResourcesHaveIssues }))
      actor.send({ type: "jira.refreshRequested" })
      await refresh.resolve([issue("SEC-2", "a", "done"), issue("SEC-3", "b")])
      expect(actor.getSnapshot().context.issues.find((i) => i.issue_key === "SEC-2")).toMatchObject({ closed: true, status_name: "Done" })
      expect(env.toasts).toEqual([
        { kind: "success", message: JiraMessages.created(["SEC-2", "SEC-3"]) },
        { kind: "error", message: JiraMessages.allResourcesHaveIssues },
        { kind: "success", message: JiraMessages.refreshed },
      ])
    } finally {
      actor.stop()
    }
  })

  it("says when the issues cannot be read, and reads again on retry", async () => {
    const load = controlled<number, ReadonlyArray<JiraIssue>>()
    const actor = createActor(findingJiraMachine.provide({ actors: { findingIssues: load.logic, createIssues: never(), refreshIssues: never() } }), { input: { findingId: 3 } }).start()
    try {
      await load.reject(new Error("boom"))
      expect(actor.getSnapshot().context.loadError).toBe(FindingJiraTexts.loadFailed)
      actor.send({ type: "jira.retryRequested" })
      expect(load.calls).toEqual([3, 3])
    } finally {
      actor.stop()
    }
  })

  it("merges issues by key, the whole finding's first", () => {
    expect(mergeIssues([issue("SEC-2", "b"), issue("SEC-1", null)], [issue("SEC-2", "b", "done")]).map((i) => [i.issue_key, i.closed])).toEqual([
      ["SEC-1", false], ["SEC-2", true],
    ])
  })
})
