/**
 * The add-account wizard (scanning §2 "Add-account wizard", §3 add-account payload, §5 validation, §7 POST
 * /api/accounts, §8 'Account already exists' / 'Failed to add account. Please try again.').
 *
 * Steps:
 * 1. `selectingProvider`: the server's providers (`loadProviders`, cached 5 minutes); only enabled ones can be chosen.
 * 2. `credentials`: account name and the provider's credential fields — AWS access key id + secret access key (+
 *    optional session token) or a role ARN with the workspace's external id shown (`loadExternalId`); GCP service
 *    account key; Azure tenant/client/secret/subscription. 'Test connection' validates with the spec's texts
 *    ('Account name is required', 'Access Key ID is required', 'Secret Access Key is required') and sends the payload
 *    with `test_only: true` (`addAccount`); wrong credentials, 'Account already exists' and 'Failed to add account.
 *    Please try again.' are shown in the wizard.
 *    Beyond the spec (issue 31): step 2 also chooses 'Single account' or 'Organization' (`kind`). An organisation is
 *    onboarded through the same call with `is_organization: true` and its `organization` settings: AWS — the
 *    management (or delegated administrator) account's keys or role and the member role's name (default
 *    DEFAULT_MEMBER_ROLE_NAME), with the CloudFormation template deploying that role (`loadAwsTemplate`, on request,
 *    in the `template` region); GCP — the organisation or folder id and the key; Azure — the management group id and
 *    the app registration (no subscription). Units to include and to leave out (AWS "ou-…" / root "r-…", GCP
 *    "folders/N", Azure management group ids) and member account ids to leave out may be listed, as the server's
 *    selection takes them (an empty include list: every unit); the units can also be chosen on the organisation page,
 *    from its tree, after the first save.
 * 3. `connected`: 'Connection successful!' with OK, which saves (the same call without `test_only`), then finishes
 *    (`saved`, output = the new account and, for an organisation, its summary) so the owner closes the wizard and
 *    refreshes the accounts (or opens the organisation page).
 * `wizard.closed` from any step finishes with no account; the next opening starts again at step 1.
 *
 * Events accepted:
 * - `provider.selected` { providerId } — the user chose a provider in step 1 (only an enabled one moves on to step 2,
 *   with an empty form).
 * - `providers.retryRequested` — the user pressed retry after the providers failed to load: load them again.
 * - `step.back` — the user pressed Back: from step 2 to step 1 (errors cleared), from step 3 to step 2.
 * - `method.changed` { method } — the user switched the AWS credential method (access keys or role ARN); ignored for
 *   other providers.
 * - `kind.changed` { kind } — the user chose 'Single account' or 'Organization' (field errors cleared).
 * - `field.changed` { field, value } — the user edited one field of the form; that field's error is cleared.
 * - `template.requested` — the user asked for the AWS CloudFormation template (an AWS organisation only): it is
 *   fetched for the member role name and the management account id in the form.
 * - `connection.testRequested` — the user pressed 'Test connection': a valid form is sent with `test_only: true`,
 *   an invalid one shows its field errors.
 * - `connection.confirmed` — the user pressed OK on 'Connection successful!': the account is saved.
 * - `wizard.closed` — the user closed the wizard: it finishes with no account.
 */
import { assign, fromPromise, setup } from "xstate"
import {
  validateAddAccount,
  type Account,
  type AddAccountPayload,
  type AddAccountResponse,
  type Credentials,
} from "../contracts/accounts.ts"
import { ProviderIds } from "../contracts/constants.ts"
import type { CloudProviderId } from "../contracts/ids.ts"
import { ScanningMessages, ValidationMessages } from "../contracts/messages.ts"
import {
  AZURE_MANAGEMENT_GROUP_ID,
  DEFAULT_MEMBER_ROLE_NAME,
  GCP_ROOT_ID,
  OrganizationMessages,
  type OrganizationSettings,
  type OrganizationSummary,
} from "../contracts/organizations.ts"
import type { CloudProvider } from "../contracts/providers.ts"
import { toFailure, type NotifyParams } from "./auth-effects.ts"
import { errorOf, outputOf } from "./actor-output.ts"
import type { AwsTemplate } from "./organization-effects.ts"

/** AWS: access keys or a role to assume. */
export type AwsAuthMethod = "keys" | "role"

/** One account, or an organisation whose members become accounts (issue 31). */
export type AccountKind = "account" | "organization"

