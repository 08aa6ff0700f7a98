/**
 * Typed calls of the Storage page (beyond the spec, issue 30) on the shared API client, and the page's effects built
 * from them (`storageEffectsFrom(services)`, handed to `<StorageEffectsProvider>` by the composition root). Both calls
 * name the selected workspace in the path, read at call time (a workspace switch never shows another workspace's
 * figures); answers are decoded with the contract's `WorkspaceStorageResponse`; failures reject with the client's
 * catalogue error (the server's message for 4xx, with the 400's field errors in `data.errors`).
 */
import { StorageMessages, WorkspaceStorageResponse } from "../contracts/storage.ts"
import type { StorageEffects } from "../machines/storage-effects.ts"
import { endpoint, pathWith, type ApiError, type Endpoint } from "./api-client.ts"
import type { AppServices } from "./app-services.ts"

export const STORAGE_ENDPOINTS = {
  storage: endpoint({ method: "GET", path: "/api/workspaces/:id/storage", response: WorkspaceStorageResponse }),
  retention: endpoint({ method: "PUT", path: "/api/workspaces/:id/retention", response: WorkspaceStorageResponse }),
} satisfies Record<string, Endpoint<unknown>>

const signalOpt = (signal: AbortSignal | undefined) => (signal === undefined ? {} : { signal })

export const storageEffectsFrom = (services: Pick<AppServices, "client" | "workspaceStore">): StorageEffects => {
  const at = <A>(e: Endpoint<A>, fallback: string): Endpoint<A> => {
    const id = services.workspaceStore.getSnapshot().selectedWorkspaceId
    if (id === null) throw { type: "UNKNOWN_ERROR", message: fallback } satisfies ApiError
    return { ...e, path: pathWith(e.path, { id }) }
  }
  return {
    loadStorage: async (_, signal) =>
      (await services.client.request(at(STORAGE_ENDPOINTS.storage, StorageMessages.loadStorageFailed), signalOpt(signal))).data,
    saveRetention: async (setting, signal) => {
      const answer = await services.client.request(at(STORAGE_ENDPOINTS.retention, StorageMessages.saveRetentionFailed), {
        body: setting,
        ...signalOpt(signal),
      })
      return { message: answer.message ?? StorageMessages.retentionSaved, storage: answer.data }
    },
  }
}
