/**
 * Profile Settings' machines (profile form, change password) with their effects (from `<ProfileEffectsProvider>`) as
 * named actors and the toast `notify` action.
 */
import { useMemo } from "react"
import { changePasswordMachine } from "../../machines/change-password.machine.ts"
import { profileMachine } from "../../machines/profile.machine.ts"
import { effectActor, useNotifyAction } from "../screen-actors.ts"
import { useProfileEffects } from "./profile-effects-context.tsx"

export function useProfileLogic() {
  const effects = useProfileEffects()
  const notify = useNotifyAction()
  return useMemo(
    () =>
      profileMachine.provide({
        actors: {
          loadProfile: effectActor(effects.loadProfile),
          loadTimezones: effectActor(effects.loadTimezones),
          updateProfile: effectActor(effects.updateProfile),
        },
        actions: { notify },
      }),
    [effects, notify],
  )
}

export function useChangePasswordLogic() {
  const effects = useProfileEffects()
  const notify = useNotifyAction()
  return useMemo(
    () => changePasswordMachine.provide({ actors: { changePassword: effectActor(effects.changePassword) }, actions: { notify } }),
    [effects, notify],
  )
}