/** Every field the wizard can show; which ones apply depends on the provider and the AWS method. */
export interface AddAccountForm {
  readonly account_name: string
  readonly access_key: string
  readonly secret_key: string
  readonly session_token: string
  readonly role_arn: string
  readonly service_account_key: string
  readonly tenant_id: string
  readonly client_id: string
  readonly client_secret: string
  readonly subscription_id: string
  /** Organisation: GCP "organizations/N" or "folders/N"; Azure the management group id. */
  readonly root_id: string
  /** AWS organisation: the role assumed in each member. */
  readonly member_role_name: string
  /** Organisation: unit ids to include (empty: every unit), separated by commas, spaces or lines. */
  readonly include_units: string
  /** Organisation: unit ids to leave out, with everything below them. */
  readonly exclude_units: string
  /** Organisation: member account ids to leave out, separated by commas, spaces or lines. */
  readonly exclude_accounts: string
  /** AWS organisation: the management account's id, which the member roles of the CloudFormation template trust (not sent with the account). */
  readonly management_account_id: string
}
export type AddAccountField = keyof AddAccountForm

export const EMPTY_ADD_ACCOUNT_FORM: AddAccountForm = {
  account_name: "",
  access_key: "",
  secret_key: "",
  session_token: "",
  role_arn: "",
  service_account_key: "",
  tenant_id: "",
  client_id: "",
  client_secret: "",
  subscription_id: "",
  root_id: "",
  member_role_name: DEFAULT_MEMBER_ROLE_NAME,
  include_units: "",
  exclude_units: "",
  exclude_accounts: "",
  management_account_id: "",
}

export interface AddAccountContext {
  readonly providers: ReadonlyArray<CloudProvider>
  readonly providerId: CloudProviderId | null
  readonly method: AwsAuthMethod
  readonly kind: AccountKind
  readonly form: AddAccountForm
  /** Keyed like the form (`account_name`, `access_key`, …): the spec's required-field texts. */
  readonly fieldErrors: Readonly<Partial<Record<AddAccountField, string>>>
  /** The wizard-level error (wrong credentials, 'Account already exists', 'Failed to add account…'). */
  readonly error: string | null
  readonly externalId: string | null
  /** The AWS member role's CloudFormation template, once fetched. */
  readonly template: AwsTemplate | null
  readonly templateError: string | null
  readonly saved: Account | null
  readonly savedOrganization: OrganizationSummary | null
}

export type AddAccountEvent =
  | { readonly type: "provider.selected"; readonly providerId: CloudProviderId }
  | { readonly type: "providers.retryRequested" }
  | { readonly type: "step.back" }
  | { readonly type: "method.changed"; readonly method: AwsAuthMethod }
  | { readonly type: "kind.changed"; readonly kind: AccountKind }
  | { readonly type: "field.changed"; readonly field: AddAccountField; readonly value: string }
  | { readonly type: "template.requested" }
  | { readonly type: "connection.testRequested" }
  | { readonly type: "connection.confirmed" }
  | { readonly type: "wizard.closed" }

export interface AddAccountOutput {
  /** The saved account, or null when the wizard was closed first. */
  readonly account: Account | null
  /** The onboarded organisation (issue 31), or null for a single account. */
  readonly organization: OrganizationSummary | null
}

const trimmed = (s: string): string | undefined => (s.trim() === "" ? undefined : s.trim())

type FormContext = Pick<AddAccountContext, "providerId" | "method" | "kind" | "form">

/** The provider's credentials from the form (only the fields that apply; blanks left out; no subscription for an Azure organisation). */
export const credentialsOf = (
  providerId: number | null,
  method: AwsAuthMethod,
  form: AddAccountForm,
  kind: AccountKind = "account",
): Credentials => {
  const pick = (keys: ReadonlyArray<AddAccountField>): Credentials => {
    const out: Record<string, string> = {}
    for (const k of keys) {
      // Surrounding blanks are pasting noise: no credential of these providers starts or ends with one.
      const v = trimmed(form[k])
      if (v !== undefined) out[k] = v
    }
    return out as Credentials
  }
  if (providerId === ProviderIds.AWS) return method === "role" ? pick(["role_arn"]) : pick(["access_key", "secret_key", "session_token"])
  if (providerId === ProviderIds.GCP) return pick(["service_account_key"])
  if (providerId === ProviderIds.Azure)
    return pick(kind === "organization" ? ["tenant_id", "client_id", "client_secret"] : ["tenant_id", "client_id", "client_secret", "subscription_id"])
  return {}
}

/** An AWS account id: 12 digits. */
export const AWS_ACCOUNT_ID = /^\d{12}$/

/** The template request: the role name and the management account's root as the principal the member roles trust. */
export const templateQueryOf = (form: AddAccountForm): { readonly role_name: string; readonly trusted_principal_arn: string } => ({
  role_name: form.member_role_name.trim(),
  trusted_principal_arn: `arn:aws:iam::${form.management_account_id.trim()}:root`,
})

