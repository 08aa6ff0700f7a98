/**
 * The daily sync of every organisation (issue 31): the posture ticker (server/scans/posture-ticker.ts) calls
 * `syncDueOrganizations` on each tick. Due organisations (`next_sync_at` passed) are listed in the read-only system
 * scope `posture-ticker`; each is claimed in its workspace's scope by moving `next_sync_at` an hour ahead with a
 * conditional update (a second worker's claim finds nothing), then discovered and applied like "Sync now"
 * (trigger `daily`, no acting user), audited; a discovery that fails is recorded as a failed sync and retried the next
 * day. New members join and are scanned by the organisation's next fleet scan (its schedule); closed or removed members
 * retire with their history kept.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { externalIdFor } from "../accounts/accounts-store.ts"
import { openCredentials } from "../accounts/credential-vault.ts"
import { recordAudit } from "../audit/scanning-audit.ts"
import { inScope, setScope } from "../auth/rls.ts"
import { AppConfig } from "../config.ts"
import { logLine } from "../log.ts"
import { applyDiscovery, loadOrganization, recordFailedSync } from "./store.ts"
import { discoverOrganization, memberAccess, probeMembers } from "./sync.ts"

/** Organisations synced per tick (the rest wait for the next tick). */
const SYNCS_PER_TICK = 5

/** Syncs one due organisation; answers whether it synced (false: another worker claimed it, or it failed). */
const syncOne = (workspaceId: number, organizationId: number, now: Date) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const config = yield* AppConfig
    const scope = inScope({ workspaceId })
    const claimed = yield* scope(Effect.gen(function* () {
      const rows = yield* sql<{ account_id: number }>`
        UPDATE organizations SET next_sync_at = ${new Date(now.getTime() + 3_600_000)}
        WHERE workspace_id = ${workspaceId} AND account_id = ${organizationId} AND next_sync_at <= ${now}
        RETURNING account_id`
      if (rows.length === 0) return undefined
      return { org: (yield* loadOrganization(workspaceId, organizationId))!, externalId: yield* externalIdFor(workspaceId) }
    }))
    if (claimed === undefined) return false
    const { org, externalId } = claimed
    const stored = openCredentials(config.appSecretKey, org.credentialsSealed, { workspaceId, accountId: organizationId })
    if (stored === undefined) {
      yield* scope(recordFailedSync(workspaceId, organizationId, "daily", "The organisation's credentials could not be read", null))
      return false
    }
    const discovered = yield* discoverOrganization({ cloudProviderId: org.cloudProviderId, stored, rootId: org.rootId, awsEndpoint: config.awsEndpointUrl }).pipe(
      Effect.catchTag("DiscoveryFailed", (failure) =>
        scope(Effect.gen(function* () {
          yield* recordFailedSync(workspaceId, organizationId, "daily", failure.message, null)
          yield* recordAudit({
            action: "organization.sync_failed", workspaceId, actorUserId: null, targetType: "account", targetId: organizationId,
            details: { trigger: "daily", reason: failure.reason },
          })
        })).pipe(Effect.as(undefined))),
    )
    if (discovered === undefined) return false
    const access = memberAccess(org.cloudProviderId, stored, { roleName: org.memberRoleName, externalId, accessKeyId: org.accessKeyId, tenantId: org.tenantId })
    const probes = yield* probeMembers(org.cloudProviderId, discovered.discovery, org.selection, access, config.awsEndpointUrl)
    yield* scope(Effect.gen(function* () {
      const current = yield* loadOrganization(workspaceId, organizationId)
      if (current === undefined) return
      const sync = yield* applyDiscovery({
        org: current, discovery: discovered.discovery, probes, access, appSecretKey: config.appSecretKey, trigger: "daily", userId: null,
      })
      yield* recordAudit({
        action: "organization.synced", workspaceId, actorUserId: null, targetType: "account", targetId: organizationId,
        details: { trigger: "daily", members_total: sync.members_total, members_included: sync.members_included,
          ...Object.fromEntries(Object.entries(sync.changes).map(([k, v]) => [k, v.length])) },
      })
    }))
    return true
  })

/** Syncs the organisations whose daily sync is due; answers how many synced. */
export const syncDueOrganizations = (now: Date) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const due = yield* sql.withTransaction(Effect.gen(function* () {
      yield* setScope({})
      yield* sql`SELECT set_config('app.system_scope', 'posture-ticker', true)`
      return yield* sql<{ workspace_id: number; account_id: number }>`
        SELECT workspace_id, account_id FROM organizations WHERE next_sync_at IS NOT NULL AND next_sync_at <= ${now}
        ORDER BY next_sync_at LIMIT ${SYNCS_PER_TICK}`
    }))
    let synced = 0
    for (const d of due) {
      const ok = yield* syncOne(d.workspace_id, d.account_id, now).pipe(
        Effect.catchCause((cause) => Effect.sync(() => {
          logLine("error", "organisation daily sync failed", { workspace_id: d.workspace_id, organization_id: d.account_id, cause: String(cause) })
          return false
        })),
      )
      if (ok) synced++
    }
    return synced
  })
