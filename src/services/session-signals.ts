/**
 * Session signals: what the session machine must learn from outside itself, as one subscription.
 *
 * - `tokens-changed`: the stored tokens changed — refreshed by this tab's API client, or written by another
 *   tab (its refresh or its sign-in).
 * - `signed-out-elsewhere`: another tab removed the session (logout, failed refresh).
 * - `refresh-failed`: this tab's API client could not refresh; the stored session is already cleared.
 *
 * Other tabs are observed through `storage` events on the session keys (and `key === null`, a cleared
 * storage); the API client reports through `emitTokensRefreshed` / `emitRefreshFailed`, which the
 * composition root passes as the client's `onTokensRefreshed` / `onRefreshFailed`.
 */
import { StorageKeys } from "../contracts/constants.ts"
import type { ApiError } from "./api-client.ts"
import type { SessionStorage, StorageChangeSource } from "./storage.ts"

export type SessionSignal =
  | { readonly type: "tokens-changed" }
  | { readonly type: "signed-out-elsewhere" }
  | { readonly type: "refresh-failed"; readonly error: ApiError }

export type SessionSignalListener = (signal: SessionSignal) => void
export type SessionSignalSource = (listener: SessionSignalListener) => () => void

export interface SessionSignals {
  readonly subscribe: SessionSignalSource
  readonly emitTokensRefreshed: () => void
  readonly emitRefreshFailed: (error: ApiError) => void
}

const TOKEN_KEYS: ReadonlyArray<string> = [StorageKeys.accessToken, StorageKeys.refreshToken]

export const createSessionSignals = ({
  changes,
  session,
}: {
  readonly changes?: StorageChangeSource
  readonly session: SessionStorage
}): SessionSignals => {
  const listeners = new Set<SessionSignalListener>()
  const emit = (signal: SessionSignal) => {
    for (const l of [...listeners]) l(signal)
  }
  let unfollow: (() => void) | undefined
  const follow = () =>
    changes?.((change) => {
      if (change.key !== null && !TOKEN_KEYS.includes(change.key)) return
      emit(session.read().accessToken === null ? { type: "signed-out-elsewhere" } : { type: "tokens-changed" })
    })
  return {
    subscribe: (listener) => {
      listeners.add(listener)
      if (listeners.size === 1) unfollow = follow()
      return () => {
        listeners.delete(listener)
        if (listeners.size === 0) {
          unfollow?.()
          unfollow = undefined
        }
      }
    },
    emitTokensRefreshed: () => emit({ type: "tokens-changed" }),
    emitRefreshFailed: (error) => emit({ type: "refresh-failed", error }),
  }
}
