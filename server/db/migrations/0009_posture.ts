/**
 * Continuous posture (issue 13): mute rules, scan schedules and scope, and the per-scan digest email.
 *
 * Mute rules (`mute_rules`): an accepted risk, with a reason and an optional expiry, scoped by any combination of an
 * account, a check, a resource pattern (`resource_pattern`, a glob with `*` and `?`, stored alongside as the LIKE
 * pattern `resource_like` the matcher uses) and a tag (`tag_key`, optional `tag_value`, matched against a row's
 * `tags` field). At least one of them is set. The matcher (server/posture/mutes.ts) writes the lowest matching active
 * rule's id into `results.muted_by` of every failing row, for every scan of the workspace, when a rule is created,
 * changed, deleted or expires and when a service's rows are written; findings count their muted failing rows
 * (`resources_muted`) and say whether every failing row still open is muted (`muted`); services and scans count the
 * fully muted failing findings apart (`muted_findings`), and `failed_findings` no longer counts them.
 * `expiry_applied` marks an expired rule whose rows have been unmuted (the posture ticker does it once).
 *
 * Schedules (`scan_schedules`, one per account): off, daily, weekly or monthly at a wall-clock time in an IANA time
 * zone; `next_run_at` (UTC) is the next due slot. The ticker claims due rows with `FOR UPDATE SKIP LOCKED`, launches
 * one scan and advances `next_run_at` past now in the same transaction: one scan per due slot whatever the number of
 * workers, and a slot missed while everything was down runs once. `regions` / `services` are the account's default
 * scope (NULL: everything enabled); a scan records the scope it ran with (`scans.scope_regions`, `scope_services`,
 * NULL: all) and how it was started (`scans.trigger`).
 *
 * Digest: `users.scan_digest` opts a member in; `scans.digest_enqueued_at` makes the digest job of a scan happen once.
 *
 * Read-only system policies let the ticker list due schedules, expired rules and undigested completed scans across
 * workspaces (`app.system_scope = 'posture-ticker'`); it then works in each workspace's own scope.
 *
 * Frozen once released.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

const statements = [
  `CREATE TABLE mute_rules (
     id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
     workspace_id integer NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
     account_id integer,
     check_id text CHECK (length(check_id) BETWEEN 1 AND 128),
     resource_pattern text CHECK (length(resource_pattern) BETWEEN 1 AND 512),
     resource_like text,
     tag_key text CHECK (length(tag_key) BETWEEN 1 AND 128),
     tag_value text CHECK (length(tag_value) <= 256),
     reason text NOT NULL CHECK (length(reason) BETWEEN 1 AND 500),
     expires_at timestamptz,
     expiry_applied boolean NOT NULL DEFAULT false,
     created_by integer REFERENCES users (id) ON DELETE SET NULL,
     updated_by integer REFERENCES users (id) ON DELETE SET NULL,
     created_at timestamptz NOT NULL DEFAULT now(),
     updated_at timestamptz NOT NULL DEFAULT now(),
     CHECK (account_id IS NOT NULL OR check_id IS NOT NULL OR resource_pattern IS NOT NULL OR tag_key IS NOT NULL),
     CHECK ((resource_pattern IS NULL) = (resource_like IS NULL)),
     CHECK (tag_value IS NULL OR tag_key IS NOT NULL),
     FOREIGN KEY (account_id, workspace_id) REFERENCES accounts (id, workspace_id) ON DELETE CASCADE
   )`,
  `CREATE INDEX mute_rules_workspace_idx ON mute_rules (workspace_id, id)`,
  `CREATE INDEX mute_rules_expiry_idx ON mute_rules (expires_at) WHERE expires_at IS NOT NULL AND NOT expiry_applied`,

  `ALTER TABLE results ADD COLUMN muted_by integer`,
  `ALTER TABLE findings
     ADD COLUMN resources_muted integer NOT NULL DEFAULT 0 CHECK (resources_muted >= 0),
     ADD COLUMN muted boolean NOT NULL DEFAULT false`,
  `ALTER TABLE scan_services ADD COLUMN muted_findings integer NOT NULL DEFAULT 0 CHECK (muted_findings >= 0)`,
  `ALTER TABLE scans
     ADD COLUMN muted_findings integer NOT NULL DEFAULT 0 CHECK (muted_findings >= 0),
     ADD COLUMN scope_regions text[],
     ADD COLUMN scope_services text[],
     ADD COLUMN trigger text NOT NULL DEFAULT 'manual' CHECK (trigger IN ('manual', 'schedule')),
     ADD COLUMN digest_enqueued_at timestamptz`,

  `CREATE TABLE scan_schedules (
     account_id integer PRIMARY KEY,
     workspace_id integer NOT NULL,
     frequency text NOT NULL DEFAULT 'off' CHECK (frequency IN ('off', 'daily', 'weekly', 'monthly')),
     time_of_day text NOT NULL DEFAULT '02:00' CHECK (time_of_day ~ '^([01][0-9]|2[0-3]):[0-5][0-9]$'),
     weekday smallint NOT NULL DEFAULT 1 CHECK (weekday BETWEEN 0 AND 6),
     day_of_month smallint NOT NULL DEFAULT 1 CHECK (day_of_month BETWEEN 1 AND 31),
     timezone text NOT NULL DEFAULT 'UTC',
     regions text[],
     services text[],
     next_run_at timestamptz,
     last_run_at timestamptz,
     last_scan_id integer,
     last_error text,
     created_by integer REFERENCES users (id) ON DELETE SET NULL,
     updated_by integer REFERENCES users (id) ON DELETE SET NULL,
     updated_at timestamptz NOT NULL DEFAULT now(),
     CHECK ((frequency = 'off') = (next_run_at IS NULL)),
     FOREIGN KEY (account_id, workspace_id) REFERENCES accounts (id, workspace_id) ON DELETE CASCADE
   )`,
  `CREATE INDEX scan_schedules_due_idx ON scan_schedules (next_run_at) WHERE next_run_at IS NOT NULL`,

  `ALTER TABLE users ADD COLUMN scan_digest boolean NOT NULL DEFAULT false`,

  ...["mute_rules", "scan_schedules"].flatMap((table) => [
    `ALTER TABLE ${table} ENABLE ROW LEVEL SECURITY`,
    `ALTER TABLE ${table} FORCE ROW LEVEL SECURITY`,
    `CREATE POLICY ${table}_scope ON ${table} FOR ALL USING (workspace_id = app_current_workspace_id())
       WITH CHECK (workspace_id = app_current_workspace_id())`,
    `CREATE POLICY ${table}_ticker ON ${table} FOR SELECT USING (app_system_scope() = 'posture-ticker')`,
  ]),
  `CREATE POLICY scans_posture_ticker ON scans FOR SELECT USING (app_system_scope() = 'posture-ticker')`,
  `CREATE INDEX scans_digest_idx ON scans (scan_end) WHERE status = 'completed' AND digest_enqueued_at IS NULL`,
  `GRANT SELECT, INSERT, UPDATE, DELETE ON mute_rules, scan_schedules TO cloud_audit_app`,
  `GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO cloud_audit_app`,
]

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  for (const statement of statements) yield* sql.unsafe(statement)
})
