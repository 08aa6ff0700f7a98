import { describe, expect, it } from "vitest"
import { createActor, SimulatedClock } from "xstate"
import { SsoMessages, type SsoSettings } from "../../src/contracts/sso.ts"
import type { NotifyParams } from "../../src/machines/auth-effects.ts"
import { formProblem, payloadOf, ssoSettingsMachine, type SsoSettingsLoaded } from "../../src/machines/sso-settings.machine.ts"
import { coverTransitions, formatCoverage } from "../support/graph.ts"
import { controlled, httpFailure, never } from "./auth-fakes.ts"

const sp = {
  oidc_redirect_uri: "https://audit.example/api/sso/oidc/callback",
  saml_acs_url: "https://audit.example/api/sso/saml/acs",
  saml_entity_id: "https://audit.example/api/sso/saml/1/metadata",
  saml_metadata_url: "https://audit.example/api/sso/saml/1/metadata",
}
const none: SsoSettings = { connection: null, service_provider: sp }
const saved: SsoSettings = {
  connection: {
    protocol: "oidc", enabled: true, require_sso: true, domains: ["corp.example"],
    oidc: { issuer: "https://idp.corp.example", client_id: "audit", client_secret_set: true }, saml: null,
    groups_attribute: "groups", default_role_id: 3 as never, group_roles: [{ group: "security", role_id: 2 as never }],
    updated_at: "2026-11-27T17:00:00.000Z", updated_by: "Ada Lovelace",
  },
  service_provider: sp,
}
/** The server's 400 for a certificate that does not parse as X.509. */
const certificateRefusal = httpFailure("generic", 400, {
  _tag: "ValidationError",
  message: SsoMessages.certificateUnreadable,
  errors: [{ path: "saml.certificate", message: SsoMessages.certificateUnreadable }],
})
const loaded = (settings: SsoSettings): SsoSettingsLoaded => ({ settings, roles: [{ id: 2, name: "Security Engineer" }, { id: 3, name: "Auditor" }] })

const start = () => {
  const load = controlled<void, SsoSettingsLoaded>()
  const save = controlled<unknown, SsoSettings>()
  const remove = controlled<void, SsoSettings>()
  const toasts: NotifyParams[] = []
  const actor = createActor(
    ssoSettingsMachine.provide({
      actors: { loadSettings: load.logic, saveSettings: save.logic, removeSettings: remove.logic },
      actions: { notify: (_, params) => void toasts.push(params) },
    }),
    { clock: new SimulatedClock() },
  ).start()
  return { actor, load, save, remove, toasts }
}

describe("sso-settings machine: transition coverage", () => {
  it("drives every (state, event) edge", async () => {
    const provided = ssoSettingsMachine.provide({ actors: { loadSettings: never(), saveSettings: never(), removeSettings: never() } })
    const coverage = await coverTransitions(provided, {
      createActor: (clock) => createActor(provided, { clock }),
      events: [
        { type: "xstate.done.actor.0.ssoSettings.loading", output: loaded(saved) },
        { type: "xstate.error.actor.0.ssoSettings.loading", error: httpFailure("generic", 403, { message: SsoMessages.permissionDenied }) },
        { type: "settings.retryRequested" },
        { type: "field.changed", field: "domains", value: "corp.example" },
        { type: "mapping.added" },
        { type: "mapping.changed", index: 0, field: "group", value: "admins" },
        { type: "mapping.removed", index: 0 },
        { type: "form.submitted" },
        { type: "connection.removeRequested" },
        { type: "xstate.done.actor.0.ssoSettings.saving", output: saved },
        { type: "xstate.error.actor.0.ssoSettings.saving", error: httpFailure("generic", 409, { message: SsoMessages.domainTaken }) },
        { type: "xstate.error.actor.0.ssoSettings.saving", error: certificateRefusal },
        { type: "xstate.done.actor.0.ssoSettings.removing", output: none },
        { type: "xstate.error.actor.0.ssoSettings.removing", error: httpFailure("generic", 500) },
      ],
    })
    console.info(formatCoverage("ssoSettings", coverage))
    expect(coverage.missing).toEqual([])
    expect(coverage.driven).toBe(coverage.total)
    expect(coverage.total).toBeGreaterThanOrEqual(13)
  })
})

