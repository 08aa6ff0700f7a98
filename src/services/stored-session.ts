/**
 * The session data in localStorage (access §3: access and refresh token, user email, workspace name), read without
 * any schema library: the first page load reads it before the rest of the SPA has arrived (src/main.tsx decides from
 * it whether sign-in can show at once), and the session storage adapter (storage.ts) reads it the same way.
 */
import { StorageKeys } from "../contracts/constants.ts"

export interface StoredSession {
  readonly accessToken: string | null
  readonly refreshToken: string | null
  readonly userEmail: string | null
  readonly workspaceName: string | null
}

/** Empty strings count as absent: a half-written or hand-edited value never passes for a token. */
export const nonEmpty = (value: string | null): string | null => (value === null || value === "" ? null : value)

export const readStoredSession = (local: { getItem(key: string): string | null }): StoredSession => ({
  accessToken: nonEmpty(local.getItem(StorageKeys.accessToken)),
  refreshToken: nonEmpty(local.getItem(StorageKeys.refreshToken)),
  userEmail: nonEmpty(local.getItem(StorageKeys.userEmail)),
  workspaceName: nonEmpty(local.getItem(StorageKeys.workspaceName)),
})
