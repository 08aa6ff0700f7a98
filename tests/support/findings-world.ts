/**
 * A findings world written through the real writer (server/scans/run-service.ts `completeService`, the code a scan job
 * runs): one workspace with its owner (a real session and access token), one AWS account, some services, and
 * completed scans of it, each service's checks with their rows (resource, region, compliance flag, or no flag for an
 * input that could not be read: a not-evaluated check). Mute rules given before a scan apply to its rows as in
 * production. For the findings list's integration and property tests, and the benchmark.
 */
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { signAccessToken } from "../../server/auth/access-token.ts"
import { AuthConfig, defaultAuthSettings } from "../../server/auth/auth-config.ts"
import { createSession } from "../../server/auth/refresh-tokens.ts"
import { completeService } from "../../server/scans/run-service.ts"
import type { CheckResult, DetailRow } from "../../server/scanner/check.ts"
import type { Severity } from "../../src/contracts/findings.ts"
import { BuiltInRoleIds } from "../../src/contracts/permissions.ts"
import { withSql } from "./db.ts"
import type { TestServer } from "./server.ts"

export interface WorldMember {
  readonly userId: number
  readonly workspaceId: number
  readonly token: string
}

export interface WorldRow {
  readonly id: string
  readonly region: string
  /** true compliant, false non-compliant, null not read (the check could not decide). */
  readonly flag: boolean | null
}

export interface WorldCheck {
  readonly check: string
  readonly severity: Severity
  readonly rows: ReadonlyArray<WorldRow>
}

/** A workspace with its owner (Admin role), a session and an access token for it. */
export const seedWorldMember = (url: string, name: string, server: TestServer) =>
  withSql(
    url,
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const userId = (yield* sql<{ id: number }>`INSERT INTO users (email, email_verified, password_hash) VALUES (${`${name}@world.example`}, true, 'x') RETURNING id`)[0]!.id
      const workspaceId = (yield* sql<{ id: number }>`INSERT INTO workspaces (name, owner_id) VALUES (${name}, ${userId}) RETURNING id`)[0]!.id
      yield* sql`INSERT INTO memberships (workspace_id, user_id, role_id) VALUES (${workspaceId}, ${userId}, ${BuiltInRoleIds.Admin})`
      const session = yield* createSession(userId, workspaceId)
      const token = yield* signAccessToken({ userId, workspaceId, sessionId: session.familyId })
      return { userId, workspaceId, token } satisfies WorldMember
    }).pipe(Effect.provide(AuthConfig.layer(defaultAuthSettings({ secretKey: server.config.appSecretKey, appOrigin: server.baseUrl })) as Layer.Layer<AuthConfig>)),
  )

/** A new user, admin of the existing workspace `workspaceId`, with a session and an access token for it. */
export const seedWorldAdmin = (url: string, workspaceId: number, name: string, server: TestServer) =>
  withSql(
    url,
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const userId = (yield* sql<{ id: number }>`INSERT INTO users (email, email_verified, password_hash) VALUES (${`${name}@world.example`}, true, 'x') RETURNING id`)[0]!.id
      yield* sql`INSERT INTO memberships (workspace_id, user_id, role_id) VALUES (${workspaceId}, ${userId}, ${BuiltInRoleIds.Admin})`
      const session = yield* createSession(userId, workspaceId)
      const token = yield* signAccessToken({ userId, workspaceId, sessionId: session.familyId })
      return { userId, workspaceId, token } satisfies WorldMember
    }).pipe(Effect.provide(AuthConfig.layer(defaultAuthSettings({ secretKey: server.config.appSecretKey, appOrigin: server.baseUrl })) as Layer.Layer<AuthConfig>)),
  )