describe("sso-settings machine: behaviour", () => {
  it("shows the server's refusal of the certificate on its field until it is changed", async () => {
    const { actor, load, save } = start()
    try {
      await load.resolve(loaded(none))
      actor.send({ type: "field.changed", field: "protocol", value: "saml" })
      actor.send({ type: "field.changed", field: "domains", value: "corp.example" })
      actor.send({ type: "field.changed", field: "idp_entity_id", value: "https://idp.corp.example/saml" })
      actor.send({ type: "field.changed", field: "sso_url", value: "https://idp.corp.example/sso" })
      actor.send({ type: "field.changed", field: "certificate", value: "-----BEGIN CERTIFICATE-----\nMIIBroken\n-----END CERTIFICATE-----" })
      actor.send({ type: "form.submitted" })
      expect(save.calls).toHaveLength(1)
      await save.reject(certificateRefusal)
      expect(actor.getSnapshot().context.fieldErrors).toEqual({ certificate: SsoMessages.certificateUnreadable })
      expect(actor.getSnapshot().context.form.certificate).toContain("MIIBroken")
      // Another field keeps it; changing the certificate clears it.
      actor.send({ type: "field.changed", field: "sso_url", value: "https://idp.corp.example/sso2" })
      expect(actor.getSnapshot().context.fieldErrors.certificate).toBe(SsoMessages.certificateUnreadable)
      actor.send({ type: "field.changed", field: "certificate", value: "" })
      expect(actor.getSnapshot().context.fieldErrors).toEqual({})
    } finally {
      actor.stop()
    }
  })

  it("shows the saved connection in the form, the secret left empty (kept by the server)", async () => {
    const { actor, load } = start()
    try {
      await load.resolve(loaded(saved))
      const { form } = actor.getSnapshot().context
      expect(form).toMatchObject({ protocol: "oidc", domains: "corp.example", issuer: "https://idp.corp.example", client_secret: "", require_sso: "true" })
      expect(form.mappings).toEqual([{ group: "security", role_id: "2" }])
      expect(payloadOf(form)).toEqual({
        protocol: "oidc", enabled: true, require_sso: true, domains: ["corp.example"],
        oidc: { issuer: "https://idp.corp.example", client_id: "audit" }, groups_attribute: "groups", default_role_id: 3,
        group_roles: [{ group: "security", role_id: 2 }],
      })
    } finally {
      actor.stop()
    }
  })

  it("refuses a form without domains or with a bad issuer in the contract's words, then saves a good one", async () => {
    const { actor, load, save, toasts } = start()
    try {
      await load.resolve(loaded(none))
      actor.send({ type: "form.submitted" })
      expect(actor.getSnapshot().value).toBe("ready")
      expect(actor.getSnapshot().context.error).toBe(SsoMessages.domainsRequired)
      actor.send({ type: "field.changed", field: "domains", value: "Corp.Example, @sub.corp.example" })
      actor.send({ type: "field.changed", field: "issuer", value: "not a url" })
      actor.send({ type: "form.submitted" })
      expect(actor.getSnapshot().context.error).toBe(SsoMessages.issuerInvalid)
      expect(save.calls).toEqual([])
      actor.send({ type: "field.changed", field: "issuer", value: "https://idp.corp.example" })
      actor.send({ type: "field.changed", field: "client_id", value: "audit" })
      actor.send({ type: "field.changed", field: "client_secret", value: "s3cret" })
      actor.send({ type: "mapping.added" })
      actor.send({ type: "mapping.changed", index: 0, field: "group", value: "security" })
      actor.send({ type: "mapping.changed", index: 0, field: "role_id", value: "2" })
      expect(formProblem(actor.getSnapshot().context.form)).toBeUndefined()
      actor.send({ type: "form.submitted" })
      expect(actor.getSnapshot().value).toBe("saving")
      expect(save.calls[0]).toMatchObject({ domains: ["corp.example", "sub.corp.example"], group_roles: [{ group: "security", role_id: 2 }] })
      await save.resolve(saved)
      expect(actor.getSnapshot().value).toBe("ready")
      expect(actor.getSnapshot().context.form.client_secret).toBe("")
      expect(toasts).toEqual([{ kind: "success", message: SsoMessages.saved }])
    } finally {
      actor.stop()
    }
  })

  it("shows the server's refusal (a domain another workspace owns) and keeps the form as typed", async () => {
    const { actor, load, save } = start()
    try {
      await load.resolve(loaded(saved))
      actor.send({ type: "field.changed", field: "domains", value: "taken.example" })
      actor.send({ type: "form.submitted" })
      await save.reject(httpFailure("generic", 409, { message: `${SsoMessages.domainTaken}: taken.example` }))
      expect(actor.getSnapshot().context.error).toBe(`${SsoMessages.domainTaken}: taken.example`)
      expect(actor.getSnapshot().context.form.domains).toBe("taken.example")
    } finally {
      actor.stop()
    }
  })

  it("removes the connection; nothing to remove when there is none", async () => {
    const { actor, load } = start()
    try {
      await load.resolve(loaded(none))
      expect(actor.getSnapshot().can({ type: "connection.removeRequested" })).toBe(false)
    } finally {
      actor.stop()
    }
    const second = start()
    try {
      await second.load.resolve(loaded(saved))
      second.actor.send({ type: "connection.removeRequested" })
      await second.remove.resolve(none)
      expect(second.actor.getSnapshot().context.settings?.connection).toBeNull()
      expect(second.toasts).toEqual([{ kind: "success", message: SsoMessages.deleted }])
    } finally {
      second.actor.stop()
    }
  })

  it("a 403 on load says only admins configure SSO, and retry loads again", async () => {
    const { actor, load } = start()
    try {
      await load.reject(httpFailure("generic", 403, { message: SsoMessages.permissionDenied }))
      expect(actor.getSnapshot().value).toBe("failed")
      expect(actor.getSnapshot().context.error).toBe(SsoMessages.permissionDenied)
      actor.send({ type: "settings.retryRequested" })
      expect(actor.getSnapshot().value).toBe("loading")
      expect(load.calls).toHaveLength(2)
    } finally {
      actor.stop()
    }
  })
})
