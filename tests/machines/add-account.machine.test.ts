import { describe, expect, it } from "vitest"
import { createActor, SimulatedClock } from "xstate"
import type { AddAccountPayload, AddAccountResponse } from "../../src/contracts/accounts.ts"
import type { CloudProviderId } from "../../src/contracts/ids.ts"
import type { CloudProvider } from "../../src/contracts/providers.ts"
import {
  accountIdsOf,
  addAccountFieldErrors,
  addAccountMachine,
  addAccountPayload,
  EMPTY_ADD_ACCOUNT_FORM,
} from "../../src/machines/add-account.machine.ts"
import type { AwsTemplate } from "../../src/machines/organization-effects.ts"
import { coverTransitions, formatCoverage } from "../support/graph.ts"
import { awsTemplate, organizationSummary, sync } from "./organization-fakes.ts"
import { controlled, httpFailure, never } from "./auth-fakes.ts"
import { account, environment, providers } from "./scan-fakes.ts"

const AWS = 1 as CloudProviderId
const GCP = 2 as CloudProviderId
const AZURE = 3 as CloudProviderId

const start = () => {
  const loadProviders = controlled<void, ReadonlyArray<CloudProvider>>()
  const loadExternalId = controlled<void, string | null>()
  const addAccount = controlled<AddAccountPayload, AddAccountResponse>()
  const loadAwsTemplate = controlled<{ readonly role_name: string; readonly trusted_principal_arn: string }, AwsTemplate>()
  const env = environment()
  const actor = createActor(
    addAccountMachine.provide({
      actors: { loadProviders: loadProviders.logic, loadExternalId: loadExternalId.logic, addAccount: addAccount.logic, loadAwsTemplate: loadAwsTemplate.logic },
      actions: { notify: env.notify },
    }),
    { clock: new SimulatedClock() },
  ).start()
  return { actor, loadProviders, loadExternalId, addAccount, loadAwsTemplate, env }
}

const fill = (actor: ReturnType<typeof start>["actor"], values: Partial<typeof EMPTY_ADD_ACCOUNT_FORM>) => {
  for (const [field, value] of Object.entries(values)) actor.send({ type: "field.changed", field: field as keyof typeof EMPTY_ADD_ACCOUNT_FORM, value })
}

const tested: AddAccountResponse = { ok: true, message: "Connection successful!", data: { tested: true } }
const savedAnswer: AddAccountResponse = { ok: true, message: "Account added successfully", data: { account: account(5), tested: true } }

