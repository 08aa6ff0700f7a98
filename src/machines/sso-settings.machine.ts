/**
 * The single-sign-on settings page of a workspace (issue 33 part 3; docs/sso.md), for workspace admins: the identity
 * provider (OpenID Connect or SAML 2.0), the email domains it owns, group → role mappings, the default role, and
 * whether members must use SSO. Shows what to register at the provider (redirect URI, ACS URL, entity id).
 *
 * `loading` → `ready` or `failed` (the server's words; a 403 says only admins can configure SSO; `settings.retryRequested`).
 * In `ready` the form edits every field; a submitted form is checked against the contract (`SsoConnectionPayload`)
 * and goes to `saving` when it passes, otherwise the first problem shows; `saving` → `ready` with the saved settings
 * (a success toast; the client secret field empties, the server keeps the secret) or `ready` with the server's words,
 * and a 400's field errors (`data.errors` [{ path, message }], e.g. `saml.certificate` for a certificate that is not
 * X.509) on their fields (`fieldErrors`) until that field is changed.
 * `connection.removeRequested` → `removing` → `ready` without a connection.
 *
 * Events accepted:
 * - `settings.retryRequested` — the user pressed retry after the settings failed to load.
 * - `field.changed` { field, value } — the user changed a field of the form.
 * - `mapping.added` — the user added an empty group → role row; `mapping.changed` { index, field, value } edits one;
 *   `mapping.removed` { index } removes one.
 * - `form.submitted` — the user pressed Save.
 * - `connection.removeRequested` — the user removed the identity provider.
 */
import { assertEvent, assign, fromPromise, setup } from "xstate"
import { normalizeDomain, SsoConnectionPayload, SsoMessages, type SsoSettings } from "../contracts/sso.ts"
import { formErrors } from "../contracts/validation.ts"
import { errorOf, outputOf } from "./actor-output.ts"
import { toFailure, type NotifyParams } from "./auth-effects.ts"
import { notProvided } from "./building-blocks.ts"

/** A role the mappings may name. */
export interface SsoRoleOption {
  readonly id: number
  readonly name: string
}

export interface SsoSettingsLoaded {
  readonly settings: SsoSettings
  readonly roles: ReadonlyArray<SsoRoleOption>
}

export type SsoField =
  | "protocol" | "enabled" | "require_sso" | "domains" | "issuer" | "client_id" | "client_secret"
  | "idp_entity_id" | "sso_url" | "certificate" | "groups_attribute" | "default_role_id"

export type SsoFormValues = { readonly [K in SsoField]: string } & {
  readonly mappings: ReadonlyArray<{ readonly group: string; readonly role_id: string }>
}

const EMPTY_FORM: SsoFormValues = {
  protocol: "oidc", enabled: "true", require_sso: "false", domains: "", issuer: "", client_id: "", client_secret: "",
  idp_entity_id: "", sso_url: "", certificate: "", groups_attribute: "groups", default_role_id: "3", mappings: [],
}

/** The form showing saved settings (the secret is never shown: empty keeps the stored one). */
export const formOf = (settings: SsoSettings): SsoFormValues => {
  const c = settings.connection
  if (c === null) return EMPTY_FORM
  return {
    protocol: c.protocol,
    enabled: String(c.enabled),
    require_sso: String(c.require_sso),
    domains: c.domains.join(", "),
    issuer: c.oidc?.issuer ?? "",
    client_id: c.oidc?.client_id ?? "",
    client_secret: "",
    idp_entity_id: c.saml?.idp_entity_id ?? "",
    sso_url: c.saml?.sso_url ?? "",
    certificate: c.saml?.certificate ?? "",
    groups_attribute: c.groups_attribute,
    default_role_id: String(c.default_role_id),
    mappings: c.group_roles.map((m) => ({ group: m.group, role_id: String(m.role_id) })),
  }
}