/** Services of the AWS provider by key (created when missing); their ids in the same order. */
export const seedWorldServices = (url: string, keys: ReadonlyArray<string>) =>
  withSql(
    url,
    Effect.flatMap(SqlClient.SqlClient, (sql) =>
      Effect.forEach(keys, (key) =>
        Effect.map(
          sql<{ id: number }>`INSERT INTO cloud_services (cloud_provider_id, key, name) VALUES (1, ${key}, ${key.toUpperCase()})
                              ON CONFLICT (cloud_provider_id, key) DO UPDATE SET name = excluded.name RETURNING id`,
          (rows) => rows[0]!.id,
        ))),
  )

export const seedWorldAccount = (url: string, member: WorldMember, cloudAccountId = "123456789012") =>
  withSql(
    url,
    Effect.flatMap(SqlClient.SqlClient, (sql) =>
      sql<{ id: number }>`
        INSERT INTO accounts (workspace_id, cloud_provider_id, account_name, cloud_account_id, auth_method, credentials_sealed)
        VALUES (${member.workspaceId}, 1, 'World account', ${cloudAccountId}, 'access_key', 'v1.world') RETURNING id`),
  ).then((rows) => rows[0]!.id)

/** A mute rule of one check (applied by the writer to the rows of every later scan). */
export const seedWorldMute = (url: string, member: WorldMember, checkId: string, reason = "Accepted risk") =>
  withSql(
    url,
    Effect.flatMap(SqlClient.SqlClient, (sql) =>
      sql`INSERT INTO mute_rules (workspace_id, check_id, reason, created_by) VALUES (${member.workspaceId}, ${checkId}, ${reason}, ${member.userId})`),
  )

export const worldCheckResult = (serviceKey: string, c: WorldCheck): CheckResult => {
  const rows: ReadonlyArray<DetailRow> = c.rows.filter((r) => r.flag !== null).map((r) => ({
    resource_id: r.id,
    region: r.region,
    compliant: r.flag === true,
    reason: r.flag === true ? "Configured as required." : "Not configured as required.",
  }))
  const unread = c.rows.filter((r) => r.flag === null)
  return {
    check_id: c.check,
    service: serviceKey,
    title: `Check ${c.check}`,
    policy_check: `Resources of ${serviceKey} satisfy ${c.check}`,
    description: "A check of the findings world.",
    severity: c.severity,
    cis: {},
    remediation: "Configure the setting.",
    status: rows.some((r) => !r.compliant) ? "fail" : unread.length > 0 ? "error" : "pass",
    field_labels: { resource_id: "Resource", region: "Region" },
    details: rows,
    errors: unread.map((r) => ({
      resourceType: "Thing", resourceId: r.id, region: r.region, operation: "DescribeThing", kind: "access_denied" as const,
      code: "AccessDenied", message: "not authorized",
    })),
  }
}

/**
 * One completed scan of the account: each service's checks written by `completeService`, then the scan marked
 * completed (later scans compare with it: new and fixed resources).
 */
export const seedWorldScan = async (
  url: string,
  member: WorldMember,
  accountId: number,
  services: ReadonlyArray<{ readonly id: number; readonly key: string; readonly checks: ReadonlyArray<WorldCheck> }>,
) => {
  const { scanId, scanServiceIds } = await withSql(
    url,
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const scanId = (yield* sql<{ id: number }>`
        INSERT INTO scans (workspace_id, account_id, cloud_provider_id, status, total_services, created_by)
        VALUES (${member.workspaceId}, ${accountId}, 1, 'running', ${services.length}, ${member.userId}) RETURNING id`)[0]!.id
      const scanServiceIds: Array<number> = []
      for (const s of services) {
        scanServiceIds.push((yield* sql<{ id: number }>`
          INSERT INTO scan_services (workspace_id, scan_id, service_id, status, started_at, heartbeat_at)
          VALUES (${member.workspaceId}, ${scanId}, ${s.id}, 'running', now(), now()) RETURNING id`)[0]!.id)
      }
      return { scanId, scanServiceIds }
    }),
  )
  await withSql(
    url,
    Effect.gen(function* () {
      for (let i = 0; i < services.length; i++) {
        const s = services[i]!
        const findings = s.checks.map((c) => worldCheckResult(s.key, c))
        const ok = yield* completeService(
          { workspace_id: member.workspaceId, scan_id: scanId, scan_service_id: scanServiceIds[i]! },
          { findings, resourcesScanned: s.checks.reduce((n, c) => n + c.rows.length, 0), apiCalls: 0 },
        )
        if (!ok) return yield* Effect.die(new Error("completeService wrote nothing"))
      }
      const sql = yield* SqlClient.SqlClient
      yield* sql`UPDATE scans SET status = 'completed', scan_end = now(), completed_services = total_services WHERE id = ${scanId}`
    }),
  )
  return scanId
}

