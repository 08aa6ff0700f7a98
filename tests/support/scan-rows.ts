/**
 * Rows of one scanning setup written straight into the database (as a superuser or in a scope that allows it): a user,
 * their workspace, an AWS account, a scan and one service row of it. For tests and benchmarks of the storage layer that
 * need a scan to write into without running one.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export interface ScanRowsOptions {
  readonly name: string
  readonly serviceKey: string
  readonly cloudAccountId: string
  readonly scanStatus: "running" | "completed"
}

export interface ScanRows {
  readonly userId: number
  readonly workspaceId: number
  readonly serviceId: number
  readonly accountId: number
  readonly scanId: number
  readonly scanServiceId: number
}

export const seedScanRows = (o: ScanRowsOptions) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const one = (rows: ReadonlyArray<{ id: number }>) => rows[0]!.id
    const userId = one(yield* sql<{ id: number }>`INSERT INTO users (email, password_hash) VALUES (${`${o.name.toLowerCase()}@example.com`}, 'x') RETURNING id`)
    const workspaceId = one(yield* sql<{ id: number }>`INSERT INTO workspaces (name, owner_id) VALUES (${o.name}, ${userId}) RETURNING id`)
    const serviceId = one(yield* sql<{ id: number }>`
      INSERT INTO cloud_services (cloud_provider_id, key, name) VALUES (1, ${o.serviceKey}, ${o.serviceKey.toUpperCase()}) RETURNING id`)
    const accountId = one(yield* sql<{ id: number }>`
      INSERT INTO accounts (workspace_id, cloud_provider_id, account_name, cloud_account_id, auth_method, credentials_sealed)
      VALUES (${workspaceId}, 1, ${`${o.name} account`}, ${o.cloudAccountId}, 'access_key', 'v1.sealed') RETURNING id`)
    const done = o.scanStatus === "completed" ? 1 : 0
    const scanId = one(yield* sql<{ id: number }>`
      INSERT INTO scans (workspace_id, account_id, cloud_provider_id, status, total_services, completed_services)
      VALUES (${workspaceId}, ${accountId}, 1, ${o.scanStatus}, 1, ${done}) RETURNING id`)
    const scanServiceId = one(yield* sql<{ id: number }>`
      INSERT INTO scan_services (workspace_id, scan_id, service_id, status) VALUES (${workspaceId}, ${scanId}, ${serviceId}, ${o.scanStatus}) RETURNING id`)
    return { userId, workspaceId, serviceId, accountId, scanId, scanServiceId } satisfies ScanRows
  })
