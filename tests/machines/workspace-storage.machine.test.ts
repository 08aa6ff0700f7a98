/**
 * The Storage page's machine (issue 30): every (state, event) edge is driven (model-based, xstate/graph), then the
 * flows are checked step by step (load, validation against the contract's limits, save, the server's field errors and
 * failures, a non-admin's 403), and the table's pure order over thousands of accounts.
 */
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { createActor } from "xstate"
import { RETENTION_MAX_DAYS, RETENTION_MAX_SCANS, StorageMessages, type RetentionSetting, type WorkspaceStorage } from "../../src/contracts/storage.ts"
import type { RetentionSaved } from "../../src/machines/storage-effects.ts"
import {
  DEFAULT_STORAGE_SORT,
  STORAGE_PAGE_SIZE,
  nextStorageSort,
  retentionSettingOf,
  retentionValuesOf,
  sortAccounts,
  validateRetention,
  workspaceStorageMachine,
} from "../../src/machines/workspace-storage.machine.ts"
import { coverTransitions, formatCoverage } from "../support/graph.ts"
import { controlled, httpFailure, never } from "./auth-fakes.ts"
import { environment } from "./scan-fakes.ts"
import { accountStorage, manyAccounts, workspaceStorage } from "./storage-fakes.ts"

const badRequest = httpFailure("generic", 400, {
  _tag: "ValidationError",
  message: StorageMessages.retentionDaysInvalid,
  errors: [{ path: "keep_days", message: StorageMessages.retentionDaysInvalid }],
})

