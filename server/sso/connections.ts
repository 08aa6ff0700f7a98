/**
 * A workspace's single-sign-on connection (migration 0027; docs/sso.md): reading and saving it in the workspace's
 * scope, routing an email to it by domain, and the "SSO required" rule of password sign-in.
 *
 * The OIDC client secret is sealed with AES-256-GCM (server/auth/crypto.ts `seal`) under a key derived from
 * APP_SECRET_KEY for the purpose "sso-client-secret", with the workspace id as associated data (a sealed secret
 * copied to another workspace's row does not open); it is opened only to talk to the provider and never answered.
 */
import { X509Certificate } from "node:crypto"
import { Effect, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import type { RoleId } from "../../src/contracts/ids.ts"
import { CUSTOM_ROLE_ID_FLOOR } from "../../src/contracts/permissions.ts"
import {
  normalizeCertificatePem,
  normalizeDomain,
  type ServiceProviderSettings,
  type SsoConnection,
  type SsoConnectionPayload,
  type SsoProtocol,
} from "../../src/contracts/sso.ts"
import { deriveKey, open, seal } from "../auth/crypto.ts"
import { inScope, standalone } from "../auth/rls.ts"

export interface ConnectionRow {
  readonly id: number
  readonly workspace_id: number
  readonly protocol: SsoProtocol
  readonly enabled: boolean
  readonly require_sso: boolean
  readonly oidc_issuer: string | null
  readonly oidc_client_id: string | null
  readonly oidc_client_secret_sealed: string | null
  readonly saml_idp_entity_id: string | null
  readonly saml_sso_url: string | null
  readonly saml_idp_certificate: string | null
  readonly groups_attribute: string
  readonly default_role_id: number | null
  readonly default_custom_role_id: number | null
  readonly updated_at: Date | string | null
  readonly updated_by: string | null
}

export interface GroupRoleRow {
  readonly group_name: string
  readonly role_id: number | null
  readonly custom_role_id: number | null
}

const secretKey = (secret: Redacted.Redacted<string>) => deriveKey(Redacted.value(secret), "sso-client-secret")
const secretContext = (workspaceId: number) => `sso-client-secret:${workspaceId}`

export const sealClientSecret = (secret: Redacted.Redacted<string>, workspaceId: number, clientSecret: string): string =>
  seal(secretKey(secret), clientSecret, secretContext(workspaceId))

export const openClientSecret = (secret: Redacted.Redacted<string>, row: Pick<ConnectionRow, "workspace_id" | "oidc_client_secret_sealed">) =>
  row.oidc_client_secret_sealed === null ? undefined : open(secretKey(secret), row.oidc_client_secret_sealed, secretContext(row.workspace_id))

/** What the identity provider must be told about this product (shown on the settings page and in docs/sso.md). */
export const serviceProvider = (appOrigin: string, workspaceId: number): ServiceProviderSettings => ({
  oidc_redirect_uri: `${appOrigin}/api/sso/oidc/callback`,
  saml_acs_url: `${appOrigin}/api/sso/saml/acs`,
  saml_entity_id: `${appOrigin}/api/sso/saml/${workspaceId}/metadata`,
  saml_metadata_url: `${appOrigin}/api/sso/saml/${workspaceId}/metadata`,
})

const roleIdOf = (roleId: number | null, customRoleId: number | null) => (roleId ?? customRoleId ?? 0) as RoleId

/** The connection row of the scoped workspace (call inside its scope). */
export const connectionRow = Effect.fn("Sso.connectionRow")(function* (workspaceId: number) {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql<ConnectionRow>`
    SELECT c.id, c.workspace_id, c.protocol, c.enabled, c.require_sso, c.oidc_issuer, c.oidc_client_id,
           c.oidc_client_secret_sealed, c.saml_idp_entity_id, c.saml_sso_url, c.saml_idp_certificate, c.groups_attribute,
           c.default_role_id, c.default_custom_role_id, c.updated_at,
           nullif(btrim(u.first_name || ' ' || u.last_name), '') AS updated_by
    FROM sso_connections c LEFT JOIN users u ON u.id = c.updated_by
    WHERE c.workspace_id = ${workspaceId}`
  return rows[0]
})

export const groupRoles = Effect.fn("Sso.groupRoles")(function* (connectionId: number) {
  const sql = yield* SqlClient.SqlClient
  return yield* sql<GroupRoleRow>`SELECT group_name, role_id, custom_role_id FROM sso_group_roles
    WHERE connection_id = ${connectionId} ORDER BY position`
})

/** The connection as the settings page shows it (no secret). Call inside the workspace's scope. */
export const readConnection = Effect.fn("Sso.readConnection")(function* (workspaceId: number) {
  const sql = yield* SqlClient.SqlClient
  const row = yield* connectionRow(workspaceId)
  if (row === undefined) return null
  const domains = yield* sql<{ domain: string }>`SELECT domain FROM sso_domains WHERE connection_id = ${row.id} ORDER BY domain`
  const mappings = yield* groupRoles(row.id)
  const updatedAt = row.updated_at
  const answer: SsoConnection = {
    protocol: row.protocol,
    enabled: row.enabled,
    require_sso: row.require_sso,
    domains: domains.map((d) => d.domain),
    oidc: row.protocol === "oidc"
      ? { issuer: row.oidc_issuer ?? "", client_id: row.oidc_client_id ?? "", client_secret_set: row.oidc_client_secret_sealed !== null }
      : null,
    saml: row.protocol === "saml"
      ? { idp_entity_id: row.saml_idp_entity_id ?? "", sso_url: row.saml_sso_url ?? "", certificate: row.saml_idp_certificate ?? "" }
      : null,
    groups_attribute: row.groups_attribute,
    default_role_id: roleIdOf(row.default_role_id, row.default_custom_role_id),
    group_roles: mappings.map((m) => ({ group: m.group_name, role_id: roleIdOf(m.role_id, m.custom_role_id) })),
    updated_at: updatedAt === null ? null : new Date(updatedAt).toISOString(),
    updated_by: row.updated_by,
  }
  return answer
})

/** A role id as the pair of columns (built-in or the workspace's custom role); undefined when no such role. */
export const roleColumns = Effect.fn("Sso.roleColumns")(function* (roleId: number) {
  const sql = yield* SqlClient.SqlClient
  if (roleId <= CUSTOM_ROLE_ID_FLOOR) {
    const rows = yield* sql<{ id: number }>`SELECT id FROM roles WHERE id = ${roleId}`
    return rows[0] === undefined ? undefined : { roleId, customRoleId: null }
  }
  const rows = yield* sql<{ id: number }>`SELECT id FROM custom_roles WHERE id = ${roleId} AND workspace_id = app_current_workspace_id()`
  return rows[0] === undefined ? undefined : { roleId: null, customRoleId: roleId }
})

export type SaveOutcome =
  | { readonly _tag: "saved"; readonly created: boolean; readonly before: SsoConnection | null }
  | { readonly _tag: "missingSecret" }
  | { readonly _tag: "missingSettings" }
  | { readonly _tag: "badCertificate" }
  | { readonly _tag: "unknownRole"; readonly roleId: number }
  | { readonly _tag: "domainTaken"; readonly domain: string }

/**
 * Whether the pasted SAML signing certificate (normalised as stored: `normalizeCertificatePem`) parses as one X.509
 * certificate. The contract only checks the PEM markers; without this a certificate with a damaged body would be saved
 * and every sign-in would fail.
 */
export const isReadableCertificate = (pem: string): boolean => {
  try {
    new X509Certificate(normalizeCertificatePem(pem))
    return true
  } catch {
    return false
  }
}

/** Replaces the workspace's connection with `payload` (inside the workspace's scope). */
export const saveConnection = Effect.fn("Sso.saveConnection")(function* (
  ctx: { readonly workspaceId: number; readonly userId: number; readonly secret: Redacted.Redacted<string> },
  payload: SsoConnectionPayload,
) {
  const sql = yield* SqlClient.SqlClient
  const before = yield* readConnection(ctx.workspaceId)
  const existing = yield* connectionRow(ctx.workspaceId)
  const fail = <T extends SaveOutcome>(outcome: T) => outcome
  if (payload.protocol === "oidc" && payload.oidc === undefined) return fail({ _tag: "missingSettings" as const })
  if (payload.protocol === "saml" && payload.saml === undefined) return fail({ _tag: "missingSettings" as const })
  if (payload.protocol === "saml" && !isReadableCertificate(payload.saml!.certificate)) return fail({ _tag: "badCertificate" as const })
  let sealed: string | null = null
  if (payload.protocol === "oidc") {
    const given = payload.oidc!.client_secret
    if (given !== undefined && Redacted.value(given) !== "") sealed = sealClientSecret(ctx.secret, ctx.workspaceId, Redacted.value(given))
    else if (existing?.protocol === "oidc" && existing.oidc_client_secret_sealed !== null) sealed = existing.oidc_client_secret_sealed
    else return fail({ _tag: "missingSecret" as const })
  }
  const defaultRole = yield* roleColumns(payload.default_role_id)
  if (defaultRole === undefined) return fail({ _tag: "unknownRole" as const, roleId: payload.default_role_id })
  const mappings: Array<{ group: string; roleId: number | null; customRoleId: number | null }> = []
  for (const mapping of payload.group_roles) {
    const role = yield* roleColumns(mapping.role_id)
    if (role === undefined) return fail({ _tag: "unknownRole" as const, roleId: mapping.role_id })
    const group = mapping.group.trim()
    if (!mappings.some((m) => m.group === group)) mappings.push({ group, ...role })
  }
  const domains = [...new Set(payload.domains.map(normalizeDomain))]
  const taken = yield* sql<{ domain: string }>`SELECT domain FROM sso_domains
    WHERE domain IN ${sql.in(domains)} AND workspace_id <> ${ctx.workspaceId} LIMIT 1`
  if (taken[0] !== undefined) return fail({ _tag: "domainTaken" as const, domain: taken[0].domain })

  const oidc = payload.protocol === "oidc" ? payload.oidc! : undefined
  const saml = payload.protocol === "saml" ? payload.saml! : undefined
  const values = {
    protocol: payload.protocol,
    enabled: payload.enabled,
    require_sso: payload.require_sso,
    oidc_issuer: oidc?.issuer.trim().replace(/\/+$/, "") ?? null,
    oidc_client_id: oidc?.client_id.trim() ?? null,
    oidc_client_secret_sealed: sealed,
    saml_idp_entity_id: saml?.idp_entity_id.trim() ?? null,
    saml_sso_url: saml?.sso_url.trim() ?? null,
    saml_idp_certificate: saml === undefined ? null : normalizeCertificatePem(saml.certificate),
    groups_attribute: payload.groups_attribute.trim(),
    default_role_id: defaultRole.roleId,
    default_custom_role_id: defaultRole.customRoleId,
    updated_by: ctx.userId,
  }
  let connectionId: number
  if (existing === undefined) {
    const rows = yield* sql<{ id: number }>`INSERT INTO sso_connections ${sql.insert({ ...values, workspace_id: ctx.workspaceId, created_by: ctx.userId })} RETURNING id`
    connectionId = rows[0]!.id
  } else {
    connectionId = existing.id
    yield* sql`UPDATE sso_connections SET ${sql.update(values)}, updated_at = now() WHERE id = ${connectionId}`
  }
  yield* sql`DELETE FROM sso_domains WHERE connection_id = ${connectionId}`
  for (const domain of domains) {
    yield* sql`INSERT INTO sso_domains (domain, connection_id, workspace_id) VALUES (${domain}, ${connectionId}, ${ctx.workspaceId})`
  }
  yield* sql`DELETE FROM sso_group_roles WHERE connection_id = ${connectionId}`
  for (const [position, m] of mappings.entries()) {
    yield* sql`INSERT INTO sso_group_roles (connection_id, workspace_id, position, group_name, role_id, custom_role_id)
      VALUES (${connectionId}, ${ctx.workspaceId}, ${position}, ${m.group}, ${m.roleId}, ${m.customRoleId})`
  }
  return { _tag: "saved" as const, created: existing === undefined, before }
})

export const deleteConnection = Effect.fn("Sso.deleteConnection")(function* (workspaceId: number) {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql<{ id: number }>`DELETE FROM sso_connections WHERE workspace_id = ${workspaceId} RETURNING id`
  return rows.length > 0
})

/** The domain part of an email (lower case), or "" when there is none. */
export const emailDomain = (email: string): string => {
  const at = email.lastIndexOf("@")
  return at < 0 ? "" : normalizeDomain(email.slice(at + 1))
}

/** The workspace whose connection owns the email's domain (any scope: sso_domains is readable by every scope). */
export const workspaceForEmail = Effect.fn("Sso.workspaceForEmail")(function* (email: string) {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* standalone(sql<{ workspace_id: number }>`SELECT workspace_id FROM sso_domains WHERE domain = ${emailDomain(email)}`)
  return rows[0]?.workspace_id
})

/** The enabled connection owning the email's domain, read in its workspace's scope. */
export const connectionForEmail = Effect.fn("Sso.connectionForEmail")(function* (email: string) {
  const workspaceId = yield* workspaceForEmail(email)
  if (workspaceId === undefined) return undefined
  const row = yield* inScope({ workspaceId })(connectionRow(workspaceId))
  return row !== undefined && row.enabled ? row : undefined
})

/**
 * Whether password sign-in (and password reset) is refused for `email`: its domain is owned by an enabled connection
 * that requires SSO, and the person is not that workspace's owner (the owner's break-glass password, docs/sso.md).
 * Decided from the domain (and the owner's id), never from whether an account exists, so the refusal is no oracle.
 */
export const passwordRefusedFor = Effect.fn("Sso.passwordRefusedFor")(function* (email: string, userId: number | undefined) {
  const workspaceId = yield* workspaceForEmail(email)
  if (workspaceId === undefined) return false
  const sql = yield* SqlClient.SqlClient
  const rows = yield* inScope({ workspaceId })(sql<{ require_sso: boolean; enabled: boolean; owner_id: number }>`
    SELECT c.require_sso, c.enabled, w.owner_id FROM sso_connections c JOIN workspaces w ON w.id = c.workspace_id
    WHERE c.workspace_id = ${workspaceId}`)
  const row = rows[0]
  return row !== undefined && row.enabled && row.require_sso && row.owner_id !== userId
})
