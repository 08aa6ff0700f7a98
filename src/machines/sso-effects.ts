/**
 * What the single-sign-on settings page's machine needs from the outside world (issue 33 part 3: GET/PUT/DELETE
 * /api/workspaces/{id}/sso and the workspace's roles), as types. The real effects are built from the SPA services by
 * `ssoSettingsEffectsFrom(services)` (src/services/sso-api.ts) for the selected workspace and reach the view through
 * `<SsoEffectsProvider>` (src/views/settings/sso-effects-context.tsx); tests hand fakes to `machine.provide()`.
 */
import type { SsoSettings } from "../contracts/sso.ts"
import type { EffectCall } from "./auth-effects.ts"
import type { SsoSettingsLoaded } from "./sso-settings.machine.ts"

export interface SsoSettingsEffects {
  readonly loadSettings: EffectCall<void, SsoSettingsLoaded>
  readonly saveSettings: EffectCall<unknown, SsoSettings>
  readonly removeSettings: EffectCall<void, SsoSettings>
}

/** Where the page lives (a workspace admin's page, linked from the user menu). */
export const SSO_SETTINGS_PATH = "/dashboard/settings/sso"