describe("workspace-storage machine", () => {
  it("drives every (state, event) edge", async () => {
    const provided = workspaceStorageMachine.provide({ actors: { loadStorage: never(), saveRetention: never() } })
    const loaded = workspaceStorage(manyAccounts(STORAGE_PAGE_SIZE + 10))
    const events = [
      { type: "xstate.done.actor.loadStorage", output: loaded },
      { type: "xstate.error.actor.loadStorage", error: httpFailure("generic", 500) },
      { type: "xstate.error.actor.loadStorage", error: httpFailure("generic", 403, { message: "Forbidden" }) },
      { type: "storage.retryRequested" },
      { type: "field.changed", field: "keep_days", value: "30" },
      { type: "field.changed", field: "keep_days", value: "abc" },
      { type: "field.changed", field: "keep_days", value: "90" },
      { type: "form.submitted" },
      { type: "form.reset" },
      { type: "sort.changed", column: "account" },
      { type: "rows.moreRequested" },
      { type: "xstate.done.actor.saveRetention", output: { message: StorageMessages.retentionSaved, storage: workspaceStorage(manyAccounts(3), { keep_days: 30, keep_scans: null }) } },
      { type: "xstate.error.actor.saveRetention", error: badRequest },
      { type: "xstate.error.actor.saveRetention", error: httpFailure("generic", 500) },
    ]
    const coverage = await coverTransitions(provided, {
      createActor: (clock) => createActor(provided, { clock }),
      events,
      serializeState: (s) =>
        JSON.stringify([
          s.value,
          s.context.values.keep_days,
          s.context.storage?.retention.keep_days ?? null,
          s.context.shown < (s.context.storage?.accounts.length ?? 0),
          s.context.storage !== null,
        ]),
    })
    console.info(formatCoverage("workspaceStorage", coverage))
    expect(coverage.missing).toEqual([])
    expect(coverage.driven).toBe(coverage.total)
  })

  const start = () => {
    const loadStorage = controlled<void, WorkspaceStorage>()
    const saveRetention = controlled<RetentionSetting, RetentionSaved>()
    const env = environment()
    const actor = createActor(
      workspaceStorageMachine.provide({ actors: { loadStorage: loadStorage.logic, saveRetention: saveRetention.logic }, actions: { notify: env.notify } }),
    ).start()
    return { actor, loadStorage, saveRetention, env }
  }

  it("shows the saved setting, refuses values outside the contract's limits, saves a valid change", async () => {
    const { actor, loadStorage, saveRetention, env } = start()
    try {
      expect(actor.getSnapshot().value).toBe("loading")
      await loadStorage.resolve(workspaceStorage())
      expect(actor.getSnapshot().value).toBe("ready")
      expect(actor.getSnapshot().context.values).toEqual({ keep_days: "90", keep_scans: "" })
      // Unchanged: Save and Reset do nothing.
      actor.send({ type: "form.submitted" })
      actor.send({ type: "form.reset" })
      expect(saveRetention.calls).toEqual([])
      actor.send({ type: "field.changed", field: "keep_days", value: "0" })
      actor.send({ type: "field.changed", field: "keep_scans", value: "1001" })
      actor.send({ type: "form.submitted" })
      expect(actor.getSnapshot().context.fieldErrors).toEqual({
        keep_days: StorageMessages.retentionDaysInvalid,
        keep_scans: StorageMessages.retentionScansInvalid,
      })
      expect(saveRetention.calls).toEqual([])
      // Typing in a field clears its error only.
      actor.send({ type: "field.changed", field: "keep_days", value: "" })
      expect(actor.getSnapshot().context.fieldErrors).toEqual({ keep_scans: StorageMessages.retentionScansInvalid })
      actor.send({ type: "field.changed", field: "keep_scans", value: " 5 " })
      actor.send({ type: "form.submitted" })
      expect(actor.getSnapshot().value).toBe("saving")
      expect(saveRetention.calls).toEqual([{ keep_days: null, keep_scans: 5 }])
      const saved = workspaceStorage([accountStorage(1, "Production", 5, 1_000_000)], { keep_days: null, keep_scans: 5 })
      await saveRetention.resolve({ message: StorageMessages.retentionSaved, storage: saved })
      expect(actor.getSnapshot().value).toBe("ready")
      expect(actor.getSnapshot().context.storage).toBe(saved)
      expect(actor.getSnapshot().context.values).toEqual({ keep_days: "", keep_scans: "5" })
      expect(env.toasts).toEqual([{ kind: "success", message: StorageMessages.retentionSaved }])
    } finally {
      actor.stop()
    }
  })

  it("keeps what was typed after a refusal: the server's field errors, or the failure with a toast", async () => {
    const { actor, loadStorage, saveRetention, env } = start()
    try {
      await loadStorage.resolve(workspaceStorage())
      actor.send({ type: "field.changed", field: "keep_days", value: "45" })
      actor.send({ type: "form.submitted" })
      await saveRetention.reject(badRequest)
      expect(actor.getSnapshot().value).toBe("ready")
      expect(actor.getSnapshot().context.values.keep_days).toBe("45")
      expect(actor.getSnapshot().context.fieldErrors).toEqual({ keep_days: StorageMessages.retentionDaysInvalid })
      expect(actor.getSnapshot().context.saveError).toBeNull()
      actor.send({ type: "form.submitted" })
      await saveRetention.reject(httpFailure("generic", 500))
      expect(actor.getSnapshot().context.saveError).toBe(httpFailure("generic", 500).message)
      actor.send({ type: "form.submitted" })
      await saveRetention.reject(httpFailure("generic", 403, { message: "Forbidden" }))
      expect(actor.getSnapshot().context.saveError).toBe(StorageMessages.storagePermissionDenied)
      expect(env.toasts.map((t) => t.kind)).toEqual(["error", "error", "error"])
      actor.send({ type: "form.reset" })
      expect(actor.getSnapshot().context).toMatchObject({ values: { keep_days: "90", keep_scans: "" }, fieldErrors: {}, saveError: null })
    } finally {
      actor.stop()
    }
  })

  it("a non-admin's 403 names the admin rule; other failures keep their text; retry loads again", async () => {
    const { actor, loadStorage } = start()
    try {
      await loadStorage.reject(httpFailure("generic", 403, { message: "Forbidden" }))
      expect(actor.getSnapshot().value).toBe("failed")
      expect(actor.getSnapshot().context.loadError).toBe(StorageMessages.storagePermissionDenied)
      actor.send({ type: "storage.retryRequested" })
      await loadStorage.reject(new Error("boom"))
      expect(actor.getSnapshot().context.loadError).toBe(StorageMessages.loadStorageFailed)
      actor.send({ type: "storage.retryRequested" })
      await loadStorage.resolve(workspaceStorage())
      expect(actor.getSnapshot().value).toBe("ready")
      expect(actor.getSnapshot().context.loadError).toBeNull()
    } finally {
      actor.stop()
    }
  })

  it("sorts by bytes, largest first, by default; shows more rows a page at a time", async () => {
    const { actor, loadStorage } = start()
    try {
      await loadStorage.resolve(workspaceStorage(manyAccounts(2 * STORAGE_PAGE_SIZE + 1)))
      expect(actor.getSnapshot().context.sort).toEqual(DEFAULT_STORAGE_SORT)
      expect(DEFAULT_STORAGE_SORT).toEqual({ column: "bytes", direction: "desc" })
      actor.send({ type: "rows.moreRequested" })
      actor.send({ type: "rows.moreRequested" })
      expect(actor.getSnapshot().context.shown).toBe(3 * STORAGE_PAGE_SIZE)
      expect(actor.getSnapshot().can({ type: "rows.moreRequested" })).toBe(false)
      actor.send({ type: "sort.changed", column: "bytes" })
      expect(actor.getSnapshot().context.sort).toEqual({ column: "bytes", direction: "asc" })
    } finally {
      actor.stop()
    }
  })
})