/** The payload the form describes (checked by `formProblem` before it is sent). */
export const payloadOf = (form: SsoFormValues): unknown => ({
  protocol: form.protocol,
  enabled: form.enabled === "true",
  require_sso: form.require_sso === "true",
  domains: form.domains.split(/[\s,;]+/).map(normalizeDomain).filter((d) => d !== ""),
  ...(form.protocol === "oidc"
    ? { oidc: { issuer: form.issuer.trim(), client_id: form.client_id.trim(), ...(form.client_secret === "" ? {} : { client_secret: form.client_secret }) } }
    : { saml: { idp_entity_id: form.idp_entity_id.trim(), sso_url: form.sso_url.trim(), certificate: form.certificate.trim() } }),
  groups_attribute: form.groups_attribute.trim(),
  default_role_id: Number(form.default_role_id),
  group_roles: form.mappings.map((m) => ({ group: m.group.trim(), role_id: Number(m.role_id) })),
})

/** The first problem the contract finds with the form, in its words (undefined: it can be saved). */
export const formProblem = (form: SsoFormValues): string | undefined => {
  const payload = payloadOf(form) as { domains: ReadonlyArray<string> }
  if (payload.domains.length === 0) return SsoMessages.domainsRequired
  const issues = formErrors(SsoConnectionPayload, payload)
  const first = Object.values(issues)[0]
  return first
}

export interface SsoSettingsContext {
  readonly settings: SsoSettings | undefined
  readonly roles: ReadonlyArray<SsoRoleOption>
  readonly form: SsoFormValues
  readonly error: string | undefined
  /** The server's refusal of a field (a 400's `errors`), shown on it until it is changed. */
  readonly fieldErrors: Partial<Record<SsoField, string>>
}

const SSO_FIELDS: ReadonlyArray<SsoField> = [
  "protocol", "enabled", "require_sso", "domains", "issuer", "client_id", "client_secret",
  "idp_entity_id", "sso_url", "certificate", "groups_attribute", "default_role_id",
]

/** A 400's field errors (`errors: [{ path, message }]`, paths like `saml.certificate`) on the form's fields. */
export const serverSsoFieldErrors = (error: unknown): Partial<Record<SsoField, string>> => {
  const data = toFailure(error).data
  const list = typeof data === "object" && data !== null ? (data as { errors?: unknown }).errors : undefined
  if (!Array.isArray(list)) return {}
  const out: Partial<Record<SsoField, string>> = {}
  for (const item of list) {
    const path = (item as { path?: unknown }).path
    const message = (item as { message?: unknown }).message
    if (typeof path !== "string" || typeof message !== "string") continue
    const field = SSO_FIELDS.find((f) => f === path.replace(/^(saml|oidc)\./, ""))
    if (field !== undefined && out[field] === undefined) out[field] = message
  }
  return out
}

export type SsoSettingsEvent =
  | { readonly type: "settings.retryRequested" }
  | { readonly type: "field.changed"; readonly field: SsoField; readonly value: string }
  | { readonly type: "mapping.added" }
  | { readonly type: "mapping.changed"; readonly index: number; readonly field: "group" | "role_id"; readonly value: string }
  | { readonly type: "mapping.removed"; readonly index: number }
  | { readonly type: "form.submitted" }
  | { readonly type: "connection.removeRequested" }