describe("add-account machine", () => {
  it("drives every (state, event) edge", async () => {
    const provided = addAccountMachine.provide({
      actors: { loadProviders: never(), loadExternalId: never(), addAccount: never(), loadAwsTemplate: never() },
    })
    const coverage = await coverTransitions(provided, {
      createActor: (clock) => createActor(provided, { clock }),
      events: [
        { type: "xstate.done.actor.loadProviders", output: providers },
        { type: "xstate.error.actor.loadProviders", error: httpFailure("dashboard-load", 500) },
        { type: "provider.selected", providerId: AWS },
        { type: "provider.selected", providerId: GCP },
        { type: "method.changed", method: "role" },
        { type: "field.changed", field: "account_name", value: "Prod" },
        { type: "field.changed", field: "access_key", value: "AKIAX" },
        { type: "field.changed", field: "secret_key", value: "secret" },
        { type: "field.changed", field: "role_arn", value: "arn:aws:iam::123456789012:role/Audit" },
        { type: "method.changed", method: "keys" },
        { type: "kind.changed", kind: "organization" },
        { type: "kind.changed", kind: "account" },
        { type: "field.changed", field: "member_role_name", value: "not a role name!" },
        { type: "field.changed", field: "management_account_id", value: "123456789012" },
        { type: "template.requested" },
        { type: "xstate.done.actor.loadAwsTemplate", output: awsTemplate },
        { type: "xstate.error.actor.loadAwsTemplate", error: httpFailure("generic", 403, { message: "Permission denied" }) },
        { type: "xstate.done.actor.loadExternalId", output: "ext-123" },
        { type: "xstate.error.actor.loadExternalId", error: httpFailure("generic", 500) },
        { type: "xstate.done.actor.testConnection", output: tested },
        { type: "xstate.done.actor.testConnection", output: { ...tested, ok: false } },
        { type: "xstate.error.actor.testConnection", error: httpFailure("account-add", 401, { message: "Invalid credentials" }) },
        { type: "xstate.done.actor.saveAccount", output: savedAnswer },
        { type: "xstate.done.actor.saveAccount", output: { ...savedAnswer, ok: false } },
        { type: "xstate.error.actor.saveAccount", error: httpFailure("account-add", 409) },
      ],
      // Whether 'Test connection' goes ahead depends on the form: the state is its value plus the provider, the method
      // and which required fields still miss (a finite set), so the graph reaches testing, connected and saving.
      serializeState: (s) =>
        JSON.stringify([
          s.value,
          s.context.providerId,
          s.context.method,
          s.context.kind,
          s.context.form.management_account_id !== "",
          Object.keys(addAccountFieldErrors(s.context)).sort(),
        ]),
    })
    console.info(formatCoverage("addAccount", coverage))
    expect(coverage.missing).toEqual([])
    expect(coverage.driven).toBe(coverage.total)
  })

  it("walks provider → credentials → test → 'Connection successful!' → OK saves and finishes with the account", async () => {
    const { actor, loadProviders, addAccount, env } = start()
    try {
      await loadProviders.resolve(providers)
      expect(actor.getSnapshot().value).toEqual({ open: "selectingProvider" })
      // GCP is not enabled on this server: it cannot be chosen.
      actor.send({ type: "provider.selected", providerId: GCP })
      expect(actor.getSnapshot().value).toEqual({ open: "selectingProvider" })
      actor.send({ type: "provider.selected", providerId: AWS })
      expect(actor.getSnapshot().value).toEqual({ open: { credentials: { form: "editing", template: "idle" } } })

      actor.send({ type: "connection.testRequested" })
      expect(actor.getSnapshot().context.fieldErrors).toEqual({
        account_name: "Account name is required",
        access_key: "Access Key ID is required",
        secret_key: "Secret Access Key is required",
      })
      expect(addAccount.calls).toEqual([])

      fill(actor, { account_name: "  Production ", access_key: "AKIAX", secret_key: "secret" })
      expect(actor.getSnapshot().context.fieldErrors).toEqual({})
      actor.send({ type: "connection.testRequested" })
      expect(actor.getSnapshot().value).toEqual({ open: { credentials: { form: "testing", template: "idle" } } })
      expect(addAccount.calls[0]).toEqual({
        cloud_provider_id: 1,
        account_name: "Production",
        is_organization: false,
        credentials: { access_key: "AKIAX", secret_key: "secret" },
        test_only: true,
      })
      await addAccount.resolve(tested)
      expect(actor.getSnapshot().value).toEqual({ open: "connected" })

      actor.send({ type: "connection.confirmed" })
      expect(addAccount.calls[1]).toEqual({
        cloud_provider_id: 1,
        account_name: "Production",
        is_organization: false,
        credentials: { access_key: "AKIAX", secret_key: "secret" },
      })
      await addAccount.resolve(savedAnswer)
      expect(actor.getSnapshot().status).toBe("done")
      expect(actor.getSnapshot().output).toEqual({ account: savedAnswer.data.account, organization: null })
      expect(env.toasts).toEqual([{ kind: "success", message: "Account added successfully" }])
    } finally {
      actor.stop()
    }
  })

  it("shows wrong credentials, 'Account already exists' and the fallback in the wizard", async () => {
    const { actor, loadProviders, addAccount } = start()
    try {
      await loadProviders.resolve(providers)
      actor.send({ type: "provider.selected", providerId: AWS })
      fill(actor, { account_name: "Prod", access_key: "AKIAX", secret_key: "wrong" })
      actor.send({ type: "connection.testRequested" })
      await addAccount.reject(
        httpFailure("account-add", 401, { _tag: "Unauthorized", message: "Invalid cloud provider credentials. Please check the access key ID and secret access key." }),
      )
      expect(actor.getSnapshot().value).toEqual({ open: { credentials: { form: "editing", template: "idle" } } })
      expect(actor.getSnapshot().context.error).toBe(
        "Invalid cloud provider credentials. Please check the access key ID and secret access key.",
      )

      actor.send({ type: "connection.testRequested" })
      await addAccount.resolve(tested)
      actor.send({ type: "connection.confirmed" })
      await addAccount.reject(httpFailure("account-add", 409, { message: "duplicate" }))
      expect(actor.getSnapshot().value).toEqual({ open: { credentials: { form: "editing", template: "idle" } } })
      expect(actor.getSnapshot().context.error).toBe("Account already exists")

      actor.send({ type: "connection.testRequested" })
      await addAccount.reject(httpFailure("account-add", 500))
      expect(actor.getSnapshot().context.error).toBe("Failed to add account. Please try again.")
    } finally {
      actor.stop()
    }
  })

  it("role access: asks for the role ARN instead of keys and shows the workspace's external id", async () => {
    const { actor, loadProviders, loadExternalId, addAccount } = start()
    try {
      await loadProviders.resolve(providers)
      actor.send({ type: "provider.selected", providerId: AWS })
      await loadExternalId.resolve("cloud-audit-ws-42")
      expect(actor.getSnapshot().context.externalId).toBe("cloud-audit-ws-42")
      actor.send({ type: "method.changed", method: "role" })
      fill(actor, { account_name: "Prod" })
      actor.send({ type: "connection.testRequested" })
      expect(actor.getSnapshot().context.fieldErrors).toEqual({ role_arn: "Role ARN is required" })
      fill(actor, { role_arn: "arn:aws:iam::123456789012:role/Audit", access_key: "ignored" })
      actor.send({ type: "connection.testRequested" })
      expect(addAccount.calls[0]?.credentials).toEqual({ role_arn: "arn:aws:iam::123456789012:role/Audit" })
    } finally {
      actor.stop()
    }
  })

  it("closing finishes without an account from any step; step.back returns to the provider list", async () => {
    const { actor, loadProviders } = start()
    try {
      await loadProviders.resolve(providers)
      actor.send({ type: "provider.selected", providerId: AWS })
      fill(actor, { account_name: "Prod" })
      actor.send({ type: "step.back" })
      expect(actor.getSnapshot().value).toEqual({ open: "selectingProvider" })
      actor.send({ type: "provider.selected", providerId: AWS })
      // Choosing a provider again starts from an empty form.
      expect(actor.getSnapshot().context.form.account_name).toBe("")
      actor.send({ type: "wizard.closed" })
      expect(actor.getSnapshot().status).toBe("done")
      expect(actor.getSnapshot().output).toEqual({ account: null, organization: null })
    } finally {
      actor.stop()
    }
  })

  it("an AWS organisation: the member role's template on request, then onboarding with is_organization and its settings (issue 31)", async () => {
    const { actor, loadProviders, addAccount, loadAwsTemplate, env } = start()
    try {
      await loadProviders.resolve(providers)
      actor.send({ type: "provider.selected", providerId: AWS })
      expect(actor.getSnapshot().can({ type: "template.requested" })).toBe(false)
      actor.send({ type: "kind.changed", kind: "organization" })
      expect(actor.getSnapshot().context.form.member_role_name).toBe("CloudAuditMemberRole")

      // An invalid role name is refused before any call, with the contract's text.
      fill(actor, { member_role_name: "not a role!" })
      expect(actor.getSnapshot().can({ type: "template.requested" })).toBe(false)
      actor.send({ type: "connection.testRequested" })
      expect(actor.getSnapshot().context.fieldErrors.member_role_name).toBe("Role names use 1 to 64 letters, digits and + = , . @ _ -")

      fill(actor, { member_role_name: " AuditRole " })
      // The member roles trust the management account: without its id there is no template to ask for.
      expect(actor.getSnapshot().can({ type: "template.requested" })).toBe(false)
      fill(actor, { management_account_id: "12345" })
      expect(actor.getSnapshot().can({ type: "template.requested" })).toBe(false)
      fill(actor, { management_account_id: " 111111111111 " })
      actor.send({ type: "template.requested" })
      expect(actor.getSnapshot().value).toEqual({ open: { credentials: { form: "editing", template: "loading" } } })
      expect(loadAwsTemplate.calls).toEqual([{ role_name: "AuditRole", trusted_principal_arn: "arn:aws:iam::111111111111:root" }])
      await loadAwsTemplate.reject(httpFailure("generic", 403, { message: "Permission denied" }))
      expect(actor.getSnapshot().context.templateError).toBe("Permission denied")
      actor.send({ type: "template.requested" })
      await loadAwsTemplate.resolve(awsTemplate)
      expect(actor.getSnapshot().context.template?.cli_commands).toContain("aws cloudformation")
      expect(actor.getSnapshot().context.templateError).toBeNull()

      fill(actor, {
        account_name: "Acme", access_key: "AKIAX", secret_key: "secret", exclude_accounts: "111111111111, 222222222222\n111111111111",
        include_units: "ou-prod-1111, ou-web-2222 ou-prod-1111", exclude_units: " ou-dev-3333 ",
      })
      actor.send({ type: "connection.testRequested" })
      expect(addAccount.calls[0]).toEqual({
        cloud_provider_id: 1,
        account_name: "Acme",
        is_organization: true,
        organization: {
          member_role_name: "AuditRole",
          include_units: ["ou-prod-1111", "ou-web-2222"],
          exclude_units: ["ou-dev-3333"],
          include_accounts: [],
          exclude_accounts: ["111111111111", "222222222222"],
        },
        credentials: { access_key: "AKIAX", secret_key: "secret" },
        test_only: true,
      })
      await addAccount.resolve(tested)
      actor.send({ type: "connection.confirmed" })
      const organization = organizationSummary()
      await addAccount.resolve({ ok: true, message: "Organization added", data: { account: account(7), organization, sync: sync(1, { trigger: "onboard" }) } })
      expect(actor.getSnapshot().output).toEqual({ account: account(7), organization })
      expect(env.toasts).toEqual([{ kind: "success", message: "Organization added" }])
    } finally {
      actor.stop()
    }
  })

  it("GCP and Azure organisations name their root; an Azure organisation needs no subscription", () => {
    const gcp = { providerId: GCP, method: "keys" as const, kind: "organization" as const, form: { ...EMPTY_ADD_ACCOUNT_FORM, account_name: "Org" } }
    expect(addAccountFieldErrors(gcp).root_id).toBe("Enter the organization, folder or management group id")
    expect(addAccountFieldErrors({ ...gcp, form: { ...gcp.form, root_id: "projects/1" } }).root_id).toBe(
      "Enter an organization id (organizations/123) or a folder id (folders/456)",
    )
    const gcpPayload = addAccountPayload({ ...gcp, form: { ...gcp.form, root_id: " folders/456 ", service_account_key: "{}" } }, false)
    expect(gcpPayload.organization).toEqual({ root_id: "folders/456", include_units: [], exclude_units: [], include_accounts: [], exclude_accounts: [] })
    expect(gcpPayload.credentials).toEqual({ service_account_key: "{}" })

    const azure = {
      providerId: AZURE,
      method: "keys" as const,
      kind: "organization" as const,
      form: { ...EMPTY_ADD_ACCOUNT_FORM, account_name: "Tenant", tenant_id: "t", client_id: "c", client_secret: "s", subscription_id: "ignored" },
    }
    expect(addAccountFieldErrors({ ...azure, form: { ...azure.form, root_id: "bad group!" } })).toEqual({ root_id: "Enter a management group id" })
    const ready = { ...azure, form: { ...azure.form, root_id: "mg-root" } }
    expect(addAccountFieldErrors(ready)).toEqual({})
    expect(addAccountPayload(ready, false).credentials).toEqual({ tenant_id: "t", client_id: "c", client_secret: "s" })
    // A single Azure account still needs its subscription.
    expect(addAccountFieldErrors({ ...ready, kind: "account", form: { ...ready.form, subscription_id: "" } }).subscription_id).toBe("Subscription ID is required")
    expect(accountIdsOf(" a,b;\n c  a ")).toEqual(["a", "b", "c"])
  })
})
