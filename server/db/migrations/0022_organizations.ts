/**
 * Organisations and fleets (issue 31; server/organizations/, docs/organizations.md).
 *
 * An organisation is an account row with `is_organization` (its `cloud_account_id` is the organisation's own id: the
 * AWS organisation id "o-…", a GCP "organizations/N" or "folders/N", an Azure management group name), holding the
 * management (or delegated administrator) credentials. Its members are ordinary account rows that name it
 * (`organization_id`) and the unit they sit in (`org_unit_id`, `org_unit_path` "Root / Production / Web"), with the
 * provider's tags; every spec screen works for them. A member removed from the organisation, closed, or excluded by the
 * user is retired (`retired_at`, `retired_reason`): kept with its history, never scanned again until it comes back.
 * Deleting the organisation deletes its members (their scans and findings go with them, as for any account).
 *
 * - `organizations`: one per organisation account: where discovery starts (`root_id`), the AWS member role name, the
 *   user's selection (units and accounts to include and exclude; empty include lists mean "everything"), the member
 *   concurrency of a fleet scan, and when it last synced and syncs next (the daily sync, server/organizations/sync.ts).
 * - `organization_units`: the units the last sync saw (for filters, groups and the unit picker).
 * - `organization_members`: every member the last syncs saw, included or not, with its cloud state, whether it could be
 *   reached, and the account row it became (NULL: never included).
 * - `organization_syncs`: every sync (onboarding, manual, daily) with what it changed (`changes`: added, retired,
 *   reactivated, moved, renamed, unreachable member lists), so a sync is audited and shows what changed.
 * - `fleet_scans` / `fleet_scan_members`: a scan of the organisation: one member scan per included member, started at
 *   most `member_cap` at a time (server/organizations/fleet-scan.ts); each member scan names its fleet scan
 *   (`scans.fleet_scan_id`) and fails alone with its reason.
 * - `accounts.latest_scan_id`: the account's latest completed scan (by scan_start, id: the scan no other completed scan
 *   supersedes), kept by the trigger `accounts_latest_scan` on scans, so "the latest completed scan of every account"
 *   (cross-account findings, the fleet dashboard) is a join, not a search.
 *
 * Row-level security as in migration 0003, a read-only policy for the posture ticker (the daily sync finds due
 * organisations across workspaces), and the read-cache triggers of migration 0014.
 *
 * Frozen once released.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

const TABLES = ["organizations", "organization_units", "organization_members", "organization_syncs", "fleet_scans", "fleet_scan_members"] as const

const statements = [
  `ALTER TABLE accounts
     ADD COLUMN is_organization boolean NOT NULL DEFAULT false,
     ADD COLUMN organization_id integer,
     ADD COLUMN org_unit_id text CHECK (length(org_unit_id) BETWEEN 1 AND 256),
     ADD COLUMN org_unit_path text CHECK (length(org_unit_path) <= 2048),
     ADD COLUMN tags jsonb NOT NULL DEFAULT '{}'::jsonb CHECK (jsonb_typeof(tags) = 'object'),
     ADD COLUMN retired_at timestamptz,
     ADD COLUMN retired_reason text CHECK (retired_reason IN ('removed', 'closed', 'suspended', 'excluded')),
     ADD COLUMN latest_scan_id integer,
     ADD CONSTRAINT accounts_organization_fk FOREIGN KEY (organization_id, workspace_id) REFERENCES accounts (id, workspace_id) ON DELETE CASCADE,
     ADD CONSTRAINT accounts_member_not_organization CHECK (NOT (is_organization AND organization_id IS NOT NULL)),
     ADD CONSTRAINT accounts_retired_reason CHECK ((retired_at IS NULL) = (retired_reason IS NULL))`,
  `CREATE INDEX accounts_organization_idx ON accounts (workspace_id, organization_id, org_unit_id) WHERE organization_id IS NOT NULL`,
  `CREATE INDEX accounts_latest_scan_idx ON accounts (latest_scan_id) WHERE latest_scan_id IS NOT NULL`,

  `CREATE TABLE organizations (
     account_id integer PRIMARY KEY,
     workspace_id integer NOT NULL,
     root_id text NOT NULL CHECK (length(root_id) BETWEEN 1 AND 256),
     root_name text NOT NULL DEFAULT '' CHECK (length(root_name) <= 256),
     management_account_id text CHECK (length(management_account_id) <= 256),
     member_role_name text CHECK (member_role_name ~ '^[A-Za-z0-9+=,.@_-]{1,64}$'),
     include_units text[] NOT NULL DEFAULT '{}',
     exclude_units text[] NOT NULL DEFAULT '{}',
     include_accounts text[] NOT NULL DEFAULT '{}',
     exclude_accounts text[] NOT NULL DEFAULT '{}',
     member_concurrency smallint NOT NULL DEFAULT 10 CHECK (member_concurrency BETWEEN 1 AND 200),
     last_sync_at timestamptz,
     next_sync_at timestamptz,
     created_at timestamptz NOT NULL DEFAULT now(),
     updated_at timestamptz NOT NULL DEFAULT now(),
     UNIQUE (account_id, workspace_id),
     FOREIGN KEY (account_id, workspace_id) REFERENCES accounts (id, workspace_id) ON DELETE CASCADE
   )`,
  `CREATE INDEX organizations_sync_due_idx ON organizations (next_sync_at) WHERE next_sync_at IS NOT NULL`,

  `CREATE TABLE organization_units (
     organization_id integer NOT NULL,
     workspace_id integer NOT NULL,
     unit_id text NOT NULL CHECK (length(unit_id) BETWEEN 1 AND 256),
     parent_unit_id text,
     name text NOT NULL CHECK (length(name) <= 256),
     kind text NOT NULL CHECK (kind IN ('root', 'organizational_unit', 'organization', 'folder', 'management_group')),
     path text NOT NULL CHECK (length(path) <= 2048),
     PRIMARY KEY (organization_id, unit_id),
     FOREIGN KEY (organization_id, workspace_id) REFERENCES organizations (account_id, workspace_id) ON DELETE CASCADE
   )`,

  `CREATE TABLE organization_members (
     organization_id integer NOT NULL,
     workspace_id integer NOT NULL,
     cloud_account_id text NOT NULL CHECK (length(cloud_account_id) BETWEEN 1 AND 256),
     name text NOT NULL CHECK (length(name) <= 256),
     unit_id text NOT NULL,
     cloud_state text NOT NULL DEFAULT '' CHECK (length(cloud_state) <= 64),
     state text NOT NULL CHECK (state IN ('active', 'suspended', 'closed')),
     tags jsonb NOT NULL DEFAULT '{}'::jsonb CHECK (jsonb_typeof(tags) = 'object'),
     included boolean NOT NULL,
     account_id integer,
     reachable boolean,
     last_error text CHECK (length(last_error) <= 2000),
     first_seen_at timestamptz NOT NULL DEFAULT now(),
     last_seen_at timestamptz NOT NULL DEFAULT now(),
     removed_at timestamptz,
     PRIMARY KEY (organization_id, cloud_account_id),
     FOREIGN KEY (organization_id, workspace_id) REFERENCES organizations (account_id, workspace_id) ON DELETE CASCADE,
     FOREIGN KEY (account_id, workspace_id) REFERENCES accounts (id, workspace_id) ON DELETE SET NULL (account_id)
   )`,
  `CREATE UNIQUE INDEX organization_members_account_key ON organization_members (account_id) WHERE account_id IS NOT NULL`,

  `CREATE TABLE organization_syncs (
     id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
     organization_id integer NOT NULL,
     workspace_id integer NOT NULL,
     trigger text NOT NULL CHECK (trigger IN ('onboard', 'manual', 'daily', 'selection')),
     status text NOT NULL DEFAULT 'running' CHECK (status IN ('running', 'completed', 'failed')),
     error text CHECK (length(error) <= 2000),
     changes jsonb NOT NULL DEFAULT '{}'::jsonb CHECK (jsonb_typeof(changes) = 'object'),
     members_total integer NOT NULL DEFAULT 0 CHECK (members_total >= 0),
     members_included integer NOT NULL DEFAULT 0 CHECK (members_included >= 0),
     requested_by integer REFERENCES users (id) ON DELETE SET NULL,
     started_at timestamptz NOT NULL DEFAULT now(),
     finished_at timestamptz,
     FOREIGN KEY (organization_id, workspace_id) REFERENCES organizations (account_id, workspace_id) ON DELETE CASCADE
   )`,
  `CREATE INDEX organization_syncs_org_idx ON organization_syncs (organization_id, started_at DESC, id DESC)`,

  `CREATE TABLE fleet_scans (
     id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
     workspace_id integer NOT NULL,
     organization_id integer NOT NULL,
     status text NOT NULL DEFAULT 'running' CHECK (status IN ('pending', 'running', 'completed', 'failed')),
     trigger text NOT NULL DEFAULT 'manual' CHECK (trigger IN ('manual', 'schedule')),
     member_cap smallint NOT NULL CHECK (member_cap BETWEEN 1 AND 200),
     scope_regions text[],
     scope_services text[],
     created_by integer REFERENCES users (id) ON DELETE SET NULL,
     started_at timestamptz NOT NULL DEFAULT now(),
     finished_at timestamptz,
     UNIQUE (id, workspace_id),
     FOREIGN KEY (organization_id, workspace_id) REFERENCES accounts (id, workspace_id) ON DELETE CASCADE
   )`,
  `CREATE INDEX fleet_scans_org_idx ON fleet_scans (organization_id, started_at DESC, id DESC)`,
  `CREATE UNIQUE INDEX fleet_scans_one_open ON fleet_scans (organization_id) WHERE status IN ('pending', 'running')`,

  `CREATE TABLE fleet_scan_members (
     fleet_scan_id integer NOT NULL,
     workspace_id integer NOT NULL,
     account_id integer NOT NULL,
     position integer NOT NULL,
     scan_id integer,
     state text NOT NULL DEFAULT 'queued' CHECK (state IN ('queued', 'started', 'completed', 'failed')),
     reason text CHECK (length(reason) <= 2000),
     PRIMARY KEY (fleet_scan_id, account_id),
     FOREIGN KEY (fleet_scan_id, workspace_id) REFERENCES fleet_scans (id, workspace_id) ON DELETE CASCADE,
     FOREIGN KEY (account_id, workspace_id) REFERENCES accounts (id, workspace_id) ON DELETE CASCADE
   )`,
  `CREATE INDEX fleet_scan_members_queue_idx ON fleet_scan_members (fleet_scan_id, state, position)`,
  `CREATE INDEX fleet_scan_members_scan_idx ON fleet_scan_members (scan_id) WHERE scan_id IS NOT NULL`,

  `ALTER TABLE scans ADD COLUMN fleet_scan_id integer`,
  `CREATE INDEX scans_fleet_idx ON scans (fleet_scan_id) WHERE fleet_scan_id IS NOT NULL`,

  // The latest completed scan of each account, kept as scans complete, arrive completed, or are deleted.
  `CREATE FUNCTION accounts_note_latest_scan() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     IF TG_OP = 'DELETE' THEN
       UPDATE accounts a SET latest_scan_id = (
         SELECT s.id FROM scans s WHERE s.workspace_id = a.workspace_id AND s.account_id = a.id AND s.status = 'completed'
         ORDER BY s.scan_start DESC, s.id DESC LIMIT 1)
       WHERE a.workspace_id = OLD.workspace_id AND a.id = OLD.account_id AND a.latest_scan_id = OLD.id;
       RETURN NULL;
     END IF;
     UPDATE accounts a SET latest_scan_id = NEW.id
     WHERE a.workspace_id = NEW.workspace_id AND a.id = NEW.account_id
       AND a.latest_scan_id IS DISTINCT FROM NEW.id
       AND NOT EXISTS (SELECT 1 FROM scans p WHERE p.id = a.latest_scan_id AND (p.scan_start, p.id) > (NEW.scan_start, NEW.id));
     RETURN NULL;
   END $$`,
  `CREATE TRIGGER accounts_latest_scan_insert AFTER INSERT ON scans FOR EACH ROW WHEN (NEW.status = 'completed')
     EXECUTE FUNCTION accounts_note_latest_scan()`,
  `CREATE TRIGGER accounts_latest_scan_update AFTER UPDATE OF status ON scans FOR EACH ROW
     WHEN (NEW.status = 'completed' AND OLD.status IS DISTINCT FROM 'completed') EXECUTE FUNCTION accounts_note_latest_scan()`,
  `CREATE TRIGGER accounts_latest_scan_delete AFTER DELETE ON scans FOR EACH ROW WHEN (OLD.status = 'completed')
     EXECUTE FUNCTION accounts_note_latest_scan()`,
  `UPDATE accounts a SET latest_scan_id = (
     SELECT s.id FROM scans s WHERE s.workspace_id = a.workspace_id AND s.account_id = a.id AND s.status = 'completed'
     ORDER BY s.scan_start DESC, s.id DESC LIMIT 1)`,

  ...TABLES.flatMap((table) => [
    `ALTER TABLE ${table} ENABLE ROW LEVEL SECURITY`,
    `ALTER TABLE ${table} FORCE ROW LEVEL SECURITY`,
    `CREATE POLICY ${table}_scope ON ${table} FOR ALL USING (workspace_id = app_current_workspace_id())
       WITH CHECK (workspace_id = app_current_workspace_id())`,
    ...([["insert", "NEW TABLE AS new_rows"], ["update", "NEW TABLE AS new_rows"], ["delete", "OLD TABLE AS old_rows"]] as const).map(
      ([event, referencing]) => `CREATE TRIGGER ${table}_note_${event} AFTER ${event.toUpperCase()} ON ${table}
         REFERENCING ${referencing} FOR EACH STATEMENT EXECUTE FUNCTION note_workspace_change()`,
    ),
    `CREATE TRIGGER ${table}_note_truncate AFTER TRUNCATE ON ${table} FOR EACH STATEMENT EXECUTE FUNCTION note_workspace_change()`,
  ]),
  `CREATE POLICY organizations_ticker ON organizations FOR SELECT USING (app_system_scope() = 'posture-ticker')`,
  `CREATE POLICY fleet_scans_sweeper ON fleet_scans FOR SELECT USING (app_system_scope() = 'scan-sweeper')`,
  `GRANT SELECT, INSERT, UPDATE, DELETE ON ${TABLES.join(", ")} TO cloud_audit_app`,
  `GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO cloud_audit_app`,
]

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  for (const statement of statements) yield* sql.unsafe(statement)
})
