/**
 * The `accounts` group (scanning §7): list per provider, detail (secret masked), add (tests the connection with STS
 * GetCallerIdentity, then seals and saves), delete (scans and findings go with it) and the audited secret reveal.
 *
 * GCP (service-account key) and Azure (tenant, client id, client secret, subscription) go through the same steps with
 * their engines' connection tests (server/accounts/connection-test.ts `testCloudConnection`); the project id / the
 * subscription id becomes the account's cloud-side id. The detail's `credential_data` carries the spec's AWS fields
 * for AWS only and the provider's own identifiers otherwise (`credentialData` in server/accounts/accounts-store.ts).
 *
 * `GET /api/accounts/external-id` (beyond the spec, create_account) answers the workspace's AWS external id, created on
 * first use by `externalIdFor`, so the wizard can show it before the role is set up.
 *
 * Add account, in three steps so no database transaction is held open during the network call:
 *   1. permission + provider + external id (short RLS transaction);
 *   2. connection test (STS) → the cloud account id; wrong credentials → 401 `Unauthorized` with
 *      `data.error_type = "cloud_credentials_invalid"`, unreachable → 503;
 *   3. seal the credentials with (workspace, reserved account id) as associated data and insert; the same cloud account
 *      twice in a workspace → 409 'Account already exists'. `test_only: true` stops after step 2.
 */
import { Effect, Layer } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../../src/contracts/api.ts"
import { AccountGroupMessages } from "../../src/contracts/account-groups.ts"
import type { AddAccountPayload } from "../../src/contracts/accounts.ts"
import { ProviderIds } from "../../src/contracts/constants.ts"
import { Conflict, Forbidden, NotFound, ServiceUnavailable, Unauthorized, ValidationError } from "../../src/contracts/errors.ts"
import { ScanningMessages, ScanningServerMessages, ValidationMessages } from "../../src/contracts/messages.ts"
import {
  deleteAccount,
  externalIdFor,
  getAccountDetail,
  getAccountSummary,
  insertAccount,
  listAccounts,
  loadSealedAccount,
  reserveAccountId,
} from "../accounts/accounts-store.ts"
import { credentialsForProvider, testCloudConnection } from "../accounts/connection-test.ts"
import { normalizeCredentials, openCredentials, sealCredentials } from "../accounts/credential-vault.ts"
import { providerEnabled } from "../accounts/providers.ts"
import { AuthConfigFromApp } from "../auth/identity-layer.ts"
import { AppConfig } from "../config.ts"
import { logLine } from "../log.ts"
import { MANAGE_ACCOUNTS, READ, scoped } from "./middleware/scanning-access.ts"
import { recordAudit } from "../audit/scanning-audit.ts"
import { cancelJobs } from "../scans/launch.ts"
import { RUN_SERVICE_JOB } from "../scans/run-service.ts"
import { addOrganization } from "./organizations.ts"

const invalid = (message: string, path: string) => new ValidationError({ message, errors: [{ path, message }] })

/** The refused-credentials text names the credentials of the provider the user filled in. */
const credentialsInvalidText = (cloudProviderId: number): string =>
  cloudProviderId === ProviderIds.GCP
    ? ScanningServerMessages.cloudCredentialsInvalidGcp
    : cloudProviderId === ProviderIds.Azure
      ? ScanningServerMessages.cloudCredentialsInvalidAzure
      : ScanningServerMessages.cloudCredentialsInvalid

const addAccount = (request: Parameters<typeof scoped>[0], payload: AddAccountPayload) =>
  Effect.gen(function* () {
    const config = yield* AppConfig
    // 1. Permission, provider and the workspace's external id.
    const prepared = yield* scoped(request, MANAGE_ACCOUNTS, (ctx) =>
      Effect.gen(function* () {
        // A role limited to account groups cannot add accounts (row-level security would refuse the row anyway: a new
        // account is in no group the member's scope allows). docs/permissions.md "Account groups".
        if (ctx.accountIds !== null) return yield* new Forbidden({ message: AccountGroupMessages.limitedCannotAddAccounts })
        if (!providerEnabled(payload.cloud_provider_id)) {
          return yield* invalid(ValidationMessages.invalidCloudProvider, "cloud_provider_id")
        }
        const credentials = credentialsForProvider(payload.cloud_provider_id, normalizeCredentials(payload.credentials))
        if (payload.cloud_provider_id !== ProviderIds.AWS) {
          // GCP / Azure: the provider's own fields only (no AWS role, no external id).
        } else if (credentials.role_arn !== undefined) {
          const externalId = yield* externalIdFor(ctx.workspaceId)
          if (credentials.external_id !== undefined && credentials.external_id !== externalId) {
            return yield* invalid(ScanningServerMessages.externalIdChosen, "credentials.external_id")
          }
          credentials.external_id = externalId
        } else {
          delete credentials.external_id
        }
        return { credentials, workspaceId: ctx.workspaceId }
      }))
    const { credentials } = prepared

    // 2. Connection test (no transaction open).
    const identity = yield* testCloudConnection(payload.cloud_provider_id, credentials, { awsEndpoint: config.awsEndpointUrl }).pipe(
      Effect.catchTag("ConnectionTestFailed", (failure): Effect.Effect<never, Unauthorized | ValidationError | ServiceUnavailable> => {
        logLine("info", "account connection test failed", { reason: failure.reason, detail: failure.message })
        switch (failure.reason) {
          case "invalid_credentials":
            return Effect.fail(
              new Unauthorized({ message: credentialsInvalidText(payload.cloud_provider_id), data: { error_type: "cloud_credentials_invalid" } }),
            )
          case "role_needs_base_credentials":
            return Effect.fail(invalid(failure.message, "credentials.role_arn"))
          case "invalid_input":
            return Effect.fail(invalid(failure.message, failure.path ?? "credentials"))
          default:
            return Effect.fail(new ServiceUnavailable({ message: failure.message }))
        }
      }),
    )
    if (payload.test_only === true) {
      return { ok: true, message: ScanningMessages.connectionSuccessful, data: { tested: true } }
    }

    // 3. Seal and save (the workspace is re-checked: the caller may have lost access meanwhile).
    return yield* scoped(request, MANAGE_ACCOUNTS, (ctx) =>
      Effect.gen(function* () {
        const id = yield* reserveAccountId()
        const sealed = sealCredentials(config.appSecretKey, credentials, { workspaceId: ctx.workspaceId, accountId: id })
        const inserted = yield* insertAccount({
          id,
          workspaceId: ctx.workspaceId,
          cloudProviderId: payload.cloud_provider_id,
          accountName: payload.account_name.trim(),
          cloudAccountId: identity.accountId,
          principalArn: identity.principal === "" ? null : identity.principal,
          authMethod: credentials.role_arn !== undefined ? "role" : "access_key",
          // AWS access key id, GCP client e-mail, Azure client id: the detail shows it next to the masked secret.
          accessKeyId: identity.publicKeyId,
          tenantId: identity.tenantId,
          credentialsSealed: sealed,
          createdBy: ctx.userId,
        })
        if (!inserted) return yield* new Conflict({ message: ScanningMessages.accountAlreadyExists, data: { error_type: "account_exists" } })
        yield* recordAudit({
          action: "account.created",
          workspaceId: ctx.workspaceId,
          actorUserId: ctx.userId,
          targetType: "account",
          targetId: id,
          details: { account_name: payload.account_name.trim(), cloud_account_id: identity.accountId, cloud_provider_id: payload.cloud_provider_id },
          ip: ctx.ip,
        })
        const account = yield* getAccountSummary(ctx.workspaceId, id)
        return { ok: true, message: ScanningServerMessages.accountAdded, data: { account: account!, tested: true } }
      }))
  })

