/**
 * What the Storage page's machine needs from the outside world (beyond the spec, issue 30: GET
 * /api/workspaces/{id}/storage, PUT /api/workspaces/{id}/retention), as types. Nothing here performs an effect: the
 * real `StorageEffects` are built from the SPA services by `storageEffectsFrom(services)`
 * (src/services/workspace-storage-api.ts) for the selected workspace and reach the view through
 * `<StorageEffectsProvider>` (src/views/storage/storage-effects-context.tsx); tests hand fakes to `machine.provide()`.
 *
 * Failures reject with a catalogue error value `{ type, message, status?, data? }`: a 403 says the user is not a
 * workspace admin, a 400 carries the field errors (`data.errors: [{ path, message }]`) of the retention setting.
 */
import type { RetentionSetting, WorkspaceStorage } from "../contracts/storage.ts"
import type { EffectCall } from "./auth-effects.ts"

/** A saved retention setting: the server's message and the storage figures recomputed with it. */
export interface RetentionSaved {
  readonly message: string
  readonly storage: WorkspaceStorage
}

export interface StorageEffects {
  /** GET /api/workspaces/{selected}/storage. */
  readonly loadStorage: EffectCall<void, WorkspaceStorage>
  /** PUT /api/workspaces/{selected}/retention. */
  readonly saveRetention: EffectCall<RetentionSetting, RetentionSaved>
}

/** Where the page lives (a workspace admin's page, linked from the user menu next to Users). */
export const STORAGE_PATH = "/dashboard/storage"