export const ssoSettingsMachine = setup({
  types: {
    context: {} as SsoSettingsContext,
    events: {} as SsoSettingsEvent,
  },
  actors: {
    /** GET /api/workspaces/{selected}/sso and the workspace's roles. */
    loadSettings: fromPromise<SsoSettingsLoaded, void>(notProvided("loadSettings")),
    /** PUT /api/workspaces/{selected}/sso. */
    saveSettings: fromPromise<SsoSettings, unknown>(notProvided("saveSettings")),
    /** DELETE /api/workspaces/{selected}/sso. */
    removeSettings: fromPromise<SsoSettings, void>(notProvided("removeSettings")),
  },
  guards: {
    /** The form passes the contract's rules. */
    isFormValid: ({ context }) => formProblem(context.form) === undefined,
    /** The workspace has an identity provider to remove. */
    hasConnection: ({ context }) => context.settings?.connection !== null && context.settings !== undefined,
  },
  actions: {
    /** Environment: a toast (supplied at the React boundary). */
    notify: (_, _params: NotifyParams) => {},
    assignLoaded: assign(({ event }) => {
      const loaded = outputOf<SsoSettingsLoaded>(event)
      return { settings: loaded.settings, roles: loaded.roles, form: formOf(loaded.settings), error: undefined, fieldErrors: {} }
    }),
    assignSaved: assign(({ event }) => {
      const settings = outputOf<SsoSettings>(event)
      return { settings, form: formOf(settings), error: undefined, fieldErrors: {} }
    }),
    assignField: assign(({ context, event }) => {
      assertEvent(event, "field.changed")
      const { [event.field]: _changed, ...fieldErrors } = context.fieldErrors
      return { form: { ...context.form, [event.field]: event.value }, error: undefined, fieldErrors }
    }),
    addMapping: assign(({ context }) => ({
      form: { ...context.form, mappings: [...context.form.mappings, { group: "", role_id: context.form.default_role_id }] },
    })),
    changeMapping: assign(({ context, event }) => {
      assertEvent(event, "mapping.changed")
      return {
        form: { ...context.form, mappings: context.form.mappings.map((m, i) => (i === event.index ? { ...m, [event.field]: event.value } : m)) },
        error: undefined,
      }
    }),
    removeMapping: assign(({ context, event }) => {
      assertEvent(event, "mapping.removed")
      return { form: { ...context.form, mappings: context.form.mappings.filter((_, i) => i !== event.index) } }
    }),
    showProblem: assign({ error: ({ context }) => formProblem(context.form) }),
    assignError: assign({ error: ({ event }) => toFailure(errorOf(event), SsoMessages.saveFailed).message, fieldErrors: () => ({}) }),
    assignSaveError: assign({
      error: ({ event }) => toFailure(errorOf(event), SsoMessages.saveFailed).message,
      fieldErrors: ({ event }) => serverSsoFieldErrors(errorOf(event)),
    }),
    assignLoadError: assign({ error: ({ event }) => toFailure(errorOf(event), SsoMessages.loadFailed).message }),
  },
}).createMachine({
  id: "ssoSettings",
  context: { settings: undefined, roles: [], form: EMPTY_FORM, error: undefined, fieldErrors: {} },
  initial: "loading",
  states: {
    loading: {
      description: "The workspace's single-sign-on settings and roles are being read.",
      invoke: {
        src: "loadSettings",
        onDone: { target: "ready", actions: "assignLoaded" },
        onError: { target: "failed", actions: "assignLoadError" },
      },
    },
    failed: {
      description: "The settings could not be read (or the user is not a workspace admin); the reason shows with a retry.",
      on: { "settings.retryRequested": { target: "loading" } },
    },
    ready: {
      description: "The form shows the identity provider, its domains, mappings and the SSO requirement.",
      on: {
        "field.changed": { actions: "assignField" },
        "mapping.added": { actions: "addMapping" },
        "mapping.changed": { actions: "changeMapping" },
        "mapping.removed": { actions: "removeMapping" },
        "form.submitted": [{ guard: "isFormValid", target: "saving" }, { actions: "showProblem" }],
        "connection.removeRequested": { guard: "hasConnection", target: "removing" },
      },
    },
    saving: {
      description: "The settings are being saved.",
      invoke: {
        src: "saveSettings",
        input: ({ context }: { readonly context: SsoSettingsContext }) => payloadOf(context.form),
        onDone: {
          target: "ready",
          actions: ["assignSaved", { type: "notify", params: { kind: "success", message: SsoMessages.saved } }],
        },
        /** Refused or failed: the server's words above the form, and a 400's field errors on their fields. */
        onError: { target: "ready", actions: "assignSaveError" },
      },
    },
    removing: {
      description: "The identity provider is being removed.",
      invoke: {
        src: "removeSettings",
        onDone: {
          target: "ready",
          actions: ["assignSaved", { type: "notify", params: { kind: "success", message: SsoMessages.deleted } }],
        },
        onError: { target: "ready", actions: "assignError" },
      },
    },
  },
})