export const AccountsHandlers = HttpApiBuilder.group(Api, "accounts", (handlers) =>
  handlers
    .handle("list", ({ request, query }) =>
      scoped(request, READ, (ctx) =>
        Effect.map(listAccounts(ctx.workspaceId, query.cloud_provider_id), (accounts) => ({ ok: true, data: { accounts } }))))
    // The workspace's AWS external id (created on first use): the add-account wizard shows it before the role exists.
    .handle("externalId", ({ request }) =>
      scoped(request, MANAGE_ACCOUNTS, (ctx) =>
        Effect.map(externalIdFor(ctx.workspaceId), (external_id) => ({ ok: true, data: { external_id } }))))
    .handle("get", ({ request, params }) =>
      scoped(request, READ, (ctx) =>
        Effect.gen(function* () {
          const detail = yield* getAccountDetail(ctx.workspaceId, params.id)
          if (detail === undefined) return yield* new NotFound({ message: ScanningServerMessages.accountNotFound })
          return { ok: true, data: detail }
        })))
    // An organisation (issue 31) is onboarded with its members: server/api/organizations.ts.
    .handle("create", ({ request, payload }) => (payload.is_organization ? addOrganization(request, payload) : addAccount(request, payload)))
    .handle("delete", ({ request, params }) =>
      Effect.tap(scoped(request, MANAGE_ACCOUNTS, (ctx) =>
        Effect.gen(function* () {
          const deleted = yield* deleteAccount(ctx.workspaceId, params.id)
          if (deleted === undefined) return yield* new NotFound({ message: ScanningServerMessages.accountNotFound })
          yield* recordAudit({
            action: "account.deleted",
            workspaceId: ctx.workspaceId,
            actorUserId: ctx.userId,
            targetType: "account",
            targetId: params.id,
            details: { account_name: deleted.accountName, cloud_account_id: deleted.cloudAccountId, open_jobs: deleted.openJobIds.length },
            ip: ctx.ip,
          })
          return { ok: true, message: ScanningServerMessages.accountDeleted, openJobIds: deleted.openJobIds }
        })),
        // Queued jobs of the deleted account's scans are canceled once the delete has committed.
        (result) => cancelJobs(RUN_SERVICE_JOB, result.openJobIds),
      ).pipe(Effect.map(({ ok, message }) => ({ ok, message }))))
    .handle("revealSecret", ({ request, params }) =>
      scoped(request, MANAGE_ACCOUNTS, (ctx) =>
        Effect.gen(function* () {
          const config = yield* AppConfig
          const account = yield* loadSealedAccount(ctx.workspaceId, params.id)
          if (account === undefined) return yield* new NotFound({ message: ScanningServerMessages.accountNotFound })
          const credentials = openCredentials(config.appSecretKey, account.credentialsSealed, {
            workspaceId: ctx.workspaceId,
            accountId: account.id,
          })
          if (credentials === undefined) return yield* Effect.die(new Error(`${ScanningServerMessages.credentialsUnreadable} (account ${account.id})`))
          // AWS secret access key, Azure client secret, GCP service-account key file.
          const secret = credentials.secret_key ?? credentials.client_secret ?? credentials.service_account_key
          if (secret === undefined) return yield* new NotFound({ message: ScanningServerMessages.noStoredSecret })
          yield* recordAudit({
            action: "account.secret_revealed",
            workspaceId: ctx.workspaceId,
            actorUserId: ctx.userId,
            targetType: "account",
            targetId: account.id,
            details: { account_name: account.accountName },
            ip: ctx.ip,
          })
          return { ok: true, message: ScanningServerMessages.secretRevealed, data: { secret_key: secret } }
        }))),
).pipe(Layer.provide(AuthConfigFromApp))