/** The accounts a limited custom role's group holds: these accounts, or an organisation's unit and every unit below it. */
export type WorldGroup =
  | { readonly kind: "manual"; readonly accountIds: ReadonlyArray<number> }
  | { readonly kind: "unit"; readonly organizationId: number; readonly unitId: string }

/**
 * A new member of workspace `workspaceId` whose custom role (every permission) is limited to one account group
 * (docs/permissions.md "Account groups"), with a session and an access token: row-level security keeps them to the
 * group's accounts.
 */
export const seedWorldLimitedMember = (url: string, workspaceId: number, name: string, group: WorldGroup, server: TestServer) =>
  withSql(
    url,
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const groupId = (yield* sql<{ id: number }>`
        INSERT INTO account_groups (workspace_id, name, kind, organization_id, unit_id)
        VALUES (${workspaceId}, ${name}, ${group.kind}, ${group.kind === "unit" ? group.organizationId : null},
                ${group.kind === "unit" ? group.unitId : null}) RETURNING id`)[0]!.id
      if (group.kind === "manual") {
        for (const accountId of group.accountIds) {
          yield* sql`INSERT INTO account_group_accounts (group_id, workspace_id, account_id) VALUES (${groupId}, ${workspaceId}, ${accountId})`
        }
      }
      const roleId = (yield* sql<{ id: number }>`
        INSERT INTO custom_roles (workspace_id, name, limited_to_groups) VALUES (${workspaceId}, ${name}, true) RETURNING id`)[0]!.id
      yield* sql`INSERT INTO custom_role_permissions (custom_role_id, workspace_id, permission_id) SELECT ${roleId}, ${workspaceId}, id FROM permissions`
      yield* sql`INSERT INTO custom_role_account_groups (custom_role_id, workspace_id, group_id) VALUES (${roleId}, ${workspaceId}, ${groupId})`
      const userId = (yield* sql<{ id: number }>`INSERT INTO users (email, email_verified, password_hash) VALUES (${`${name}@world.example`}, true, 'x') RETURNING id`)[0]!.id
      yield* sql`INSERT INTO memberships (workspace_id, user_id, custom_role_id) VALUES (${workspaceId}, ${userId}, ${roleId})`
      const session = yield* createSession(userId, workspaceId)
      const token = yield* signAccessToken({ userId, workspaceId, sessionId: session.familyId })
      return { userId, workspaceId, token } satisfies WorldMember
    }).pipe(Effect.provide(AuthConfig.layer(defaultAuthSettings({ secretKey: server.config.appSecretKey, appOrigin: server.baseUrl })) as Layer.Layer<AuthConfig>)),
  )

/** A finding row as the tests read it straight from the tables (the list answers are compared with it). */
export interface PlainFinding {
  readonly id: number
  readonly service_id: number
  readonly service_name: string
  readonly check_id: string
  readonly title: string
  readonly policy_check: string
  readonly severity: string
  readonly status: string
  readonly muted: boolean
  readonly resources_checked: number
  readonly resources_failing: number
  readonly resources_remediated: number
  readonly resources_muted: number
  readonly resources_new: number
  readonly resources_fixed: number
}