/** Account or unit ids typed into a text box: split on commas, spaces and lines; blanks and repeats dropped. */
export const accountIdsOf = (text: string): ReadonlyArray<string> => [...new Set(text.split(/[\s,;]+/).filter((id) => id !== ""))]

/** The `organization` settings of an organisation's payload: the AWS member role, or the GCP / Azure root. */
export const organizationSettingsOf = (context: Pick<AddAccountContext, "providerId" | "form">): OrganizationSettings => ({
  ...(context.providerId === ProviderIds.AWS
    ? { member_role_name: context.form.member_role_name.trim() }
    : { root_id: context.form.root_id.trim() }),
  include_units: accountIdsOf(context.form.include_units),
  exclude_units: accountIdsOf(context.form.exclude_units),
  include_accounts: [],
  exclude_accounts: accountIdsOf(context.form.exclude_accounts),
})

/** Scanning §3 add-account payload; beyond the spec (issue 31) an organisation's carries `is_organization: true` and its settings. */
export const addAccountPayload = (context: FormContext, testOnly: boolean): AddAccountPayload => ({
  cloud_provider_id: (context.providerId ?? 0) as CloudProviderId,
  account_name: context.form.account_name.trim(),
  is_organization: context.kind === "organization",
  ...(context.kind === "organization" ? { organization: organizationSettingsOf(context) } : {}),
  credentials: credentialsOf(context.providerId, context.method, context.form, context.kind),
  ...(testOnly ? { test_only: true } : {}),
})

/** The organisation fields' texts (issue 31): the AWS member role's name, the GCP / Azure root id. */
const organizationFieldErrors = (context: FormContext): Partial<Record<AddAccountField, string>> => {
  if (context.kind !== "organization") return {}
  const root = context.form.root_id.trim()
  if (context.providerId === ProviderIds.GCP) {
    if (root === "") return { root_id: OrganizationMessages.rootIdRequired }
    return GCP_ROOT_ID.test(root) ? {} : { root_id: OrganizationMessages.rootIdInvalidGcp }
  }
  if (context.providerId === ProviderIds.Azure) {
    if (root === "") return { root_id: OrganizationMessages.rootIdRequired }
    return AZURE_MANAGEMENT_GROUP_ID.test(root) ? {} : { root_id: OrganizationMessages.rootIdInvalidAzure }
  }
  return {}
}

/** Scanning §5 required-field texts for the current step, keyed by form field. */
export const addAccountFieldErrors = (context: FormContext): Partial<Record<AddAccountField, string>> => {
  const payload = addAccountPayload(context, false)
  const raw = validateAddAccount(payload)
  const out: Partial<Record<AddAccountField, string>> = {}
  for (const [path, message] of Object.entries(raw)) {
    const field = path.replace(/^(credentials|organization)\./, "").replace(/\..*$/, "") as AddAccountField
    if (field in EMPTY_ADD_ACCOUNT_FORM && out[field] === undefined) out[field] = message
  }
  Object.assign(out, organizationFieldErrors(context))
  // An Azure organisation is reached through its management group, not one subscription.
  if (context.providerId === ProviderIds.Azure && context.kind === "organization") delete out.subscription_id
  // The role variant: the contract accepts a role ARN in place of keys; a blank one must name the ARN, not the keys.
  if (context.providerId === ProviderIds.AWS && context.method === "role") {
    delete out.access_key
    delete out.secret_key
    if (payload.credentials.role_arn === undefined) out.role_arn = ValidationMessages.roleArnRequired
  }
  return out
}

