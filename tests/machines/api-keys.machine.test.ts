/**
 * The API keys settings page's machine (issue 33): every (state, event) edge is driven (model-based, xstate/graph),
 * then the flows step by step — the form's errors in the contract's words, a refused role keeping the dialog open,
 * the secret shown once and forgotten, revocation only after a confirmation and the list read again, a load failure
 * and its retry.
 */
import { describe, expect, it } from "vitest"
import { createActor } from "xstate"
import { type ApiKey, ApiKeyMessages, type CreateApiKeyPayload } from "../../src/contracts/api-keys.ts"
import type { ApiKeyCreated, ApiKeysLoaded } from "../../src/machines/api-keys-effects.ts"
import { API_KEYS_LOAD_FAILED, apiKeyDraftError, apiKeysMachine, DEFAULT_EXPIRY_DAYS } from "../../src/machines/api-keys.machine.ts"
import { coverTransitions, formatCoverage } from "../support/graph.ts"
import { controlled, httpFailure, networkFailure, never } from "./auth-fakes.ts"
import { environment } from "./scan-fakes.ts"

const key = (id: number, over: Partial<ApiKey> = {}): ApiKey => ({
  id: id as ApiKey["id"], name: `Key ${id}`, role_id: 3 as ApiKey["role_id"], is_custom_role: false, role_name: "Auditor",
  account_group_ids: null, prefix: "ca_live_", last_four: "abcd",
  created_by: { id: 1 as ApiKey["created_by"]["id"], email: "ann@example.com", name: "Ann" },
  created_at: "2026-11-27T10:00:00.000Z", expires_at: "2027-02-25T10:00:00.000Z", last_used_at: null, last_used_ip: null,
  revoked_at: null, status: "active", ...over,
})

const loaded = (keys: ReadonlyArray<ApiKey>): ApiKeysLoaded => ({
  keys,
  roles: [{ id: 3, name: "Auditor", isCustom: false }, { id: 101, name: "Team lead", isCustom: true }],
  groups: [{ id: 7, name: "Prod" }],
})

const SECRET = `ca_live_${"x".repeat(43)}`

