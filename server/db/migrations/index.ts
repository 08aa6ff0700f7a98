/**
 * Every migration, in order. Keys are `NNNN_name` (Migrator.fromRecord parses the number as the id).
 *
 * To add one: create `server/db/migrations/NNNN_name.ts` whose default export is an Effect using
 * `SqlClient`, then add ONE import line and ONE record line below. Take the next free number: a migration
 * numbered below one already applied is never run, and start-up refuses to continue when it finds one
 * (see server/db/migrate.ts).
 */
import type { Effect } from "effect"
import type { SqlClient } from "effect/sql"
import m0001_platform from "./0001_platform.ts"
import m0002_identity from "./0002_identity.ts"
import m0003_scanning from "./0003_scanning.ts"
import m0004_account_tenant from "./0004_account_tenant.ts"
import m0005_mail_outbox from "./0005_mail_outbox.ts"
import m0006_results from "./0006_results.ts"
import m0008_delta from "./0008_delta.ts"
import m0009_posture from "./0009_posture.ts"
import m0010_not_evaluated from "./0010_not_evaluated.ts"
import m0011_compliance from "./0011_compliance.ts"
import m0012_resource_history from "./0012_resource_history.ts"
import m0013_abandoned_remediations from "./0013_abandoned_remediations.ts"
import m0014_read_cache from "./0014_read_cache.ts"
import m0015_frozen_history from "./0015_frozen_history.ts"
import m0016_findings_regions from "./0016_findings_regions.ts"
import m0017_resource_search from "./0017_resource_search.ts"
import m0018_resource_search_function from "./0018_resource_search_function.ts"
import m0019_resource_search_plan from "./0019_resource_search_plan.ts"
import m0020_storage_by_change from "./0020_storage_by_change.ts"
import m0021_retention from "./0021_retention.ts"
import m0022_organizations from "./0022_organizations.ts"
import m0023_account_groups from "./0023_account_groups.ts"
import m0024_fleet_findings from "./0024_fleet_findings.ts"
import m0025_api_keys from "./0025_api_keys.ts"
import m0026_webhooks from "./0026_webhooks.ts"
import m0027_sso from "./0027_sso.ts"
import m0028_jira_security_hub from "./0028_jira_security_hub.ts"
import m0029_remediation_undo from "./0029_remediation_undo.ts"
import m0030_remediation_approvals from "./0030_remediation_approvals.ts"
import m0031_remediation_batches from "./0031_remediation_batches.ts"
import m0032_scan_rollup from "./0032_scan_rollup.ts"
import m0033_scans_trend_index from "./0033_scans_trend_index.ts"
import m0034_fleet_findings_checks from "./0034_fleet_findings_checks.ts"
import m0035_remediation_batch_keys from "./0035_remediation_batch_keys.ts"
import m0037_remediation_batch_stop_key from "./0037_remediation_batch_stop_key.ts"
import m0039_organization_view from "./0039_organization_view.ts"

export const migrations: Record<string, Effect.Effect<void, unknown, SqlClient.SqlClient>> = {
  "0001_platform": m0001_platform,
  "0002_identity": m0002_identity,
  "0003_scanning": m0003_scanning,
  "0004_account_tenant": m0004_account_tenant,
  "0005_mail_outbox": m0005_mail_outbox,
  "0006_results": m0006_results,
  "0008_delta": m0008_delta,
  "0009_posture": m0009_posture,
  "0010_not_evaluated": m0010_not_evaluated,
  "0011_compliance": m0011_compliance,
  "0012_resource_history": m0012_resource_history,
  "0013_abandoned_remediations": m0013_abandoned_remediations,
  "0014_read_cache": m0014_read_cache,
  "0015_frozen_history": m0015_frozen_history,
  "0016_findings_regions": m0016_findings_regions,
  "0017_resource_search": m0017_resource_search,
  "0018_resource_search_function": m0018_resource_search_function,
  "0019_resource_search_plan": m0019_resource_search_plan,
  "0020_storage_by_change": m0020_storage_by_change,
  "0021_retention": m0021_retention,
  "0022_organizations": m0022_organizations,
  "0023_account_groups": m0023_account_groups,
  "0024_fleet_findings": m0024_fleet_findings,
  "0025_api_keys": m0025_api_keys,
  "0026_webhooks": m0026_webhooks,
  "0027_sso": m0027_sso,
  "0028_jira_security_hub": m0028_jira_security_hub,
  "0029_remediation_undo": m0029_remediation_undo,
  "0030_remediation_approvals": m0030_remediation_approvals,
  "0031_remediation_batches": m0031_remediation_batches,
  "0032_scan_rollup": m0032_scan_rollup,
  "0033_scans_trend_index": m0033_scans_trend_index,
  "0034_fleet_findings_checks": m0034_fleet_findings_checks,
  "0035_remediation_batch_keys": m0035_remediation_batch_keys,
  "0037_remediation_batch_stop_key": m0037_remediation_batch_stop_key,
  "0039_organization_view": m0039_organization_view,
}
