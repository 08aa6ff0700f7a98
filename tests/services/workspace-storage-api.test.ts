/**
 * The Storage page's effects (`storageEffectsFrom`, issue 30) on the real API client with a scripted fetch: the
 * selected workspace in the path, the contract's decoding of the answer, the body sent, and the failures the machine
 * reads (403, 400 with field errors, an answer the contract does not describe).
 */
import { describe, expect, it } from "vitest"
import { HttpApi } from "effect/http-api"
import { Api } from "../../src/contracts/api.ts"
import { StorageMessages } from "../../src/contracts/storage.ts"
import { createAppServices } from "../../src/services/app-services.ts"
import { memoryStorage, selectWorkspace } from "../../src/services/storage.ts"
import { STORAGE_ENDPOINTS, storageEffectsFrom } from "../../src/services/workspace-storage-api.ts"
import { workspaceStorage } from "../machines/storage-fakes.ts"
import { json, newClock, scriptedFetch, type RecordedCall } from "./support.ts"

const setup = (answer: (call: RecordedCall) => Response, selected: number | null = 7) => {
  const clock = newClock()
  const { fetch, calls } = scriptedFetch(clock, answer)
  const local = memoryStorage({
    access_token: "access-1",
    refresh_token: "refresh-1",
    ...(selected === null
      ? {}
      : { "workspace-store": JSON.stringify({ state: { selectedWorkspaceId: selected, lastAccessedWorkspaces: {}, newlyAddedWorkspaces: {} }, version: 0 }) }),
  })
  const services = createAppServices({ fetch, clock, isProduction: false, local, sessionStorage: memoryStorage() })
  return { calls, services, effects: storageEffectsFrom(services) }
}

const path = (call: RecordedCall) => new URL(call.url, "http://localhost").pathname

describe("storage effects", () => {
  it("are exactly the contract's storage group: methods, paths and response schema", () => {
    const group: Array<{ method: string; path: string; success: ReadonlyArray<unknown> }> = []
    HttpApi.reflect(Api, {
      onGroup: () => {},
      onEndpoint: ({ group: g, endpoint, successes }) => {
        if (g.identifier === "storage") group.push({ method: endpoint.method, path: endpoint.path, success: [...successes.values()].flat() })
      },
    })
    expect(Object.values(STORAGE_ENDPOINTS).map((e) => `${e.method} ${e.path}`).sort()).toEqual(group.map((c) => `${c.method} ${c.path}`).sort())
    for (const e of Object.values(STORAGE_ENDPOINTS)) {
      // HttpApi may keep a rebuilt copy of the schema: the same one, or one with the same fields.
      const fields = (x: unknown) =>
        ((x as { ast: { propertySignatures?: ReadonlyArray<{ name: PropertyKey }> } }).ast.propertySignatures ?? []).map((p) => String(p.name))
      const success = group.find((c) => c.method === e.method && c.path === e.path)!.success
      expect(success.some((x) => x === e.response || JSON.stringify(fields(x)) === JSON.stringify(fields(e.response)))).toBe(true)
    }
  })

  it("load the selected workspace's storage, decoded with the contract", async () => {
    const storage = workspaceStorage()
    const { calls, effects, services } = setup(() => json(200, { ok: true, data: storage }))
    expect(await effects.loadStorage()).toEqual(storage)
    expect(calls.map((c) => `${c.method} ${path(c)}`)).toEqual(["GET /api/workspaces/7/storage"])
    // A workspace switch: the next call names the new workspace.
    services.workspaceStore.update((s) => selectWorkspace(s, 9, 0))
    await effects.loadStorage()
    expect(path(calls[1]!)).toBe("/api/workspaces/9/storage")
  })

  it("save the setting as the body and answer the recomputed figures with the server's message", async () => {
    const storage = workspaceStorage(undefined, { keep_days: null, keep_scans: 10 })
    const { calls, effects } = setup(() => json(200, { ok: true, message: "Retention setting saved", data: storage }))
    expect(await effects.saveRetention({ keep_days: null, keep_scans: 10 })).toEqual({ message: "Retention setting saved", storage })
    expect(calls[0]).toMatchObject({ method: "PUT", body: { keep_days: null, keep_scans: 10 } })
    expect(path(calls[0]!)).toBe("/api/workspaces/7/retention")
  })

  it("reject with the catalogue's errors: 403, 400 with field errors, an answer outside the contract", async () => {
    const errors = [{ path: "keep_days", message: StorageMessages.retentionDaysInvalid }]
    const forbidden = setup(() => json(403, { _tag: "Forbidden", message: StorageMessages.storagePermissionDenied }))
    await expect(forbidden.effects.loadStorage()).rejects.toMatchObject({ status: 403, message: StorageMessages.storagePermissionDenied })
    const invalid = setup(() => json(400, { _tag: "ValidationError", message: StorageMessages.retentionDaysInvalid, errors }))
    await expect(invalid.effects.saveRetention({ keep_days: 0, keep_scans: null })).rejects.toMatchObject({ status: 400, data: { errors } })
    const odd = setup(() => json(200, { ok: true, data: { used: "a lot" } }))
    await expect(odd.effects.loadStorage()).rejects.toMatchObject({ type: "UNKNOWN_ERROR" })
    const none = setup(() => json(200, {}), null)
    await expect(none.effects.loadStorage()).rejects.toMatchObject({ message: StorageMessages.loadStorageFailed })
    expect(none.calls).toEqual([])
  })
})