describe("retention form rules", () => {
  it("accepts empty or whole numbers within the contract's limits, refuses anything else (property)", () => {
    const raw = fc.oneof(
      fc.constant(""),
      fc.integer({ min: -5, max: RETENTION_MAX_DAYS + 5 }).map(String),
      fc.constantFrom("1.5", "abc", "1e3", "-0", " 7 ", "07"),
    )
    fc.assert(
      fc.property(raw, raw, (days, scans) => {
        const errors = validateRetention({ keep_days: days, keep_scans: scans })
        const ok = (s: string, max: number) => s.trim() === "" || (/^\d+$/.test(s.trim()) && Number(s) >= 1 && Number(s) <= max)
        expect("keep_days" in errors).toBe(!ok(days, RETENTION_MAX_DAYS))
        expect("keep_scans" in errors).toBe(!ok(scans, RETENTION_MAX_SCANS))
        if (ok(days, RETENTION_MAX_DAYS) && ok(scans, RETENTION_MAX_SCANS)) {
          const setting = retentionSettingOf({ keep_days: days, keep_scans: scans })
          expect(retentionSettingOf(retentionValuesOf(setting))).toEqual(setting)
        }
      }),
    )
  })
})

describe("accounts table order", () => {
  it("the same column flips; a new one starts with names A→Z and figures largest first", () => {
    expect(nextStorageSort(DEFAULT_STORAGE_SORT, "account")).toEqual({ column: "account", direction: "asc" })
    expect(nextStorageSort({ column: "account", direction: "asc" }, "account")).toEqual({ column: "account", direction: "desc" })
    expect(nextStorageSort({ column: "account", direction: "asc" }, "frees")).toEqual({ column: "frees", direction: "desc" })
  })

  it("orders 5,000 accounts by any column, ties by name, without touching the input", () => {
    const accounts = manyAccounts(5000)
    const copy = [...accounts]
    for (const column of ["account", "scans", "results", "rows", "bytes", "frees"] as const) {
      for (const direction of ["asc", "desc"] as const) {
        const started = performance.now()
        const sorted = sortAccounts(accounts, { column, direction })
        expect(performance.now() - started).toBeLessThan(500)
        expect(sorted).toHaveLength(5000)
        const key = (a: (typeof accounts)[number]) => (column === "frees" ? a.frees.bytes : column === "account" ? 0 : a.used[column])
        const misplaced = sorted.findIndex((b, i) => {
          if (i === 0) return false
          const a = sorted[i - 1]!
          const byName = a.account_name.localeCompare(b.account_name)
          if (column === "account") return byName * (direction === "asc" ? 1 : -1) > 0
          if (key(a) === key(b)) return byName > 0
          return direction === "desc" ? key(a) < key(b) : key(a) > key(b)
        })
        expect(misplaced).toBe(-1)
      }
    }
    expect(accounts).toEqual(copy)
  })
})
