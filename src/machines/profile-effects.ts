/**
 * What the Profile Settings machines need from the outside world (access spec §2 "Profile Settings", §7 update
 * profile / change password / timezones), as types, plus `createProfileEffects`, which builds them from the SPA
 * services.
 *
 * Reads go through the shared query cache: the user (fresh 5 minutes) and the timezones (stale after 1 hour).
 * Mutations run once; a profile update writes the answer's user into the cache and tells the app
 * (`onUserUpdated`, e.g. the session's user refresh) so the shell shows the new name at once.
 * Failures reject with catalogue error values (§8 'Failed to update profile. Please try again.', 'Failed to update
 * password. Please try again.' unless the server said more).
 */
import type { OkMessage } from "../contracts/common.ts"
import type { Timezone, User } from "../contracts/auth.ts"
import type { ChangePasswordPayload, UpdateProfilePayload, UpdateProfileResponse } from "../contracts/profile.ts"
import type { AccessQueries, AuthApi } from "../services/auth-api.ts"
import type { QueryCache } from "../services/query-cache.ts"
import type { EffectCall } from "./auth-effects.ts"

export interface ProfileEffects {
  /** The signed-in user (GET /api/user-info through the cache). */
  readonly loadProfile: EffectCall<void, User>
  /** GET /api/timezones through the cache (stale after 1 hour). */
  readonly loadTimezones: EffectCall<void, ReadonlyArray<Timezone>>
  readonly updateProfile: EffectCall<UpdateProfilePayload, UpdateProfileResponse>
  readonly changePassword: EffectCall<ChangePasswordPayload, OkMessage>
}

export interface ProfileServices {
  readonly cache: QueryCache
  readonly api: AuthApi
  readonly queries: AccessQueries
}

export interface ProfileEffectsOptions {
  /** Called with the updated user after a successful profile update (e.g. refresh the session's user). */
  readonly onUserUpdated?: (user: User) => void
}

export const createProfileEffects = (services: ProfileServices, options: ProfileEffectsOptions = {}): ProfileEffects => {
  const { cache, api, queries } = services
  const signalOf = (signal: AbortSignal | undefined) => (signal === undefined ? {} : { signal })
  return {
    loadProfile: (_, signal) => {
      const q = queries.user()
      return cache.fetchQuery(q.key, q.fetch, signal)
    },
    loadTimezones: (_, signal) => {
      const q = queries.timezones()
      return cache.fetchQuery(q.key, q.fetch, signal)
    },
    updateProfile: async (payload, signal) => {
      const response = await cache.mutate((s) => api.updateProfile(payload, s), signalOf(signal))
      const user = response.data
      if (user === undefined) cache.invalidate(queries.user().key)
      else {
        cache.setQueryData<User>(queries.user().key, () => user)
        options.onUserUpdated?.(user)
      }
      return response
    },
    changePassword: (payload, signal) => cache.mutate((s) => api.changePassword(payload, s), signalOf(signal)),
  }
}