export const addAccountMachine = setup({
  types: {
    context: {} as AddAccountContext,
    events: {} as AddAccountEvent,
    output: {} as AddAccountOutput,
  },
  actors: {
    /** GET /api/cloud-providers (cached 5 minutes). */
    loadProviders: fromPromise<ReadonlyArray<CloudProvider>, void>(async () => {
      throw new Error("loadProviders is not provided")
    }),
    /** The workspace's external id, shown for an AWS role ARN (null when there is none). */
    loadExternalId: fromPromise<string | null, void>(async () => {
      throw new Error("loadExternalId is not provided")
    }),
    /** POST /api/accounts with the payload: a connection test (`test_only: true`) or the save; answers `ok` with a message. */
    addAccount: fromPromise<AddAccountResponse, AddAccountPayload>(async () => {
      throw new Error("addAccount is not provided")
    }),
    /** GET /api/organizations/aws-template?role_name=: the member role's CloudFormation template and CLI commands. */
    loadAwsTemplate: fromPromise<AwsTemplate, { readonly role_name: string; readonly trusted_principal_arn: string }>(async () => {
      throw new Error("loadAwsTemplate is not provided")
    }),
  },
  guards: {
    /** The chosen provider is one of the server's providers and is enabled. */
    isEnabledProvider: ({ context, event }) =>
      event.type === "provider.selected" && context.providers.some((p) => p.id === event.providerId && p.is_enable),
    /** The form has no field error (account name and the chosen provider's and method's credential fields). */
    isFormValid: ({ context }) => Object.keys(addAccountFieldErrors(context)).length === 0,
    /** The server answered `ok: true`. */
    isAnswerOk: ({ event }) => outputOf<AddAccountResponse>(event).ok,
    /** The chosen provider is AWS (the only one with a choice of credential method). */
    isAws: ({ context }) => context.providerId === ProviderIds.AWS,
    /** An AWS organisation with a valid member role name and management account id: its CloudFormation template can be fetched. */
    canLoadTemplate: ({ context }) =>
      context.providerId === ProviderIds.AWS &&
      context.kind === "organization" &&
      addAccountFieldErrors(context).member_role_name === undefined &&
      AWS_ACCOUNT_ID.test(context.form.management_account_id.trim()),
  },
  actions: {
    assignProviders: assign({ providers: ({ event }) => outputOf<ReadonlyArray<CloudProvider>>(event), error: null }),
    assignProvidersError: assign({
      error: ({ event }) => toFailure(errorOf(event), ScanningMessages.addAccountFailed).message,
    }),
    assignProvider: assign({
      providerId: ({ event }) => (event.type === "provider.selected" ? event.providerId : null),
      method: "keys",
      kind: "account",
      form: EMPTY_ADD_ACCOUNT_FORM,
      fieldErrors: {},
      error: null,
      template: null,
      templateError: null,
    }),
    assignKind: assign({
      kind: ({ context, event }) => (event.type === "kind.changed" ? event.kind : context.kind),
      fieldErrors: {},
      error: null,
    }),
    assignTemplate: assign({ template: ({ event }) => outputOf<AwsTemplate>(event), templateError: null }),
    assignTemplateError: assign({
      templateError: ({ event }) => toFailure(errorOf(event), OrganizationMessages.loadOrganizationFailed).message,
    }),
    assignMethod: assign({
      method: ({ context, event }) => (event.type === "method.changed" ? event.method : context.method),
      fieldErrors: {},
      error: null,
    }),
    assignField: assign(({ context, event }) => {
      if (event.type !== "field.changed") return {}
      const { [event.field]: _cleared, ...rest } = context.fieldErrors
      return { form: { ...context.form, [event.field]: event.value }, fieldErrors: rest }
    }),
    assignFieldErrors: assign({ fieldErrors: ({ context }) => addAccountFieldErrors(context) }),
    clearErrors: assign({ fieldErrors: {}, error: null }),
    assignExternalId: assign({ externalId: ({ event }) => outputOf<string | null>(event) }),
    assignCallError: assign({
      error: ({ event }) => toFailure(errorOf(event), ScanningMessages.addAccountFailed).message,
    }),
    assignNotOk: assign({
      error: ({ event }) => {
        const message = outputOf<AddAccountResponse>(event).message
        return message.trim() === "" ? ScanningMessages.addAccountFailed : message
      },
    }),
    assignSaved: assign(({ event }) => {
      const data = outputOf<AddAccountResponse>(event).data
      return { saved: data.account ?? null, savedOrganization: data.organization ?? null }
    }),
    /** Environment: a toast (supplied at the React boundary). */
    notify: (_, _params: NotifyParams) => {},
  },
}).createMachine({
  id: "addAccount",
  context: {
    providers: [],
    providerId: null,
    method: "keys",
    kind: "account",
    form: EMPTY_ADD_ACCOUNT_FORM,
    fieldErrors: {},
    error: null,
    externalId: null,
    template: null,
    templateError: null,
    saved: null,
    savedOrganization: null,
  },
  initial: "open",
  output: ({ context }) => ({ account: context.saved, organization: context.savedOrganization }),
  states: {
    open: {
      description: "The wizard dialog is open, at one of its three steps; closing it finishes with no account.",
      initial: "loadingProviders",
      on: { "wizard.closed": "closed" },
      states: {
        loadingProviders: {
          description: "The wizard fetches the cloud providers before step 1 can be shown.",
          invoke: {
            id: "loadProviders",
            src: "loadProviders",
            /** The providers arrived: step 1 lists them (only enabled ones can be chosen). */
            onDone: { target: "selectingProvider", actions: "assignProviders" },
            /** The providers could not be loaded: the failure's message (by default 'Failed to add account. Please try again.') with a retry. */
            onError: { target: "providersFailed", actions: "assignProvidersError" },
          },
        },
        providersFailed: {
          description: "The providers could not be loaded: the error is shown with a retry button.",
          on: { "providers.retryRequested": "loadingProviders" },
        },
        /** Step 1. */
        selectingProvider: {
          on: {
            "provider.selected": { guard: "isEnabledProvider", target: "credentials", actions: "assignProvider" },
          },
        },
        /** Step 2. */
        credentials: {
          type: "parallel",
          invoke: {
            id: "loadExternalId",
            src: "loadExternalId",
            /** The workspace's external id arrived: it is shown with the role ARN field. */
            onDone: { actions: "assignExternalId" },
            /** The external id could not be loaded: the form works without it. */
            onError: {},
          },
          on: { "step.back": { target: "selectingProvider", actions: "clearErrors" } },
          states: {
            form: {
              description: "Step 2's form and its connection test.",
              initial: "editing",
              states: {
                editing: {
                  description:
                    "Step 2's form: account name, single account or organisation, the provider's credential fields (and an organisation's settings), with field errors or the server's last error.",
                  on: {
                    "field.changed": { actions: "assignField" },
                    "method.changed": { guard: "isAws", actions: "assignMethod" },
                    "kind.changed": { actions: "assignKind" },
                    "connection.testRequested": [
                      { guard: "isFormValid", target: "testing", actions: "clearErrors" },
                      { actions: "assignFieldErrors" },
                    ],
                  },
                },
                testing: {
                  description: "'Test connection' is sending the payload with `test_only: true`.",
                  invoke: {
                    id: "testConnection",
                    src: "addAccount",
                    input: ({ context }) => addAccountPayload(context, true),
                    /** The test answered: `ok` goes to step 3 ('Connection successful!'); otherwise the server's message (or 'Failed to add account. Please try again.') shows in the form. */
                    onDone: [
                      { guard: "isAnswerOk", target: "#addAccount.open.connected" },
                      { target: "editing", actions: "assignNotOk" },
                    ],
                    /** The test call failed: the failure's message (e.g. 'Account already exists', by default 'Failed to add account. Please try again.') shows in the form. */
                    onError: { target: "editing", actions: "assignCallError" },
                  },
                },
              },
            },
            template: {
              description: "An AWS organisation's CloudFormation template for the member role, fetched on request.",
              initial: "idle",
              states: {
                idle: {
                  description: "No template request is running (the last fetched template, if any, stays shown).",
                  on: { "template.requested": { guard: "canLoadTemplate", target: "loading" } },
                },
                loading: {
                  description: "The template is being fetched for the member role name and management account in the form.",
                  invoke: {
                    id: "loadAwsTemplate",
                    src: "loadAwsTemplate",
                    input: ({ context }) => templateQueryOf(context.form),
                    /** The template arrived: it is shown with its CLI commands, copy and download. */
                    onDone: { target: "idle", actions: "assignTemplate" },
                    /** The template could not be fetched: the failure's message with a retry. */
                    onError: { target: "idle", actions: "assignTemplateError" },
                  },
                },
              },
            },
          },
        },
        /** Step 3: 'Connection successful!' with OK. */
        connected: {
          on: {
            "connection.confirmed": "saving",
            "step.back": "credentials",
          },
        },
        saving: {
          description: "OK was pressed: the account is being saved (the same payload without `test_only`).",
          invoke: {
            id: "saveAccount",
            src: "addAccount",
            input: ({ context }) => addAccountPayload(context, false),
            /** Saved with `ok`: a toast carries the server's message and the wizard finishes with the new account; otherwise back to step 2 with the server's message (or 'Failed to add account. Please try again.'). */
            onDone: [
              {
                guard: "isAnswerOk",
                target: "#addAccount.saved",
                actions: [
                  "assignSaved",
                  { type: "notify", params: ({ event }) => ({ kind: "success", message: event.output.message }) },
                ],
              },
              { target: "credentials", actions: "assignNotOk" },
            ],
            /** The save failed: back to step 2 with the failure's message (e.g. 'Account already exists', by default 'Failed to add account. Please try again.'). */
            onError: { target: "credentials", actions: "assignCallError" },
          },
        },
      },
    },
    saved: { type: "final", description: "The account was saved: the wizard finishes with it, so its owner closes the wizard and refreshes the accounts." },
    closed: { type: "final", description: "The wizard was closed without saving: it finishes with no account." },
  },
})