describe("api-keys machine", () => {
  it("drives every (state, event) edge", async () => {
    const provided = apiKeysMachine.provide({ actors: { loadApiKeys: never(), createApiKey: never(), revokeApiKey: never() } })
    const events = [
      { type: "xstate.done.actor.loadApiKeys", output: loaded([key(1), key(2, { status: "revoked", revoked_at: "2026-11-27T11:00:00.000Z" })]) },
      { type: "xstate.error.actor.loadApiKeys", error: httpFailure("generic", 500) },
      { type: "apiKeys.retryRequested" },
      { type: "form.opened" },
      { type: "form.changed", patch: { name: "CI" } },
      { type: "form.changed", patch: { name: "" } },
      { type: "form.submitted" },
      { type: "form.canceled" },
      { type: "xstate.done.actor.createApiKey", output: { message: ApiKeyMessages.created, key: key(3), secret: SECRET } },
      { type: "xstate.error.actor.createApiKey", error: httpFailure("generic", 403, { message: ApiKeyMessages.roleTooWide }) },
      { type: "secret.dismissed" },
      { type: "key.revokeRequested", id: 1 },
      { type: "key.revokeRequested", id: 2 },
      { type: "revoke.confirmed" },
      { type: "revoke.canceled" },
      { type: "xstate.done.actor.revokeApiKey", output: ApiKeyMessages.revoked },
      { type: "xstate.error.actor.revokeApiKey", error: httpFailure("generic", 404, { message: ApiKeyMessages.keyNotFound }) },
      { type: "xstate.done.actor.refreshApiKeys", output: loaded([key(1, { status: "revoked" })]) },
      { type: "xstate.error.actor.refreshApiKeys", error: httpFailure("generic", 500) },
    ]
    const coverage = await coverTransitions(provided, {
      createActor: (clock) => createActor(provided, { clock }),
      events,
      serializeState: (s) =>
        JSON.stringify([
          s.value,
          s.context.keys.map((k) => [k.id, k.status]),
          s.context.pending,
          s.context.secret !== null,
          apiKeyDraftError(s.context.draft) === null,
        ]),
    })
    console.info(formatCoverage("apiKeys", coverage))
    expect(coverage.missing).toEqual([])
    expect(coverage.driven).toBe(coverage.total)
  })

  const start = () => {
    const fx = {
      loadApiKeys: controlled<void, ApiKeysLoaded>(),
      createApiKey: controlled<CreateApiKeyPayload, ApiKeyCreated>(),
      revokeApiKey: controlled<number, string>(),
    }
    const env = environment()
    const actor = createActor(apiKeysMachine.provide({
      actors: Object.fromEntries(Object.entries(fx).map(([k, v]) => [k, v.logic])) as never,
      actions: { notify: env.notify },
    })).start()
    return { actor, fx, env }
  }

  it("creates a key: the form's errors, a refused role keeping the dialog open, then the secret shown once", async () => {
    const { actor, fx } = start()
    try {
      await fx.loadApiKeys.resolve(loaded([]))
      actor.send({ type: "form.opened" })
      expect(actor.getSnapshot().context.draft).toEqual({ name: "", roleId: 3, isCustomRole: false, expiresInDays: DEFAULT_EXPIRY_DAYS, groupIds: [] })
      actor.send({ type: "form.submitted" })
      expect(actor.getSnapshot().matches({ ready: "creating" })).toBe(true)
      expect(actor.getSnapshot().context.formError).toBe(ApiKeyMessages.nameRequired)
      actor.send({ type: "form.changed", patch: { name: "  Deploy bot ", roleId: 101, isCustomRole: true, expiresInDays: 400 } })
      expect(actor.getSnapshot().context.formError).toBeNull()
      actor.send({ type: "form.submitted" })
      expect(actor.getSnapshot().context.formError).toBe(ApiKeyMessages.expiryRange)
      actor.send({ type: "form.changed", patch: { expiresInDays: 30, groupIds: [7] } })
      actor.send({ type: "form.submitted" })
      expect(actor.getSnapshot().matches({ ready: "saving" })).toBe(true)
      expect(fx.createApiKey.calls).toEqual([{ name: "Deploy bot", role_id: 101, is_custom_role: true, expires_in_days: 30, account_group_ids: [7] }])
      await fx.createApiKey.reject(httpFailure("generic", 403, { _tag: "Forbidden", message: ApiKeyMessages.roleTooWide }))
      expect(actor.getSnapshot().matches({ ready: "creating" })).toBe(true)
      expect(actor.getSnapshot().context.formError).toBe(ApiKeyMessages.roleTooWide)
      actor.send({ type: "form.changed", patch: { roleId: 3, isCustomRole: false, groupIds: [] } })
      actor.send({ type: "form.submitted" })
      expect(fx.createApiKey.calls[1]).toMatchObject({ role_id: 3, account_group_ids: null })
      await fx.createApiKey.resolve({ message: ApiKeyMessages.created, key: key(5, { name: "Deploy bot" }), secret: SECRET })
      expect(actor.getSnapshot().matches({ ready: "showingSecret" })).toBe(true)
      expect(actor.getSnapshot().context.secret).toEqual({ name: "Deploy bot", value: SECRET })
      expect(actor.getSnapshot().context.keys.map((k) => k.id)).toEqual([5])
      actor.send({ type: "secret.dismissed" })
      expect(actor.getSnapshot().matches({ ready: "idle" })).toBe(true)
      expect(actor.getSnapshot().context.secret).toBeNull()
      expect(JSON.stringify(actor.getSnapshot().context)).not.toContain(SECRET)
    } finally {
      actor.stop()
    }
  })

  it("revokes only after a confirmation, then reads the list again; revoked keys cannot be revoked again", async () => {
    const { actor, fx, env } = start()
    try {
      await fx.loadApiKeys.resolve(loaded([key(1), key(2, { status: "revoked" })]))
      actor.send({ type: "key.revokeRequested", id: 2 })
      expect(actor.getSnapshot().matches({ ready: "idle" })).toBe(true)
      actor.send({ type: "key.revokeRequested", id: 1 })
      expect(actor.getSnapshot().matches({ ready: "confirmingRevoke" })).toBe(true)
      actor.send({ type: "revoke.canceled" })
      expect(fx.revokeApiKey.calls).toEqual([])
      actor.send({ type: "key.revokeRequested", id: 1 })
      actor.send({ type: "revoke.confirmed" })
      expect(fx.revokeApiKey.calls).toEqual([1])
      await fx.revokeApiKey.resolve(ApiKeyMessages.revoked)
      expect(env.toasts).toEqual([{ kind: "success", message: ApiKeyMessages.revoked }])
      expect(actor.getSnapshot().matches({ ready: "refreshing" })).toBe(true)
      await fx.loadApiKeys.resolve(loaded([key(1, { status: "revoked" }), key(2, { status: "revoked" })]))
      expect(actor.getSnapshot().matches({ ready: "idle" })).toBe(true)
      expect(actor.getSnapshot().context.keys.map((k) => k.status)).toEqual(["revoked", "revoked"])
    } finally {
      actor.stop()
    }
  })

  it("a failed load shows why and can be retried", async () => {
    const { actor, fx } = start()
    try {
      await fx.loadApiKeys.reject(networkFailure("generic"))
      expect(actor.getSnapshot().matches("failed")).toBe(true)
      expect(actor.getSnapshot().context.loadError).not.toBe("")
      actor.send({ type: "apiKeys.retryRequested" })
      await fx.loadApiKeys.resolve(loaded([key(1)]))
      expect(actor.getSnapshot().matches({ ready: "idle" })).toBe(true)
      expect(actor.getSnapshot().context.loadError).toBeNull()
      expect(API_KEYS_LOAD_FAILED).toMatch(/API keys/)
    } finally {
      actor.stop()
    }
  })
})
